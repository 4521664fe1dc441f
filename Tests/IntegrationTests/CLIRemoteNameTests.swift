import Foundation
import Testing
import HTTPDNS
import TestSupport

/// `httpdns fetch -O`, run in a directory of its own as the current directory.
@Suite("httpdns fetch -O", .serialized)
struct CLIRemoteNameTests {
    let fixture: Fixture
    let binary = PackagePaths.builtProduct("httpdns")

    init() throws { fixture = try Fixture() }

    /// Runs `httpdns fetch ARGUMENTS` with `directory` as its current directory.
    func fetch(in directory: URL, _ arguments: [String]) async throws -> CommandResult {
        try await Command.runDetached(
            URL(fileURLWithPath: "/bin/sh"), ["-c", #"cd "$0" && exec "$@""#, directory.path, binary.path, "fetch"] + arguments,
            timeout: 60)
    }

    func contents(of directory: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
    }

    @Test("-O writes the body to the current directory under the URL's last path segment, nothing to stdout")
    func writesUnderTheRemoteName() async throws {
        let directory = try fixture.scratchDirectory("remote-name")
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await fetch(in: directory, ["-O", fixture.url("a.test", "/large").absoluteString] + fixture.dohOptions)
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(result.stdout.isEmpty)
        #expect(try contents(of: directory) == ["large"])
        #expect(try Data(contentsOf: directory.appendingPathComponent("large")) == Data(contentsOf: fixture.servers.largeFile))
    }

    @Test("-O keeps the segment's percent-encoding and drops the query, as curl 7.88; an existing file is replaced")
    func keepsPercentEncoding() async throws {
        let directory = try fixture.scratchDirectory("remote-name")
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data("old".utf8).write(to: directory.appendingPathComponent("a%20b"))
        let url = fixture.url("a.test", "/status/a%20b").absoluteString + "?x=1/2"
        let result = try await fetch(in: directory, ["--remote-name", url] + fixture.dohOptions)
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(try contents(of: directory) == ["a%20b"])
        #expect(try String(contentsOf: directory.appendingPathComponent("a%20b"), encoding: .utf8).contains("404 Not Found"))
    }

    @Test(
        "-O with a URL that names no file exits 23 before any traffic and writes nothing",
        arguments: ["/", "/status/", "/status/.."])
    func noRemoteName(path: String) async throws {
        let directory = try fixture.scratchDirectory("remote-name")
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await fetch(in: directory, ["-O", fixture.url("a.test", path).absoluteString] + fixture.dohOptions)
        #expect(result.status == 23, "\(result.stderrText)")
        #expect(result.stderrText.contains("remote file name has no length"), "\(result.stderrText)")
        #expect(try contents(of: directory).isEmpty)
    }

    @Test("-O onto a directory of the URL's file name exits 23, as curl's write failure, before any traffic")
    func ontoDirectoryIsWriteFailure() async throws {
        let directory = try fixture.scratchDirectory("remote-name")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("large"), withIntermediateDirectories: false)
        let result = try await fetch(in: directory, ["-O", fixture.url("a.test", "/large").absoluteString] + fixture.dohOptions)
        #expect(result.status == 23, "\(result.stderrText)")
        #expect(result.stderrText == "httpdns: -O: cannot write './large': Is a directory (see 'httpdns help fetch')\n")
        #expect(try contents(of: directory) == ["large"])
    }

    @Test("-O with -o exits 2")
    func withOutputIsRefused() async throws {
        let directory = try fixture.scratchDirectory("remote-name")
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await fetch(in: directory, ["-O", "-o", "x", fixture.url("a.test", "/large").absoluteString] + fixture.dohOptions)
        #expect(result.status == 2, "\(result.stderrText)")
        #expect(try contents(of: directory).isEmpty)
    }

    @Test(
        "-O of a body cut short (exit 18) leaves no partial file, and a file of that name as it was",
        arguments: [false, true])
    func noPartialFile(existing: Bool) async throws {
        let server = try await ProviderTestServer.shared()
        let directory = try fixture.scratchDirectory("remote-name")
        defer { try? FileManager.default.removeItem(at: directory) }
        if existing { try Data("old".utf8).write(to: directory.appendingPathComponent("truncate")) }
        let result = try await fetch(
            in: directory,
            [
                "-O", server.url("/fault/truncate").absoluteString,
                "--resolve", "dns.test:\(server.port):127.0.0.1", "--cacert", fixture.servers.caCertificate.path
            ])
        #expect(result.status == 18, "\(result.stderrText)")
        #expect(try contents(of: directory) == (existing ? ["truncate"] : []))
        if existing { #expect(try String(contentsOf: directory.appendingPathComponent("truncate"), encoding: .utf8) == "old") }
    }
}
