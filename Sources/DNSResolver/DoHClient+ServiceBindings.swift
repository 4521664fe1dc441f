import DNSWire
import Foundation
import HTTPDNSCore

extension DoHClient {
    /// Asks `endpoint` for the SVCB or HTTPS records of `name` (RFC 9460), one query.
    ///
    /// The response goes through the checks of `lookup(_:families:endpoint:timeout:)`; the records
    /// through `ServiceBinding(wireRData:type:)`'s, so one malformed record makes the whole answer a
    /// failure (RFC 9460 §2.4.3 lets a client drop such an RRset). TTLs lose the response's `Age`.
    /// - Parameters:
    ///   - name: A normalized host name.
    ///   - type: `.https` or `.svcb`.
    ///   - endpoint: The server.
    ///   - timeout: Seconds allowed for the HTTP exchange.
    /// - Throws: `Failure.invalidName`, or `Failure.endpointFailed` naming the transport, HTTP or DNS
    ///   failure, the TC bit, an RCODE other than NOERROR/NXDOMAIN, or the malformed record.
    public func serviceBindings(
        _ name: String, type: DNSRecordType, endpoint: DoHEndpoint, timeout: TimeInterval
    ) async throws(Failure) -> ServiceBindingAnswer {
        let message: DNSMessage
        let age: TimeInterval
        switch await response(to: try query(name, type: type, clientSubnet: endpoint.clientSubnet), name: name, type: type, endpoint: endpoint, timeout: timeout) {
        case .success(let received): (message, age) = (received.message, max(0, received.age ?? 0))
        case .failure(let failure): throw .endpointFailed(endpoint.url, reason: "\(type): \(failure.reason)")
        }
        func aged(_ ttl: UInt32?) -> TimeInterval? { ttl.map { max(0, TimeInterval($0) - age) } }
        switch message.serviceBindingAnswer(for: name, type: type) {
        case .records(let records, let ttl, let owner):
            return .records(records, owner: owner, ttl: aged(ttl) ?? 0)
        case .nameError(let negativeTTL):
            return .nameNotFound(negativeTTL: aged(negativeTTL))
        case .noData(let negativeTTL):
            return .none(negativeTTL: aged(negativeTTL))
        case .failure(let code):
            throw .endpointFailed(endpoint.url, reason: "\(type): DNS \(code)")
        case .truncated:
            throw .endpointFailed(endpoint.url, reason: "\(type): truncated DNS response (TC)")
        }
    }
}
