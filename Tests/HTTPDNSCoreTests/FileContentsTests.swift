import Foundation
#if canImport(Glibc)
    import Glibc
#endif
import HTTPDNSCore
import Testing

/// `FileContents` reads a pipe once and whole, up to a limit, and a regular file whole.
@Suite("Whole-file reads")
struct FileContentsTests {
    /// `/dev/fd/N` of a pipe holding `bytes`, its write end closed; the caller closes the read end.
    func pipe(holding bytes: Data) throws -> Int32 {
        var ends: [Int32] = [-1, -1]
        try #require(Glibc.pipe(&ends) == 0)
        let written = bytes.withUnsafeBytes { write(ends[1], $0.baseAddress, $0.count) }
        close(ends[1])
        try #require(written == bytes.count)
        return ends[0]
    }

    @Test("a pipe is read whole up to the limit; one byte more is refused, naming the limit")
    func pipeLimit() throws {
        let bytes = Data((0..<100).map { UInt8($0) })
        let exact = try pipe(holding: bytes)
        defer { close(exact) }
        #expect(try FileContents.read("/dev/fd/\(exact)", limit: 100) == bytes)
        let over = try pipe(holding: bytes + Data([0]))
        defer { close(over) }
        #expect(throws: FileFailure(.read, "/dev/fd/\(over)", reason: "it holds more than 100 bytes, the most read from a pipe or other file that is not a regular one")) {
            try FileContents.read("/dev/fd/\(over)", limit: 100)
        }
    }

    @Test("a regular file is read whole whatever the limit, and readUnlessRegular leaves it unread")
    func regularFile() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("httpdns-contents-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        let bytes = Data(repeating: 0x61, count: 200_000)
        try bytes.write(to: file)
        #expect(try FileContents.read(file.path, limit: 10) == bytes)
        #expect(try FileContents.readUnlessRegular(file.path, limit: 10) == nil)
        let piped = try pipe(holding: Data("abc".utf8))
        defer { close(piped) }
        #expect(try FileContents.readUnlessRegular("/dev/fd/\(piped)", limit: 10) == Data("abc".utf8))
    }

    @Test(
        "a missing file and a directory fail naming the path, with strerror's text",
        arguments: [("/nonexistent/file", "No such file or directory"), ("/tmp", "Is a directory")])
    func failures(path: String, reason: String) {
        #expect(throws: FileFailure(.read, path, reason: reason)) { try FileContents.read(path, limit: 10) }
        #expect(throws: FileFailure(.read, path, reason: reason)) { try FileContents.readUnlessRegular(path, limit: 10) }
        #expect(throws: FileFailure(.read, path, reason: reason)) { try FileFailure.checkReadable(path) }
        #expect(FileFailure(.read, path, reason: reason).description == "cannot read '\(path)': \(reason)")
    }

    @Test("standard input is named as such, for reading and for writing")
    func standardStreams() {
        #expect(FileFailure(.read, "-", reason: "it is closed").description == "cannot read standard input: it is closed")
        #expect(FileFailure(.write, "-", errno: ENOSPC).description == "cannot write standard output: No space left on device")
    }
}
