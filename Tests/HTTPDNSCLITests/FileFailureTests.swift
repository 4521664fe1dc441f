import Foundation
import Testing
import HTTPDNSCore
@testable import HTTPDNSCLI

/// Every file a command-line option names that cannot be read or written is refused in one shape:
/// `httpdns: OPTION: cannot read 'PATH': REASON` (or `cannot write`), the option as typed and
/// `strerror`'s text, before any traffic, with the status that option's file failure has.
@Suite("file options: one shape for every file that cannot be used")
struct FileFailureTests {
    /// A directory that does not exist, and one file in it.
    static let missingDirectory = "/nonexistent-httpdns-\(UUID().uuidString)"
    static let missing = missingDirectory + "/file"
    /// A directory that exists: reading it as a file fails with EISDIR.
    static let directory = FileManager.default.temporaryDirectory.path

    static func run(_ arguments: [String]) async -> (status: Int32, error: String) {
        let output = LockedOutput()
        let status = await HTTPDNSTool.run(arguments, console: output.console, environment: [:])
        return (status, output.errorText)
    }

    static let noFile = "No such file or directory"
    static let isDirectory = "Is a directory"

    @Test(
        "a file to read that is missing or a directory: OPTION: cannot read 'PATH': strerror, exit 2",
        arguments: [
            (["fetch", "--cacert", missing], "--cacert", missing, noFile),
            (["fetch", "--cacert", directory], "--cacert", directory, isDirectory),
            (["resolve", "--cacert", missing, "a.test"], "--cacert", missing, noFile),
            (["fetch", "--doh-cacert", missing], "--doh-cacert", missing, noFile),
            (["resolve", "--doh-cacert", directory, "a.test"], "--doh-cacert", directory, isDirectory),
            (["fetch", "--pinnedpubkey", missing], "--pinnedpubkey", missing, noFile),
            (["probe", "--pinnedpubkey", directory], "--pinnedpubkey", directory, isDirectory),
            (["fetch", "-E", missing], "-E", missing, noFile),
            (["fetch", "--cert", directory], "--cert", directory, isDirectory),
            (["fetch", "--cert=\(missing):secret"], "--cert", missing, noFile),
            (["fetch", "-d", "@" + missing], "-d", missing, noFile),
            (["fetch", "--data", "@" + directory], "--data", directory, isDirectory),
            (["fetch", "--data-binary", "@" + missing], "--data-binary", missing, noFile),
            (["fetch", "-w", "@" + missing], "-w", missing, noFile),
            (["fetch", "--write-out", "@" + directory], "--write-out", directory, isDirectory),
            (["fetch", "-b", directory], "-b", directory, isDirectory),
            (["fetch", "--cookie", directory], "--cookie", directory, isDirectory),
            (["resolve", "--provider", "httpdns-ali", "--account-id", "1", "--secret-file", missing, "a.test"], "--secret-file", missing, noFile),
            (["fetch", "--secret-file", directory], "--secret-file", directory, isDirectory)
        ])
    func unreadableFile(arguments: [String], option: String, path: String, reason: String) async {
        let command = arguments[0]
        let target = command == "resolve" ? [] : ["https://a.test/"]
        let result = await Self.run(arguments + target)
        #expect(result.status == 2, "\(arguments): \(result.error)")
        #expect(result.error == "httpdns: \(option): cannot read '\(path)': \(reason) (see 'httpdns help \(command)')\n", "\(arguments)")
    }

    @Test("--key that is missing is named with its option; so is a directory", arguments: [(missing, noFile), (directory, isDirectory)])
    func unreadableKey(path: String, reason: String) async throws {
        let certificate = FileManager.default.temporaryDirectory.appendingPathComponent("httpdns-cert-\(UUID().uuidString).pem")
        try Data("not read before --key is checked\n".utf8).write(to: certificate)
        defer { try? FileManager.default.removeItem(at: certificate) }
        let result = await Self.run(["fetch", "--cert", certificate.path, "--key", path, "https://a.test/"])
        #expect(result.status == 2)
        #expect(result.error == "httpdns: --key: cannot read '\(path)': \(reason) (see 'httpdns help fetch')\n")
    }

    @Test(
        "a file to write in a missing directory: OPTION: cannot write 'PATH': strerror, exit 23 as curl's",
        // -o is found writable or not once the plans are made (a write failure, not bad input: no
        // help hint); -c while they are made.
        arguments: [("-o", ""), ("--output", ""), ("-c", " (see 'httpdns help fetch')"), ("--cookie-jar", " (see 'httpdns help fetch')")])
    func unwritableFile(option: String, hint: String) async {
        let result = await Self.run(["fetch", option, Self.missing, "https://a.test/"])
        #expect(result.status == 23, "\(option): \(result.error)")
        #expect(result.error == "httpdns: \(option): cannot write '\(Self.missing)': \(Self.noFile)\(hint)\n", "\(option)")
    }

    @Test("an output file that is a directory: OPTION: cannot write 'PATH': Is a directory, exit 23", arguments: ["-o", "--output"])
    func outputDirectory(option: String) async {
        let result = await Self.run(["fetch", option, Self.directory, "https://a.test/"])
        #expect(result.status == 23)
        #expect(result.error == "httpdns: \(option): cannot write '\(Self.directory)': Is a directory (see 'httpdns help fetch')\n")
    }

    @Test("other option-value refusals name the option as typed too", arguments: [("-u", "-u"), ("--user", "--user"), ("-H", "-H"), ("--header", "--header")])
    func valueRefusalsUseTheSpelling(option: String, named: String) async {
        let value = option.hasPrefix("-u") || option == "--user" ? "tok3n" : "no colon"
        let result = await Self.run(["fetch", option, value, "https://a.test/"])
        #expect(result.status == 2)
        #expect(result.error.hasPrefix("httpdns: \(named)"), "\(result.error)")
    }

    @Test("standard input that cannot be read is named as such")
    func standardInputName() {
        #expect(OptionValue.refusal(FileFailure(.read, "-", reason: "it is closed"), option: "-d", command: "fetch").message == "-d: cannot read standard input: it is closed")
    }
}
