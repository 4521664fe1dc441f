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

        /// The policy for hosts no pattern of `hostPolicies` matches.
        public var policy: Policy
        /// Policies by host pattern, over `policy`: the most specific pattern that matches a host
        /// decides (exact, then `*.`, then `**.`, longer domains first), as `TrustPolicyManager`
        /// chooses trust policies. Say `["**.bank.example": .require]` with `policy: .report` to
        /// refuse bogus answers for the bank's names and only report elsewhere. Default: none.
        public var hostPolicies: [HostPattern: Policy]
        /// The keys trusted without proof; `nil` (default): the root's, from Debian's `dns-root-data`
        /// (`TrustAnchor.root()`, read at the first validation; when it cannot be read every answer
        /// is indeterminate). Give your own for private zones and tests.
        public var trustAnchors: [TrustAnchor]?
        /// The clock signature validity is checked against (the real-time clock by default).
        public var clock: any DNSSECClock

        /// Settings with `policy` (off by default), `hostPolicies` over it for the hosts they match,
        /// `trustAnchors` (nil: the root's) and `clock`.
        public init(
            policy: Policy = .off, hostPolicies: [HostPattern: Policy] = [:], trustAnchors: [TrustAnchor]? = nil,
            clock: any DNSSECClock = SystemDNSSECClock()
        ) {
            self.policy = policy
            self.hostPolicies = hostPolicies
            self.trustAnchors = trustAnchors
            self.clock = clock
        }

        /// No validation.
        public static var off: DNSSECSettings { DNSSECSettings() }

        /// The policy for `host` (a normalized name): the most specific pattern of `hostPolicies`
        /// that matches it, else `policy`.
        public func policy(for host: String) -> Policy {
            hostPolicies.isEmpty ? policy : HostPattern.mostSpecificMatch(for: host, in: hostPolicies) ?? policy
        }

        /// Whether any host is validated: `policy` or a host pattern's is not `off`.
        public var validatesAny: Bool {
            policy != .off || hostPolicies.values.contains { $0 != .off }
        }
    }

    /// `query(_:)` under a DNSSEC policy: the RFC 8484 providers in order, each answer validated.
    ///
    /// Other providers (JSON DoH, HTTPDNS APIs) carry no signatures, so nothing they say can be
    /// checked: under `report` they are asked after every RFC 8484 provider failed, and their answer
    /// is `indeterminate`; under `require` they are never asked (their answers could not be refused
    /// when forged, which `require` promises), and the lookup fails when no RFC 8484 provider
    /// answers. The system resolver is asked only under `report` with `fallbackToSystemResolver`.
    /// A bogus answer under `require` fails the lookup and is not cached, so the next lookup asks again.
    func validatedQuery(_ key: LookupCoalescer.Key, chain: DNSSECChain, policy dnssecPolicy: DNSSECSettings.Policy) async -> LookupOutcome {
        let name = key.name
        let observer = configuration.observer
        var reasons: [String] = []
        var unsigned: [any ResolutionProvider] = []
        for provider in configuration.providers {
            guard let endpoint = provider as? DoHEndpoint else {
                unsigned.append(provider)
                continue
            }
            let started = clock.now()
            let validated: DNSSECChain.Lookup
            do {
                validated = try await chain.lookup(name, families: key.cacheKey.families, endpoint: endpoint, timeout: configuration.requestTimeout)
            } catch {
                guard let reason = failed(error, provider, name, started) else { return LookupOutcome(result: .failure(.invalidHostName(name))) }
                reasons.append(reason)
                continue
            }
            observer?.providerAnswered(host: name, provider: provider.kind, endpoint: provider.url, latency: clock.now() - started, answer: validated.answer)
            observer?.dnssecValidated(host: name, status: validated.status)
            if dnssecPolicy == .require, case .bogus(let reason) = validated.status {
                return LookupOutcome(result: .failure(.dnssecBogus(host: name, reason: reason)), dnssec: validated.status)
            }
            return outcome(of: validated.answer, status: validated.status, name: name, provider: provider)
        }
        for provider in unsigned {
            let why = Self.carriesNoSignatures(provider)
            guard dnssecPolicy == .report else {
                reasons.append("\(provider.url.absoluteString): not asked under the DNSSEC require policy, \(why)")
                continue
            }
            let started = clock.now()
            let answer: ProviderAnswer
            do {
                answer = try await provider.lookup(name, families: key.cacheKey.families, transport: transport, timeout: configuration.requestTimeout)
            } catch {
                guard let reason = failed(error, provider, name, started) else { return LookupOutcome(result: .failure(.invalidHostName(name))) }
                reasons.append(reason)
                continue
            }
            let status = DNSSECStatus.indeterminate(reason: why)
            observer?.providerAnswered(host: name, provider: provider.kind, endpoint: provider.url, latency: clock.now() - started, answer: answer)
            observer?.dnssecValidated(host: name, status: status)
            return outcome(of: answer, status: status, name: name, provider: provider)
        }
        if configuration.providers.isEmpty { reasons.append("no provider configured") }
        guard configuration.fallbackToSystemResolver, dnssecPolicy == .report else {
            return LookupOutcome(result: .failure(.resolverUnavailable(host: name, reasons: reasons)))
        }
        observer?.fellBackToSystemResolver(host: name, reasons: reasons)
        return await systemQuery(key, dohReasons: reasons)
    }

    /// Why `provider`'s answers cannot be validated: `a httpdns-ali provider carries no DNSSEC signatures`.
    static func carriesNoSignatures(_ provider: any ResolutionProvider) -> String {
        "a \(provider.kind) provider carries no DNSSEC signatures"
    }

    /// `answer` as the lookup's outcome, carrying `status` in the resolution and for the cache.
    private func outcome(of answer: ProviderAnswer, status: DNSSECStatus, name: String, provider: any ResolutionProvider) -> LookupOutcome {
        var outcome = policy.outcome(of: answer, name: name, provider: provider)
        outcome.dnssec = status
        outcome.result = outcome.result.map { resolution in
            var resolution = resolution
            resolution.dnssec = status
            return resolution
        }
        return outcome
    }

    /// Tells the observer of a provider's failure and returns its reason line; nil for a name no
    /// query can carry (the lookup fails with `invalidHostName`).
    private func failed(_ error: ProviderFailure, _ provider: any ResolutionProvider, _ name: String, _ started: TimeInterval) -> String? {
        let reason: String
        switch error {
        case .invalidName: return nil
        case .endpointFailed(_, let why): reason = why
        }
        configuration.observer?.endpointFailed(host: name, provider: provider.kind, endpoint: provider.url, reason: reason, latency: clock.now() - started)
        return "\(provider.url.absoluteString): \(reason)"
    }
}
