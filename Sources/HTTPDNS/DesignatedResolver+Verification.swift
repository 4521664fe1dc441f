import DNSResolver
import DNSWire
import Foundation
import HTTPDNSCore
import HTTPTransport
import TLSTrust

extension DesignatedResolver {
    /// Discovers and verifies the designated resolvers of `servers` (RFC 9462 §4.2): for each
    /// candidate (`candidates(of:timeout:)`), a DoH query over a new TLS connection whose
    /// certificate must chain to `dohTrust`'s anchors, match the TargetName, and also carry the
    /// unencrypted resolver's IP address in its subjectAltName (`TrustPolicy.requiredIPAddress`).
    /// Only resolvers that pass are returned, best first; put their `endpoint`s in
    /// `HostResolver.Configuration.endpoints` to "upgrade the system resolver". Later connections
    /// to them are verified for the TargetName, as for any DoH endpoint.
    ///
    /// Opportunistic discovery (§4.3, unverified designations of a private-address resolver) is not
    /// done: a designation is used only when verified.
    /// - Parameters:
    ///   - servers: The unencrypted resolvers. Default: the `nameserver`s of /etc/resolv.conf.
    ///   - dohTrust: What the designated resolvers' certificates must chain to. A policy without
    ///     verification verifies nothing: every candidate is refused.
    ///   - timeout: Seconds for each exchange (the SVCB query, address queries, the DoH query).
    /// - Returns: The verified resolvers and a reason for each server or candidate passed over.
    /// - Throws: `DesignatedResolverError` when none was verified (`.noneVerified` with the reasons),
    ///   /etc/resolv.conf cannot be read or names no server.
    public static func verified(
        of servers: [PlainDNSServer]? = nil, dohTrust: TrustPolicy = .system, timeout: TimeInterval = 5
    ) async throws(DesignatedResolverError) -> (resolvers: [DesignatedResolver], passedOver: [String]) {
        let list: [PlainDNSServer]
        if let servers { list = servers } else { list = try PlainDNSServer.system() }
        guard !list.isEmpty else { throw .noServers }
        let (candidates, skipped) = await candidates(of: list, timeout: timeout)
        var passedOver = skipped
        var verified: [DesignatedResolver] = []
        for candidate in candidates {
            if let problem = await candidate.verificationProblem(dohTrust: dohTrust, timeout: timeout) {
                passedOver.append("\(candidate.endpoint.url.absoluteString) (designated by \(candidate.unencrypted)): \(problem)")
            } else {
                verified.append(candidate)
            }
        }
        guard !verified.isEmpty else { throw .noneVerified(passedOver) }
        return (verified, passedOver)
    }

    /// Why this candidate fails RFC 9462 §4.2's checks, or nil when it passes.
    func verificationProblem(dohTrust: TrustPolicy, timeout: TimeInterval) async -> String? {
        guard dohTrust.verification == .full else { return "certificate verification is disabled, so nothing can be verified" }
        var trust = dohTrust
        trust.requiredIPAddress = unencrypted.address
        // A policy of its own: its pool holds no connection or TLS session verified without the check.
        let client = HTTPClient(checkedConfiguration: HTTPClient.Configuration(trust: trust), resolver: SystemResolver())
        do {
            let query = try DNSMessage.query(name: Self.queryName, type: .svcb)
            var components = URLComponents(url: endpoint.url, resolvingAgainstBaseURL: false)
            components?.queryItems = [URLQueryItem(name: "dns", value: Data(query).base64EncodedString().base64URL)]
            guard let url = components?.url else { return "no query URL" }
            let response = try await client.send(
                url: url, method: "GET", headers: [("Accept", "application/dns-message")], body: nil,
                connectTo: endpoint.bootstrapAddresses, timeout: timeout, maxResponseBytes: 65_535)
            guard response.status == 200 else { return "HTTP \(response.status) to a DoH query" }
            _ = try DNSMessage(parsing: response.body)
            return nil
        } catch let error as HTTPClientError where error.kind == .certificateVerificationFailed && error.message.contains("IP address mismatch") {
            return "\(error.message) (its certificate must name \(unencrypted.address), RFC 9462 §4.2)"
        } catch {
            return "\(error)"
        }
    }
}

private extension String {
    /// Base64 as base64url without padding (RFC 4648 §5), as RFC 8484 §4.1 sends `dns`.
    var base64URL: String {
        replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
}
