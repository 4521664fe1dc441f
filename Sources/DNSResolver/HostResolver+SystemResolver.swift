import Foundation
import HTTPDNSCore

extension HostResolver {
    /// A bypassed name, through the system resolver.
    func systemLookup(_ name: String, port: Int, families: AddressFamilies, started: TimeInterval) async throws -> HostResolution {
        configuration.observer?.bypassed(host: name)
        var resolution = try await systemResolver.resolve(host: name, port: port)
        resolution.addresses = resolution.addresses.filter { families.includes($0.family) }
        guard !resolution.addresses.isEmpty else { throw ResolutionError.noAddresses(host: name, negativeTTL: nil) }
        resolution.provider = "system"
        resolution.latency = clock.now() - started
        return resolution
    }

    /// The system resolver after every provider failed: its answer, or its failure beside theirs.
    func systemQuery(_ key: LookupCoalescer.Key, dohReasons: [String]) async -> LookupOutcome {
        let name = key.cacheKey.name
        let families = key.cacheKey.families
        do {
            var resolution = try await systemResolver.resolve(host: name, port: key.port)
            resolution.addresses = resolution.addresses.filter { families.includes($0.family) }
            resolution.provider = "system"
            guard !resolution.addresses.isEmpty else {
                let reason = "system resolver: no addresses of the requested type"
                return LookupOutcome(result: .failure(.resolverUnavailable(host: name, reasons: dohReasons + [reason])))
            }
            resolution.fallbackReasons = dohReasons
            return LookupOutcome(result: .success(resolution))
        } catch ResolutionError.resolverUnavailable(_, let reasons) {
            let system = reasons.isEmpty ? ["system resolver: no answer"] : reasons.map { "system resolver: \($0)" }
            return LookupOutcome(result: .failure(.resolverUnavailable(host: name, reasons: dohReasons + system)))
        } catch ResolutionError.nameNotFound {
            // The trusted resolvers gave no answer; what the untrusted one says is reported beside
            // their failures rather than as the answer.
            return LookupOutcome(result: .failure(.resolverUnavailable(host: name, reasons: dohReasons + ["system resolver: name does not exist"])))
        } catch ResolutionError.noAddresses {
            let reason = "system resolver: no addresses of the requested type"
            return LookupOutcome(result: .failure(.resolverUnavailable(host: name, reasons: dohReasons + [reason])))
        } catch let error as ResolutionError {
            return LookupOutcome(result: .failure(error))
        } catch {
            let reason = "system resolver: \(error)"
            return LookupOutcome(result: .failure(.resolverUnavailable(host: name, reasons: dohReasons + [reason])))
        }
    }
}
