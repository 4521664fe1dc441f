import Foundation
import Synchronization
import HTTPDNSCore
import TLSTrust
internal import CCurl
internal import COpenSSL
internal import CHTTPDNSShims

/// One request on one libcurl easy handle. Built by the calling task; after `submit` only the
/// transfer thread touches it, until `finish` resumes the caller.
final class Transfer: @unchecked Sendable {  // handed from the submitting task to the transfer thread through the engine's Mutex; used by one thread at a time
    let easy: UnsafeMutableRawPointer
    let url: URL
    let pool: PoolDescriptor
    var continuation: CheckedContinuation<HTTPResponse, any Error>?

    private let cancelled = Atomic<Bool>(false)
    private var lists: [UnsafeMutablePointer<curl_slist>] = []
    private let errorBuffer: UnsafeMutablePointer<CChar>
    private let bodySource: RequestBodySource?
    private var sink: ResponseBodySink
    /// Set before submit: when it returns true for the response head, the body is dropped and the
    /// destination never sees it (a redirect that will be followed).
    var discardsBody: (@Sendable (HTTPResponseHead) -> Bool)?
    private let resolution: HostResolution?
    private let addresses: [IPAddress]?
    private let displayHost: String
    private let port: Int
    private let reportsTLS: Bool
    private let isHTTPS: Bool

    // Response state, filled by the header callback.
    private var status = 0
    private var headers = HTTPHeaders()
    private var statusLineVersion = HTTPVersion.unknown
    private var headDelivered = false
    private var tls: TLSReport?

    /// Configures the easy handle.
    /// - Throws: `HTTPClientError` for a request that cannot be sent as given.
    init(request: HTTPRequest, target: RequestTarget, addresses: [IPAddress]?, resolution: HostResolution?,
         configuration: HTTPClient.Configuration, destination: ResponseBodyDestination, pool: PoolDescriptor) throws {
        guard let easy = curl_easy_init() else {
            throw HTTPClientError(kind: .transferFailed, message: "libcurl could not create an easy handle", url: request.url)
        }
        self.easy = easy
        self.url = request.url
        self.pool = pool
        self.resolution = resolution
        self.addresses = addresses
        self.displayHost = target.host
        self.port = target.port
        self.reportsTLS = request.reportsTLSDetails && target.isHTTPS
        self.isHTTPS = target.isHTTPS
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        do {
            bodySource = try request.body.map { try RequestBodySource($0, url: request.url) }
            sink = try ResponseBodySink(destination, url: request.url)
        } catch {
            curl_easy_cleanup(easy)
            errorBuffer.deallocate()
            throw error
        }
        do {
            try configure(request: request, target: target, configuration: configuration)
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
        curl_easy_cleanup(easy)
        for list in lists { curl_slist_free_all(list) }
        lists.removeAll()
        errorBuffer.deallocate()
    }

    var isCancelled: Bool { cancelled.load(ordering: .acquiring) }
    func markCancelled() { cancelled.store(true, ordering: .releasing) }

    /// Joins the pool's TLS session cache (CURLOPT_SHARE). Transfer thread.
    func attach(share: UnsafeMutableRawPointer) {
        _ = httpdns_easy_setopt_ptr(easy, CURLOPT_SHARE, share)
    }

    /// Resumes the caller once and drops partial output. Transfer thread.
    func finish(_ result: Result<HTTPResponse, any Error>) {
        if case .failure = result { sink.discard() }
        let continuation = self.continuation
        self.continuation = nil
        continuation?.resume(with: result)
    }

    // MARK: Configuration

    private func set(_ option: CURLoption, _ value: Int) throws {
        try check(httpdns_easy_setopt_long(easy, option, value), option)
    }
    private func set(_ option: CURLoption, _ value: String) throws {
        try check(value.withCString { httpdns_easy_setopt_ptr(easy, option, $0) }, option)
    }
    private func set(_ option: CURLoption, list items: [String]) throws {
        var list: UnsafeMutablePointer<curl_slist>?
        for item in items {
            guard let appended = curl_slist_append(list, item) else {
                if let list { curl_slist_free_all(list) }
                throw HTTPClientError(kind: .transferFailed, message: "out of memory", url: url)
            }
            list = appended
        }
        guard let list else { return }
        lists.append(list)
        try check(httpdns_easy_setopt_ptr(easy, option, list), option)
    }
    private func check(_ code: CURLcode, _ option: CURLoption) throws {
        guard code == CURLE_OK else {
            throw HTTPClientError(kind: .invalidRequest, message: "libcurl rejected option \(option.rawValue): \(String(cString: curl_easy_strerror(code)))", url: url, curlCode: Int(code.rawValue))
        }
    }

    private func configure(request: HTTPRequest, target: RequestTarget, configuration: HTTPClient.Configuration) throws {
        let me = Unmanaged.passUnretained(self).toOpaque()
        try set(CURLOPT_URL, target.curlURL)
        try check(httpdns_easy_setopt_ptr(easy, CURLOPT_PRIVATE, me), CURLOPT_PRIVATE)
        try check(httpdns_easy_setopt_ptr(easy, CURLOPT_ERRORBUFFER, errorBuffer), CURLOPT_ERRORBUFFER)
        try set(CURLOPT_NOSIGNAL, 1)
        try set(CURLOPT_PROTOCOLS_STR, "http,https")
        // Environment proxies would change where the connection goes; IP-direct requests are
        // made directly.
        try set(CURLOPT_PROXY, "")
        try set(CURLOPT_FOLLOWLOCATION, 0)

        // Response callbacks.
        try check(httpdns_easy_setopt_write_function(easy, CURLOPT_WRITEFUNCTION, writeCallback), CURLOPT_WRITEFUNCTION)
        try check(httpdns_easy_setopt_ptr(easy, CURLOPT_WRITEDATA, me), CURLOPT_WRITEDATA)
        try check(httpdns_easy_setopt_write_function(easy, CURLOPT_HEADERFUNCTION, headerCallback), CURLOPT_HEADERFUNCTION)
        try check(httpdns_easy_setopt_ptr(easy, CURLOPT_HEADERDATA, me), CURLOPT_HEADERDATA)

        // Versions: HTTP/2 by ALPN, waiting for a connection that may multiplex rather than opening
        // a new one per request on a cold start (CURLOPT_PIPEWAIT).
        switch request.httpVersion ?? configuration.httpVersion {
        case .http1_1:
            try set(CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_1_1)
        case .http2:
            try set(CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_2TLS)
            try set(CURLOPT_PIPEWAIT, 1)
        }

        let timeouts = request.timeouts ?? configuration.timeouts
        if let connect = timeouts.connect { try set(CURLOPT_CONNECTTIMEOUT_MS, Self.milliseconds(connect)) }
        if let total = timeouts.total { try set(CURLOPT_TIMEOUT_MS, Self.milliseconds(total)) }
        if let idle = timeouts.idle {
            try set(CURLOPT_LOW_SPEED_LIMIT, 1)
            try set(CURLOPT_LOW_SPEED_TIME, max(1, Int(min(idle, Double(Int32.max)).rounded(.up))))
        }

        // Trust: verification is always on; the name checked is the URL's host.
        try set(CURLOPT_SSL_VERIFYPEER, 1)
        try set(CURLOPT_SSL_VERIFYHOST, 2)
        if let data = pool.trust.callbackData {
            try check(httpdns_easy_set_trust(easy, data), CURLOPT_SSL_CTX_FUNCTION)
        }

        // IP-direct: connect to the chosen addresses while the URL (and so SNI, Host and the
        // certificate check) keeps the name. CURLOPT_CONNECT_TO points the name at a synthetic
        // host whose CURLOPT_RESOLVE entry lists the addresses, so libcurl still races them
        // (Happy Eyeballs), and its connection-reuse key includes the address set: a pooled
        // connection to other addresses is not reused.
        if let addresses, !addresses.isEmpty, !target.isIPLiteral {
            let route = ConnectRoute(addresses: addresses, port: target.port)
            try set(CURLOPT_CONNECT_TO, list: ["\(target.curlHost):\(target.port):\(route.name):\(target.port)"])
            try set(CURLOPT_RESOLVE, list: [route.resolveEntry])
        }

        try configureMethodAndBody(request: request, me: me)
        try configureHeaders(request: request, configuration: configuration)
        if request.failsOnHTTPError { try set(CURLOPT_FAILONERROR, 1) }
        if configuration.decompressesResponses { try set(CURLOPT_ACCEPT_ENCODING, "") }
    }

    private func configureMethodAndBody(request: HTTPRequest, me: UnsafeMutableRawPointer) throws {
        let method = request.method
        guard !method.isEmpty, method.utf8.allSatisfy({ Self.isTokenCharacter($0) }) else {
            throw HTTPClientError(kind: .invalidRequest, message: "invalid HTTP method '\(method)'", url: url)
        }
        if let bodySource {
            try set(CURLOPT_POST, 1)
            try check(httpdns_easy_setopt_read_function(easy, readCallback), CURLOPT_READFUNCTION)
            try check(httpdns_easy_setopt_ptr(easy, CURLOPT_READDATA, me), CURLOPT_READDATA)
            try check(httpdns_easy_setopt_seek_function(easy, seekCallback), CURLOPT_SEEKFUNCTION)
            try check(httpdns_easy_setopt_ptr(easy, CURLOPT_SEEKDATA, me), CURLOPT_SEEKDATA)
            try check(httpdns_easy_setopt_off(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(bodySource.length ?? -1)), CURLOPT_POSTFIELDSIZE_LARGE)
            if method != "POST" { try set(CURLOPT_CUSTOMREQUEST, method) }
        } else if method == "HEAD" {
            try set(CURLOPT_NOBODY, 1)
        } else if method != "GET" {
            try set(CURLOPT_CUSTOMREQUEST, method)
        }
    }

    private func configureHeaders(request: HTTPRequest, configuration: HTTPClient.Configuration) throws {
        var lines: [String] = []
        for field in request.headers {
            guard !field.name.isEmpty, field.name.utf8.allSatisfy({ Self.isTokenCharacter($0) }) else {
                throw HTTPClientError(kind: .invalidRequest, message: "invalid header name '\(field.name)'", url: url)
            }
            guard !field.value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 }) else {
                throw HTTPClientError(kind: .invalidRequest, message: "header '\(field.name)' has a line break in its value", url: url)
            }
            // "Name;" is libcurl's way to send a header with an empty value.
            lines.append(field.value.isEmpty ? "\(field.name);" : "\(field.name): \(field.value)")
        }
        // libcurl would label any POST body as a form; send no Content-Type unless the caller set one.
        if bodySource != nil, !request.headers.contains(name: "Content-Type") { lines.append("Content-Type:") }
        if !request.headers.contains(name: "User-Agent"), let agent = configuration.userAgent {
            lines.append("User-Agent: \(agent)")
        }
        try set(CURLOPT_HTTPHEADER, list: lines)
    }

    private static func milliseconds(_ seconds: Double) -> Int {
        guard seconds.isFinite, seconds > 0 else { return 1 }
        return Int(min(seconds * 1000, Double(Int32.max)).rounded(.up))
    }

    /// RFC 9110 §5.6.2 `tchar`.
    private static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }

    // MARK: Callbacks (transfer thread)

    fileprivate func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Int {
        sink.write(bytes, url: url) ? bytes.count : 0
    }

    fileprivate func receiveHeader(_ bytes: UnsafeRawBufferPointer) -> Int {
        if reportsTLS && tls == nil { captureTLS() }
        var end = bytes.count
        while end > 0, bytes[end - 1] == 0x0A || bytes[end - 1] == 0x0D { end -= 1 }
        let line = Substring(decoding: UnsafeRawBufferPointer(rebasing: bytes[0..<end]), as: UTF8.self)
        if line.hasPrefix("HTTP/") {
            // A new status line: an interim (1xx) response's fields are dropped.
            headers = HTTPHeaders()
            let parts = line.split(separator: " ", maxSplits: 2)
            status = parts.count > 1 ? Int(parts[1]) ?? 0 : 0
            statusLineVersion = HTTPVersion(statusLine: parts.first ?? "")
        } else if line.isEmpty {
            // The blank line ends a head; the first final (non-1xx) one is the response's.
            if status >= 200, !headDelivered { deliverHead() }
        } else if let colon = line.firstIndex(of: ":") {
            let name = String(line[..<colon])
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            headers.add(name: name, value: value)
        }
        return bytes.count
    }

    private func deliverHead() {
        headDelivered = true
        let head = HTTPResponseHead(status: status, headers: headers, version: statusLineVersion)
        if let discardsBody, discardsBody(head) {
            sink.switchToDiscarding()
        } else {
            sink.receiveHead(head)
        }
    }

    fileprivate func readBody(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard let bodySource, let count = bodySource.read(into: buffer) else { return Int(CURL_READFUNC_ABORT) }
        return count
    }

    fileprivate func seekBody(to offset: Int64) -> Int32 {
        (bodySource?.rewind(to: offset) ?? false) ? CURL_SEEKFUNC_OK : CURL_SEEKFUNC_CANTSEEK
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
            verified: httpdns_ssl_verify_result(ssl) == X509_V_OK)
        if let peer = httpdns_ssl_peer_certificate(ssl) {
            report.peerSubject = Certificate.name(of: peer, httpdns_x509_subject)
            report.peerIssuer = Certificate.name(of: peer, httpdns_x509_issuer)
            X509_free(peer)
        }
        tls = report
    }

    // MARK: Completion (transfer thread)

    /// The response, or the error, for libcurl's result code.
    func outcome(for code: CURLcode) -> Result<HTTPResponse, any Error> {
        if let failure = sink.failure { return .failure(failure) }
        guard code == CURLE_OK else { return .failure(error(for: code)) }
        var version: Int = 0
        _ = httpdns_easy_getinfo_long(easy, CURLINFO_HTTP_VERSION, &version)
        var responseCode: Int = 0
        _ = httpdns_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &responseCode)
        var connects: Int = 0
        _ = httpdns_easy_getinfo_long(easy, CURLINFO_NUM_CONNECTS, &connects)
        var report = connectionReport()
        report.reusedConnection = connects == 0
        do {
            try sink.commit(url: url)
        } catch {
            return .failure(error)
        }
        return .success(HTTPResponse(
            status: responseCode != 0 ? responseCode : status,
            headers: headers,
            version: Self.version(version),
            body: sink.takeBody(),
            connection: report))
    }

    private func connectionReport() -> ConnectionReport {
        var ip: UnsafePointer<CChar>?
        _ = httpdns_easy_getinfo_string(easy, CURLINFO_PRIMARY_IP, &ip)
        var port: Int = 0
        _ = httpdns_easy_getinfo_long(easy, CURLINFO_PRIMARY_PORT, &port)
        let address = ip.map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 }
        return ConnectionReport(remoteAddress: address, remotePort: port == 0 ? nil : port,
                                resolution: resolution, reusedConnection: false, tls: tls)
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
        let detail = String(cString: errorBuffer)
        let reason = detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail
        let endpoint = "\(displayHost):\(port)"
        let tried = addresses.map { list in " (addresses tried: \(list.map(\.description).joined(separator: ", ")))" } ?? ""
        let kind: HTTPClientError.Kind
        let message: String
        switch code {
        case CURLE_COULDNT_RESOLVE_HOST:
            kind = .couldNotResolve
            message = "could not resolve \(endpoint): \(reason)"
        case CURLE_COULDNT_CONNECT:
            kind = .couldNotConnect
            message = "could not connect to \(endpoint)\(tried): \(reason)"
        case CURLE_OPERATION_TIMEDOUT:
            kind = .timedOut
            message = "request to \(endpoint) timed out\(tried): \(reason)"
        case CURLE_PEER_FAILED_VERIFICATION:
            kind = .certificateVerificationFailed
            message = "certificate verification failed for \(displayHost): \(reason)"
        case CURLE_SSL_CONNECT_ERROR:
            kind = .tlsHandshakeFailed
            message = "TLS handshake with \(endpoint) failed: \(reason)"
        case CURLE_SSL_CACERT_BADFILE:
            kind = .trustConfigurationInvalid
            message = "trust anchors could not be loaded: \(reason)"
        case CURLE_HTTP_RETURNED_ERROR:
            var responseCode: Int = 0
            _ = httpdns_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &responseCode)
            return HTTPClientError(kind: .httpError, message: "\(url.absoluteString) answered HTTP \(responseCode)", url: url, curlCode: Int(code.rawValue), status: responseCode)
        case CURLE_WRITE_ERROR:
            kind = .outputFailed
            message = "writing the response body failed: \(reason)"
        case CURLE_ABORTED_BY_CALLBACK, CURLE_READ_ERROR, CURLE_SEND_FAIL_REWIND:
            kind = .bodyReadFailed
            message = bodySource?.failure ?? "the request body could not be sent: \(reason)"
        case CURLE_URL_MALFORMAT:
            kind = .invalidURL
            message = "malformed URL '\(url.absoluteString)': \(reason)"
        case CURLE_UNSUPPORTED_PROTOCOL:
            kind = .unsupportedScheme
            message = "unsupported URL scheme in '\(url.absoluteString)': \(reason)"
        default:
            kind = .transferFailed
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

private let readCallback: curl_read_callback = { pointer, size, count, userdata in
    guard let userdata else { return Int(CURL_READFUNC_ABORT) }
    let transfer = Unmanaged<Transfer>.fromOpaque(userdata).takeUnretainedValue()
    return transfer.readBody(into: UnsafeMutableRawBufferPointer(start: pointer, count: size * count))
}

private let seekCallback: curl_seek_callback = { userdata, offset, origin in
    guard let userdata, origin == SEEK_SET else { return CURL_SEEKFUNC_CANTSEEK }
    let transfer = Unmanaged<Transfer>.fromOpaque(userdata).takeUnretainedValue()
    return transfer.seekBody(to: Int64(offset))
}

extension HTTPVersion {
    /// The version named by a status line's first word (`HTTP/1.1`, `HTTP/2`).
    init(statusLine word: some StringProtocol) {
        switch word {
        case "HTTP/1.0": self = .http1_0
        case "HTTP/1.1": self = .http1_1
        case "HTTP/2", "HTTP/2.0": self = .http2
        case "HTTP/3", "HTTP/3.0": self = .http3
        default: self = .unknown
        }
    }
}
