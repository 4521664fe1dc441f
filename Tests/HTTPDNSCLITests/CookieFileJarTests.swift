import Foundation
import Testing
@testable import HTTPDNSCLI

/// The `-b`/`-c` cookie jar: curl's Netscape file format and RFC 6265's matching, by host name.
@Suite("cookie jar: curl's file format, matched by host name")
struct CookieFileJarTests {
    static let fixed: @Sendable () -> Date = { Date(timeIntervalSince1970: 1_800_000_000) }

    @Test("a file curl wrote is read: host-only and domain cookies, HttpOnly, session and dated cookies, comments skipped")
    func readsCurlsFormat() throws {
        let text = """
            # Netscape HTTP Cookie File
            # https://curl.se/docs/http-cookies.html

            a.test\tFALSE\t/\tFALSE\t0\tsession\t1
            .b.test\tTRUE\t/path\tTRUE\t1900000000\tdated\tx y
            #HttpOnly_c.test\tFALSE\t/\tFALSE\t0\thidden\tz\r
            """
        let cookies = try CookieFileJar.parse(text, source: "jar")
        #expect(cookies.count == 3)
        #expect(cookies[0] == .init(domain: "a.test", includesSubdomains: false, path: "/", secure: false, httpOnly: false, expires: nil, name: "session", value: "1"))
        #expect(cookies[1] == .init(domain: "b.test", includesSubdomains: true, path: "/path", secure: true, httpOnly: false, expires: 1_900_000_000, name: "dated", value: "x y"))
        #expect(cookies[2].httpOnly && cookies[2].value == "z")
    }

    @Test("a file with Windows line ends (CRLF) reads as curl reads it: every line, the cookie intact")
    func crlfLines() throws {
        let text = "# Netscape HTTP Cookie File\r\na.test\tFALSE\t/\tFALSE\t0\tsite\ta.test\r\n.b.test\tTRUE\t/\tFALSE\t0\tother\t2\r\n"
        let cookies = try CookieFileJar.parse(text, source: "jar")
        #expect(cookies.map(\.name) == ["site", "other"])
        #expect(cookies.first?.value == "a.test")
        #expect(try CookieFileJar.parse("a.test\tFALSE\t/\tFALSE\t0\tone\t1\r\n", source: "jar").map(\.value) == ["1"])
    }

    @Test("what the jar writes reads back the same", arguments: [false, true])
    func roundTrip(subdomains: Bool) throws {
        let cookie = CookieFileJar.Cookie(
            domain: "a.test", includesSubdomains: subdomains, path: "/p", secure: true, httpOnly: true,
            expires: 1_900_000_000, name: "n", value: "v")
        let jar = CookieFileJar(cookies: [cookie], now: Self.fixed)
        #expect(try CookieFileJar.parse(jar.fileText(), source: "jar") == [cookie])
        #expect(jar.fileText().hasPrefix(CookieFileJar.header + "\n"))
    }

    @Test(
        "a line that is not a cookie is refused, naming the line",
        arguments: [
            "a.test\tFALSE\t/\tFALSE\t0", "a.test\tMAYBE\t/\tFALSE\t0\tn\tv", "a.test\tFALSE\t/\tFALSE\tsoon\tn\tv", "just text"
        ])
    func malformedLine(line: String) {
        #expect(throws: UsageError.self) { try CookieFileJar.parse("# comment\n" + line + "\n", source: "jar") }
        do {
            _ = try CookieFileJar.parse("# comment\n" + line + "\n", source: "jar")
        } catch {
            #expect(error.message.contains("line 2"), "\(error.message)")
        }
    }

    @Test("a cookie goes to its host name, and with Domain to the names under it, never to an address")
    func domainMatching() {
        let jar = CookieFileJar(now: Self.fixed)
        jar.storeCookies(["host=1", "wide=2; Domain=a.test"], from: URL(string: "https://a.test/")!)
        #expect(jar.cookieHeader(for: URL(string: "https://a.test/")!) == "host=1; wide=2")
        #expect(jar.cookieHeader(for: URL(string: "https://www.a.test/")!) == "wide=2")
        #expect(jar.cookieHeader(for: URL(string: "https://b.test/")!) == nil)
        #expect(jar.cookieHeader(for: URL(string: "https://127.0.0.1/")!) == nil)
        // A Domain the host is not in is refused (RFC 6265 §5.3 step 6).
        jar.storeCookies(["evil=1; Domain=b.test"], from: URL(string: "https://a.test/")!)
        #expect(jar.cookieHeader(for: URL(string: "https://b.test/")!) == nil)
    }

    @Test("paths match on segment boundaries, the default path is the request's directory, longer paths go first")
    func pathMatching() {
        let jar = CookieFileJar(now: Self.fixed)
        jar.storeCookies(["root=1; Path=/", "deep=2; Path=/a", "implicit=3"], from: URL(string: "https://a.test/a/b/page")!)
        #expect(jar.cookieHeader(for: URL(string: "https://a.test/a/b/other")!) == "implicit=3; deep=2; root=1")
        #expect(jar.cookieHeader(for: URL(string: "https://a.test/ab")!) == "root=1")
    }

    @Test("Secure cookies go over https only; Max-Age 0 or a past Expires deletes; Max-Age wins over Expires")
    func secureAndExpiry() {
        let jar = CookieFileJar(now: Self.fixed)
        let url = URL(string: "https://a.test/")!
        jar.storeCookies(["s=1; Secure", "gone=1", "later=1; Max-Age=60; Expires=Thu, 01 Jan 1970 00:00:00 GMT"], from: url)
        jar.storeCookies(["gone=; Max-Age=0"], from: url)
        #expect(jar.cookieHeader(for: url) == "s=1; later=1")
        #expect(jar.cookieHeader(for: URL(string: "http://a.test/")!) == "later=1")
        #expect(jar.current.first { $0.name == "later" }?.expires == 1_800_000_060)
        jar.storeCookies(["old=1; Expires=Thu, 01 Jan 1970 00:00:00 GMT"], from: url)
        #expect(jar.current.contains { $0.name == "old" } == false)
    }

    @Test("a cookie set again replaces the one with the same name, domain and path")
    func replacement() {
        let jar = CookieFileJar(now: Self.fixed)
        let url = URL(string: "https://a.test/")!
        jar.storeCookies(["n=1"], from: url)
        jar.storeCookies(["n=2"], from: url)
        #expect(jar.cookieHeader(for: url) == "n=2")
        #expect(jar.current.count == 1)
    }

    @Test("the jar is written atomically: a temporary file renamed onto FILE, no file left beside it")
    func atomicWrite() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("httpdns-jar-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("jar.txt").path
        try "old".write(toFile: path, atomically: true, encoding: .utf8)
        let jar = CookieFileJar(
            cookies: [
                .init(
                    domain: "a.test", includesSubdomains: false, path: "/", secure: false, httpOnly: false,
                    expires: nil, name: "n", value: "v")
            ], now: Self.fixed)
        #expect(jar.write(to: path, console: Console(output: { _ in }, error: { _ in })) == nil)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == jar.fileText())
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["jar.txt"])
    }
}
