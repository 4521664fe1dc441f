import Foundation
import Synchronization
import HTTPDNSCore
import TLSTrust
internal import CCurl
internal import COpenSSL
internal import CHTTPDNSShims

/// One request on one libcurl easy handle. Built on the request's thread, run by the engine with its
/// loop state locked from `submit` until `finish`, then read on the request's thread again; only
/// `markCancelled` comes from elsewhere meanwhile.
final class Transfer: @unchecked Sendable { // owned by one thread at a time (the request's, then the engine's), but for the atomic cancellation flag
    /// The easy handle's owner; `easy` is its pointer, for libcurl calls.
    private let handle: EasyHandle
    var easy: UnsafeMutableRawPointer { handle.raw }
    let url: URL
    let pool: PoolDescriptor
    var continuation: CheckedContinuation<HTTPResponse, any Error>?

    private let cancelled = Atomic<Bool>(false)
    /// Raised by `finish` (releasing), once libcurl is done with the transfer, and read by
    /// `receivedHeaders` (acquiring): this orders the header callback's writes before the caller's
    /// read where ThreadSanitizer sees it too (the continuation hands the result over inside the
    /// Swift runtime, which it does not see).
    private let finished = Atomic<Bool>(false)
    /// The option list set on the handle (`TransferOptionsMemo`), which keeps its string lists
    /// alive while the handle may read them.
    private var options: PreparedOptions?
    /// A CURLOPT_RESOLVE list the transfer set (`loadRoute`), held while the handle may read it.
    private var resolveList: CurlStringList?
    private let errorBuffer: UnsafeMutablePointer<CChar>
    private let bodySource: RequestBodySource?
    /// How the body is delimited: the caller's `Transfer-Encoding: chunked` sends it chunked.
    private let framing: RequestFraming
    private var sink: ResponseBodySink
    /// Set before submit: when it returns true for the response head, the body is dropped and the
    /// destination never sees it (a redirect that will be followed).
    var discardsBody: (@Sendable (HTTPResponseHead) -> Bool)?
    /// Set before submit: how long the Happy Eyeballs race before this transfer took, if one ran.
    var addressRaceTime: TimeInterval?
    /// Set before submit, in seconds from the start of the request: when the client's resolution
    /// ended (nil when it resolved nothing), and when this transfer started (`TransferTiming`).
    var nameLookupTime: TimeInterval?
    var startTime: TimeInterval = 0
    private let resolution: HostResolution?
    private let addresses: [IPAddress]?
    /// The IP-direct route: its synthetic CURLOPT_CONNECT_TO host (which libcurl may name in its
    /// messages) and its addresses, for the pool's DNS cache (`loadRoute(into:)`).
    private var route: ConnectRoute?
    /// Set when this transfer carries the route's CURLOPT_RESOLVE entry.
    private var carriesRoute = false
    let displayHost: String
    let port: Int
    /// The port connected to: an HTTPS record's `port` (`ServiceBindingRoute`), else `port`.
    let connectPort: Int
    /// What the origin's HTTPS records changed, for the connection reports. Set before submit.
    var serviceBindingRoute: ServiceBindingRoute?
    private let reportsTLS: Bool
    /// `HTTPRequest.headTrace`: told the heads libcurl sends and receives (`traceHead`).
    private let headTrace: (@Sendable (HTTPHeadTrace) -> Void)?
    let isHTTPS: Bool
    private let isIPLiteral: Bool
    /// `HTTPRequest.failsOnHTTPError`: a status of 400 or more fails the request, its body dropped.
    private let failsOnHTTPError: Bool
    /// The proxy the request goes through, if any.
    private var proxy: URL?

    // Response state, filled by the header callback.
    /// The response head, as the header callback reads it. Its room is reserved here, on the
    /// caller's thread, so a usual head costs the transfer thread no allocation. Written only by the
    /// header callback, and read once the transfer is over (`finished`), so no two accesses ever
    /// overlap: not checked at run time, as each of a response's header lines would be.
    @exclusivity(unchecked) private var head = ResponseHeadReader(reserving: Transfer.usualHeadSize)
    var status: Int { head.status }
    /// A response that cannot be framed (conflicting or malformed `Content-Length`): the header
    /// callback stopped the transfer, and this is its error.
    private var framingError: HTTPClientError?
    private var headDelivered = false
    private var tls: TLSReport?
    /// The TLS callbacks' state for https (pins for this host, what the handshake found).
    var transferTrust: TransferTrust?
    /// The first bytes of an HTTP 400 body over TLS, to recognise a rejected client certificate.
    var rejectionProbe = Data()
    /// True while `rejectionProbe` holds the whole body so far, kept from the destination until the
    /// transfer ends: a page rejecting the client certificate (a few hundred bytes) never reaches it.
    var holdsBody = false
    private static let rejectionProbeSize = 1024
    /// The method, for messages.
    private let method: String
    /// The request's connect and total time limits, in seconds, for `TransferEngine`'s watch over
    /// transfers that wait for a connection (Documentation/LibcurlNotes.md #4).
    private(set) var connectLimit: TimeInterval?
    private(set) var totalLimit: TimeInterval?
    /// The pool the engine added the transfer to, until it ends; its counts at the start
    /// (`ConnectionPool.oversubscriptions`, `setUpsBegun`, `openingTransfers`), and whether the
    /// transfer counts in its `openingTransfers`. Transfer thread.
    var connectionPool: ConnectionPool?
    var oversubscriptionsAtStart = 0
    var setUpsBegunAtStart = 0
    var startedBesideOpening = false
    private(set) var countsAsOpening = false
    /// What `prepareHandle` decided for `EasyHandleCache`; nil until it ran (the handle is then
    /// cleaned up with the transfer).
    private var handleReuse: HandleReuse?

    /// The facts `HandleReuse.decide` needs, once the transfer is out of the multi handle and its
    /// outcome is read; the queue facts come from the engine. Loop thread.
    func reuseFacts(
        after result: Result<HTTPResponse, any Error>, oversubscribedMeanwhile: Bool,
        besideConnectionSetUp: Bool
    ) -> HandleReuse.Facts {
        var headBytes = 0, connects = 0, hostAuth = 0, proxyAuth = 0
        _ = httpdns_easy_getinfo_long(easy, CURLINFO_HEADER_SIZE, &headBytes)
        _ = httpdns_easy_getinfo_long(easy, CURLINFO_NUM_CONNECTS, &connects)
        _ = httpdns_easy_getinfo_long(easy, CURLINFO_HTTPAUTH_AVAIL, &hostAuth)
        _ = httpdns_easy_getinfo_long(easy, CURLINFO_PROXYAUTH_AVAIL, &proxyAuth)
        var succeeded = false
        if case .success = result { succeeded = true }
        return HandleReuse.Facts(
            oversubscribedMeanwhile: oversubscribedMeanwhile, besideConnectionSetUp: besideConnectionSetUp,
            sentBody: bodySource != nil, headBytes: headBytes, leftShare: !sharesSessions, succeeded: succeeded,
            sendAttempts: sendAttempts, viaProxy: proxy != nil, urlCredentials: url.user != nil || url.password != nil,
            cancelled: isCancelled, connectionsOpened: connects, authOffered: hostAuth != 0 || proxyAuth != 0)
    }

    /// Readies the handle for `EasyHandleCache` as `decision` says (`HandleReuse`). Keeping its
    /// options keeps the option list (and its string lists) with it, and clears the pointers to
    /// this transfer's error buffer and CURLOPT_RESOLVE list, which go with the transfer (libcurl
    /// keeps a list not yet loaded in `state.resolve`). Loop thread.
    func prepareHandle(_ decision: HandleReuse) {
        guard handleReuse == nil else { return }
        handleReuse = decision
        clearHeadTrace()
        switch decision {
        case .cleanUp: break
        case .reset: handle.reset()
        case .keepOptions:
            _ = httpdns_easy_setopt_ptr(easy, CURLOPT_RESOLVE, nil)
            _ = httpdns_easy_setopt_ptr(easy, CURLOPT_ERRORBUFFER, nil)
        }
    }
    /// When the engine added the transfer (uptime ns). Transfer thread.
    var startedAt: UInt64 = 0
    /// Set when libcurl opens a socket for the transfer (CURLOPT_SOCKOPTFUNCTION): it is no longer
    /// waiting for a connection, and libcurl's own connect time-out (restarted then) applies.
    private(set) var openedSocket = false
    /// Set when the transfer may wait for another transfer's connection to multiplex on it
    /// (CURLOPT_PIPEWAIT), which libcurl does not time out either (LibcurlNotes #4).
    private(set) var waitsToMultiplex = false
    /// How many times libcurl was about to send the request (CURLOPT_PREREQFUNCTION): more than
    /// once when it retried on another connection. A non-idempotent request must not go out twice;
    /// a handle whose transfer was retried is reset (`prepareHandleForReuse`).
    private var sendAttempts = 0
    /// Set when a second send of a non-idempotent request was refused.
    private var refusedResend = false
    /// Set when libcurl had to send the body again and it could not be rewound (a stream, read).
    private var refusedRewind = false
    /// `HTTPRequest.isIdempotent`: whether libcurl may send the request a second time.
    private let mayResend: Bool

    /// Configures the easy handle for `request`, which passed `RequestFraming.checkFields` (its
    /// method, fields and framing are not checked again here).
    /// - Throws: `HTTPClientError` for a request that cannot be sent as given (its body against its
    ///   `Content-Length`, a body file that cannot be opened, a destination that cannot be written).
    /// - Parameters:
    ///   - proxy: the proxy the client's `ProxyPolicy` picked for the request (nil for IP-direct).
    ///   - memo: the client's option lists for its recent routes.
    init(
        request: HTTPRequest, target: RequestTarget, connectPort: Int? = nil, addresses: [IPAddress]?, resolution: HostResolution?,
        configuration: HTTPClient.Configuration, destination: ResponseBodyDestination, pool: PoolDescriptor,
        proxy: URL?, memo: TransferOptionsMemo
    ) throws {
        // A finished transfer's handle where it is safe (see `EasyHandleCache`), else a new one.
        guard let taken = EasyHandleCache.take() else {
            throw HTTPClientError(kind: .transferFailed, message: "libcurl could not create an easy handle", url: request.url)
        }
        let handle = taken.handle
        var heldOptions = taken.options
        // Credentials in the URL: libcurl authenticates from state a reset clears, whatever any
        // request before left in it.
        if HandleReuse.resetsBefore(heldOptions: heldOptions != nil, urlCredentials: request.url.user != nil || request.url.password != nil) {
            handle.reset()
            heldOptions = nil
        }
        self.handle = handle
        self.url = request.url
        self.method = request.method
        self.pool = pool
        self.resolution = resolution
        self.addresses = addresses
        self.displayHost = target.host
        self.port = target.port
        self.connectPort = connectPort ?? target.port
        self.reportsTLS = request.reportsTLSDetails && target.isHTTPS
        self.headTrace = request.headTrace
        self.isHTTPS = target.isHTTPS
        self.isIPLiteral = target.isIPLiteral
        self.failsOnHTTPError = request.failsOnHTTPError
        // IP-direct requests (addresses given) never go through one.
        self.proxy = addresses == nil ? proxy : nil
        self.mayResend = request.isIdempotent
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        do {
            let bodySource = try request.body.map { try RequestBodySource($0, url: request.url) }
            self.bodySource = bodySource
            framing = try RequestFraming(request: request, body: bodySource)
            sink = try ResponseBodySink(destination, url: request.url)
        } catch {
            EasyHandleCache.give(handle)
            errorBuffer.deallocate()
            throw error
        }
        do {
            try configure(request: request, target: target, configuration: configuration, memo: memo, held: heldOptions)
        } catch {
            release()
            throw error
        }
    }

    deinit { release() }

    private var released = false
    private func release() {
        guard !released else { return }
        released = true
        clearHeadTrace()
        // Only a handle the engine readied for reuse goes back (see `prepareHandleForReuse`).
        switch handleReuse {
        case .reset?: EasyHandleCache.keep(handle)
        case .keepOptions?: EasyHandleCache.keep(handle, options: options)
        case .cleanUp?, nil: break // cleaned up with its owner
        }
        options = nil
        resolveList = nil
        errorBuffer.deallocate()
    }

    /// Whether libcurl may resolve a name itself for this transfer (a proxy's host, or a request
    /// with no address list), which its threaded resolver does over a socket pair the engine watches.
    var mayResolveInLibcurl: Bool { proxy != nil || (route == nil && !isIPLiteral) }

    var isCancelled: Bool { cancelled.load(ordering: .acquiring) }
    func markCancelled() { cancelled.store(true, ordering: .releasing) }

    /// Joins the pool's TLS session cache (CURLOPT_SHARE). Transfer thread.
    func attach(share: UnsafeMutableRawPointer) {
        sharesSessions = httpdns_easy_setopt_ptr(easy, CURLOPT_SHARE, share) == CURLE_OK
    }

    /// Set while the handle is joined to a pool's share handle (`attach(share:)`).
    private var sharesSessions = false

    /// Hands the route's addresses to `pool`'s DNS cache (CURLOPT_RESOLVE) unless the pool is known
    /// to hold them (`ConnectionPool.needsResolveEntry(for:)`): parsing and storing the entry for
    /// every request cost a few microseconds each. Transfer thread, before the handle is added.
    /// - Throws: `HTTPClientError` when libcurl refuses the option.
    func loadRoute(into pool: ConnectionPool) throws {
        guard let route, pool.needsResolveEntry(for: route) else { return }
        guard let list = CurlStringList([route.resolveEntry]) else {
            throw HTTPClientError(kind: .transferFailed, message: "out of memory", url: url)
        }
        resolveList = list
        try check(httpdns_easy_setopt_ptr(easy, CURLOPT_RESOLVE, list.head), CURLOPT_RESOLVE)
        carriesRoute = true
    }

    /// The transfer succeeded: a route entry it carried is in the pool's DNS cache. Transfer thread.
    func confirmRoute(in pool: ConnectionPool) {
        guard carriesRoute, let route else { return }
        pool.resolveEntryStored(for: route)
    }

    /// Leaves the pool's TLS session cache once the transfer is out of the multi handle, so the
    /// share handle can be cleaned up (`TransferEngine.closeIdleConnections`) while this handle
    /// lives on. Transfer thread.
    func detachShare() {
        if httpdns_easy_setopt_ptr(easy, CURLOPT_SHARE, nil) == CURLE_OK { sharesSessions = false }
    }

    /// Resumes the caller once and drops partial output. Transfer thread.
    func finish(_ result: Result<HTTPResponse, any Error>) {
        if case .failure = result { sink.discard() }
        finished.store(true, ordering: .releasing)
        let continuation = self.continuation
        self.continuation = nil
        continuation?.resume(with: result)
    }

    // MARK: Configuration

    private func set(_ option: CURLoption, _ value: String) throws {
        try check(value.withCString { httpdns_easy_setopt_ptr(easy, option, $0) }, option)
    }
    func check(_ code: CURLcode, _ option: CURLoption) throws {
        guard code == CURLE_OK else {
            throw HTTPClientError(kind: .invalidRequest, message: "libcurl rejected option \(option.rawValue): \(String(cString: curl_easy_strerror(code)))", url: url, curlCode: Int(code.rawValue))
        }
    }

    /// The facts the request's options depend on (`TransferOptions`).
    private func optionFacts(request: HTTPRequest, target: RequestTarget, configuration: HTTPClient.Configuration) -> TransferOptions.Facts {
        let version = request.httpVersion ?? configuration.httpVersion
        let timeouts = request.timeouts ?? configuration.timeouts
        // HTTP/2 only over TLS (CURL_HTTP_VERSION_2TLS): a cleartext request is HTTP/1.1. No length
        // makes libcurl send chunked (adding the field itself), only over HTTP/1.1: HTTP/2 has no
        // chunked coding (Documentation/LibcurlNotes.md #6).
        let http1Only = version == .http1_1 || !target.isHTTPS
        let bodyLength = bodySource.map { framing.chunked && http1Only ? -1 : ($0.length ?? -1) }
        // IP-direct: connect to the chosen addresses while the URL (and so SNI, Host and the
        // certificate check) keeps the name. CURLOPT_CONNECT_TO points the name at a synthetic
        // host whose CURLOPT_RESOLVE entry lists the addresses, so libcurl still races them, and
        // its connection-reuse key includes the address set: a pooled connection to other
        // addresses is not reused.
        let route = addresses.flatMap { $0.isEmpty || target.isIPLiteral ? nil : TransferOptions.Route(host: target.host, port: target.port, addresses: $0, connectPort: connectPort) }
        return TransferOptions.Facts(
            route: route, proxy: proxy?.absoluteString, version: version, multiplexes: pool.multiplexes,
            connect: timeouts.connect, total: timeouts.total, idle: timeouts.idle,
            verifies: pool.trust.policy.verification == .full, isHTTPS: target.isHTTPS,
            requiresOCSPStapling: pool.trust.policy.requiresOCSPStapling,
            limitsConnections: pool.connectionsPerHost != nil, method: request.method, bodyLength: bodyLength,
            headers: request.headers, omittedHeaders: request.omittedHeaders, userAgent: configuration.userAgent,
            decompresses: configuration.decompressesResponses, tracesHeads: request.headTrace != nil)
    }

    /// Sets the handle's options for `request`: its route's list from `memo`, set as
    /// `HandleReuse.application` says for the list the handle holds (`held`), then the callbacks,
    /// bound to this transfer.
    private func configure(
        request: HTTPRequest, target: RequestTarget, configuration: HTTPClient.Configuration,
        memo: TransferOptionsMemo, held: PreparedOptions?
    ) throws {
        if let problem = pool.trust.configurationError {
            throw HTTPClientError(kind: .trustConfigurationInvalid, message: problem.description, url: url)
        }
        let facts = optionFacts(request: request, target: target, configuration: configuration)
        guard let prepared = memo.options(for: facts, host: target.curlHost) else {
            throw HTTPClientError(kind: .transferFailed, message: "out of memory", url: url)
        }
        options = prepared
        route = prepared.route
        connectLimit = facts.connect
        totalLimit = facts.total
        waitsToMultiplex = facts.version == .http2 && facts.multiplexes
        let application = HandleReuse.application(held: held?.optionIDs, sameList: held === prepared, wanted: prepared.optionIDs)
        switch application {
        case .resetThenSetAll: handle.reset()
        case .setAll, .bindOnly: if held != nil { pool.handlesReusedWithOptions.add(1, ordering: .relaxed) }
        }

        let me = Unmanaged.passUnretained(self).toOpaque()
        try set(CURLOPT_URL, target.curlURL)
        try check(httpdns_easy_setopt_ptr(easy, CURLOPT_PRIVATE, me), CURLOPT_PRIVATE)
        try check(httpdns_easy_setopt_ptr(easy, CURLOPT_ERRORBUFFER, errorBuffer), CURLOPT_ERRORBUFFER)
        try check(httpdns_easy_set_socket_lifecycle(easy), CURLOPT_OPENSOCKETFUNCTION)
        try check(httpdns_easy_setopt_write_function(easy, CURLOPT_WRITEFUNCTION, writeCallback), CURLOPT_WRITEFUNCTION)
        try check(httpdns_easy_setopt_ptr(easy, CURLOPT_WRITEDATA, me), CURLOPT_WRITEDATA)
        try check(httpdns_easy_setopt_write_function(easy, CURLOPT_HEADERFUNCTION, headerCallback), CURLOPT_HEADERFUNCTION)
        try check(httpdns_easy_setopt_ptr(easy, CURLOPT_HEADERDATA, me), CURLOPT_HEADERDATA)
        // libcurl resends a request whose reused connection died before any response byte
        // (lib/transfer.c Curl_retry_request), rewinding the body; it may have reached the server.
        // The pre-request callback runs before every send: a non-idempotent request's second one
        // is refused (also for bodies with no data, which libcurl resends without a rewind), and
        // every request's sends are counted (`reuseFacts`).
        try check(httpdns_easy_setopt_prereq_function(easy, prereqCallback), CURLOPT_PREREQFUNCTION)
        try check(httpdns_easy_setopt_ptr(easy, CURLOPT_PREREQDATA, me), CURLOPT_PREREQDATA)
        for entry in prepared.options.entries {
            if case .binding = entry.value {
                try bind(entry.option, me: me, target: target)
            } else if application != .bindOnly {
                try apply(entry, of: prepared)
            }
        }
        // `failsOnHTTPError` is enforced in `plainOutcome`, not by CURLOPT_FAILONERROR, which stops
        // at the status line: a client-certificate rejection (a 400 page over TLS) must still be
        // told apart (58).
    }

    /// Sets one entry of the list.
    private func apply(_ entry: TransferOptions.Entry, of prepared: PreparedOptions) throws {
        let option = entry.option.curlOption
        let code: CURLcode
        switch entry.value {
        case .long(let value): code = httpdns_easy_setopt_long(easy, option, value)
        case .text(let value): code = value.withCString { httpdns_easy_setopt_ptr(easy, option, $0) }
        case .lines: code = httpdns_easy_setopt_ptr(easy, option, prepared.list(for: entry.option)?.head)
        case .size(let value): code = httpdns_easy_setopt_off(easy, option, curl_off_t(value))
        case .version(let version): code = httpdns_easy_setopt_long(easy, option, version == .http1_1 ? CURL_HTTP_VERSION_1_1 : CURL_HTTP_VERSION_2TLS)
        case .null: code = httpdns_easy_setopt_ptr(easy, option, nil)
        case .binding: return
        }
        if entry.option == .verifyStatus, code != CURLE_OK {
            throw HTTPClientError(
                kind: .trustConfigurationInvalid,
                message: "OCSP stapling cannot be required with this libcurl/TLS library: \(String(cString: curl_easy_strerror(code)))",
                url: url, curlCode: Int(code.rawValue))
        }
        try check(code, option)
    }

    /// Sets a callback the list asks for and points its data at this transfer.
    private func bind(_ option: TransferOptions.Option, me: UnsafeMutableRawPointer, target: RequestTarget) throws {
        switch option {
        case .socketOptionCallback:
            try check(httpdns_easy_setopt_sockopt_function(easy, sockoptCallback), CURLOPT_SOCKOPTFUNCTION)
            try check(httpdns_easy_setopt_ptr(easy, CURLOPT_SOCKOPTDATA, me), CURLOPT_SOCKOPTDATA)
        case .bodyCallbacks:
            try check(httpdns_easy_setopt_read_function(easy, readCallback), CURLOPT_READFUNCTION)
            try check(httpdns_easy_setopt_ptr(easy, CURLOPT_READDATA, me), CURLOPT_READDATA)
            try check(httpdns_easy_setopt_seek_function(easy, seekCallback), CURLOPT_SEEKFUNCTION)
            try check(httpdns_easy_setopt_ptr(easy, CURLOPT_SEEKDATA, me), CURLOPT_SEEKDATA)
        case .tlsCallback:
            try bindTrust(host: target.host)
        case .headTraceCallback:
            try check(httpdns_easy_setopt_debug_function(easy, debugCallback), CURLOPT_DEBUGFUNCTION)
            try check(httpdns_easy_setopt_ptr(easy, CURLOPT_DEBUGDATA, me), CURLOPT_DEBUGDATA)
            // Without CURLOPT_VERBOSE libcurl calls no debug function.
            try check(httpdns_easy_setopt_long(easy, CURLOPT_VERBOSE, 1), CURLOPT_VERBOSE)
        default:
            preconditionFailure("httpdns: \(option) is not a callback")
        }
    }

    /// Turns the head trace off on the handle, which outlives the transfer (`EasyHandleCache`, or
    /// its clean-up after this transfer is gone): no debug call may reach a freed transfer. A
    /// handle kept with its options binds the trace again on its next use.
    private func clearHeadTrace() {
        guard headTrace != nil else { return }
        _ = httpdns_easy_setopt_long(easy, CURLOPT_VERBOSE, 0)
        _ = httpdns_easy_setopt_debug_function(easy, nil)
        _ = httpdns_easy_setopt_ptr(easy, CURLOPT_DEBUGDATA, nil)
    }

    /// A head (CURLINFO_HEADER_OUT) or head line (CURLINFO_HEADER_IN) for `headTrace`; libcurl's
    /// other debug output (text, body bytes, TLS records) is not wanted. Transfer thread.
    fileprivate func traceHead(_ type: curl_infotype, _ bytes: UnsafeRawBufferPointer) {
        guard let headTrace else { return }
        switch type {
        case CURLINFO_HEADER_OUT: headTrace(.sent(Data(bytes)))
        case CURLINFO_HEADER_IN: headTrace(.received(Data(bytes)))
        default: break
        }
    }

    fileprivate func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Int {
        let mayBeRejection = isHTTPS && status == 400
        if mayBeRejection, rejectionProbe.isEmpty || holdsBody, rejectionProbe.count + bytes.count <= Self.rejectionProbeSize {
            rejectionProbe.append(contentsOf: bytes)
            holdsBody = true
            return bytes.count
        }
        if failsOnHTTPError, status >= 400 {
            // Dropped, as curl -f drops it (and longer than any rejection page).
            holdsBody = false
            return bytes.count
        }
        // Longer than any rejection page: what was held goes out, and the rest streams.
        guard releaseHeldBody() else { return 0 }
        return sink.write(bytes, url: url) ? bytes.count : 0
    }

    /// Passes a held 400 body to the destination. - Returns: false when the destination refused it.
    private func releaseHeldBody() -> Bool {
        guard holdsBody else { return true }
        holdsBody = false
        return rejectionProbe.withUnsafeBytes { sink.write($0, url: url) }
    }

    fileprivate func receiveHeader(_ bytes: UnsafeRawBufferPointer) -> Int {
        if reportsTLS && tls == nil { captureTLS() }
        switch head.read(bytes) {
        case .endOfHead:
            // The blank line ends a head; the first final (non-1xx) one is the response's.
            if status >= 200, !headDelivered { deliverHead() }
        case .unframable(let reason, let value):
            // Refused, and the connection closed: the next request on it would read the rest.
            refuseLength(value, reason: reason)
            return 0
        case .statusLine, .field:
            break
        }
        return bytes.count
    }

    /// Room reserved for the response head's field lines: nginx's usual head takes about 200 bytes.
    private static let usualHeadSize = 512

    /// The response's fields, trailers included (every field line libcurl passed after the final
    /// status line), for the caller once the transfer is over.
    func receivedHeaders() -> HTTPHeaders {
        _ = finished.load(ordering: .acquiring)
        return head.headers()
    }

    /// The framing error for a `Content-Length` the head reader refused (curl's 8).
    private func refuseLength(_ value: String, reason: String) {
        let shown = String(value.prefix(64).map { $0.isASCII && !$0.isWhitespace || $0 == " " ? $0 : "?" })
        var error = HTTPClientError(
            kind: .transferFailed,
            message: "\(url.redactedString) answered with \(reason) Content-Length ('\(shown)'): the response cannot be framed (RFC 9112 §6.3); the connection was closed",
            url: url, curlCode: Int(CURLE_WEIRD_SERVER_REPLY.rawValue))
        error.resolution = resolution
        framingError = error
    }

    private func deliverHead() {
        headDelivered = true
        guard discardsBody != nil || sink.wantsHead else { return }
        var delivered = HTTPResponseHead(status: status, headers: head.headForDelivery(), version: head.version, reasonPhrase: head.reasonPhrase)
        if let discardsBody, discardsBody(delivered) {
            sink.switchToDiscarding()
        } else if sink.wantsHead {
            delivered.connection = completeConnectionReport()
            sink.receiveHead(delivered)
        }
    }

    fileprivate func readBody(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard let bodySource, let count = bodySource.read(into: buffer) else { return Int(CURL_READFUNC_ABORT) }
        return count
    }

    /// CURLOPT_PREREQFUNCTION: counts the sends; for a non-idempotent request the first goes, any
    /// other is refused.
    fileprivate func mayStartRequest() -> Bool {
        sendAttempts += 1
        if sendAttempts == 1 || mayResend { return true }
        refusedResend = true
        return false
    }

    /// CURLOPT_SEEKFUNCTION: libcurl rewinds the body to send the request again (on a fresh
    /// connection after a reused one died, RFC 9110 §9.2.2; after a 417 to `Expect`). A refusal is
    /// remembered for the message: a request that may not be resent says so, a stream that was read
    /// says it cannot be replayed.
    fileprivate func seekBody(to offset: Int64) -> Int32 {
        guard let bodySource else { return CURL_SEEKFUNC_CANTSEEK }
        if bodySource.rewind(to: offset) { return CURL_SEEKFUNC_OK }
        if mayResend { refusedRewind = true } else { refusedResend = true }
        return CURL_SEEKFUNC_CANTSEEK
    }

    private func captureTLS() {
        guard let ssl = httpdns_easy_tls_session(easy) else { return }
        var alpn = [CChar](repeating: 0, count: 64)
        let alpnLength = httpdns_ssl_alpn(ssl, &alpn, alpn.count)
        var report = TLSReport(
            serverName: httpdns_ssl_sni(ssl).map { String(cString: $0) },
            alpn: alpnLength > 0 ? String(decoding: alpn.prefix(Int(alpnLength)).map { UInt8(bitPattern: $0) }, as: UTF8.self) : nil,
            protocolVersion: httpdns_ssl_version(ssl).map { String(cString: $0) },
            peerSubject: nil, peerIssuer: nil,
            // With verification off nothing was checked, the name least of all: never "verified",
            // whatever OpenSSL's verdict (which it records, unenforced, for ssl_verify_result).
            verification: pool.trust.policy.verification == .insecureSkippingAllVerification
                ? .disabled : httpdns_ssl_verify_result(ssl) == X509_V_OK ? .verified : .failed(x509Error: Int(httpdns_ssl_verify_result(ssl))))
        report.certificateChain = transferTrust?.presentedChain.map(PresentedCertificate.init) ?? []
        if let peer = httpdns_ssl_peer_certificate(ssl) {
            report.peerSubject = Certificate.name(of: peer, httpdns_x509_subject)
            report.peerIssuer = Certificate.name(of: peer, httpdns_x509_issuer)
            report.peerNotAfter = Self.date(X509_get0_notAfter(peer))
            X509_free(peer)
        }
        tls = report
    }

    // MARK: Completion (transfer thread)

    /// The response, or the error, for libcurl's result code; an `HTTPClientError` carries the
    /// connection report of how far the transfer got (`HTTPClientError.connection`).
    func outcome(for code: CURLcode) -> Result<HTTPResponse, any Error> {
        let result = plainOutcome(for: code)
        guard case .failure(let failure) = result, var error = failure as? HTTPClientError, error.connection == nil else { return result }
        error.connection = completeConnectionReport()
        return .failure(error)
    }

    private func plainOutcome(for code: CURLcode) -> Result<HTTPResponse, any Error> {
        if let framingError { return .failure(framingError) }
        if let failure = sink.failure { return .failure(failure) }
        // Before the result code: a rejection page followed by a dropped connection is the rejection.
        if let rejection = clientCertificateRejection() { return .failure(rejection) }
        if failsOnHTTPError, status >= 400 {
            var error = HTTPClientError(
                kind: .httpError, message: "\(url.redactedString) answered HTTP \(status)", url: url,
                curlCode: Int(CURLE_HTTP_RETURNED_ERROR.rawValue), status: status)
            error.resolution = resolution
            // Its fields are made by the caller (`HTTPClient.perform`), off the transfer thread.
            error.responseHead = HTTPResponseHead(status: status, headers: HTTPHeaders(), version: head.version, reasonPhrase: head.reasonPhrase)
            return .failure(error)
        }
        // Any other held 400 body goes out, whole or (on a failure) as far as it came, as other
        // bodies do.
        guard releaseHeldBody() else {
            return .failure(sink.failure ?? HTTPClientError(kind: .outputFailed, message: "writing the response body failed", url: url))
        }
        guard code == CURLE_OK else { return .failure(error(for: code)) }
        var version: Int = 0
        _ = httpdns_easy_getinfo_long(easy, CURLINFO_HTTP_VERSION, &version)
        var responseCode: Int = 0
        _ = httpdns_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &responseCode)
        var bodySize: curl_off_t = 0
        _ = httpdns_easy_getinfo_off(easy, CURLINFO_SIZE_DOWNLOAD_T, &bodySize)
        var headSize = 0
        _ = httpdns_easy_getinfo_long(easy, CURLINFO_HEADER_SIZE, &headSize)
        let report = completeConnectionReport()
        do {
            try sink.commit(url: url)
        } catch {
            return .failure(error)
        }
        return .success(
            HTTPResponse(
                status: responseCode != 0 ? responseCode : status,
                // Read by the caller (`HTTPClient.perform`), off the transfer thread.
                headers: HTTPHeaders(),
                version: Self.version(version),
                reasonPhrase: head.reasonPhrase,
                body: sink.takeBody(),
                connection: report,
                bodyBytesReceived: Int64(bodySize),
                headerBytesReceived: headSize))
    }

    /// True while the transfer has no connection to send on (CURLINFO_PRETRANSFER_TIME_T unset), so
    /// that the engine holds it to its connect limit counted from its start. A transfer that waited
    /// for a free connection under CURLMOPT_MAX_HOST_CONNECTIONS, only until it opens a socket of
    /// its own: that wait is queueing, and libcurl's connect limit starts then. One that may wait to
    /// multiplex (`waitsToMultiplex`) waits for a connection being opened, which is connecting: when
    /// that connection fails and it opens a socket of its own, it still counts from its start.
    var isWaitingForConnection: Bool {
        guard !openedSocket || waitsToMultiplex else { return false }
        var value: curl_off_t = 0
        _ = httpdns_easy_getinfo_off(easy, CURLINFO_PRETRANSFER_TIME_T, &value)
        return value == 0
    }

    fileprivate func markSocketOpened() {
        openedSocket = true
        connectionPool?.noteSetUpBegun(by: self)
    }

    /// Marks the transfer as counted in its pool's `openingTransfers`; false when it already was.
    /// Transfer thread.
    func countAsOpening() -> Bool {
        guard !countsAsOpening else { return false }
        countsAsOpening = true
        return true
    }

    /// The error for a transfer the engine stopped after `limit` seconds.
    func timeoutError(after limit: TimeInterval, waitingForConnection: Bool) -> HTTPClientError {
        let wait: TimeoutMessage.Wait = !waitingForConnection ? .none : waitsToMultiplex ? .multiplexing : .freeConnection(limit: pool.connectionsPerHost ?? 0)
        var error = HTTPClientError.timedOut(.stopped(endpoint: endpoint, addresses: addresses, limit: limit, wait: wait), url: url)
        error.resolution = resolution
        error.connection = completeConnectionReport()
        return error
    }

    /// `host:port` for messages, an IPv6 literal in brackets (`[::1]:443`): the port connected to
    /// (`connectPort`, an HTTPS record's or the caller's), so that "could not connect to" names the
    /// port that refused, not the URL's.
    var endpoint: String { IPAddress.authority(host: displayHost, port: connectPort) }

    /// The addresses the request was sent to, for messages ("a, b"); nil when the URL's host was used.
    private var addressList: String? { addresses.map { $0.map(\.description).joined(separator: ", ") } }

    /// The connection report with reuse, skipped verification and a report-only pin mismatch.
    private func completeConnectionReport() -> ConnectionReport {
        var connects: Int = 0
        _ = httpdns_easy_getinfo_long(easy, CURLINFO_NUM_CONNECTS, &connects)
        var report = connectionReport()
        report.reusedConnection = connects == 0
        let insecure = pool.trust.policy.verification == .insecureSkippingAllVerification
        report.verificationSkipped = connects > 0 && insecure
        if transferTrust?.pinOutcome == .mismatchReported { report.pinReport = pinReport(enforced: false) }
        report.certificateVerification = certificateVerification(of: report, insecure: insecure)
        return report
    }

    /// How the server's certificate was checked, as far as the transfer got: nil for http, or when
    /// no certificate was checked (the request failed before the handshake got that far).
    private func certificateVerification(of report: ConnectionReport, insecure: Bool) -> CertificateVerification? {
        guard isHTTPS else { return nil }
        // The handshake completed, now or before the connection was pooled: under a verifying
        // policy the verification callback let it through, so the certificate verified. (No
        // connection made counts as "reused" too, so a reused one must have carried a response.)
        let handshakeDone = (report.reusedConnection && status > 0) || (report.timing?.tlsHandshake ?? 0) > 0
        if insecure { return handshakeDone || transferTrust?.sawCertificate == true ? .disabled : nil }
        if handshakeDone { return .verified }
        if report.certificateVerifyResult != Int(X509_V_OK) { return .failed(x509Error: report.certificateVerifyResult) }
        // Verified, then failed for something else (no OCSP staple, say).
        return transferTrust?.verifiedChain == true ? .verified : nil
    }

    private func connectionReport() -> ConnectionReport {
        var ip: UnsafePointer<CChar>?
        _ = httpdns_easy_getinfo_string(easy, CURLINFO_PRIMARY_IP, &ip)
        var port: Int = 0
        _ = httpdns_easy_getinfo_long(easy, CURLINFO_PRIMARY_PORT, &port)
        let address = ip.map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 }
        var report = ConnectionReport(
            remoteAddress: address, remotePort: port == 0 ? nil : port,
            resolution: resolution, reusedConnection: false, tls: tls)
        report.proxy = proxy
        report.serviceBindingRoute = serviceBindingRoute
        var timing = TransferTiming(
            connect: seconds(CURLINFO_CONNECT_TIME_T), tlsHandshake: seconds(CURLINFO_APPCONNECT_TIME_T),
            firstByte: seconds(CURLINFO_STARTTRANSFER_TIME_T), total: seconds(CURLINFO_TOTAL_TIME_T))
        timing.addressRace = addressRaceTime
        timing.transferStart = startTime
        if let nameLookupTime {
            timing.nameLookup = nameLookupTime
        } else {
            let lookup = seconds(CURLINFO_NAMELOOKUP_TIME_T)
            timing.nameLookup = lookup > 0 ? startTime + lookup : 0
        }
        report.timing = timing
        if isHTTPS {
            var verdict = 0
            _ = httpdns_easy_getinfo_long(easy, CURLINFO_SSL_VERIFYRESULT, &verdict)
            report.certificateVerifyResult = verdict
        }
        return report
    }

    /// A `CURLINFO_*_TIME_T` value (microseconds) in seconds.
    private func seconds(_ info: CURLINFO) -> TimeInterval {
        var value: curl_off_t = 0
        _ = httpdns_easy_getinfo_off(easy, info, &value)
        return TimeInterval(value) / 1_000_000
    }

    /// An ASN1_TIME as a date (UTC).
    private static func date(_ time: UnsafePointer<ASN1_TIME>?) -> Date? {
        guard let time else { return nil }
        var parts = tm()
        guard ASN1_TIME_to_tm(time, &parts) == 1 else { return nil }
        return Date(timeIntervalSince1970: TimeInterval(timegm(&parts)))
    }

    private static func version(_ value: Int) -> HTTPVersion {
        switch value {
        case CURL_HTTP_VERSION_1_0: .http1_0
        case CURL_HTTP_VERSION_1_1: .http1_1
        case CURL_HTTP_VERSION_2_0: .http2
        case CURL_HTTP_VERSION_3: .http3
        default: .unknown
        }
    }

    private func error(for code: CURLcode) -> HTTPClientError {
        var error = plainError(for: code)
        error.resolution = resolution
        return error
    }

    private func plainError(for code: CURLcode) -> HTTPClientError {
        var detail = String(cString: errorBuffer)
        if let routeName = route?.name, let addresses {
            // Say where libcurl connected in terms the caller knows: the addresses, not the route.
            detail = detail.replacingOccurrences(of: routeName, with: addresses.map(\.description).joined(separator: ", "))
        }
        let reason = detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail
        let listed = addressList
        let tried = listed.map { " (addresses tried: \($0))" } ?? ""
        var kind = FailureTable.kind(forCurlCode: Int(code.rawValue))
        let message: String
        switch code {
        case CURLE_COULDNT_RESOLVE_HOST:
            message = "could not resolve \(endpoint): \(reason)"
        case CURLE_COULDNT_CONNECT:
            message = "could not connect to \(endpoint)\(tried): \(reason)"
        case CURLE_OPERATION_TIMEDOUT where waitsToMultiplex && !openedSocket && startedAt > 0 && isWaitingForConnection:
            // It never had a connection: the engine's own error replaces libcurl's message for it
            // (Documentation/LibcurlNotes.md #5), as when the engine stops such a waiter first.
            let waited = Double(DispatchTime.now().uptimeNanoseconds &- startedAt) / 1e9
            return timeoutError(after: waited, waitingForConnection: true)
        case CURLE_OPERATION_TIMEDOUT:
            message = TimeoutMessage.transfer(endpoint: endpoint, addresses: addresses, reason: reason).text
        case CURLE_PEER_FAILED_VERIFICATION where transferTrust?.pinOutcome == .mismatch:
            let report = pinReport(enforced: true)
            return HTTPClientError(
                kind: .pinMismatch, message: report?.description ?? "certificate pinning failed for \(endpoint)", url: url,
                curlCode: Int(CURLE_SSL_PINNEDPUBKEYNOTMATCH.rawValue), pinReport: report)
        case CURLE_PEER_FAILED_VERIFICATION:
            message = "certificate verification failed for \(displayHost): \(reason)"
        case CURLE_SSL_CERTPROBLEM:
            message = "the client certificate could not be used for \(endpoint): \(reason)"
        case CURLE_SSL_INVALIDCERTSTATUS:
            message = "OCSP stapling is required but \(endpoint) did not staple a valid response: \(reason)"
        case _ where [CURLE_SSL_CONNECT_ERROR, CURLE_RECV_ERROR, CURLE_SEND_ERROR].contains(code) && Self.isClientCertificateAlert(reason):
            kind = .clientCertificateRejected
            message = "\(endpoint) rejected the client certificate\(pool.trust.policy.identity == nil ? " (none was presented)" : ""): \(reason)"
        case CURLE_SSL_CONNECT_ERROR:
            message = "TLS handshake with \(endpoint) failed: \(reason)"
        case CURLE_SSL_CACERT_BADFILE:
            message = "trust anchors could not be loaded: \(reason)"
        case CURLE_WRITE_ERROR:
            message = "writing the response body failed: \(reason)"
        case CURLE_ABORTED_BY_CALLBACK where refusedResend, CURLE_SEND_FAIL_REWIND where refusedResend:
            return HTTPClientError(
                kind: .transferFailed,
                message:
                    "\(endpoint) closed the reused connection before answering \(method) \(url.redactedString); not sent again because \(method) is not idempotent (RFC 9110 §9.2.2) and the server may have acted on it",
                url: url, curlCode: Int(CURLE_GOT_NOTHING.rawValue))
        case CURLE_SEND_FAIL_REWIND where refusedRewind:
            return HTTPClientError.streamBodyNotReplayable(
                method: method, url: url, "had to be sent again (the reused connection to \(endpoint) closed before any response, or the server refused the request unprocessed)",
                curlCode: Int(code.rawValue))
        case CURLE_ABORTED_BY_CALLBACK, CURLE_READ_ERROR, CURLE_SEND_FAIL_REWIND:
            message = bodySource?.failure ?? "the request body could not be sent: \(reason)"
        case CURLE_URL_MALFORMAT:
            message = "malformed URL '\(url.redactedString)': \(reason)"
        case CURLE_UNSUPPORTED_PROTOCOL:
            // libcurl also gives this code to a reply that is not HTTP at all ("Received HTTP/0.9
            // when not allowed"), from a server speaking something else on the port.
            message =
                reason.contains("HTTP/0.9")
                ? "the server at '\(url.redactedString)' did not answer with HTTP (no status line: \(reason))"
                : "unsupported URL scheme in '\(url.redactedString)': \(reason)"
        default:
            message = "request to \(endpoint) failed: \(reason)"
        }
        return HTTPClientError(kind: kind, message: message, url: url, curlCode: Int(code.rawValue))
    }
}

// MARK: C callbacks

private let writeCallback: curl_write_callback = { pointer, size, count, userdata in
    guard let userdata else { return 0 }
    let transfer = Unmanaged<Transfer>.fromOpaque(userdata).takeUnretainedValue()
    return transfer.receiveBody(UnsafeRawBufferPointer(start: pointer, count: size * count))
}

private let headerCallback: curl_write_callback = { pointer, size, count, userdata in
    guard let userdata else { return 0 }
    let transfer = Unmanaged<Transfer>.fromOpaque(userdata).takeUnretainedValue()
    return transfer.receiveHeader(UnsafeRawBufferPointer(start: pointer, count: size * count))
}

private let debugCallback: curl_debug_callback = { _, type, pointer, size, userdata in
    if let userdata {
        Unmanaged<Transfer>.fromOpaque(userdata).takeUnretainedValue().traceHead(type, UnsafeRawBufferPointer(start: pointer, count: size))
    }
    return 0
}

private let readCallback: curl_read_callback = { pointer, size, count, userdata in
    guard let userdata else { return Int(CURL_READFUNC_ABORT) }
    let transfer = Unmanaged<Transfer>.fromOpaque(userdata).takeUnretainedValue()
    return transfer.readBody(into: UnsafeMutableRawBufferPointer(start: pointer, count: size * count))
}

private let prereqCallback: curl_prereq_callback = { userdata, _, _, _, _ in
    guard let userdata else { return Int32(CURL_PREREQFUNC_ABORT) }
    let transfer = Unmanaged<Transfer>.fromOpaque(userdata).takeUnretainedValue()
    return transfer.mayStartRequest() ? Int32(CURL_PREREQFUNC_OK) : Int32(CURL_PREREQFUNC_ABORT)
}

private let sockoptCallback: curl_sockopt_callback = { clientp, _, _ in
    if let clientp { Unmanaged<Transfer>.fromOpaque(clientp).takeUnretainedValue().markSocketOpened() }
    return Int32(CURL_SOCKOPT_OK)
}

private let seekCallback: curl_seek_callback = { userdata, offset, origin in
    guard let userdata, origin == SEEK_SET else { return CURL_SEEKFUNC_CANTSEEK }
    let transfer = Unmanaged<Transfer>.fromOpaque(userdata).takeUnretainedValue()
    return transfer.seekBody(to: Int64(offset))
}
