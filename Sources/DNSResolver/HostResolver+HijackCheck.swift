import DNSSEC
import Foundation
import HTTPDNSCore

/// The system resolver's answer for a name next to the trusted providers' (`HostResolver.compare`).
public struct HijackComparison: Sendable, Hashable {
    /// What the comparison concluded.
    public enum Verdict: String, Sendable, Hashable {
        /// The answers share an address, or both say the name has none.
        case agree
        /// Possible hijack: no address in common, or one side has addresses where the other says the
        /// name does not exist.
        case disagree
        /// The trusted providers gave no answer.
        case trustedFailed = "trusted-failed"
        /// The system resolver gave no answer.
        case systemFailed = "system-failed"
    }

    /// The normalized name.
    public var host: String
    /// The providers' answer, fresh (not from the cache).
    public var trusted: Result<[IPAddress], ResolutionError>
    /// `getaddrinfo`'s answer.
    public var system: Result<[IPAddress], ResolutionError>
    public var verdict: Verdict
    /// When the resolver validates the name (its DNSSEC policy for it is not off): what validation
    /// made of the trusted answer, a bogus one included (it is compared, not refused); nil otherwise.
    public var trustedDNSSEC: DNSSECStatus?
    /// When the resolver validates the name: what the zone's signatures, as the trusted provider
    /// handed them over, make of the system's answer. `secure` when they verify over its addresses
    /// (so a provider that changed the addresses but not the RRSIGs is caught: the trusted side is
    /// bogus, the system's secure); `bogus` when the zone's trusted keys signed something else;
    /// `insecure` or `indeterminate` when nothing signed judges it. nil when not validated or the
    /// system resolver failed.
    public var systemDNSSEC: DNSSECStatus?

    public init(
        host: String, trusted: Result<[IPAddress], ResolutionError>, system: Result<[IPAddress], ResolutionError>,
        trustedDNSSEC: DNSSECStatus? = nil, systemDNSSEC: DNSSECStatus? = nil
    ) {
        self.host = host
        self.trusted = trusted
        self.system = system
        self.verdict = Self.verdict(trusted: trusted, system: system)
        self.trustedDNSSEC = trustedDNSSEC
        self.systemDNSSEC = systemDNSSEC
    }

    private static func verdict(trusted: Result<[IPAddress], ResolutionError>, system: Result<[IPAddress], ResolutionError>) -> Verdict {
        switch (trusted, system) {
        case (.success(let a), .success(let b)):
            return Set(a).isDisjoint(with: b) ? .disagree : .agree
        case (.failure(.resolverUnavailable), _), (.failure(.invalidHostName), _):
            return .trustedFailed
        case (_, .failure(.resolverUnavailable)), (_, .failure(.invalidHostName)):
            return .systemFailed
        case (.failure, .failure):
            return .agree // both: no such name / no addresses
        case (.success, .failure), (.failure, .success):
            return .disagree
        }
    }
}

extension HostResolver {
    /// Asks the trusted providers (never the cache, never the system fallback) and the system resolver
    /// for `host` side by side and compares the answers, to detect DNS hijacking on this network.
    ///
    /// When the resolver validates the name (`Configuration.dnssec`), the trusted answer is validated
    /// (a bogus one is still compared) and the system's is judged by the zone's signatures that came
    /// with it (`trustedDNSSEC`, `systemDNSSEC`): on a signed zone the comparison says which side's
    /// answer validates, not only that they differ. Providers are then asked as a validated lookup
    /// asks them (RFC 8484 first; the others, which carry no signatures, only under `report`).
    ///
    /// - Parameter host: A host name (Unicode allowed).
    /// - Returns: Both answers and the verdict; an invalid name gives `trustedFailed` with
    ///   `.invalidHostName` on both sides.
    public func compare(host: String) async -> HijackComparison {
        guard let name = HostName.normalize(host), IPAddress(name) == nil else {
            let error = ResolutionError.invalidHostName(host)
            return HijackComparison(host: host, trusted: .failure(error), system: .failure(error))
        }
        let families = concrete(configuration.families)
        async let systemAnswer: Result<[IPAddress], ResolutionError> = {
            do {
                let resolution = try await systemResolver.resolve(host: name, port: 443)
                let addresses = resolution.addresses.filter { families.includes($0.family) }
                // None of the families asked: NODATA, as the providers would say, not an empty answer.
                return addresses.isEmpty ? .failure(.noAddresses(host: name, negativeTTL: nil)) : .success(addresses)
            } catch let error as ResolutionError {
                return .failure(error)
            } catch {
                return .failure(.resolverUnavailable(host: name, reasons: ["system resolver: \(error)"]))
            }
        }()
        if let dnssecChain, case let dnssecPolicy = configuration.dnssec.policy(for: name), dnssecPolicy != .off {
            let validated = await validatedTrustedQuery(name, families: families, chain: dnssecChain, policy: dnssecPolicy)
            let system = await systemAnswer
            var systemStatus: DNSSECStatus?
            if let lookup = validated.lookup, let endpoint = validated.endpoint {
                systemStatus = await dnssecChain.judge(system, name: name, by: lookup, .init(endpoint: endpoint, timeout: configuration.requestTimeout))
            } else if let status = validated.status, (try? system.get()) != nil {
                systemStatus = status // no signatures came: nothing judges the system's answer either
            }
            return HijackComparison(host: name, trusted: validated.result, system: system, trustedDNSSEC: validated.status, systemDNSSEC: systemStatus)
        }
        let trustedAnswer = await trustedQuery(name, families: families)
        return HijackComparison(host: name, trusted: trustedAnswer, system: await systemAnswer)
    }

    /// The trusted answer for a hijack check under a DNSSEC policy: the first RFC 8484 provider's,
    /// validated, with the responses that judge the other side; else (under `report`) another
    /// provider's, indeterminate.
    private func validatedTrustedQuery(
        _ name: String, families: AddressFamilies, chain: DNSSECChain, policy dnssecPolicy: DNSSECSettings.Policy
    ) async -> (result: Result<[IPAddress], ResolutionError>, status: DNSSECStatus?, lookup: DNSSECChain.Lookup?, endpoint: DoHEndpoint?) {
        var reasons: [String] = []
        for case let endpoint as DoHEndpoint in configuration.providers {
            do {
                let lookup = try await chain.lookup(name, families: families, endpoint: endpoint, timeout: configuration.requestTimeout)
                let result = policy.outcome(of: lookup.answer, name: name, provider: endpoint).result.map(\.addresses)
                return (result, lookup.status, lookup, endpoint)
            } catch {
                if case .invalidName = error { return (.failure(.invalidHostName(name)), nil, nil, nil) }
                reasons.append(error.description)
            }
        }
        for provider in configuration.providers where !(provider is DoHEndpoint) {
            let why = Self.carriesNoSignatures(provider)
            guard dnssecPolicy == .report else {
                reasons.append("\(provider.url.absoluteString): not asked under the DNSSEC require policy, \(why)")
                continue
            }
            do {
                let answer = try await provider.lookup(name, families: families, transport: transport, timeout: configuration.requestTimeout)
                return (policy.outcome(of: answer, name: name, provider: provider).result.map(\.addresses), .indeterminate(reason: why), nil, nil)
            } catch {
                if case .invalidName = error { return (.failure(.invalidHostName(name)), nil, nil, nil) }
                reasons.append(error.description)
            }
        }
        if configuration.providers.isEmpty { reasons.append("no provider configured") }
        return (.failure(.resolverUnavailable(host: name, reasons: reasons)), nil, nil, nil)
    }

    /// The providers' answer for `name`, without cache or system fallback.
    private func trustedQuery(_ name: String, families: AddressFamilies) async -> Result<[IPAddress], ResolutionError> {
        var reasons: [String] = []
        for provider in configuration.providers {
            do {
                let answer = try await provider.lookup(name, families: families, transport: transport, timeout: configuration.requestTimeout)
                switch policy.outcome(of: answer, name: name, provider: provider).result {
                case .success(let resolution): return .success(resolution.addresses)
                case .failure(let error): return .failure(error)
                }
            } catch {
                if case .invalidName = error { return .failure(.invalidHostName(name)) }
                reasons.append(error.description)
            }
        }
        if configuration.providers.isEmpty { reasons.append("no provider configured") }
        return .failure(.resolverUnavailable(host: name, reasons: reasons))
    }
}
