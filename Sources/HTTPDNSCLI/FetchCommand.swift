import Foundation
import HTTPDNS
import HTTPDNSCore

/// `httpdns fetch URL`: one request, curl-style.
enum FetchCommand {
    static let help = """
    Usage: httpdns fetch URL [options]

    Resolves URL's host over DNS-over-HTTPS and sends the request straight to the resolved address,
    with SNI, Host and certificate verification on the host name. The body goes to stdout.

    Options:
      -X, --request METHOD      Request method (default GET, or POST with -d).
      -H, --header 'Name: value'
                                Add a header, repeatable. 'Name:' leaves out one libcurl would add
                                (not Host), 'Name;' sends it empty, as in curl.
      -d, --data DATA           POST DATA as application/x-www-form-urlencoded (as curl); @FILE reads
                                the file and drops CR/LF, as curl does; @- reads standard input.
          --data-binary DATA    POST DATA byte-exact (the argument's bytes, UTF-8 or not, as -d's);
                                @FILE streams the file byte-exact, @- sends standard input.
                                Both send Content-Type application/x-www-form-urlencoded unless
                                -H sets one or leaves it out ('Content-Type:'), as curl. Repeated
                                or mixed, the pieces are joined with '&' in the order given.
                                A FILE that is a pipe (@<(command), a FIFO, @/dev/stdin), as @-,
                                is read whole first (at most 1 GiB) and sent with its length.
      -o, --output FILE         Write the body to FILE; a failed transfer never leaves it partial
                                or changed. A new FILE, or one of yours alone in a writable
                                directory, is written beside it and renamed when the transfer
                                succeeds (atomic). A device or FIFO (/dev/null) is written in
                                place, as curl. A FILE with other hard links, in a directory you
                                may not write, or of another owner is downloaded to a temporary
                                file (beside it, else in TMPDIR or /tmp), then copied into FILE
                                in place (its links, mode and owner kept; not atomic: a reader
                                meanwhile sees the new start over the old rest; if that copy
                                fails, exit 23 names the temporary file, kept with the whole
                                body). "-" is stdout. A FILE that is stdout or stderr
                                (/dev/stdout, /dev/fd/2, the file either is redirected to) is
                                written through that descriptor instead, as "-" is (a closed
                                stdout exits 23). A symbolic link is followed, except one in a
                                sticky world-writable directory (/tmp) owned by neither you nor
                                the directory's owner, as the kernel's protected_symlinks.
                                A FILE you may not write, such a link, or a missing or
                                unwritable directory is refused before any traffic with exit
                                23, as curl's.
      -O, --remote-name         Write the body to a file in the current directory named as the
                                URL's last path segment, as curl 7.88: as written, percent-encoding
                                kept, without the query (.../a/b%20c.txt?x=1 writes 'b%20c.txt');
                                never a directory from the URL; written as -o writes. A URL whose
                                path ends in '/' names no file: exit 23 before any traffic, as
                                curl's "Remote file name has no length". Not with -o (exit 2).
      -i, --include             Print the status line and response headers before the body (into
                                FILE with -o, as curl does).
      -I, --head                Send HEAD and print the status line and response headers.
      -A, --user-agent NAME     Send User-Agent: NAME ("" sends none); an -H User-Agent wins.
      -u, --user USER:PASSWORD  HTTP Basic authentication (RFC 7617); the first ':' ends USER, the
                                password may hold more. Without ':' curl would prompt for the
                                password; this refuses (exit 2): give -u 'USER:' for an empty one.
                                Not sent on to another host, port or scheme after a redirect (-L);
                                an -H Authorization wins. -v names the user, never the password.
      -e, --referer URL         Send Referer: URL. 'URL;auto' (or ';auto' alone) with -L also sets
                                it on each request after a redirect to the URL redirected from
                                (without credentials or fragment), as curl. An -H Referer wins.
      -L, --location            Follow redirects (301, 302, 303, 307, 308): each new host is resolved
                                over DoH again and gets its own SNI, Host and certificate check; a
                                relative Location is resolved against the URL, never the address.
                                301/302 turn POST into GET, 303 any method but HEAD; 307/308 keep
                                method and body. -i and -I print every response's head, as curl.
          --max-redirs NUM      With -L, follow at most NUM redirects (default 50, as curl); one more
                                exits 47.
      -v, --verbose             Report on stderr: the address used and where it came from, the SNI
                                sent, the ALPN protocol, the server certificate's subject and issuer.
      -w, --write-out FORMAT    After the transfer, also a failed one, write FORMAT to stdout, as
                                curl 7.88: %{variable}, %% for '%', \\n \\r \\t. @FILE reads it from
                                FILE (line ends dropped), @- from stdin. Variables: http_code
                                (response_code; 000 without a response), http_version, remote_ip
                                and remote_port (the address connected to), size_download (body
                                bytes received, before --compressed decoding), size_header,
                                time_namelookup (this tool's own DoH/HTTPDNS resolution included),
                                time_connect, time_appconnect, time_starttransfer, time_total
                                (seconds from the start, summed over -L's requests as curl does),
                                num_redirects, url_effective, content_type, exitcode, errormsg
                                (this tool's message, not libcurl's), ssl_verify_result (OpenSSL's
                                code for a chain that failed, exit 60; 0 with -k, which checks
                                nothing). Another name is warned about on stderr and writes
                                nothing. Nothing is written for input refused before any traffic
                                or after a signal.
      -s, --silent              No error messages (unless -S), nor -k's warning.
      -S, --show-error          With -s, still print error messages.
      -f, --fail                Exit 22 without the body for HTTP status >= 400 (with -i or -I
                                the head is still printed, as curl).
          --compressed          Ask for a compressed response (Accept-Encoding: deflate, gzip, br,
                                zstd) and decode it, as curl's --compressed; without it, as in
                                curl, no encoding is asked for and the body is saved as sent.
          --http1.1             Use HTTP/1.1 only.
          --http2               Use HTTP/2 when the server offers it by ALPN (default).
      -m, --max-time SECONDS    Limit for the whole request (exit 28 when exceeded).
          --connect-timeout SECONDS
                                Limit for resolving the name (DoH/HTTPDNS included, as
                                curl), then for connecting, TLS included (default 10).
      -x, --proxy URL           Send the request through this HTTP proxy (http:// or https://; no
                                scheme means http://), by host name: the proxy resolves it, no IP
                                replacement, TLS still verified for the name. Without -x the
                                environment decides, as in curl: https_proxy, http_proxy, all_proxy.
          --noproxy LIST        Hosts that go direct (over DoH) even with a proxy, comma-separated:
                                names (and the names under them), IP addresses, CIDR blocks
                                (10.0.0.0/8) or "*". Overrides no_proxy.
    \(ResolverOptions.help)
    \(TrustOptions.help)
      -h, --help                This help.

    Exit status: 0 ok, 2 usage or bad input (found before any traffic, a --cert, --key or
    --pass that cannot be used included), 6 could not resolve host, 7 could not connect,
    8 a response that cannot be framed (conflicting Content-Length), 18 the connection
    closed before the whole body came (no -o file is left), 22 HTTP status
    >= 400 with -f, 23 writing the output failed, 28 timeout, 35 TLS handshake
    failed, 47 too many redirects, 56 connection broken while receiving, 58 the client
    certificate was rejected by the server or refused by TLS in the handshake, 60 certificate
    verification failed, 90 pin mismatch, 91 no valid OCSP staple with --cert-status (curl's
    numbers, except that curl gives some bad input its own, such as 58 for a --cert it cannot
    load); 130/143 interrupted by SIGINT/SIGTERM (no output file is left behind).
    """

    static let parser = ArgumentParser(command: "fetch", options: [
        .init(names: ["-X", "--request"], arity: .value),
        .init(names: ["-H", "--header"], arity: .value),
        .init(names: ["-d", "--data"], arity: .value, takesBytes: true),
        .init(names: ["--data-binary"], arity: .value, takesBytes: true),
        .init(names: ["-o", "--output"], arity: .value),
        .init(names: ["-O", "--remote-name"], arity: .flag),
        .init(names: ["-u", "--user"], arity: .value, takesBytes: true),
        .init(names: ["-e", "--referer"], arity: .value),
        .init(names: ["-w", "--write-out"], arity: .value),
        .init(names: ["-i", "--include"], arity: .flag),
        .init(names: ["-L", "--location"], arity: .flag),
        .init(names: ["--max-redirs"], arity: .value),
        .init(names: ["-v", "--verbose"], arity: .flag),
        .init(names: ["-s", "--silent"], arity: .flag),
        .init(names: ["-S", "--show-error"], arity: .flag),
        .init(names: ["-f", "--fail"], arity: .flag),
        .init(names: ["--http1.1"], arity: .flag),
        .init(names: ["--compressed"], arity: .flag),
        .init(names: ["--http2"], arity: .flag),
        .init(names: ["-m", "--max-time"], arity: .value),
        .init(names: ["-A", "--user-agent"], arity: .value),
        .init(names: ["-I", "--head"], arity: .flag),
        .init(names: ["--connect-timeout"], arity: .value),
        .init(names: ["-x", "--proxy"], arity: .value),
        .init(names: ["--noproxy"], arity: .value),
        .init(names: ["-h", "--help"], arity: .flag),
    ] + ResolverOptions.parserOptions + TrustOptions.parserOptions)

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
    }

    /// - Parameter raw: `arguments`' bytes as given (`argv`), for the bodies given inline.
    static func run(_ arguments: [String], raw: [[UInt8]], console: Console, environment: Environment) async -> Int32 {
        let plan: Plan
        do {
            let parsed = try parser.parse(arguments, raw: raw)
            if parsed.has("help") {
                console.print(help)
                return HTTPDNSTool.ExitStatus.success
            }
            plan = try makePlan(parsed, environment: environment)
        } catch {
            return HTTPDNSTool.report(error, console: console)
        }
        return await execute(plan, console: console)
    }

    static func makePlan(_ parsed: ArgumentParser.Parsed, environment: Environment) throws(UsageError) -> Plan {
        guard parsed.positionals.count == 1, let text = parsed.positionals.first else {
            throw UsageError(parsed.positionals.isEmpty ? "no URL given" : "one URL expected, got \(parsed.positionals.count)", command: "fetch")
        }
        guard !text.contains(where: { $0.isWhitespace }) else {
            throw UsageError("malformed URL '\(text)': it contains white space (percent-encode it as %20)", command: "fetch")
        }
        guard text.contains("://") else {
            throw UsageError("malformed URL '\(text)': no scheme (write it as https://\(text))", command: "fetch")
        }
        guard let url = URL(string: text) else {
            throw UsageError("malformed URL '\(text)'", command: "fetch")
        }
        do {
            try HTTPRequest.validate(url: url)
        } catch {
            throw UsageError(error.message, command: "fetch")
        }

        // curl's forms: "Name: value" sends a field, "Name:" leaves out one libcurl would add,
        // "Name;" sends it empty.
        var headers = HTTPHeaders()
        var omitted: Set<String> = []
        for line in parsed.all("header") {
            let trimmed = line.trimmingWhitespace()
            if !trimmed.contains(":"), trimmed.hasSuffix(";"), trimmed.count > 1 {
                headers.add(name: String(trimmed.dropLast()).trimmingWhitespace(), value: "")
                continue
            }
            guard let colon = line.firstIndex(of: ":"), colon != line.startIndex else {
                throw UsageError("bad header '\(line)' (expected 'Name: value', 'Name:' to leave it out or 'Name;' to send it empty)", command: "fetch")
            }
            let name = line[..<colon].trimmingWhitespace()
            let value = line[line.index(after: colon)...].trimmingWhitespace()
            if value.isEmpty {
                guard name.lowercased() != "host" else {
                    throw UsageError("-H '\(line)': the Host header cannot be left out, it names the host the request is for", command: "fetch")
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
        if let text = parsed.value("max-time") { timeouts.total = try TimeLimitOption.seconds(text, option: "--max-time", command: "fetch") }
        if let text = parsed.value("connect-timeout") { timeouts.connect = try TimeLimitOption.seconds(text, option: "--connect-timeout", command: "fetch") }
        // (0 leaves the connect limit to libcurl's 300 s and the total unlimited.)

        var version = HTTPVersionPreference.http2
        if let last = parsed.order.last(where: { $0 == "http1.1" || $0 == "http2" }), last == "http1.1" { version = .http1_1 }

        let resolverOptions = try ResolverOptions(parsed, environment: environment, command: "fetch")
        let trustOptions = try TrustOptions(parsed, command: "fetch")

        let outputs = parsed.all("output")
        guard outputs.count <= 1 else {
            // curl writes the first and warns of the rest; which one was meant is a guess.
            throw UsageError("-o given \(outputs.count) times for one URL: give it once", command: "fetch")
        }
        let output: FetchOutput
        if parsed.has("remote-name") {
            guard outputs.isEmpty else {
                throw UsageError("-O and -o both name the output file: give one of them", command: "fetch")
            }
            output = try FetchOutput(remoteNameOf: url)
        } else {
            output = try FetchOutput(path: outputs.first)
        }
        let writeOut = try parsed.value("write-out").map { (argument) throws(UsageError) in try WriteOut(argument: argument) }

        var redirects: RedirectPolicy?
        if parsed.has("location") {
            var maximum = 50
            if let text = parsed.value("max-redirs") {
                guard let value = Int(text), value >= -1 else {
                    throw UsageError("--max-redirs needs a number of redirects (0 or more, -1 for no limit), got '\(text)'", command: "fetch")
                }
                // -1: no limit, as curl.
                maximum = value < 0 ? Int.max : value
            }
            redirects = RedirectPolicy(maximumRedirects: maximum, setsReferer: autoReferer)
        }

        let proxy = try proxyPolicy(parsed, environment: environment)

        var request = HTTPRequest(url: url, method: method, headers: headers, body: body)
        request.omittedHeaders = omitted
        request.failsOnHTTPError = parsed.has("fail")
        request.reportsTLSDetails = parsed.has("verbose")
        request.timeouts = timeouts
        request.httpVersion = version
        return Plan(request: request, output: output, include: parsed.has("include") || head, verbose: parsed.has("verbose"),
                    silent: parsed.has("silent") && !parsed.has("show-error"), resolverOptions: resolverOptions, timeouts: timeouts, httpVersion: version,
                    trustOptions: trustOptions, redirects: redirects, proxy: proxy, compressed: parsed.has("compressed"),
                    writeOut: writeOut, user: user)
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
              let host = url.host, !host.isEmpty else {
            throw UsageError("-x: '\(text)' is not an HTTP proxy URL (expected http://HOST:PORT or https://HOST:PORT)", command: "fetch")
        }
        let list = (bypass ?? environment["no_proxy"] ?? environment["NO_PROXY"] ?? "")
            .split(separator: ",").map { $0.trimmingWhitespace() }
        return .fixed(url, bypass: list)
    }


    static func execute(_ plan: Plan, console: Console) async -> Int32 {
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
        if let failure = plan.output.checkWritable() {
            if !plan.silent { console.note("httpdns: \(failure)") }
            return HTTPDNSTool.ExitStatus.writeFailed
        }
        // The client's connect limit covers resolving the name (as curl's), DoH exchanges included.
        let resolver = plan.resolverOptions.makeResolver(observer: console.resolverObserver(verbose: plan.verbose))
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
            var configuration = HTTPClient.Configuration(trust: trust, timeouts: plan.timeouts, httpVersion: plan.httpVersion)
            configuration.racesAddresses = plan.resolverOptions.providerOptions.happyEyeballs
            configuration.proxy = plan.proxy
            configuration.decompressesResponses = plan.compressed
            // -s: no warning for -k's unauthenticated connections either (asked for by that name), as
            // curl -sk prints nothing; -sS and every other mode keep it.
            if plan.silent { configuration.trustEventHandler = { _ in } }
            let client = HTTPClient(configuration: configuration, resolver: resolver)
            // The body streams to stdout as it arrives, never held whole in memory, unless -i must
            // print the response head first.
            // -v describes each response as its head arrives, before a body streamed to stdout (as
            // curl does); followed redirects are described as they are followed.
            // The URL of the hop under way: moved on by the redirect callback, read by the head
            // callback on the transfer thread.
            let hop = LockedValue(plan.request.url)
            let destination: ResponseBodyDestination
            var describedAtHead = false
            // -i -o FILE: the head goes into FILE before the body, as curl writes it (see HeadAndBodyFile).
            var headAndBody: HeadAndBodyFile?
            if case .file(let output) = plan.output, plan.include {
                let file: HeadAndBodyFile
                do {
                    file = try HeadAndBodyFile(replacing: output.path)
                } catch {
                    fail("\(error)")
                    return HTTPDNSTool.ExitStatus.writeFailed
                }
                headAndBody = file
                destination = .streaming(head: { head in file.write(headText(head)) }, chunk: { chunk in file.write(chunk) })
            } else if case .file(let output) = plan.output {
                destination = .file(output)
            } else if plan.output == .standardError {
                // Through the descriptor, at its offset, as the shell's own writes around it.
                let write = console.errorOutput
                destination = .handler { chunk in write(chunk) }
            } else if plan.include {
                destination = .memory(limit: nil)
            } else if plan.verbose {
                let write = console.output
                destination = .streaming(head: { head in
                    if let connection = head.connection {
                        describe(connection, statusLine: statusLine(head.version, head.status, head.reasonPhrase), url: hop.withLock { $0 }, console: console)
                    }
                }, chunk: { chunk in write(chunk) })
                describedAtHead = true
            } else {
                let write = console.output
                destination = .handler { chunk in write(chunk) }
            }
            let request = plan.request
            let redirects = plan.redirects
            let verbose = plan.verbose
            let include = plan.include
            let headFile = headAndBody
            if verbose, let user = plan.user { console.note("* Server auth using Basic with user '\(user)'") }
            let transfer = Task {
                if let redirects {
                    try await client.execute(request, to: destination, redirects: redirects, redirected: { response, redirect in
                        written.withLock { $0.record(response, followed: redirect != nil) }
                        // -i -L: every response's head, the redirects' included, as curl prints them
                        // (the last one's comes with its body, below).
                        if include {
                            let head = headText(response)
                            if let headFile { headFile.write(head) } else { console.output(head) }
                        }
                        if verbose {
                            describe(response.connection, statusLine: statusLine(response.version, response.status, response.reasonPhrase),
                                     url: response.url ?? hop.withLock { $0 }, console: console)
                            if let redirect { console.note("* following the \(redirect.status) redirect to \(redirect.location.absoluteString)") }
                        }
                        if let redirect { hop.withLock { $0 = redirect.location } }
                    })
                } else {
                    try await client.execute(request, to: destination)
                }
            }
            // SIGINT/SIGTERM cancel the transfer, which removes any partial output, then exit as a
            // signalled process would (128 + signal number).
            let interruption = SignalInterruption(cancelling: transfer)
            defer { interruption.stop() }
            // A write into the -i -o file that fails stops the transfer, as with a plain -o file.
            headAndBody?.stopOnFailure { transfer.cancel() }
            defer { headAndBody?.discard() }
            do {
                let response = try await transfer.value
                written.withLock { $0.record(response, followed: false) }
                if let headAndBody {
                    if let failure = headAndBody.failure {
                        fail("writing '\(headAndBody.destinationPath)' failed: \(failure)")
                        return HTTPDNSTool.ExitStatus.writeFailed
                    }
                    if let failure = headAndBody.commit() {
                        fail(failure)
                        return HTTPDNSTool.ExitStatus.writeFailed
                    }
                }
                if plan.verbose, !describedAtHead {
                    describe(response.connection, statusLine: statusLine(response.version, response.status, response.reasonPhrase),
                             url: response.url ?? plan.request.url, console: console)
                }
                if plan.include, headAndBody == nil {
                    console.output(headText(response))
                }
                if plan.output == .standardOutput && plan.include { console.output(response.body) }
                return HTTPDNSTool.ExitStatus.success
            } catch let error as HTTPClientError {
                written.withLock { $0.record(error) }
                if plan.verbose {
                    if let resolution = error.resolution { describe(resolution, console: console) }
                    if let host = plan.request.url.host(percentEncoded: false), IPAddress(host) != nil {
                        console.note("* \(host) is an IP literal: no resolution, no SNI sent, certificate checked against the IP")
                    }
                    if let failure = error.resolutionError { console.note("* resolution failed: \(failure)") }
                }
                // -f -i: the head of the response that failed is still printed, as curl prints it
                // (an -o file is left as it was: it never gets part of a response).
                if plan.include, headAndBody == nil, let head = error.responseHead { console.output(headText(head)) }
                fail(error.message)
                return error.curlExitStatus
            } catch is CancellationError {
                if let failure = headAndBody?.failure, interruption.exitStatus == nil {
                    fail("writing '\(headAndBody?.destinationPath ?? "")' failed: \(failure)")
                    return HTTPDNSTool.ExitStatus.writeFailed
                }
                interrupted = interruption.exitStatus != nil
                return interruption.exitStatus ?? 1
            } catch {
                fail("\(error)")
                return 1
            }
        }()
        if let writeOut = plan.writeOut, !interrupted {
            var values = written.withLock { $0 }
            values.finish(url: plan.request.url, status: status, message: failureMessage, elapsed: ContinuousClock.now - transferStarted)
            console.output(writeOut.render(values) { console.note("httpdns: \($0)") })
        }
        // A stale answer starts a background refresh: let it finish (and reach the cache file)
        // before the process exits under it, within what is left of -m.
        if let host = plan.request.url.host(percentEncoded: false) {
            let elapsed = ContinuousClock.now - started
            let left = plan.timeouts.total.map { $0 - (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18) }
            await resolver.waitForRefresh(host: host, within: left)
            await resolver.waitForPreResolution(within: left)
        }
        resolver.savePersistentCache()
        return status
    }

    /// Where the addresses came from (the resolver's own -v events say why DoH was passed over).
    static func describe(_ resolution: HostResolution, console: Console) {
        var from = resolution.source.description
        if case .doh(let endpoint) = resolution.source { from += " (\(endpoint.absoluteString))" }
        if !resolution.fallbackReasons.isEmpty { from += ", after every DoH endpoint failed" }
        let ttl = resolution.ttl.map { " ttl=\(Int($0))" } ?? ""
        console.note("* resolved \(resolution.host) via \(from): \(resolution.addresses.map(\.description).joined(separator: ", "))\(ttl)")
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

    /// The -v report on one response: where the addresses came from, where we connected, what TLS
    /// carried, the status line. `url` is the request's (the hop's, after a redirect).
    static func describe(_ connection: ConnectionReport, statusLine: String, url: URL, console: Console) {
        if let resolution = connection.resolution {
            describe(resolution, console: console)
        } else if let proxy = connection.proxy {
            console.note("* sent by name via proxy \(proxy.redactedString) (no IP replacement; the proxy resolves the host)")
        } else if let host = url.host(percentEncoded: false) {
            console.note("* \(host) is an IP literal: no resolution, no SNI sent, certificate checked against the IP")
        }
        let address = connection.remoteAddress ?? "?"
        let port = connection.remotePort.map(String.init) ?? "?"
        let source = connection.resolution?.source.description ?? "literal"
        console.note("* connected to \(address) port \(port) (address from \(source))\(connection.reusedConnection ? ", reused connection" : "")")
        if let race = connection.timing?.addressRace {
            console.note("* Happy Eyeballs: \(address) connected first, after \(Int((race * 1000).rounded())) ms of racing")
        }
        if let tls = connection.tls {
            console.note("* TLS: \(tls.protocolVersion ?? "?"), SNI \(tls.serverName ?? "(none sent)"), ALPN \(tls.alpn ?? "(none)")")
            console.note("* server certificate: subject \(tls.peerSubject ?? "?"); issuer \(tls.peerIssuer ?? "?"); \(tls.verified ? "verified" : "NOT verified") for \(url.host(percentEncoded: false).map { HostName.normalize($0) ?? $0 } ?? "?")")
        }
        console.note("< \(statusLine)")
    }
}
