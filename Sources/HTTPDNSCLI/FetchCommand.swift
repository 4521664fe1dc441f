import Foundation
import HTTPDNS
import HTTPDNSCore

/// `httpdns fetch URL`: one request, curl-style.
enum FetchCommand {
    static let reference = CommandReference(
        name: "fetch",
        synopsis: "[options] URL...",
        summary: "Send curl-style requests straight to the resolved address.",
        description: """
            Resolves each URL's host over DNS-over-HTTPS (or the --provider's HTTPDNS API) and sends the
            request straight to the resolved address, with SNI, Host and certificate verification on the
            host name. The body goes to stdout, or to the file -o or -O names.

            Several URLs share one client: connections and TLS sessions are reused between them. Each -o or
            -O is paired with a URL in order (the first with the first URL, and so on, wherever they stand
            on the command line), as curl pairs them; a URL without one writes to stdout. The transfers run
            one after another, or with --parallel several at once. A failed transfer does not stop the
            others; the exit status is the last transfer's (with --parallel, the last failure's).
            """,
        sections: [
            .init(
                title: "Request",
                options: [
                    .init(names: ["-X", "--request"], arity: .value, valueName: "METHOD", summary: "Request method (default GET, or POST with -d)"),
                    .init(
                        names: ["-H", "--header"], arity: .value, valueName: "'NAME: VALUE'",
                        summary: "Add a header ('NAME:' drops one, 'NAME;' empty)",
                        detail: """
                            Add a header, repeatable. 'NAME:' leaves out one libcurl would add (not Host), 'NAME;' sends
                            it empty, as in curl.
                            """),
                    .init(
                        names: ["-d", "--data"], arity: .value, takesBytes: true, valueName: "DATA",
                        summary: "POST DATA as a form (@FILE, @- stdin)",
                        detail: """
                            POST DATA as application/x-www-form-urlencoded, as curl. @FILE reads the file and drops CR
                            and LF, as curl does; @- reads standard input. The argument's bytes are sent as given, UTF-8
                            or not. Repeated or mixed with --data-binary, the pieces are joined with '&' in the order
                            given. A FILE that is a pipe (@<(command), a FIFO, @/dev/stdin) is read whole first (at most
                            1 GiB) and sent with its length.
                            """),
                    .init(
                        names: ["--data-binary"], arity: .value, takesBytes: true, valueName: "DATA",
                        summary: "POST DATA byte-exact (@FILE, @- stdin)",
                        detail: """
                            POST DATA byte-exact. @FILE streams the file byte-exact, @- sends standard input. Like -d, it
                            sends Content-Type application/x-www-form-urlencoded unless -H sets one or leaves it out
                            ('Content-Type:').
                            """),
                    .init(
                        names: ["-A", "--user-agent"], arity: .value, valueName: "NAME",
                        summary: "Send User-Agent: NAME (\"\" sends none)"),
                    .init(
                        names: ["-u", "--user"], arity: .value, takesBytes: true, valueName: "USER:PASSWORD",
                        summary: "HTTP Basic auth, kept to its origin after -L",
                        detail: """
                            HTTP Basic authentication (RFC 7617); the first ':' ends USER, the password may hold more.
                            Without ':' curl would prompt for the password; this refuses (exit 2): give -u 'USER:' for an
                            empty one. Not sent on to another host, port or scheme after a redirect (-L); an -H
                            Authorization wins. -v names the user, never the password.
                            """),
                    .init(
                        names: ["-e", "--referer"], arity: .value, valueName: "URL",
                        summary: "Send Referer: URL ('URL;auto': each -L hop too)",
                        detail: """
                            Send Referer: URL. 'URL;auto' (or ';auto' alone) with -L also sets it on each request after a
                            redirect to the URL redirected from (without credentials or fragment), as curl. An -H
                            Referer wins.
                            """),
                    .init(
                        names: ["-b", "--cookie"], arity: .value, valueName: "FILE|DATA",
                        summary: "Send cookies from a file (curl's format) or DATA",
                        detail: """
                            Send cookies. An argument with '=' is sent as it is to every URL ('NAME=VALUE; NAME2=VALUE2').
                            Anything else is a cookie file in curl's Netscape format (the one -c writes; '-' is stdin),
                            whose cookies go to the hosts they are for, by name (RFC 6265 domain and path matching),
                            never by address; a FILE that does not exist starts an empty jar. Cookies the responses set
                            are kept for the later requests and URLs of the command. A file that is not in curl's format
                            is refused before any traffic (exit 2), naming its bad line, and is left as it was.
                            """),
                    .init(
                        names: ["-c", "--cookie-jar"], arity: .value, valueName: "FILE",
                        summary: "Write cookies to FILE at the end (curl's format)",
                        detail: """
                            Write every cookie held at the end (read with -b, set by the responses) to FILE in curl's
                            Netscape format, also after a failed transfer: to a temporary file beside it, renamed onto
                            FILE when whole, so it is never half-written. '-' is stdout; -b and -c may name the same
                            file. A FILE that cannot be written is refused before any traffic with exit 23.
                            """),
                    .init(
                        names: ["--compressed"], arity: .flag,
                        summary: "Ask for a compressed response and decode it",
                        detail: """
                            Ask for a compressed response (Accept-Encoding: deflate, gzip, br, zstd) and decode it, as
                            curl's --compressed; without it, as in curl, no encoding is asked for and the body is saved
                            as sent.
                            """),
                    .init(names: ["--http1.1"], arity: .flag, summary: "Use HTTP/1.1 only"),
                    .init(
                        names: ["--http2"], arity: .flag, summary: "HTTP/2 if ALPN offers it (default, as curl)",
                        detail: "Use HTTP/2 when the server offers it by ALPN, else HTTP/1.1. This is the default, as in curl; --http1.1 turns it off.")
                ]),
            .init(
                title: "Output",
                options: [
                    .init(
                        names: ["-o", "--output"], arity: .value, valueName: "FILE",
                        summary: "Body to FILE, never left partial ('-': stdout)",
                        detail: """
                            Write the body to FILE, paired with the URLs in order, as curl pairs them; '-' is stdout. A
                            failed transfer never leaves FILE partial or changed.

                            A new FILE, or an existing one you own whose only hard link is in a directory you may write,
                            is written to a temporary file beside it and renamed onto it when the transfer succeeds:
                            atomic.

                            A device or FIFO (/dev/null) is written in place, as curl writes it. A FILE that is stdout or
                            stderr (/dev/stdout, /dev/fd/2, the file either is redirected to) is written through that
                            descriptor.

                            A FILE with other hard links, in a directory you may not write, or owned by someone else is
                            downloaded to a temporary file (beside it, else in TMPDIR or /tmp), then copied into FILE in
                            place, so its inode, links, mode and owner stay, as with curl. That copy is not atomic: a
                            reader during it sees the new body's start over the old body's rest. If the copy fails (disk
                            full, ulimit -f), exit 23 names the temporary file, which is kept with the complete body.

                            A symbolic link is followed, each one on the way held to the kernel's fs.protected_symlinks
                            rule whatever that setting: in a sticky world-writable directory such as /tmp, a link is
                            followed only when you or the directory's owner own it.

                            A FILE you may not write, a link that rule refuses, or a new file in a missing or unwritable
                            directory is refused before any traffic with exit 23, as curl's.
                            """),
                    .init(
                        names: ["-O", "--remote-name"], arity: .flag,
                        summary: "Save to a file named as the URL's last segment",
                        detail: """
                            Write the body to a file in the current directory named as the URL's last path segment, as
                            curl 7.88: percent-encoding kept, without the query (.../a/b%20c.txt?x=1 writes
                            'b%20c.txt'); never a directory from the URL; written as -o writes. A URL whose path ends
                            in '/' names no file: exit 23 before any traffic. Paired with the URLs in order, as -o.
                            """),
                    .init(
                        names: ["-i", "--include"], arity: .flag, summary: "Print the response head before the body",
                        detail: "Print the status line and response headers before the body (into FILE with -o, as curl does)."),
                    .init(names: ["-I", "--head"], arity: .flag, summary: "Send HEAD; print the response head", detail: "Send HEAD and print the status line and response headers."),
                    .init(
                        names: ["-w", "--write-out"], arity: .value, valueName: "FORMAT",
                        summary: "Write FORMAT after each transfer (%{http_code})",
                        detail: """
                            After each transfer, also a failed one, write FORMAT to stdout, as curl 7.88: %{variable},
                            %% for '%', \\n \\r \\t. @FILE reads it from FILE (line ends dropped), @- from stdin.

                            Variables: http_code (response_code; 000 without a response), http_version, remote_ip and
                            remote_port (the address connected to), size_download (body bytes received, before
                            --compressed decoding), size_header, time_namelookup (this tool's own DoH/HTTPDNS
                            resolution included), time_connect, time_appconnect, time_starttransfer, time_total (seconds
                            from the start, summed over -L's requests as curl does), num_redirects, url (as given),
                            url_effective, urlnum (the URL's place, from 0), content_type, exitcode, errormsg (this
                            tool's message, not libcurl's), ssl_verify_result (OpenSSL's verdict on the chain and name:
                            0 when they verified, else why not; with -k, as curl, what verification would have found,
                            though nothing depended on it), and json: all of them as one JSON object, as curl's.
                            Another name is warned about on stderr and writes nothing. Nothing is written for input
                            refused before any traffic or after a signal.
                            """),
                    .init(
                        names: ["--json"], arity: .flag,
                        summary: "Write -w's variables as JSON after each transfer",
                        detail: """
                            After each transfer, write -w's variables as one JSON object on a line of its own, as
                            -w '%{json}\\n' does. (curl's --json sends a JSON body instead: use -H 'Content-Type:
                            application/json' --data-binary DATA for that.)
                            """),
                    .init(
                        names: ["-v", "--verbose"], arity: .flag,
                        summary: "Report address, source, TLS, certificate, heads",
                        detail: """
                            Report on stderr: the address used and where it came from, the resolver's events, the SNI
                            sent, the ALPN protocol, the server certificate's subject and issuer; then, as curl does,
                            the request head as libcurl sent it ('> ' lines; over HTTP/2 '> GET / HTTP/2' and the
                            fields, no pseudo-header) and each response head as received ('< ' lines: every redirect
                            and 100 Continue too), before the body. Fields are shown as sent, but a Basic credential (-u's) as 'Basic ***'.
                            """),
                    .init(names: ["-s", "--silent"], arity: .flag, summary: "No error messages (unless -S), nor -k's warning"),
                    .init(names: ["-S", "--show-error"], arity: .flag, summary: "With -s, still print error messages"),
                    .init(
                        names: ["-f", "--fail"], arity: .flag, summary: "Exit 22 without the body for HTTP status >= 400",
                        detail: "Exit 22 without the body for HTTP status >= 400 (with -i or -I the head is still printed, as curl).")
                ]),
            .init(
                title: "Redirects and several URLs",
                options: [
                    .init(
                        names: ["-L", "--location"], arity: .flag,
                        summary: "Follow redirects, each new host resolved anew",
                        detail: """
                            Follow redirects (301, 302, 303, 307, 308): each new host is resolved over DoH again and gets
                            its own SNI, Host and certificate check; a relative Location is resolved against the URL,
                            never the address. 301/302 turn POST into GET, 303 any method but HEAD; 307/308 keep method
                            and body. -i and -I print every response's head, as curl.
                            """),
                    .init(
                        names: ["--max-redirs"], arity: .value, valueName: "NUM",
                        summary: "With -L, at most NUM redirects (default 50)",
                        detail: "With -L, follow at most NUM redirects (default 50, as curl; minus one: no limit, and no lower NUM is taken); one more exits 47. NUM is checked with or without -L."),
                    .init(
                        names: ["-Z", "--parallel"], arity: .flag, summary: "Run the URLs' transfers at once", detail: "Run the URLs' transfers at once (up to --parallel-max), not one after another."),
                    .init(
                        names: ["--parallel-max"], arity: .value, valueName: "NUM",
                        summary: "At most NUM transfers at once (default 50)", detail: "With --parallel, run at most NUM transfers at once (1 to 300, default 50, as curl).")
                ]),
            .init(
                title: "Connection",
                options: [
                    .init(
                        names: ["-4", "--ipv4"], arity: .flag, summary: "Connect to the resolved IPv4 addresses only",
                        detail: "Connect only to the IPv4 addresses of the resolution (ask for A records only)."),
                    .init(
                        names: ["-6", "--ipv6"], arity: .flag, summary: "Connect to the resolved IPv6 addresses only",
                        detail: "Connect only to the IPv6 addresses of the resolution (ask for AAAA records only)."),
                    .init(
                        names: ["-m", "--max-time"], arity: .value, valueName: "SECONDS",
                        summary: "Limit per transfer, resolving included (0: none)", detail: "Limit for each whole transfer, resolving the name included (0: no limit). Exceeded: exit 28."),
                    .init(
                        names: ["--connect-timeout"], arity: .value, valueName: "SECONDS",
                        summary: "Limit to resolve, then to connect (default 10)",
                        detail: """
                            Limit for resolving the name (DoH/HTTPDNS included, as curl's includes the resolve), then
                            again for connecting, TLS included (default 10; 0: libcurl's 300 s). Exceeded: exit 28.
                            """),
                    .init(
                        names: ["-x", "--proxy"], arity: .value, valueName: "URL",
                        summary: "Go through this HTTP proxy, by host name",
                        detail: """
                            Send the requests through this HTTP proxy (http:// or https://; no scheme means http://), by
                            host name: the proxy resolves it, no IP replacement, TLS still verified for the name. Without
                            -x the environment decides, as in curl: https_proxy, http_proxy, all_proxy. -x '' uses none.
                            """),
                    .init(
                        names: ["--noproxy"], arity: .value, valueName: "LIST",
                        summary: "Hosts that bypass the proxy (resolved over DoH)",
                        detail: """
                            Hosts that go direct (over DoH) even with a proxy, comma-separated: names (and the names
                            under them), IP addresses, CIDR blocks (10.0.0.0/8) or '*'. Overrides no_proxy.
                            """)
                ] + ProviderOptions.connectionOptions),
            .init(title: "Name resolution", options: ResolverOptions.resolutionOptions),
            .init(title: "TLS, certificates and pins", options: TrustOptions.parserOptions()),
            CommandReference.helpSection
        ],
        mostUsed: ["-X", "-H", "-d", "-o", "-O", "-i", "-w", "-v", "-s", "-f", "-L", "-m", "--doh-url", "--resolve", "--cacert", "--pinnedpubkey", "-k", "-h"],
        exitStatus: ExitStatusTable.entries(for: "fetch"))

    static var help: String { reference.shortHelp() }

    /// -m's limit, as given ("-m 1 s"), which a time-out names: libcurl's own figure counts only
    /// the part of it the transfer had. nil without -m.
    static func maxTimeNote(_ timeouts: Timeouts) -> String? {
        timeouts.total.map { "-m \(String(format: "%g", $0)) s" }
    }
    static let parser = reference.parser

    /// Everything a fetch needs, validated before any network traffic.
    struct Plan {
        var request: HTTPRequest
        var output: FetchOutput
        var include: Bool
        var verbose: Bool
        var silent: Bool
        var resolverOptions: ResolverOptions
        var timeouts: Timeouts
        var httpVersion: HTTPVersionPreference
        var trustOptions: TrustOptions
        /// Set by -L: the redirects to follow.
        var redirects: RedirectPolicy? = nil
        /// -x and --noproxy over the environment's proxy variables.
        var proxy: ProxyPolicy = .none
        /// --compressed: ask for a compressed response and decode it.
        var compressed = false
        /// -w: what to write to stdout after the transfer.
        var writeOut: WriteOut? = nil
        /// -u's user name, for -v.
        var user: String? = nil
        /// --json: the -w variables as one JSON line after the transfer.
        var json = false
        /// -b and -c.
        var cookies = CookieOptions()
        /// -4 / -6: the addresses of the resolution to use.
        var families = AddressFamilies.both
        /// --parallel and --parallel-max: transfers at once.
        var parallel = false
        var parallelMaximum = 50
        /// The URL's place on the command line, from 0 (`%{urlnum}`).
        var index = 0
        /// The option that named `output`'s file, for messages: `-o`, `--output` or `-O`.
        var outputOption = "-o"
    }

    /// - Parameter raw: `arguments`' bytes as given (`argv`), for the bodies given inline.
    static func run(_ arguments: [String], raw: [[UInt8]], console: Console, environment: Environment) async -> Int32 {
        let plans: [Plan]
        do {
            let parsed = try parser.parse(arguments, raw: raw)
            if parsed.has("help") {
                try console.print(reference.help(for: parsed))
                return HTTPDNSTool.ExitStatus.success
            }
            plans = try makePlans(parsed, environment: environment)
        } catch {
            return HTTPDNSTool.report(error, console: console)
        }
        return await execute(plans, console: console)
    }

    /// The plan for a command line with one URL (the first plan of `makePlans`).
    static func makePlan(_ parsed: ArgumentParser.Parsed, environment: Environment) throws(UsageError) -> Plan {
        try makePlans(parsed, environment: environment)[0]
    }

    /// One plan per URL, in order, each with its own output (`-o`/`-O` paired with the URLs in
    /// order, as curl pairs them) and the rest of the options in common.
    /// - Throws: `UsageError` for bad input, found before any traffic.
    static func makePlans(_ parsed: ArgumentParser.Parsed, environment: Environment) throws(UsageError) -> [Plan] {
        guard !parsed.positionals.isEmpty else { throw UsageError("no URL given\(parsed.swallowedValueHint)", command: "fetch") }
        var urls: [URL] = []
        for text in parsed.positionals {
            guard !text.contains(where: { $0.isWhitespace }) else {
                throw UsageError("malformed URL '\(text)': it contains white space (percent-encode it as %20)", command: "fetch")
            }
            guard text.contains("://") else {
                // A scheme is suggested only for what reads as a host (curl would assume http://);
                // anything else (a JSON body meant for curl's --json, say) is not a URL at all.
                let host = URL(string: "https://" + text)?.host(percentEncoded: false)
                let looksLikeHost = host.map { HostName.normalize($0) != nil || IPAddress($0) != nil } ?? false
                let hint = looksLikeHost ? "write it as https://\(text)" : "an https:// or http:// URL is expected"
                throw UsageError("malformed URL '\(text)': no scheme (\(hint))", command: "fetch")
            }
            guard let url = URL(string: text) else {
                throw UsageError("malformed URL '\(text)'", command: "fetch")
            }
            do {
                try HTTPRequest.validate(url: url)
            } catch {
                throw UsageError(error.message, command: "fetch")
            }
            urls.append(url)
        }
        let url = urls[0]

        // curl's forms: "Name: value" sends a field, "Name:" leaves out one libcurl would add,
        // "Name;" sends it empty.
        var headers = HTTPHeaders()
        var omitted: Set<String> = []
        for (line, option) in parsed.allSpelled("header") {
            // Refused here, naming -H, before the library refuses the request (it cannot be framed).
            if line.unicodeScalars.contains(where: { $0 == "\n" || $0 == "\r" || $0 == "\0" }) {
                let shown = line.replacingOccurrences(of: "\n", with: "\\n").replacingOccurrences(of: "\r", with: "\\r")
                    .replacingOccurrences(of: "\0", with: "\\0")
                throw OptionValue.refusal(option, expected: "one line", got: shown, why: "a line break or NUL in it", command: "fetch")
            }
            let trimmed = line.trimmingWhitespace()
            if !trimmed.contains(":"), trimmed.hasSuffix(";"), trimmed.count > 1 {
                headers.add(name: String(trimmed.dropLast()).trimmingWhitespace(), value: "")
                continue
            }
            guard let colon = line.firstIndex(of: ":"), colon != line.startIndex else {
                throw OptionValue.refusal(option, expected: "'Name: value', 'Name:' to leave it out or 'Name;' to send it empty", got: line, command: "fetch")
            }
            let name = line[..<colon].trimmingWhitespace()
            let value = line[line.index(after: colon)...].trimmingWhitespace()
            if value.isEmpty {
                guard name.lowercased() != "host" else {
                    throw UsageError("\(option) '\(line)': the Host header cannot be left out, it names the host the request is for", command: "fetch")
                }
                omitted.insert(name)
            } else {
                headers.add(name: name, value: value)
            }
        }

        let body = try requestBody(parsed, headers: &headers, omitted: omitted)

        if let agent = parsed.value("user-agent"), !headers.contains(name: "User-Agent"), !omitted.contains(where: { $0.lowercased() == "user-agent" }) {
            // As curl: -A "" sends no User-Agent at all; an -H User-Agent wins over -A.
            if agent.isEmpty { omitted.insert("User-Agent") } else { headers.add(name: "User-Agent", value: agent) }
        }
        let user = try addCredentials(parsed, to: &headers, omitted: omitted)
        let autoReferer = addReferer(parsed, to: &headers, omitted: omitted)
        let head = parsed.has("head")
        if head, body != nil {
            throw UsageError("-I sends HEAD, which has no body: drop -d/--data-binary", command: "fetch")
        }
        // The library asks for no body only for HEAD; another method would print the body too.
        if head, let method = parsed.value("request"), method != "HEAD" {
            throw UsageError("-I sends HEAD; drop -X \(method)", command: "fetch")
        }
        let method = parsed.value("request") ?? (head ? "HEAD" : body == nil ? "GET" : "POST")

        var timeouts = Timeouts()
        if let text = parsed.value("max-time") { timeouts.total = try TimeLimitOption.seconds(text, option: parsed.spelling("max-time"), command: "fetch") }
        if let text = parsed.value("connect-timeout") { timeouts.connect = try TimeLimitOption.seconds(text, option: "--connect-timeout", command: "fetch") }
        // (0 leaves the connect limit to libcurl's 300 s and the total unlimited.)

        var version = HTTPVersionPreference.http2
        if let last = parsed.order.last(where: { $0 == "http1.1" || $0 == "http2" }), last == "http1.1" { version = .http1_1 }

        let resolverOptions = try ResolverOptions(parsed, environment: environment, command: "fetch")
        let trustOptions = try TrustOptions(parsed, command: "fetch")

        // The n-th -o or -O names the n-th URL's output, wherever it stands, as curl pairs them.
        var outputNames = parsed.allSpelled("output").makeIterator()
        var outputOptions: [(value: String, spelling: String)?] = []
        for key in parsed.order where key == "output" || key == "remote-name" {
            outputOptions.append(key == "output" ? outputNames.next() : nil)
        }
        guard outputOptions.count <= urls.count else {
            // curl ignores the extra ones with a warning; which file was meant is a guess.
            if urls.count == 1, outputOptions.contains(where: { $0 == nil }), outputOptions.contains(where: { $0 != nil }) {
                throw UsageError("-O and -o both name the output file: give one of them", command: "fetch")
            }
            if !outputOptions.contains(where: { $0 == nil }) {
                throw UsageError("-o given \(outputOptions.count) times for \(urls.count) URL\(urls.count == 1 ? "" : "s"): give at most one per URL", command: "fetch")
            }
            throw UsageError("\(outputOptions.count) output options (-o/-O) for \(urls.count) URL\(urls.count == 1 ? "" : "s"): give at most one per URL", command: "fetch")
        }
        var outputs: [FetchOutput] = []
        for (index, target) in urls.enumerated() {
            if index < outputOptions.count {
                if let name = outputOptions[index] {
                    outputs.append(try FetchOutput(path: name.value, option: name.spelling))
                } else {
                    outputs.append(try FetchOutput(remoteNameOf: target))
                }
            } else {
                outputs.append(.standardOutput)
            }
        }
        let output = outputs[0]
        let writeOut = try parsed.value("write-out").map { (argument) throws(UsageError) in try WriteOut(argument: argument, option: parsed.spelling("write-out")) }

        var redirects: RedirectPolicy?
        var maximumRedirects = 50
        // Checked with or without -L: a malformed value is refused whatever else is given.
        if let text = parsed.value("max-redirs") {
            let value = try OptionValue.integer(text, option: "--max-redirs", counting: "redirects", bounds: .atLeast(-1, note: "-1: no limit"), command: "fetch")
            // -1: no limit, as curl.
            maximumRedirects = value < 0 ? Int.max : value
        }
        if parsed.has("location") {
            redirects = RedirectPolicy(maximumRedirects: maximumRedirects, setsReferer: autoReferer)
        }

        let proxy = try proxyPolicy(parsed, environment: environment)

        let cookies = try CookieOptions(parsed)
        var families = AddressFamilies.both
        switch parsed.order.last(where: { $0 == "ipv4" || $0 == "ipv6" }) {
        case "ipv4": families = .ipv4
        case "ipv6": families = .ipv6
        default: break
        }
        var parallelMaximum = 50
        if let text = parsed.value("parallel-max") {
            // curl's range.
            parallelMaximum = try OptionValue.integer(text, option: "--parallel-max", counting: "transfers", bounds: .from(1, to: 300), command: "fetch")
        }

        var request = HTTPRequest(url: url, method: method, headers: headers, body: body)
        request.omittedHeaders = omitted
        request.failsOnHTTPError = parsed.has("fail")
        request.reportsTLSDetails = parsed.has("verbose")
        request.timeouts = timeouts
        request.httpVersion = version
        let first = Plan(
            request: request, output: output, include: parsed.has("include") || head, verbose: parsed.has("verbose"),
            silent: parsed.has("silent") && !parsed.has("show-error"), resolverOptions: resolverOptions, timeouts: timeouts, httpVersion: version,
            trustOptions: trustOptions, redirects: redirects, proxy: proxy, compressed: parsed.has("compressed"),
            writeOut: writeOut, user: user, json: parsed.has("json"), cookies: cookies, families: families,
            parallel: parsed.has("parallel"), parallelMaximum: parallelMaximum)
        return zip(urls, outputs).enumerated().map { index, pair in
            var plan = first
            plan.request.url = pair.0
            plan.output = pair.1
            plan.index = index
            if index < outputOptions.count { plan.outputOption = outputOptions[index]?.spelling ?? "-O" }
            return plan
        }
    }

    /// curl's rules: `-x` wins over the environment; `--noproxy` replaces `no_proxy`.
    private static func proxyPolicy(_ parsed: ArgumentParser.Parsed, environment: Environment) throws(UsageError) -> ProxyPolicy {
        let bypass = parsed.value("noproxy")
        // -x "": no proxy at all, whatever the environment says (curl's rule).
        if parsed.value("proxy") == "" { return .none }
        guard let text = parsed.value("proxy") else {
            var variables = environment.variables(named: ProxyPolicy.variableNames)
            if let bypass {
                variables["no_proxy"] = bypass
                variables["NO_PROXY"] = nil
            }
            return .variables(variables)
        }
        let withScheme = text.contains("://") ? text : "http://" + text
        guard let url = URL(string: withScheme), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
            let host = url.host, !host.isEmpty
        else {
            throw OptionValue.refusal(parsed.spelling("proxy"), expected: "an HTTP proxy URL (http://HOST:PORT or https://HOST:PORT)", got: text, command: "fetch")
        }
        let list = (bypass ?? environment["no_proxy"] ?? environment["NO_PROXY"] ?? "")
            .split(separator: ",").map { $0.trimmingWhitespace() }
        return .fixed(url, bypass: list)
    }

    /// Runs every plan on one client, so the transfers share its connections, one after another
    /// or (`--parallel`) up to `parallelMaximum` at once. The exit status is the last transfer's,
    /// serially, and the last failure's in parallel, as curl's.
    static func execute(_ plans: [Plan], console: Console) async -> Int32 {
        guard let plan = plans.first else { return HTTPDNSTool.ExitStatus.usage }
        let started = ContinuousClock.now
        let trust: TrustPolicy
        do {
            trust = try plan.trustOptions.policy(base: plan.resolverOptions.trust)
        } catch {
            // An identity that cannot be loaded is bad input, found before any traffic.
            if !plan.silent { console.note("httpdns: \(error)") }
            return HTTPDNSTool.ExitStatus.usage
        }
        // An -o file that cannot be written is refused before any traffic, with curl's status for
        // it (curl finds it at the first write).
        for each in plans {
            if let failure = each.output.checkWritable() {
                if !plan.silent { console.note("httpdns: \(OptionValue.refusal(failure, option: each.outputOption, command: "fetch"))") }
                return HTTPDNSTool.ExitStatus.writeFailed
            }
        }
        var configuration = HTTPClient.Configuration(trust: trust, timeouts: plan.timeouts, httpVersion: plan.httpVersion)
        plan.resolverOptions.providerOptions.configureConnections(&configuration)
        configuration.proxy = plan.proxy
        configuration.decompressesResponses = plan.compressed
        // -s: no warning for -k's unauthenticated connections either (asked for by that name), as
        // curl -sk prints nothing; -sS and every other mode keep it. -v prints it itself, once per
        // new connection, among the connection's lines (describe), where the library's own
        // warning, at the response head, would come before the resolution's.
        if plan.silent || plan.verbose { configuration.trustEventHandler = { _ in } }
        // -s: no warnings, as curl -s prints none.
        if !plan.silent { console.warnOfOptionsWithoutEffect(plan.resolverOptions.providerOptions) }
        var resolverOptions = plan.resolverOptions
        await resolverOptions.upgradeToDesignatedResolvers(console: console, verbose: plan.verbose, silent: plan.silent, command: "fetch")
        let resolver: HostResolver
        let client: HTTPClient
        do {
            // The client's connect limit covers resolving the name (as curl's), DoH exchanges included.
            resolver = try resolverOptions.makeResolver(
                families: plan.families, observer: console.resolverObserver(verbose: plan.verbose),
                asksForServiceBindings: plan.resolverOptions.providerOptions.httpsRecords)
            client = try HTTPClient(configuration: configuration, resolver: resolver)
        } catch {
            return HTTPDNSTool.report(UsageError("\(error)", command: "fetch"), console: console)
        }
        let jar = plan.cookies.makeJar()

        let interruption = LockedValue<SignalInterruption?>(nil)
        let signalled: @Sendable () -> Int32? = { interruption.withLock { $0?.exitStatus } }
        let run = Task { () async -> Int32 in
            guard plan.parallel, plans.count > 1 else {
                var status: Int32 = 0
                for each in plans {
                    if Task.isCancelled, signalled() != nil { break }
                    status = await transfer(each, client: client, jar: jar, signalled: signalled, console: console)
                }
                return status
            }
            return await withTaskGroup(of: Int32.self) { group in
                var status: Int32 = 0
                var pending = plans.makeIterator()
                for _ in 0..<min(plan.parallelMaximum, plans.count) {
                    guard let each = pending.next() else { break }
                    group.addTask { await transfer(each, client: client, jar: jar, signalled: signalled, console: console) }
                }
                for await result in group {
                    if result != 0 { status = result }
                    if let each = pending.next() {
                        group.addTask { await transfer(each, client: client, jar: jar, signalled: signalled, console: console) }
                    }
                }
                return status
            }
        }
        // SIGINT/SIGTERM cancel the transfers, which removes any partial output, then exit as a
        // signalled process would (128 + signal number).
        let signals = SignalInterruption(cancelling: run)
        interruption.withLock { $0 = signals }
        var status = await run.value
        signals.stop()
        if let signal = signals.exitStatus { status = signal }

        // -c: the jar at the end, also after a failure, as curl writes it.
        if let jar, let path = plan.cookies.jarPath, signals.exitStatus == nil, let failure = jar.write(to: path, console: console) {
            if !plan.silent { console.note("httpdns: \(OptionValue.refusal(failure, option: plan.cookies.jarSpelling, command: "fetch"))") }
            if status == 0 { status = HTTPDNSTool.ExitStatus.writeFailed }
        }
        // A stale answer starts a background refresh: let it finish (and reach the cache file)
        // before the process exits under it, within what is left of -m.
        // Not after a failure: a lookup that failed or timed out has nothing worth waiting for.
        /// What is left of -m, in seconds (nil: no limit).
        func left() -> TimeInterval? {
            let elapsed = ContinuousClock.now - started
            return plan.timeouts.total.map { $0 - (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18) }
        }
        for host in Set(plans.compactMap { $0.request.url.host(percentEncoded: false) }) where status == 0 {
            await resolver.waitForRefresh(host: host, within: left())
        }
        await resolver.waitForPreResolution(within: left())
        // The cache file's writer is in the background: what it holds reaches the disk before exit.
        resolver.savePersistentCache()
        return status
    }

    /// One URL's transfer on the shared client, with its -v, -i, -o and -w.
    /// - Parameter signalled: The exit status of the signal that cancelled the run, if one did.
    static func transfer(
        _ plan: Plan, client: HTTPClient, jar: CookieFileJar?, signalled: @escaping @Sendable () -> Int32?,
        console: Console
    ) async -> Int32 {
        // -w: what the requests came to (each followed redirect's too), the error message, and
        // whether a signal ended the transfer (then nothing is written, as curl killed writes none).
        let transferStarted = ContinuousClock.now
        let written = LockedValue(WriteOut.Values())
        var failureMessage: String?
        var interrupted = false
        /// Reports a failure on stderr (unless -s), and keeps its message for -w's %{errormsg}.
        func fail(_ message: String) {
            failureMessage = message
            if !plan.silent { console.note("httpdns: \(message)") }
        }
        let status = await { () async -> Int32 in
            // The body streams to its output as it arrives, never held whole in memory. -v describes
            // each response, and -i prints its head, as the head arrives, before the body (as curl
            // does); followed redirects are described and printed as they are followed.
            // The URL of the hop under way: moved on by the redirect callback, read by the head
            // callback on the transfer thread.
            let hop = LockedValue(plan.request.url)
            let verbose = plan.verbose
            let include = plan.include
            // -v: the heads sent and received, printed with each response's other lines.
            let heads = verbose ? HeadTraceLines() : nil
            // Whether the final response's head was described and printed when it arrived.
            let shownAtHead = LockedValue(false)
            // -i or -v with -o FILE: the file is written by the head and body callbacks (see
            // HeadAndBodyFile), the head first with -i, as curl writes it.
            var headAndBody: HeadAndBodyFile?
            if case .file(let output) = plan.output, include || verbose {
                do {
                    headAndBody = try HeadAndBodyFile(replacing: output.path)
                } catch {
                    fail("\(plan.outputOption): \(error)")
                    return HTTPDNSTool.ExitStatus.writeFailed
                }
            }
            // Where -i's heads and the body go (stderr through its descriptor, at its offset, as the
            // shell's own writes around it), but for a plain -o FILE: the library's file destination.
            let write: @Sendable (Data) -> Void
            if let file = headAndBody {
                write = { chunk in file.write(chunk) }
            } else {
                write = plan.output == .standardError ? console.errorOutput : console.output
            }
            let destination: ResponseBodyDestination
            if case .file(let output) = plan.output, headAndBody == nil {
                destination = .file(output)
            } else if include || verbose {
                destination = .streaming(
                    head: { head in
                        shownAtHead.withLock { $0 = true }
                        if verbose, let connection = head.connection {
                            describe(
                                connection, statusLine: statusLine(head.version, head.status, head.reasonPhrase), heads: heads?.take() ?? [],
                                url: hop.withLock { $0 }, warnsUnverified: !plan.silent, console: console)
                        }
                        if include { write(headText(head)) }
                    }, chunk: write)
            } else {
                destination = .handler(write)
            }
            var request = plan.request
            request.headTrace = heads?.handler
            if let literal = plan.cookies.literalHeader {
                let existing = request.headers[first: "Cookie"]
                request.headers.replaceOrAdd(name: "Cookie", value: existing.map { "\($0); \(literal)" } ?? literal)
            }
            let redirects = plan.redirects
            if verbose, let user = plan.user { console.note("* Server auth using Basic with user '\(user)'") }
            let transfer = Task {
                if let redirects {
                    return try await client.execute(
                        request, to: destination, redirects: redirects, cookies: jar,
                        redirected: { response, redirect in
                            written.withLock { $0.record(response, followed: redirect != nil) }
                            // -i -L: every response's head, the redirects' included, as curl prints them
                            // (the last one's as it arrives, by the destination's head callback).
                            if include { write(headText(response)) }
                            if verbose {
                                describe(
                                    response.connection, statusLine: statusLine(response.version, response.status, response.reasonPhrase),
                                    heads: heads?.take() ?? [], url: response.url ?? hop.withLock { $0 }, warnsUnverified: !plan.silent, console: console)
                                if let redirect { console.note("* following the \(redirect.status) redirect to \(redirect.location.absoluteString)") }
                            }
                            if let redirect { hop.withLock { $0 = redirect.location } }
                        })
                } else {
                    var sent = request
                    if let jar, let value = jar.cookieHeader(for: request.url) {
                        let existing = sent.headers[first: "Cookie"]
                        sent.headers.replaceOrAdd(name: "Cookie", value: existing.map { "\($0); \(value)" } ?? value)
                    }
                    let response = try await client.execute(sent, to: destination)
                    jar?.storeCookies(response.headers[all: "Set-Cookie"], from: request.url)
                    return response
                }
            }
            // A write into the -i -o file that fails stops the transfer, as with a plain -o file.
            headAndBody?.stopOnFailure { transfer.cancel() }
            defer { headAndBody?.discard() }
            do {
                let response = try await withTaskCancellationHandler {
                    try await transfer.value
                } onCancel: {
                    transfer.cancel()
                }
                written.withLock { $0.record(response, followed: false) }
                if let headAndBody {
                    if let failure = headAndBody.failure {
                        fail("\(plan.outputOption): writing '\(headAndBody.destinationPath)' failed: \(failure)")
                        return HTTPDNSTool.ExitStatus.writeFailed
                    }
                    if let failure = headAndBody.commit() {
                        fail("\(plan.outputOption): \(failure)")
                        return HTTPDNSTool.ExitStatus.writeFailed
                    }
                }
                return HTTPDNSTool.ExitStatus.success
            } catch let error as HTTPClientError {
                written.withLock { $0.record(error) }
                // A response that failed with -f still sets its cookies, as curl keeps them.
                if let jar, let head = error.responseHead {
                    jar.storeCookies(head.headers[all: "Set-Cookie"], from: error.url ?? plan.request.url)
                }
                // A failure after the head: it was described then, with where the addresses came from.
                if plan.verbose, !shownAtHead.withLock({ $0 }) {
                    if let resolution = error.resolution { describe(resolution, console: console) }
                    if let host = plan.request.url.host(percentEncoded: false), IPAddress(host) != nil {
                        let check =
                            error.connection?.certificateVerification == .disabled
                            ? "certificate not checked (verification disabled)" : "certificate checked against the IP"
                        console.note("* \(host) is an IP literal: no resolution, no SNI sent, \(check)")
                    }
                    if let failure = error.resolutionError { console.note("* resolution failed: \(failure)") }
                    if let route = error.serviceBindingRoute { describe(route, console: console) }
                    // A connection made without verification before the failure: warned about here.
                    if !plan.silent, let connection = error.connection, connection.verificationSkipped {
                        warnUnverified(connection, url: error.url ?? plan.request.url, console: console)
                    }
                    // What was sent and received before the failure (-f's response head, say).
                    for line in heads?.take() ?? [] { console.note(line) }
                }
                // -f -i: the head of the response that failed is still printed, as curl prints it
                // (an -o file is left as it was: it never gets part of a response).
                if plan.include, headAndBody == nil, !shownAtHead.withLock({ $0 }), let head = error.responseHead { write(headText(head)) }
                // The output file's own failure names the option that named the file, as the checks before any traffic do.
                if error.kind == .outputFailed, case .file = plan.output {
                    fail("\(plan.outputOption): \(error.message)")
                } else if error.kind == .timedOut, let limits = Self.maxTimeNote(plan.timeouts) {
                    // The options whose limit it was, as given: libcurl's figure counts only its part.
                    fail("\(error.message) (\(limits))")
                } else {
                    fail(plan.resolverOptions.withBootstrapHint(error.message))
                }
                return error.curlExitStatus
            } catch is CancellationError {
                if let failure = headAndBody?.failure, signalled() == nil {
                    fail("\(plan.outputOption): writing '\(headAndBody?.destinationPath ?? "")' failed: \(failure)")
                    return HTTPDNSTool.ExitStatus.writeFailed
                }
                interrupted = signalled() != nil
                return signalled() ?? 1
            } catch {
                fail("\(error)")
                return 1
            }
        }()
        if plan.writeOut != nil || plan.json, !interrupted {
            var values = written.withLock { $0 }
            values.urlNumber = plan.index
            values.finish(url: plan.request.url, status: status, message: failureMessage, elapsed: ContinuousClock.now - transferStarted)
            if let writeOut = plan.writeOut { console.output(writeOut.render(values) { console.note("httpdns: \($0)") }) }
            if plan.json { console.output(Data((values.json() + "\n").utf8)) }
        }
        return status
    }

    /// Where the addresses came from (the resolver's own -v events say why DoH was passed over).
    static func describe(_ resolution: HostResolution, console: Console) {
        var from = resolution.source.description
        if case .doh(let endpoint) = resolution.source { from += " (\(endpoint.absoluteString))" }
        if !resolution.fallbackReasons.isEmpty { from += ", after every DoH endpoint failed" }
        let ttl = resolution.ttl.map { " ttl=\(Int($0))" } ?? ""
        let nat64 = resolution.nat64Prefix.map { ", synthesized in NAT64 prefix \($0) (no IPv4 route)" } ?? ""
        console.note("* resolved \(resolution.host) via \(from): \(resolution.addresses.map(\.description).joined(separator: ", "))\(ttl)\(dnssecNote(resolution))\(nat64)")
    }

    /// -k's warning for a connection to `url`'s host made without verification, as the library
    /// words it (`TrustEvent.insecureConnection`).
    static func warnUnverified(_ connection: ConnectionReport, url: URL, console: Console) {
        let host = url.host(percentEncoded: false).map { HostName.normalize($0) ?? $0 } ?? "?"
        let port = url.port ?? (url.scheme?.lowercased() == "http" ? 80 : 443)
        console.note("httpdns: warning: \(TrustEvent.insecureConnection(host: host, port: port, remoteAddress: connection.remoteAddress))")
    }

    /// The head as `-i` prints it: the status line, the fields, an empty line, CRLF-terminated.
    static func headText(_ head: HTTPResponseHead) -> Data {
        headText(head.version, head.status, head.reasonPhrase, head.headers)
    }
    static func headText(_ response: HTTPResponse) -> Data {
        headText(response.version, response.status, response.reasonPhrase, response.headers)
    }
    private static func headText(_ version: HTTPVersion, _ status: Int, _ reasonPhrase: String?, _ headers: HTTPHeaders) -> Data {
        var text = statusLine(version, status, reasonPhrase) + "\r\n"
        for field in headers { text += "\(field.name): \(field.value)\r\n" }
        return Data((text + "\r\n").utf8)
    }

    /// The status line as curl shows it: `HTTP/1.1 404 Not Found` (the reason phrase as received),
    /// `HTTP/2 404` (HTTP/2 has none), `HTTP/1.1 200` for a line with an empty one (no trailing
    /// space).
    static func statusLine(_ version: HTTPVersion, _ status: Int, _ reasonPhrase: String?) -> String {
        guard let reasonPhrase, !reasonPhrase.isEmpty else { return "\(version) \(status)" }
        return "\(version) \(status) \(reasonPhrase)"
    }

    /// The -v lines for what the host's HTTPS record changed: why records were passed over (a
    /// hostile one, h3, ech), then the record used (`* HTTPS record priority 1: port 8443 (not
    /// 443), alpn h2,http/1.1`) or `* no HTTPS record used`.
    /// `prefix`: `* ` for fetch -v's lines, `httpdns: ` for pins' notes.
    static func describe(_ route: ServiceBindingRoute, console: Console, prefix: String = "* ") {
        for note in route.notes { console.note(prefix + note) }
        // Without a record the last note said why and where the request went.
        if route.record != nil { console.note(prefix + route.description) }
    }

    /// The -v report on one response: where the addresses came from, -k's warning for a new
    /// connection made without verification (`warnsUnverified`: not with -s), where we connected,
    /// what TLS carried, then the heads sent and received (`heads`, `HeadTraceLines`), or the
    /// status line alone when there are none. `url` is the request's (the hop's, after a redirect).
    static func describe(_ connection: ConnectionReport, statusLine: String, heads: [String], url: URL, warnsUnverified: Bool, console: Console) {
        if let resolution = connection.resolution {
            describe(resolution, console: console)
        } else if let proxy = connection.proxy {
            console.note("* sent by name via proxy \(proxy.redactedString) (no IP replacement; the proxy resolves the host)")
        } else if let host = url.host(percentEncoded: false) {
            let check = connection.certificateVerification == .disabled ? "certificate not checked (verification disabled)" : "certificate checked against the IP"
            console.note("* \(host) is an IP literal: no resolution, no SNI sent, \(check)")
        }
        if let route = connection.serviceBindingRoute { describe(route, console: console) }
        if warnsUnverified, connection.verificationSkipped { warnUnverified(connection, url: url, console: console) }
        let address = connection.remoteAddress ?? "?"
        let port = connection.remotePort.map(String.init) ?? "?"
        let source = connection.serviceBindingRoute?.usedAddressHints == true ? "an HTTPS record hint" : connection.resolution?.source.description ?? "literal"
        console.note("* connected to \(address) port \(port) (address from \(source))\(connection.reusedConnection ? ", reused connection" : "")")
        if let race = connection.timing?.addressRace {
            console.note("* Happy Eyeballs: \(address) connected first, after \(Int((race * 1000).rounded())) ms of racing")
        }
        if let tls = connection.tls {
            console.note("* TLS: \(tls.protocolVersion ?? "?"), SNI \(tls.serverName ?? "(none sent)"), ALPN \(tls.alpn ?? "(none)")")
            let host = url.host(percentEncoded: false).map { HostName.normalize($0) ?? $0 } ?? "?"
            // Never "verified" under -k: nothing was checked, whatever the certificate.
            let verdict =
                switch tls.verification {
                case .verified: "verified for \(host)"
                case .disabled: "\(tls.verification): neither the chain nor the name \(host) was checked"
                case .failed: "\(tls.verification) for \(host)"
                }
            console.note("* server certificate: subject \(tls.peerSubject ?? "?"); issuer \(tls.peerIssuer ?? "?"); \(verdict)")
        }
        if heads.isEmpty { console.note("< \(statusLine)") }
        for line in heads { console.note(line) }
    }
}
