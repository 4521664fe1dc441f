import DNSSEC
import Foundation
import HTTPDNSCore

extension HostResolver {
    /// DNSSEC validation of RFC 8484 answers in the client (RFC 4035 §5): the queries carry DO and CD,
    /// and the answer's RRSIGs are checked against a chain of DNSKEY and DS records, fetched over the
    /// same DoH endpoint, down from a trust anchor.
    public struct DNSSECSettings: Sendable {
        /// What a validation outcome does to a lookup.
        public enum Policy: String, Sendable, CaseIterable {
            /// No validation (default): queries carry neither DO nor CD.
            case off
            /// Validate and report (`HostResolution.dnssec`, the observer), never refuse an answer.
            case report
            /// A bogus answer fails the lookup with `ResolutionError.dnssecBogus`; secure, insecure
            /// (provably unsigned) and indeterminate (no anchor leads to the zone) answers pass.
            case require
        }

        /// The policy.
        public var policy: Policy
        /// The keys trusted without proof; `nil` (default): the root's, from Debian's `dns-root-data`
        /// (`TrustAnchor.root()`, read at the first validation; when it cannot be read every answer
        /// is indeterminate). Give your own for private zones and tests.
        public var trustAnchors: [TrustAnchor]?
        /// The clock signature validity is checked against (the real-time clock by default).
        public var clock: any DNSSECClock

        /// Settings with `policy` (off by default), `trustAnchors` (nil: the root's) and `clock`.
        public init(policy: Policy = .off, trustAnchors: [TrustAnchor]? = nil, clock: any DNSSECClock = SystemDNSSECClock()) {
            self.policy = policy
            self.trustAnchors = trustAnchors
            self.clock = clock
        }

        /// No validation.
        public static var off: DNSSECSettings { DNSSECSettings() }
    }

    /// `query(_:)` under a DNSSEC policy: the RFC 8484 providers in order, each answer validated.
    ///
    /// Other providers (JSON DoH, HTTPDNS APIs) carry no signatures and are passed over; the system
    /// resolver is asked only under `report` with `fallbackToSystemResolver`. A bogus answer under
    /// `require` fails the lookup and is not cached, so the next lookup asks again.
    func validatedQuery(_ key: LookupCoalescer.Key, chain: DNSSECChain) async -> LookupOutcome {
        let name = key.name
        let observer = configuration.observer
        var reasons: [String] = []
        for provider in configuration.providers {
            guard let endpoint = provider as? DoHEndpoint else {
                reasons.append("\(provider.url.absoluteString): skipped, a \(provider.kind) provider carries no DNSSEC signatures")
                continue
            }
            let started = clock.now()
            let validated: DNSSECChain.Lookup
            do {
                validated = try await chain.lookup(name, families: key.cacheKey.families, endpoint: endpoint, timeout: configuration.requestTimeout)
            } catch {
                let reason: String
                switch error {
                case .invalidName: return LookupOutcome(result: .failure(.invalidHostName(name)))
                case .endpointFailed(_, let why): reason = why
                }
                observer?.endpointFailed(host: name, provider: provider.kind, endpoint: provider.url, reason: reason, latency: clock.now() - started)
                reasons.append("\(provider.url.absoluteString): \(reason)")
                continue
            }
            observer?.providerAnswered(host: name, provider: provider.kind, endpoint: provider.url, latency: clock.now() - started, answer: validated.answer)
            observer?.dnssecValidated(host: name, status: validated.status)
            if configuration.dnssec.policy == .require, case .bogus(let reason) = validated.status {
                return LookupOutcome(result: .failure(.dnssecBogus(host: name, reason: reason)))
            }
            var outcome = policy.outcome(of: validated.answer, name: name, provider: provider)
            outcome.result = outcome.result.map { resolution in
                var resolution = resolution
                resolution.dnssec = validated.status
                return resolution
            }
            return outcome
        }
        guard configuration.fallbackToSystemResolver, configuration.dnssec.policy == .report else {
            return LookupOutcome(result: .failure(.resolverUnavailable(host: name, reasons: reasons)))
        }
        observer?.fellBackToSystemResolver(host: name, reasons: reasons)
        return await systemQuery(key, dohReasons: reasons)
    }
}
