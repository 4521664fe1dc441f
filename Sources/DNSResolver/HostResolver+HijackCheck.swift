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

    public init(host: String, trusted: Result<[IPAddress], ResolutionError>, system: Result<[IPAddress], ResolutionError>) {
        self.host = host
        self.trusted = trusted
        self.system = system
        self.verdict = Self.verdict(trusted: trusted, system: system)
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
        let trustedAnswer = await trustedQuery(name, families: families)
        return HijackComparison(host: name, trusted: trustedAnswer, system: await systemAnswer)
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
