import Foundation
#if canImport(Glibc)
    import Glibc
#endif
import Testing
import HTTPDNS
import TestSupport

/// `fetch -o` as an unprivileged user (uid and gid 65534, through util-linux's `setpriv`), where
/// file permissions apply: as root, which the rest of the suite runs as, every file is writable
/// and a rename is allowed anywhere, which hid these cases; and root writing through a link that
/// user left in a sticky directory. Dropping to that user, mounting a small tmpfs and giving a link
/// away need root: without it (or without `setpriv`) these tests fail, they never skip.
@Suite("fetch -o as an unprivileged user", .serialized)
struct CLIUnprivilegedOutputTests {
    static let user: uid_t = 65534
    static let group: gid_t = 65534
    /// Longer than the new body: a copy into the file that did not truncate it would leave its tail.
    static let oldBody = "an older body, longer than the new one\n"
    static let newBody = "vhost=b.test\n"

    let fixture: Fixture
    /// This test's own directory (0755, root's), removed after it: the copies below, and the
    /// targets each test makes.
    let sandbox: URL
    /// A copy of the built `httpdns` and of the test CA that the user may run and read, wherever
    /// the build directory and the servers' PKI are and whatever the umask.
    let binary: URL
    let caCertificate: URL
    /// `TMPDIR` for the command: the user's, and empty unless a temporary file was left behind.
    let temporary: URL

    init() async throws {
        fixture = try Fixture()
        try #require(geteuid() == 0, "these tests drop to uid 65534 with setpriv, which needs root")
        sandbox = try fixture.scratchDirectory("unprivileged")
        try #require(chmod(sandbox.path, 0o755) == 0)
        binary = sandbox.appendingPathComponent("httpdns")
        // A hard link, not a copy: while a copy is written, a child another test forks inherits its
        // write descriptor, and executing the copy then fails with ETXTBSY ("Text file busy").
        // A copy only where no link can be made (another file system).
        do {
            try FileManager.default.linkItem(at: PackagePaths.builtProduct("httpdns"), to: binary)
        } catch {
            try FileManager.default.copyItem(at: PackagePaths.builtProduct("httpdns"), to: binary)
        }
        try #require(chmod(binary.path, 0o755) == 0)
        caCertificate = sandbox.appendingPathComponent("ca.pem")
        try FileManager.default.copyItem(at: fixture.servers.caCertificate, to: caCertificate)
        try #require(chmod(caCertificate.path, 0o644) == 0)
        temporary = try Self.directory("tmp", in: sandbox, mode: 0o700, owner: Self.user)
        // The command really runs as that user, and can run at all.
        let identity = try await Command.runDetached(URL(fileURLWithPath: "/usr/bin/setpriv"), Self.dropPrivileges + ["/usr/bin/id", "-u"])
        try #require(
            identity.status == 0 && identity.stdoutText == "\(Self.user)\n",
            "setpriv could not drop to uid \(Self.user): \(identity.stdoutText)\(identity.stderrText)")
        let version = try await asUser(["--version"])
        try #require(version.status == 0, "uid \(Self.user) cannot run \(binary.path): \(version.stderrText)")
    }

    static let dropPrivileges = ["--reuid=\(user)", "--regid=\(group)", "--clear-groups", "--"]

    /// Runs the copied `httpdns` with `arguments` as the unprivileged user, `TMPDIR` its own
    /// unless `temporaryDirectory` says otherwise.
    func asUser(_ arguments: [String], temporaryDirectory: String? = nil) async throws -> CommandResult {
        try await Command.runDetached(
            URL(fileURLWithPath: "/usr/bin/setpriv"), Self.dropPrivileges + [binary.path] + arguments,
            environment: ["TMPDIR": temporaryDirectory ?? temporary.path], timeout: 60)
    }

    /// Runs `command` as root (this process's user), failing the test unless it exits 0.
    static func runAsRoot(_ command: String, _ arguments: [String]) async throws {
        let result = try await Command.runDetached(URL(fileURLWithPath: command), arguments)
        try #require(result.status == 0, "\(command) \(arguments.joined(separator: " ")): \(result.stderrText)")
    }

    /// A fetch of b.test from the suite's nginx, its name resolved over the suite's DoH server.
    var fetchOptions: [String] {
        [
            fixture.url("b.test").absoluteString, "--doh-url", fixture.servers.dohURL.absoluteString,
            "--resolve", "dns.test:\(fixture.servers.dohPort):127.0.0.1", "--cacert", caCertificate.path
        ]
    }

    /// A new directory `name` in `parent` with `mode` and `owner` (root's group).
    static func directory(_ name: String, in parent: URL, mode: mode_t, owner: uid_t = 0) throws -> URL {
        let directory = parent.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
        try #require(chown(directory.path, owner, owner == 0 ? 0 : group) == 0)
        try #require(chmod(directory.path, mode) == 0)
        return directory
    }

    /// A new file `name` in `directory` holding `oldBody`, with `mode`, owned by `owner` (and its group).
    static func file(_ name: String, in directory: URL, mode: mode_t, owner: uid_t) throws -> URL {
        let file = directory.appendingPathComponent(name)
        try Data(oldBody.utf8).write(to: file)
        try #require(chown(file.path, owner, owner == 0 ? 0 : group) == 0)
        try #require(chmod(file.path, mode) == 0)
        return file
    }

    static func status(of path: String) throws -> stat {
        var info = stat()
        try #require(stat(path, &info) == 0, "stat \(path): \(String(cString: strerror(errno)))")
        return info
    }

    static func contents(_ directory: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
    }

    @Test("a cache file in a directory the user may not write is read, its answers in the main file, with a warning that new ones are not saved")
    func cacheFileInUnwritableDirectory() async throws {
        defer { try? FileManager.default.removeItem(at: sandbox) }
        let made = try Self.directory("made", in: sandbox, mode: 0o755)
        let directory = try Self.directory("cache", in: sandbox, mode: 0o755)
        let file = directory.appendingPathComponent("cache.sqlite")
        // Filled by root and shipped alone, as a deployment would: the answers must be in the main
        // file, and there is no -wal or -shm beside it, which the user could not make.
        let filled = try await fixture.httpdns(
            ["resolve", "--type", "A", "--cache-file", made.appendingPathComponent("cache.sqlite").path, "a.test"]
                + fixture.dohOptions)
        try #require(filled.status == 0, "\(filled.stderrText)")
        try FileManager.default.copyItem(at: made.appendingPathComponent("cache.sqlite"), to: file)
        try #require(chmod(file.path, 0o644) == 0)
        // An endpoint that refuses: only the file can answer.
        let refused = try FreePort.tcp()
        let result = try await asUser([
            "resolve", "--type", "A", "--no-fallback", "--cache-file", file.path, "a.test",
            "--doh-url", "https://dns.test:\(refused)/dns-query", "--resolve", "dns.test:\(refused):127.0.0.1",
            "--cacert", caCertificate.path
        ])
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(result.stdoutText.hasPrefix("a.test 127.0.0.1 ttl="), "\(result.stdoutText)")
        #expect(result.stdoutText.hasSuffix(" source=cache\n"), "\(result.stdoutText)")
        #expect(result.stderrText.contains("new ones are not saved"), "\(result.stderrText)")
        #expect(result.stderrText.hasPrefix("httpdns: warning: --cache-file: the cache file \(file.path) "), "\(result.stderrText)")
    }

    @Test("-o /dev/null writes into the device, as curl, though /dev is not writable", arguments: [[], ["-i"]])
    func devNull(options: [String]) async throws {
        defer { try? FileManager.default.removeItem(at: sandbox) }
        let result = try await asUser(["fetch"] + options + ["-o", "/dev/null"] + fetchOptions)
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(result.stdout.isEmpty && result.stderr.isEmpty, "\(result.stdoutText)\(result.stderrText)")
        #expect(try Self.status(of: "/dev/null").st_mode & S_IFMT == S_IFCHR)
        #expect(try Self.contents(temporary).isEmpty)
    }

    @Test(
        "an existing file the user may not write is refused before any traffic with 23, as curl, and left as it was, though its directory allows a rename",
        arguments: [[], ["-i"]])
    func readOnlyFileIsRefused(options: [String]) async throws {
        defer { try? FileManager.default.removeItem(at: sandbox) }
        let directory = try Self.directory("out", in: sandbox, mode: 0o755, owner: Self.user)
        let file = try Self.file("ro.txt", in: directory, mode: 0o444, owner: Self.user)
        let before = try Self.status(of: file.path)
        // Nothing listens for DoH or the target: any traffic tried first would fail with 6 or 7.
        let dead = try FreePort.tcp()
        let result = try await asUser(
            ["fetch"] + options + [
                "-o", file.path, "https://b.test:\(dead)/", "--doh-url", "https://dns.test:\(dead)/dns-query",
                "--resolve", "dns.test:\(dead):127.0.0.1", "--no-fallback", "--cacert", caCertificate.path
            ])
        #expect(result.status == 23, "\(result.stderrText)")
        #expect(result.stderrText == "httpdns: -o: cannot write '\(file.path)': Permission denied\n", "\(result.stderrText)")
        // With the servers up, as curl: 23, the file not replaced.
        let live = try await asUser(["fetch"] + options + ["-o", file.path] + fetchOptions)
        #expect(live.status == 23, "\(live.stderrText)")
        #expect(try String(contentsOf: file, encoding: .utf8) == Self.oldBody)
        let after = try Self.status(of: file.path)
        #expect(after.st_ino == before.st_ino && after.st_mode == before.st_mode)
        #expect(after.st_mtim.tv_sec == before.st_mtim.tv_sec && after.st_mtim.tv_nsec == before.st_mtim.tv_nsec)
        #expect(try Self.contents(directory) == ["ro.txt"])
    }

    @Test(
        "a new file in a directory the user may not write, or one that does not exist, is refused before any traffic with 23, as curl, and nothing is created",
        arguments: [true, false])
    func newFileWhereNoneCanBeCreated(directoryExists: Bool) async throws {
        defer { try? FileManager.default.removeItem(at: sandbox) }
        let parent = try Self.directory("parent", in: sandbox, mode: 0o777, owner: Self.user)
        let directory = directoryExists ? try Self.directory("out", in: parent, mode: 0o755) : parent.appendingPathComponent("missing")
        let dead = try FreePort.tcp()
        let result = try await asUser([
            "fetch", "-o", directory.appendingPathComponent("new.txt").path, "https://b.test:\(dead)/",
            "--doh-url", "https://dns.test:\(dead)/dns-query", "--resolve", "dns.test:\(dead):127.0.0.1",
            "--no-fallback", "--cacert", caCertificate.path
        ])
        #expect(result.status == 23, "\(result.stderrText)")
        let reason = directoryExists ? "Permission denied" : "No such file or directory"
        let file = directory.appendingPathComponent("new.txt").path
        #expect(result.stderrText == "httpdns: -o: cannot write '\(file)': \(reason)\n", "\(result.stderrText)")
        #expect(try Self.contents(parent) == (directoryExists ? ["out"] : []))
        if directoryExists { #expect(try Self.contents(directory).isEmpty) }
    }

    @Test(
        "a writable file in a directory the user may not write is written in place, its inode, mode and owner kept; the body waits in TMPDIR",
        arguments: [[], ["-i"]])
    func writableFileInReadOnlyDirectory(options: [String]) async throws {
        defer { try? FileManager.default.removeItem(at: sandbox) }
        let directory = try Self.directory("out", in: sandbox, mode: 0o755)
        let file = try Self.file("f.txt", in: directory, mode: 0o640, owner: Self.user)
        let before = try Self.status(of: file.path)
        let result = try await asUser(["fetch"] + options + ["-o", file.path] + fetchOptions)
        #expect(result.status == 0, "\(result.stderrText)")
        let written = try String(contentsOf: file, encoding: .utf8)
        #expect(options.isEmpty ? written == Self.newBody : written.hasPrefix("HTTP/2 200\r\n") && written.hasSuffix("\r\n\r\n" + Self.newBody), "\(written)")
        let after = try Self.status(of: file.path)
        #expect(after.st_ino == before.st_ino)
        #expect(after.st_mode == before.st_mode && after.st_uid == Self.user && after.st_gid == Self.group)
        #expect(try Self.contents(directory) == ["f.txt"])
        #expect(try Self.contents(temporary).isEmpty)
    }

    @Test("a file with two hard links is written in place: both links see the new body")
    func hardLinksSeeTheNewBody() async throws {
        defer { try? FileManager.default.removeItem(at: sandbox) }
        // The user's own file in the user's own directory: only the second link rules out a rename.
        let directory = try Self.directory("out", in: sandbox, mode: 0o755, owner: Self.user)
        let file = try Self.file("a.txt", in: directory, mode: 0o644, owner: Self.user)
        let other = directory.appendingPathComponent("b.txt")
        try #require(link(file.path, other.path) == 0)
        let before = try Self.status(of: file.path)
        let result = try await asUser(["fetch", "-o", file.path] + fetchOptions)
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(try String(contentsOf: file, encoding: .utf8) == Self.newBody)
        #expect(try String(contentsOf: other, encoding: .utf8) == Self.newBody)
        let after = try Self.status(of: file.path)
        #expect(after.st_ino == before.st_ino && after.st_nlink == 2)
        #expect(try Self.contents(directory) == ["a.txt", "b.txt"])
    }

    @Test(
        "another user's file that the user may write is written in place, its owner kept: in the user's directory, and in a sticky one (as /tmp), which refuses a rename over it",
        arguments: [(0o755, CLIUnprivilegedOutputTests.user), (0o1777, 0)] as [(mode_t, uid_t)])
    func otherOwnersFileKeepsItsOwner(directoryMode: mode_t, directoryOwner: uid_t) async throws {
        defer { try? FileManager.default.removeItem(at: sandbox) }
        let directory = try Self.directory("out", in: sandbox, mode: directoryMode, owner: directoryOwner)
        let file = try Self.file("shared.txt", in: directory, mode: 0o666, owner: 0)
        let before = try Self.status(of: file.path)
        let result = try await asUser(["fetch", "-o", file.path] + fetchOptions)
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(try String(contentsOf: file, encoding: .utf8) == Self.newBody)
        let after = try Self.status(of: file.path)
        #expect(after.st_ino == before.st_ino && after.st_uid == 0 && after.st_mode == before.st_mode)
        #expect(try Self.contents(directory) == ["shared.txt"])
    }

    /// The kinds of `-o` target, each written its own way (see `OutputFile`).
    enum Target: String, CaseIterable, Sendable {
        case newFile, ownFile, readOnlyDirectory, hardLinks, otherOwner
    }

    @Test(
        "a transfer cut short (the server closes mid-body: 18) leaves every kind of target as it was, and no temporary file",
        arguments: Target.allCases, [[], ["-i"]])
    func failedTransferLeavesTargetUnchanged(target: Target, options: [String]) async throws {
        defer { try? FileManager.default.removeItem(at: sandbox) }
        let directory = try Self.directory(
            "out", in: sandbox, mode: target == .readOnlyDirectory ? 0o755 : 0o777,
            owner: target == .readOnlyDirectory ? 0 : Self.user)
        let file: URL
        switch target {
        case .newFile:
            file = directory.appendingPathComponent("new.txt")
        case .ownFile, .readOnlyDirectory:
            file = try Self.file("out.txt", in: directory, mode: 0o644, owner: Self.user)
        case .hardLinks:
            file = try Self.file("out.txt", in: directory, mode: 0o644, owner: Self.user)
            try #require(link(file.path, directory.appendingPathComponent("link.txt").path) == 0)
        case .otherOwner:
            file = try Self.file("out.txt", in: directory, mode: 0o666, owner: 0)
        }
        let listing = try Self.contents(directory)
        let inode = target == .newFile ? nil : try Self.status(of: file.path).st_ino
        let server = try await ProviderTestServer.shared()
        let result = try await asUser(
            ["fetch"] + options + [
                "-o", file.path, server.url("/fault/truncate").absoluteString,
                "--resolve", "dns.test:\(server.port):127.0.0.1", "--cacert", caCertificate.path
            ])
        #expect(result.status == 18, "\(result.stderrText)")
        #expect(try Self.contents(directory) == listing)
        #expect(try Self.contents(temporary).isEmpty)
        if let inode {
            #expect(try Self.status(of: file.path).st_ino == inode)
            for name in listing {
                #expect(try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8) == Self.oldBody, "\(name)")
            }
        }
    }

    @Test("a copy into the file that fails (its file system full) exits 23, keeps the temporary file with the complete body and names it; the file holds the new body's start")
    func failedCopyKeepsTheCompleteBody() async throws {
        defer { try? FileManager.default.removeItem(at: sandbox) }
        // A 1 MiB file system for the target; the 16 MiB body waits in TMPDIR, on the disk.
        let small = try Self.directory("small", in: sandbox, mode: 0o755)
        try await Self.runAsRoot("/bin/mount", ["-t", "tmpfs", "-o", "size=1m,mode=0755", "tmpfs", small.path])
        defer { _ = try? Command.run(URL(fileURLWithPath: "/bin/umount"), [small.path]) }
        // A root directory the user may not write: the copy case, its temporary file in TMPDIR.
        let directory = try Self.directory("out", in: small, mode: 0o755)
        let file = try Self.file("f.txt", in: directory, mode: 0o644, owner: Self.user)
        let inode = try Self.status(of: file.path).st_ino
        let result = try await asUser([
            "fetch", "-o", file.path, fixture.url("a.test", "/large").absoluteString, "--doh-url", fixture.servers.dohURL.absoluteString,
            "--resolve", "dns.test:\(fixture.servers.dohPort):127.0.0.1", "--cacert", caCertificate.path
        ])
        #expect(result.status == 23, "\(result.stderrText)")
        let kept = try Self.contents(temporary)
        try #require(kept.count == 1, "\(kept) \(result.stderrText)")
        let staging = temporary.appendingPathComponent(kept[0])
        #expect(
            result.stderrText == "httpdns: -o: cannot write '\(file.path)': No space left on device; it holds the new body's start, and the complete body is in '\(staging.path)'\n",
            "\(result.stderrText)")
        let body = try Data(contentsOf: fixture.servers.largeFile)
        #expect(try Data(contentsOf: staging) == body)
        // The file, its inode kept, holds the new body's first bytes, as many as fitted: written
        // over the old body (shorter than that), never truncated to nothing first.
        let written = try Data(contentsOf: file)
        #expect(written.count > Self.oldBody.utf8.count && written.count < body.count, "\(written.count)")
        #expect(written == body.prefix(written.count))
        #expect(try Self.status(of: file.path).st_ino == inode)
        #expect(try Self.contents(directory) == ["f.txt"])
    }

    @Test("with TMPDIR unusable, a file that needs a temporary file elsewhere gets it in /tmp")
    func unusableTemporaryDirectoryFallsBackToTmp() async throws {
        defer { try? FileManager.default.removeItem(at: sandbox) }
        let directory = try Self.directory("out", in: sandbox, mode: 0o755)
        let file = try Self.file("f.txt", in: directory, mode: 0o644, owner: Self.user)
        for unusable in ["/nonexistent", directory.path] {
            try Data(Self.oldBody.utf8).write(to: file)
            let result = try await asUser(["fetch", "-o", file.path] + fetchOptions, temporaryDirectory: unusable)
            #expect(result.status == 0, "TMPDIR=\(unusable): \(result.stderrText)")
            #expect(try String(contentsOf: file, encoding: .utf8) == Self.newBody, "TMPDIR=\(unusable)")
            #expect(try Self.contents(directory) == ["f.txt"])
        }
    }

    /// Where the link that `-o` names leads in `symlinkIsRefused`.
    enum LinkPlace: String, CaseIterable, Sendable {
        /// `-o sticky/link`, the link leading to the file.
        case finalComponent
        /// `-o sticky/link/secret`, the link leading to the file's directory.
        case directoryOnTheWay
    }

    @Test(
        "as root, a link in a sticky world-writable directory owned by another user is not followed (23 before any traffic, the target left alone), as the kernel's protected_symlinks; root's own link there is",
        arguments: LinkPlace.allCases)
    func symlinkIsRefused(place: LinkPlace) async throws {
        defer { try? FileManager.default.removeItem(at: sandbox) }
        let sticky = try Self.directory("sticky", in: sandbox, mode: 0o1777)
        let private_ = try Self.directory("private", in: sandbox, mode: 0o700)
        let secret = try Self.file("secret", in: private_, mode: 0o600, owner: 0)
        let before = try Self.status(of: secret.path)
        let destination = place == .finalComponent ? secret.path : private_.path
        func link(owner: uid_t) throws -> String {
            let link = sticky.appendingPathComponent("link-\(owner)").path
            try #require(symlink(destination, link) == 0)
            try #require(lchown(link, owner, owner == 0 ? 0 : Self.group) == 0)
            return place == .finalComponent ? link : link + "/secret"
        }
        let refused = try link(owner: Self.user)
        let dead = try FreePort.tcp()
        let result = try await Command.runDetached(
            binary,
            [
                "fetch", "-o", refused, "https://b.test:\(dead)/", "--doh-url", "https://dns.test:\(dead)/dns-query",
                "--resolve", "dns.test:\(dead):127.0.0.1", "--no-fallback", "--cacert", caCertificate.path
            ])
        #expect(result.status == 23, "\(result.stderrText)")
        #expect(
            result.stderrText == "httpdns: -o: cannot write '\(refused)': refusing to follow the symbolic link '\(sticky.path)/link-\(Self.user)': it is in a sticky, "
                + "world-writable directory and owned by neither uid 0 nor the directory's owner, as the kernel's protected_symlinks does\n", "\(result.stderrText)")
        // With the servers up, the same: the file is never written.
        let live = try await Command.runDetached(binary, ["fetch", "-o", refused] + fetchOptions)
        #expect(live.status == 23, "\(live.stderrText)")
        #expect(try String(contentsOf: secret, encoding: .utf8) == Self.oldBody)
        let after = try Self.status(of: secret.path)
        #expect(after.st_ino == before.st_ino && after.st_mtim.tv_sec == before.st_mtim.tv_sec && after.st_mtim.tv_nsec == before.st_mtim.tv_nsec)
        #expect(try Self.contents(private_) == ["secret"])
        // A link of root's own, which is also the directory's owner, is followed.
        let followed = try await Command.runDetached(binary, ["fetch", "-o", link(owner: 0)] + fetchOptions)
        #expect(followed.status == 0, "\(followed.stderrText)")
        #expect(try String(contentsOf: secret, encoding: .utf8) == Self.newBody)
    }

    @Test("a link in a sticky world-writable directory that the user owns is followed, though the directory is root's")
    func ownSymlinkInStickyDirectoryIsFollowed() async throws {
        defer { try? FileManager.default.removeItem(at: sandbox) }
        let sticky = try Self.directory("sticky", in: sandbox, mode: 0o1777)
        let directory = try Self.directory("out", in: sandbox, mode: 0o755, owner: Self.user)
        let file = try Self.file("f.txt", in: directory, mode: 0o644, owner: Self.user)
        let link = sticky.appendingPathComponent("link").path
        try #require(symlink(file.path, link) == 0 && lchown(link, Self.user, Self.group) == 0)
        let result = try await asUser(["fetch", "-o", link] + fetchOptions)
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(try String(contentsOf: file, encoding: .utf8) == Self.newBody)
        #expect(try Self.contents(sticky) == ["link"])
    }
}
