import Foundation
import HTTPDNSCore

/// The words of every time-out a request can fail with (`HTTPClientError.Kind.timedOut`, curl's
/// 28), whichever part of the client noticed it.
enum TimeoutMessage: Equatable {
    /// The resolver did not answer within `limit` seconds.
    case resolving(host: String, limit: Double)
    /// No address of the Happy Eyeballs race connected within `limit` seconds.
    case connecting(authority: String, limit: Double, tried: [IPAddress])
    /// libcurl timed the transfer out; `reason` is its message.
    case transfer(endpoint: String, addresses: [IPAddress]?, reason: String)
    /// The engine stopped the transfer after `limit` seconds (`RequestDeadlines.queuedTransferLimitPassed`).
    case stopped(endpoint: String, addresses: [IPAddress]?, limit: Double, wait: Wait)

    /// What a transfer the engine stopped was doing.
    enum Wait: Equatable {
        /// It had a connection.
        case none
        /// It waited to multiplex on a connection another request was opening (CURLOPT_PIPEWAIT).
        case multiplexing
        /// It waited for a free connection: all `limit` allowed were busy.
        case freeConnection(limit: Int)
    }

    var text: String {
        switch self {
        case .resolving(let host, let limit):
            return "resolving \(host) timed out after \(Int((limit * 1000).rounded())) ms"
        case .connecting(let authority, let limit, let tried):
            return "connecting to \(authority) timed out after \(limit) s (addresses tried: \(Self.list(tried)))"
        case .transfer(let endpoint, let addresses, let reason):
            return "request to \(endpoint) timed out\(Self.routed(addresses)): \(reason)"
        case .stopped(let endpoint, let addresses, let limit, let wait):
            let after = "request to \(endpoint)\(Self.routed(addresses)) timed out after \(limit.formatted(.number.precision(.fractionLength(0...3)))) s"
            switch wait {
            case .none: return after
            case .multiplexing: return after + " without a connection (it waited to multiplex on one another request was opening to it)"
            case .freeConnection(let limit): return after + " waiting for a free connection (all \(limit) allowed by maximumConnectionsPerHost were busy)"
            }
        }
    }

    private static func list(_ addresses: [IPAddress]) -> String { addresses.map(\.description).joined(separator: ", ") }
    private static func routed(_ addresses: [IPAddress]?) -> String { addresses.map { " (addresses: \(list($0)))" } ?? "" }
}

extension HTTPClientError {
    /// A `.timedOut` failure (curl's 28) worded by `message`.
    static func timedOut(_ message: TimeoutMessage, url: URL?) -> HTTPClientError {
        HTTPClientError(kind: .timedOut, message: message.text, url: url, curlCode: 28)
    }
}
