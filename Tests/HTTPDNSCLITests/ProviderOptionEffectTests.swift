import Foundation
import Testing
@testable import HTTPDNSCLI

/// The provider-specific options given with a provider that does not take them: each is warned
/// about once, and the command goes on.
@Suite("provider options that do not apply")
struct ProviderOptionEffectTests {
    func options(_ arguments: [String]) throws -> ProviderOptions {
        try ProviderOptions(ResolveCommand.parser.parse(arguments + ["a.test"]), command: "resolve")
    }

    @Test(
        "each option a provider does not take is named once, with the provider",
        arguments: [
            ([], []),
            (["--account-id", "1", "--account-id", "2"], ["--account-id has no effect with --provider doh"]),
            (["--provider", "json", "--secret", "s", "--key-id", "7"], ["--secret has no effect with --provider json", "--key-id has no effect with --provider json"]),
            (["--provider", "httpdns-ali", "--account-id", "1", "--key-id", "7"], ["--key-id has no effect with --provider httpdns-ali"]),
            (["--provider", "httpdns-dnspod", "--account-id", "1"], ["--account-id has no effect with --provider httpdns-dnspod"]),
            (["--provider", "httpdns-dnspod", "--key-id", "7", "--secret", "12345678"], []),
            (["--provider", "httpdns-ali-v2", "--account-id", "1", "--secret", "00"], [])
        ] as [([String], [String])])
    func noEffect(arguments: [String], warnings: [String]) throws {
        #expect(try options(arguments).noEffect == warnings)
    }

    @Test("--secret-file with doh is read as ever (a file that cannot be read is still refused) and then warned about")
    func secretFileWithDoH() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("httpdns-secret-\(UUID().uuidString)")
        try Data("s3cret\n".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        #expect(try options(["--secret-file", file.path]).noEffect == ["--secret-file has no effect with --provider doh"])
        #expect(throws: UsageError.self) { try options(["--secret-file", file.path + ".missing"]) }
    }

    @Test(
        "a secret file's final CRLF is dropped as a final LF is; a CRLF inside is two lines",
        arguments: [("s3cret\r\n", "s3cret"), ("s3cret\n", "s3cret"), ("s3cret\r", "s3cret"), ("s3cret", "s3cret")])
    func secretFileLineEnds(content: String, secret: String) throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("httpdns-secret-\(UUID().uuidString)")
        try Data(content.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        #expect(try options(["--provider", "httpdns-ali", "--account-id", "1", "--secret-file", file.path]).secret?.value == secret)
        try Data("a\r\nb\r\n".utf8).write(to: file)
        #expect(throws: UsageError.self) { try options(["--provider", "httpdns-ali", "--account-id", "1", "--secret-file", file.path]) }
    }

    @Test("the warnings go to stderr as httpdns: warning: LINE")
    func consoleWarning() throws {
        let output = LockedOutput()
        output.console.warnOfOptionsWithoutEffect(try options(["--provider", "json", "--account-id", "1"]))
        #expect(output.errorText == "httpdns: warning: --account-id has no effect with --provider json\n")
        #expect(output.text.isEmpty)
    }
}
