import HTTPDNSCore

/// The libcurl options a request sets, computed from the request's facts alone: no handle, no
/// pointer, no callback. `Transfer` applies the list to its easy handle (`CurlOptionApplier`);
/// `TransferOptionsMemo` keeps the lists per route, so a request like the last ones on its route
/// takes its list (string lists built once) and a handle that still holds that very list sets
/// none of it again (`HandleReuse.application`).
///
/// Not in the list: CURLOPT_URL (per request), the callbacks every transfer binds to itself
/// (write, header, pre-request, socket lifecycle, CURLOPT_PRIVATE, CURLOPT_ERRORBUFFER), and
/// CURLOPT_RESOLVE and CURLOPT_SHARE (per pool, set by the engine). The callbacks only some
/// requests need are entries whose value is `.binding`: the transfer sets the function and points
/// its data at itself, every time, even when the handle holds the list.
struct TransferOptions: Equatable, Sendable {
    /// The options this type sets, each once at most; `Transfer` maps them to CURLoption.
    enum Option: Equatable, Hashable, Sendable, CaseIterable {
        case noSignal, protocols, proxy, suppressConnectHeaders, noProxy, followLocation
        case httpVersion, pipeWait, connectTimeoutMilliseconds, timeoutMilliseconds
        case lowSpeedLimit, lowSpeedTime, verifyPeer, verifyHost, caInfo, caPath, verifyStatus
        case connectTo, post, postFieldSize, customRequest, noBody, httpHeader, acceptEncoding
        /// CURLOPT_SOCKOPTFUNCTION: tells a transfer waiting for a connection that it got a socket.
        case socketOptionCallback
        /// CURLOPT_READFUNCTION and CURLOPT_SEEKFUNCTION: the request body.
        case bodyCallbacks
        /// CURLOPT_SSL_CTX_FUNCTION: anchors, pins and the client identity (`TransferTrust`).
        case tlsCallback
        /// CURLOPT_DEBUGFUNCTION with CURLOPT_VERBOSE: the heads sent and received, for
        /// `HTTPRequest.headTrace`. Bound, verbose mode included, on every use of the handle and
        /// cleared when the transfer is over, so a handle kept for reuse never calls a freed transfer.
        case headTraceCallback
    }

    enum Value: Equatable, Sendable {
        case long(Int)
        case text(String)
        /// A string list (curl_slist), built once per list by `TransferOptionsMemo`.
        case lines([String])
        /// A curl_off_t.
        case size(Int64)
        case version(HTTPVersionPreference)
        /// A NULL pointer: the option's default.
        case null
        /// A callback the transfer binds to itself (see the type's discussion).
        case binding
    }

    struct Entry: Equatable, Sendable {
        let option: Option
        let value: Value
    }

    /// What the options depend on.
    struct Facts: Equatable, Sendable {
        /// The IP-direct route (nil: libcurl resolves the name, or the host is an IP literal).
        var route: Route?
        /// The proxy the client's `ProxyPolicy` picked, nil for none (IP-direct never has one).
        var proxy: String?
        var version: HTTPVersionPreference
        /// The pool shares HTTP/2 connections (a request with a body gets a pool that does not).
        var multiplexes: Bool
        /// Time limits, in seconds (`Timeouts`).
        var connect: Double?
        var total: Double?
        var idle: Double?
        /// Verification on (`TrustPolicy.verification == .full`).
        var verifies: Bool
        var isHTTPS: Bool
        var requiresOCSPStapling: Bool
        /// The pool limits connections per host, or the request may wait to multiplex: a transfer
        /// must learn when it gets a socket (`socketOptionCallback`).
        var limitsConnections: Bool
        var method: String
        /// The body's length to announce (CURLOPT_POSTFIELDSIZE_LARGE, -1: none, sent chunked over
        /// HTTP/1.1); nil: no body.
        var bodyLength: Int64?
        var headers: HTTPHeaders
        var omittedHeaders: Set<String>
        /// The client's `User-Agent`, sent unless the request sets or omits one.
        var userAgent: String?
        var decompresses: Bool
        /// The request has a `headTrace`.
        var tracesHeads = false
    }

    /// Where an IP-direct request connects: the URL's host and port on these addresses, at
    /// `connectPort` (an HTTPS record's `port`, else `port`).
    struct Route: Equatable, Hashable, Sendable {
        var host: String
        var port: Int
        var addresses: [IPAddress]
        var connectPort: Int

        init(host: String, port: Int, addresses: [IPAddress], connectPort: Int? = nil) {
            self.host = host
            self.port = port
            self.addresses = addresses
            self.connectPort = connectPort ?? port
        }
    }

    let entries: [Entry]

    /// - Parameter connectTo: the CURLOPT_CONNECT_TO entry of `facts.route` ("host:port:synthetic:port").
    init(_ facts: Facts, connectTo: String?) {
        var entries: [Entry] = []
        entries.reserveCapacity(24)
        func add(_ option: Option, _ value: Value) { entries.append(Entry(option: option, value: value)) }
        add(.noSignal, .long(1))
        add(.protocols, .text("http,https"))
        // The proxy the policy picked, else none ("" also stops libcurl reading the environment).
        add(.proxy, .text(facts.proxy ?? ""))
        // The proxy's answer to CONNECT is not the response: passed to the header callback it was
        // taken for the response head.
        if facts.proxy != nil { add(.suppressConnectHeaders, .long(1)) }
        // The policy has applied its bypass list; libcurl must not apply the environment's on top.
        add(.noProxy, .text(""))
        add(.followLocation, .long(0))
        add(.httpVersion, .version(facts.version))
        // HTTP/2: wait for a connection that may multiplex rather than open one per request.
        let waitsToMultiplex = facts.version == .http2 && facts.multiplexes
        if waitsToMultiplex { add(.pipeWait, .long(1)) }
        if facts.limitsConnections || waitsToMultiplex { add(.socketOptionCallback, .binding) }
        if let connect = facts.connect { add(.connectTimeoutMilliseconds, .long(RequestDeadlines.curlMilliseconds(connect))) }
        if let total = facts.total { add(.timeoutMilliseconds, .long(RequestDeadlines.curlMilliseconds(total))) }
        if let idle = facts.idle {
            add(.lowSpeedLimit, .long(1))
            add(.lowSpeedTime, .long(max(1, Int(min(idle, Double(Int32.max)).rounded(.up)))))
        }
        // There is no way to turn off the name check alone.
        add(.verifyPeer, .long(facts.verifies ? 1 : 0))
        add(.verifyHost, .long(facts.verifies ? 2 : 0))
        if facts.isHTTPS {
            // The TLS callback installs the pool's own store: libcurl must not parse the system
            // bundle again for every new connection.
            add(.caInfo, .null)
            add(.caPath, .null)
            add(.tlsCallback, .binding)
            if facts.requiresOCSPStapling { add(.verifyStatus, .long(1)) }
        }
        if let connectTo { add(.connectTo, .lines([connectTo])) }
        if let length = facts.bodyLength {
            add(.post, .long(1))
            add(.bodyCallbacks, .binding)
            add(.postFieldSize, .size(length))
            if facts.method != "POST" { add(.customRequest, .text(facts.method)) }
        } else if facts.method == "HEAD" {
            add(.noBody, .long(1))
        } else if facts.method != "GET" {
            add(.customRequest, .text(facts.method))
        }
        add(.httpHeader, .lines(Self.headerLines(facts)))
        if facts.decompresses { add(.acceptEncoding, .text("")) }
        if facts.tracesHeads { add(.headTraceCallback, .binding) }
        self.entries = entries
    }

    /// The options set, in order.
    var options: [Option] { entries.map(\.option) }

    /// The value set for `option`, nil when the list leaves it at libcurl's default.
    subscript(option: Option) -> Value? { entries.first { $0.option == option }?.value }

    /// The CURLOPT_HTTPHEADER lines for the request's fields, which `RequestFraming.checkFields`
    /// found sendable.
    static func headerLines(_ facts: Facts) -> [String] {
        let hasBody = facts.bodyLength != nil
        var lines: [String] = []
        for field in facts.headers {
            // A body's Content-Length is its length, which libcurl sends itself
            // (CURLOPT_POSTFIELDSIZE_LARGE), as it sends Transfer-Encoding: chunked when there is
            // no length: given to libcurl, the caller's field went out twice or over HTTP/2, where
            // RFC 9113 §8.2.2 forbids it.
            if hasBody, field.name.lowercased() == "content-length" { continue }
            if field.name.lowercased() == "transfer-encoding" { continue }
            // "Name;" is libcurl's way to send a header with an empty value.
            lines.append(field.value.isEmpty ? "\(field.name);" : "\(field.name): \(field.value)")
        }
        for name in facts.omittedHeaders.sorted() where !facts.headers.contains(name: name) {
            // "Name:" is libcurl's way to leave out a header it would add.
            lines.append("\(name):")
        }
        // libcurl would label any POST body as a form; send no Content-Type unless the caller set one.
        if hasBody, !facts.headers.contains(name: "Content-Type") { lines.append("Content-Type:") }
        if !facts.headers.contains(name: "User-Agent"), !facts.omittedHeaders.contains(where: { $0.lowercased() == "user-agent" }),
            let agent = facts.userAgent
        {
            lines.append("User-Agent: \(agent)")
        }
        return lines
    }
}
