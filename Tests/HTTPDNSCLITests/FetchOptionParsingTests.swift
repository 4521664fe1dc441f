import Foundation
import Testing
import HTTPDNS
@testable import HTTPDNSCLI

/// `fetch`'s -u, -e, -O and -w as the command line is read into a plan: no traffic.
@Suite("httpdns fetch: -u, -e, -O, -w and pin arguments")
struct FetchOptionParsingTests {
    func plan(_ arguments: [String]) throws(UsageError) -> FetchCommand.Plan {
        try FetchCommand.makePlan(FetchCommand.parser.parse(arguments), environment: Environment([:]))
    }

    /// The usage error `arguments` are refused with.
    func refusal(_ arguments: [String]) -> UsageError? {
        do {
            _ = try plan(arguments)
            return nil
        } catch {
            return error
        }
    }

    @Test("a URL taken as the last option's value: 'no URL given' says which option took it; a flag last gives no hint")
    func swallowedURL() throws {
        #expect(refusal(["-m", "https://a.test/"])?.message == "no URL given ('-m' took 'https://a.test/' as its value)")
        #expect(refusal(["--max-time", "https://a.test/"])?.message == "no URL given ('--max-time' took 'https://a.test/' as its value)")
        #expect(refusal(["-v"])?.message == "no URL given")
        let resolve = try ResolveCommand.parser.parse(["-m", "abc"])
        #expect(resolve.swallowedValueHint == " ('-m' took 'abc' as its value)")
    }

    @Test(
        "-u USER:PASSWORD sends Basic credentials of the whole value; the password may hold ':'",
        arguments: ["-u", "--user"])
    func userSendsBasicCredentials(option: String) throws {
        let plan = try plan([option, "us:er:pa:ss", "https://a.test/"])
        #expect(plan.request.headers[first: "Authorization"] == "Basic " + Data("us:er:pa:ss".utf8).base64EncodedString())
        #expect(plan.user == "us")
        let empty = try self.plan(["-u", "user:", "https://a.test/"])
        #expect(empty.request.headers[first: "Authorization"] == "Basic " + Data("user:".utf8).base64EncodedString())
    }

    @Test("-u without ':' is refused with exit 2 rather than a password prompt", arguments: ["user", ""])
    func userWithoutPasswordIsRefused(value: String) throws {
        let error = try #require(refusal(["-u", value, "https://a.test/"]))
        #expect(error.status == 2)
        #expect(error.message.contains("has no password"), "\(error.message)")
        #expect(error.message.contains("does not prompt"), "\(error.message)")
    }

    @Test("-u, -e and -w need a value", arguments: ["-u", "-e", "-w", "--user", "--referer", "--write-out"])
    func optionsNeedAValue(option: String) {
        #expect(throws: UsageError.self) { try FetchCommand.parser.parse(["https://a.test/", option]) }
    }

    @Test("an -H Authorization, or -H 'Authorization:' leaving it out, wins over -u")
    func headerWinsOverUser() throws {
        let given = try plan(["-u", "u:p", "-H", "Authorization: Bearer x", "https://a.test/"])
        #expect(given.request.headers[all: "Authorization"] == ["Bearer x"])
        #expect(given.user == nil)
        let omitted = try plan(["-u", "u:p", "-H", "Authorization:", "https://a.test/"])
        #expect(!omitted.request.headers.contains(name: "Authorization"))
    }

    @Test("-e URL sends Referer; ';auto' sets it on redirects too, only with -L; \"\" sends none")
    func referer() throws {
        let plain = try plan(["-e", "https://ref.example/page", "-L", "https://a.test/"])
        #expect(plain.request.headers[first: "Referer"] == "https://ref.example/page")
        #expect(plain.redirects?.setsReferer == false)
        let auto = try plan(["--referer", "https://ref.example/page;auto", "-L", "https://a.test/"])
        #expect(auto.request.headers[first: "Referer"] == "https://ref.example/page")
        #expect(auto.redirects?.setsReferer == true)
        let autoOnly = try plan(["-e", ";auto", "-L", "https://a.test/"])
        #expect(!autoOnly.request.headers.contains(name: "Referer"))
        #expect(autoOnly.redirects?.setsReferer == true)
        #expect(try plan(["-e", ";auto", "https://a.test/"]).redirects == nil)
        #expect(try !plan(["-e", "", "https://a.test/"]).request.headers.contains(name: "Referer"))
    }

    @Test("an -H Referer, or -H 'Referer:', wins over -e on every request, ';auto' included")
    func headerWinsOverReferer() throws {
        let given = try plan(["-e", "https://ref.example/;auto", "-H", "Referer: mine", "-L", "https://a.test/"])
        #expect(given.request.headers[all: "Referer"] == ["mine"])
        #expect(given.redirects?.setsReferer == false)
        let omitted = try plan(["-e", "https://ref.example/;auto", "-H", "Referer:", "-L", "https://a.test/"])
        #expect(!omitted.request.headers.contains(name: "Referer"))
        #expect(omitted.redirects?.setsReferer == false)
    }

    @Test(
        "-O names the file as curl 7.88: the path's last segment as written, no query or fragment, no directory",
        arguments: [
            ("https://a.test/dir/file.tar.gz", "file.tar.gz"), ("https://a.test/a%20b?x=1/2#f/g", "a%20b"),
            ("https://a.test/%2e%2e", "%2e%2e"), ("https://a.test/a%2Fb", "a%2Fb"), ("https://a.test/a/b/../c", "c"),
            ("https://a.test/x/..%2f", "..%2f"), ("https://a.test/a;b", "a;b"), ("https://a.test/-", "-")
        ])
    func remoteName(url: String, name: String) throws {
        #expect(FetchOutput.remoteName(of: try #require(URL(string: url))) == name)
    }

    @Test(
        "-O with a URL whose path names no file is refused with curl's 23, before any traffic",
        arguments: ["https://a.test", "https://a.test/", "https://a.test/dir/", "https://a.test/dir/..", "https://a.test/dir/.", "https://a.test/?name=x"])
    func remoteNameMissing(url: String) throws {
        let error = try #require(refusal(["-O", url]))
        #expect(error.status == 23)
        #expect(error.message.contains("remote file name has no length"), "\(error.message)")
    }

    @Test("-O writes under the current directory: a name such as '-' is a file, not stdout")
    func remoteNameIsAFileHere() throws {
        let plan = try plan(["--remote-name", "https://a.test/-"])
        #expect(plan.output == .file(URL(fileURLWithPath: "./-")))
    }

    @Test("-O with -o is refused as ambiguous, in either order", arguments: [["-O", "-o", "x"], ["-o", "x", "-O"]])
    func remoteNameWithOutput(options: [String]) throws {
        let error = try #require(refusal(options + ["https://a.test/file"]))
        #expect(error.status == 2)
        #expect(error.message.contains("-O and -o"), "\(error.message)")
    }

    @Test("-H with a line break or NUL is refused naming -H, in the one shape of option-value refusals", arguments: ["X: a\nb", "X: a\rb"])
    func headerLineBreakIsRefused(header: String) throws {
        let error = try #require(refusal(["-H", header, "https://a.test/"]))
        #expect(error.status == 2)
        let shown = header.replacingOccurrences(of: "\n", with: "\\n").replacingOccurrences(of: "\r", with: "\\r")
        #expect(error.message == "-H: expected one line, got '\(shown)' (a line break or NUL in it)")
    }

    @Test("--max-redirs is checked without -L too: a malformed value is always refused", arguments: ["abc", "-5"])
    func maxRedirsCheckedWithoutLocation(value: String) throws {
        let error = try #require(refusal(["--max-redirs", value, "https://a.test/"]))
        #expect(error.status == 2)
        #expect(error.message == "--max-redirs: expected a number of redirects (>= -1; -1: no limit), got '\(value)'")
    }

    @Test("--connect-timeout's refusal says what 0 does, as its help does: libcurl's 300 s")
    func connectTimeoutZeroAgreesWithHelp() throws {
        let error = try #require(refusal(["--connect-timeout", "-1", "https://a.test/"]))
        #expect(error.message == "--connect-timeout: expected a duration in seconds (0 to 2147483.647; 0: libcurl's 300 s), got '-1'")
        let help = FetchCommand.reference.options.first { $0.names.contains("--connect-timeout") }?.detail ?? ""
        #expect(help.replacingOccurrences(of: "\n", with: " ").contains("0: libcurl's 300 s"))
    }

    @Test("a URL without a scheme is refused; https:// is suggested only when the argument reads as a host")
    func noSchemeSuggestsOnlyForHosts() throws {
        #expect(refusal(["a.test/x"])?.message == "malformed URL 'a.test/x': no scheme (write it as https://a.test/x)")
        #expect(refusal(["127.0.0.1:8443"])?.message == "malformed URL '127.0.0.1:8443': no scheme (write it as https://127.0.0.1:8443)")
        let body = #"{"a":1}"#
        #expect(refusal(["--json", body])?.message == "malformed URL '\(body)': no scheme (an https:// or http:// URL is expected)")
    }

    @Test("-o naming a directory is a write failure, exit 23 as curl's, not a usage error", arguments: ["-o", "--output"])
    func outputDirectoryIsWriteFailure(option: String) throws {
        let directory = FileManager.default.temporaryDirectory.path
        let error = try #require(refusal([option, directory, "https://a.test/"]))
        #expect(error.status == 23)
        #expect(error.message == "\(option): cannot write '\(directory)': Is a directory")
    }

    @Test("-w @FILE that cannot be read is refused with exit 2 (curl writes nothing for it)")
    func writeOutFileMissing() throws {
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("httpdns-missing-\(UUID().uuidString)").path
        let error = try #require(refusal(["-w", "@" + missing, "https://a.test/"]))
        #expect(error.status == 2)
        #expect(error.message.contains("-w: cannot read '\(missing)'"), "\(error.message)")
    }

    @Test("-w @FILE reads the format with each line cut at its CR or LF and the lines joined, as curl")
    func writeOutFile() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("httpdns-format-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data("one %{http_code}\ntwo\r\nthree\rgone\n\n".utf8).write(to: file)
        #expect(try plan(["-w", "@" + file.path, "https://a.test/"]).writeOut == WriteOut(format: Array("one %{http_code}twothree".utf8)))
    }

    @Test(
        "-w reads %{variable}, %%, \\n \\r \\t; other sequences, a lone % or \\ and an unclosed %{ are written as they stand",
        arguments: [
            ("a%{http_code}b", [.text(Array("a".utf8)), .variable("http_code"), .text(Array("b".utf8))]),
            ("%%d %z \\q \\\\ \\n\\t\\r|", [.text(Array("%d %z \\q \\\\ \n\t\r|".utf8))]),
            ("x%{http_code", [.text(Array("x%{http_code".utf8))]),
            ("trail% and\\", [.text(Array("trail% and\\".utf8))]),
            ("%{}%{ a}", [.variable(""), .variable(" a")])
        ] as [(String, [WriteOut.Piece])])
    func writeOutFormat(format: String, pieces: [WriteOut.Piece]) {
        #expect(WriteOut(format: Array(format.utf8)).pieces == pieces)
    }

    @Test("-w writes curl's formats: a status in three digits, times in seconds with six decimals; unknown names warn and write nothing")
    func writeOutRendering() {
        var values = WriteOut.Values()
        values.total = 1.5
        values.version = .http2
        let warnings = LockedValue<[String]>([])
        let format = WriteOut(format: Array("%{HTTP_CODE} %{time_total} %{time_connect} %{http_version} [%{bogus}] %{remote_port}".utf8))
        let text = String(decoding: format.render(values) { message in warnings.withLock { $0.append(message) } }, as: UTF8.self)
        #expect(text == "000 1.500000 0.000000 2 [] 0")
        #expect(warnings.withLock { $0 } == ["unknown --write-out variable: 'bogus'"])
    }

    @Test(
        "a malformed or unreadable pin names its option and value, as curl names the option at fault",
        arguments: [
            (["--pinnedpubkey", "sha256//abc"], "--pinnedpubkey: invalid pin 'sha256//abc'"),
            (["--pinnedpubkey", "/nonexistent/key.pem"], "--pinnedpubkey: cannot read '/nonexistent/key.pem'"),
            (["--pin-cert", "zz"], "--pin-cert: invalid pin 'zz'"),
            (["--doh-pinnedpubkey", "x"], "--doh-pinnedpubkey: invalid pin 'x'")
        ])
    func badPinNamesItsOption(arguments: [String], message: String) throws {
        let error = try #require(refusal(arguments + ["https://a.test/"]))
        #expect(error.status == 2)
        #expect(error.message.hasPrefix(message), "\(error.message)")
    }
}

/// `fetch` with several URLs as the command line is read into plans: no traffic.
@Suite("httpdns fetch: several URLs and their outputs")
struct FetchMultipleURLParsingTests {
    func plans(_ arguments: [String]) throws(UsageError) -> [FetchCommand.Plan] {
        try FetchCommand.makePlans(FetchCommand.parser.parse(arguments), environment: Environment([:]))
    }

    @Test("-o and -O pair with the URLs in order, wherever they stand; the rest go to stdout")
    func pairing() throws {
        let result = try plans(["https://a.test/x.txt", "-o", "/tmp/one", "https://b.test/y.txt", "-O", "https://c.test/"])
        #expect(result.map(\.request.url.absoluteString) == ["https://a.test/x.txt", "https://b.test/y.txt", "https://c.test/"])
        #expect(result[0].output == .file(URL(fileURLWithPath: "/tmp/one")))
        #expect(result[1].output == (try FetchOutput(remoteNameOf: URL(string: "https://b.test/y.txt")!)))
        #expect(result[1].output != .standardOutput)
        #expect(result[2].output == .standardOutput)
        #expect(result.map(\.index) == [0, 1, 2])
    }

    @Test("more outputs than URLs, or a malformed second URL, are refused")
    func refusals() {
        #expect(throws: UsageError.self) { try plans(["-o", "/tmp/a", "-O", "https://a.test/x"]) }
        #expect(throws: UsageError.self) { try plans(["https://a.test/", "not a url"]) }
    }

    @Test("-4 and -6: the last one given wins; --parallel-max takes 1 to 300")
    func familiesAndParallel() throws {
        #expect(try plans(["-4", "https://a.test/"])[0].families == .ipv4)
        #expect(try plans(["-4", "-6", "https://a.test/"])[0].families == .ipv6)
        #expect(try plans(["https://a.test/"])[0].families == .both)
        #expect(try plans(["-Z", "--parallel-max", "7", "https://a.test/"])[0].parallelMaximum == 7)
        #expect(throws: UsageError.self) { try plans(["--parallel-max", "0", "https://a.test/"]) }
        #expect(throws: UsageError.self) { try plans(["--parallel-max", "301", "https://a.test/"]) }
    }

    @Test("each URL's output remembers whether -o or -O named it, for its messages")
    func outputOptionIsKept() throws {
        let plans = try plans(["-o", "a.html", "https://a.test/a", "-O", "https://a.test/b.html", "https://a.test/"])
        #expect(plans.map(\.outputOption) == ["-o", "-O", "-o"])
        #expect(plans.map(\.output) == [.file(URL(fileURLWithPath: "a.html")), .file(URL(fileURLWithPath: "./b.html")), .standardOutput])
    }
}

/// `fetch -v`'s head lines from the bytes libcurl reports (`HeadTraceLines`).
@Suite("httpdns fetch -v: head lines from libcurl's trace")
struct HeadTraceLinesTests {
    @Test("a request head becomes one '> ' line per line, its empty line '> ' alone")
    func requestHead() {
        let lines = HeadTraceLines()
        lines.handler(.sent(Data("GET / HTTP/2\r\nHost: a.test\r\naccept: */*\r\n\r\n".utf8)))
        #expect(lines.take() == ["> GET / HTTP/2", "> Host: a.test", "> accept: */*", "> "])
        #expect(lines.take().isEmpty)
    }

    @Test("response lines come one at a time; each head is ended with '< ', before a final head after a 1xx and when taken")
    func responseHeads() {
        let lines = HeadTraceLines()
        for line in ["HTTP/1.1 100 Continue\r\n", "HTTP/1.1 200 OK\r\n", "Server: nginx\r\n"] { lines.handler(.received(Data(line.utf8))) }
        #expect(lines.take() == ["< HTTP/1.1 100 Continue", "< ", "< HTTP/1.1 200 OK", "< Server: nginx", "< "])
        // An empty line libcurl does report is not doubled.
        lines.handler(.received(Data("HTTP/2 200 \r\n".utf8)))
        lines.handler(.received(Data("\r\n".utf8)))
        #expect(lines.take() == ["< HTTP/2 200", "< "])
    }

    @Test("a Basic credential sent is shown as ***, as a URL's password; other fields and schemes as sent")
    func redaction() {
        let lines = HeadTraceLines()
        let head = "GET / HTTP/2\r\nauthorization: Basic YTpi\r\nProxy-Authorization: basic YTpi\r\nX-Authorization: Basic YTpi\r\n\r\n"
        lines.handler(.sent(Data(head.utf8)))
        #expect(lines.take() == ["> GET / HTTP/2", "> authorization: Basic ***", "> Proxy-Authorization: basic ***", "> X-Authorization: Basic YTpi", "> "])
        #expect(HeadTraceLines.redacted("> Authorization: Bearer t0ken") == "> Authorization: Bearer t0ken")
        // Received lines are as received.
        lines.handler(.received(Data("Authorization: Basic YTpi\r\n".utf8)))
        #expect(lines.take().first == "< Authorization: Basic YTpi")
    }

    @Test("bytes are read as UTF-8, else Latin-1; control characters are shown as '?'")
    func text() {
        #expect(HeadTraceLines.lines(Data([0x58, 0x3A, 0x20, 0x43, 0x61, 0x66, 0xE9, 0x0D, 0x0A]), prefix: "<") == ["< X: Caf\u{E9}"])
        #expect(HeadTraceLines.lines(Data("X: a\u{1B}[2Jb\tc\r\n".utf8), prefix: "<") == ["< X: a?[2Jb\tc"])
    }
}
