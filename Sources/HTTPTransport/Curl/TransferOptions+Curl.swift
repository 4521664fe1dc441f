internal import CCurl
internal import CHTTPDNSShims

extension TransferOptions.Option {
    /// The libcurl option this one sets (a `.binding` entry's function option).
    var curlOption: CURLoption {
        switch self {
        case .noSignal: CURLOPT_NOSIGNAL
        case .protocols: CURLOPT_PROTOCOLS_STR
        case .proxy: CURLOPT_PROXY
        case .suppressConnectHeaders: CURLOPT_SUPPRESS_CONNECT_HEADERS
        case .noProxy: CURLOPT_NOPROXY
        case .followLocation: CURLOPT_FOLLOWLOCATION
        case .httpVersion: CURLOPT_HTTP_VERSION
        case .pipeWait: CURLOPT_PIPEWAIT
        case .connectTimeoutMilliseconds: CURLOPT_CONNECTTIMEOUT_MS
        case .timeoutMilliseconds: CURLOPT_TIMEOUT_MS
        case .lowSpeedLimit: CURLOPT_LOW_SPEED_LIMIT
        case .lowSpeedTime: CURLOPT_LOW_SPEED_TIME
        case .verifyPeer: CURLOPT_SSL_VERIFYPEER
        case .verifyHost: CURLOPT_SSL_VERIFYHOST
        case .caInfo: CURLOPT_CAINFO
        case .caPath: CURLOPT_CAPATH
        case .verifyStatus: CURLOPT_SSL_VERIFYSTATUS
        case .connectTo: CURLOPT_CONNECT_TO
        case .post: CURLOPT_POST
        case .postFieldSize: CURLOPT_POSTFIELDSIZE_LARGE
        case .customRequest: CURLOPT_CUSTOMREQUEST
        case .noBody: CURLOPT_NOBODY
        case .httpHeader: CURLOPT_HTTPHEADER
        case .acceptEncoding: CURLOPT_ACCEPT_ENCODING
        case .socketOptionCallback: CURLOPT_SOCKOPTFUNCTION
        case .bodyCallbacks: CURLOPT_READFUNCTION
        case .tlsCallback: CURLOPT_SSL_CTX_FUNCTION
        case .headTraceCallback: CURLOPT_DEBUGFUNCTION
        }
    }
}
