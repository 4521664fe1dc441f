import Foundation
import HTTPDNSCore

/// The resolver's providers with their health: asks them in order (or the first two at once) until
/// one answers, skips a provider in back-off after `failureThreshold` consecutive failures, and
/// rotates a failed provider's bootstrap addresses.
final class ProviderPool: Sendable {
    /// Consecutive failures of one provider and when it may be asked again.
    struct Health: Sendable {
        var consecutiveFailures = 0
        /// On the resolver's clock, in seconds; 0: not in back-off.
        var skipUntil: TimeInterval = 0
        /// Where the bootstrap address list starts (rotated after each failure).
        var bootstrapOffset = 0
    }

    /// What asking the providers came to.
    enum Result: Sendable {
        /// A DNS outcome from `provider`.
        case answered(ProviderAnswer, provider: any ResolutionProvider)
        /// The name cannot be put in a query.
        case invalidName
        /// No provider answered; one reason per provider tried, in order.
        case failed(reasons: [String])
    }

    let providers: [any ResolutionProvider]
    private let transport: any DoHTransport
    private let clock: any ResolverClock
    private let observer: (any ResolverObserver)?
    private let requestTimeout: TimeInterval
    private let failureThreshold: Int
    private let failureBackoff: TimeInterval
    private let racesFirstTwo: Bool
    private let rebindingGuard: RebindingGuard
    private let health: LockedValue<[Health]>

    init(configuration: HostResolver.Configuration, transport: any DoHTransport, clock: any ResolverClock) {
        providers = configuration.providers
        self.transport = transport
        self.clock = clock
        observer = configuration.observer
        requestTimeout = configuration.requestTimeout
        failureThreshold = configuration.failureThreshold
        failureBackoff = configuration.failureBackoff
        racesFirstTwo = configuration.racesFirstTwoProviders
        rebindingGuard = configuration.rebindingGuard
        health = LockedValue(Array(repeating: Health(), count: configuration.providers.count))
    }

    /// Each provider's health, in configuration order.
    var snapshot: [Health] { health.withLock { $0 } }

    /// Asks for `name`: the available providers in order, the first two at once when racing.
    func query(_ name: String, families: AddressFamilies) async -> Result {
        var reasons: [String] = []
        var remaining = order(for: name)[...]
        if racesFirstTwo, remaining.count >= 2 {
            let pair = Array(remaining.prefix(2))
            remaining = remaining.dropFirst(2)
            if let answer = await race(pair, name: name, families: families, reasons: &reasons) { return answer }
        }
        for index in remaining {
            switch await ask(index, name: name, families: families) {
            case .answered(let result): return result
            case .failed(let reason): reasons.append(reason)
            }
        }
        if providers.isEmpty { reasons.append("no DoH endpoint configured") }
        return .failed(reasons: reasons)
    }

    /// Provider indices to try: those not in back-off, in order; all of them when every one is.
    func order(for name: String) -> [Int] {
        let now = clock.now()
        let health = snapshot
        var available: [Int] = []
        for index in providers.indices {
            let entry = health[index]
            if entry.skipUntil > now {
                observer?.endpointSkipped(
                    host: name, endpoint: providers[index].url,
                    consecutiveFailures: entry.consecutiveFailures, retryAfter: entry.skipUntil)
            } else {
                available.append(index)
            }
        }
        return available.isEmpty ? Array(providers.indices) : available
    }

    /// `names` asked of the first available provider in one request per `batchLimit` names, when it
    /// has a batch API (a batch whose request fails is left out).
    /// - Returns: The answers and who gave them; nil when that provider has no batch API.
    func batchLookup(_ names: [String], families: AddressFamilies) async -> (answers: [String: ProviderAnswer], provider: any ResolutionProvider)? {
        guard let first = order(for: names.first ?? "").first, first < providers.count, providers[first].batchLimit > 1 else { return nil }
        let provider = providers[first]
        var answers: [String: ProviderAnswer] = [:]
        var start = 0
        while start < names.count {
            let batch = Array(names[start..<min(start + provider.batchLimit, names.count)])
            start += batch.count
            guard let got = try? await provider.lookup(batch: batch, families: families, transport: transport, timeout: requestTimeout) else { continue }
            answers.merge(got) { first, _ in first }
        }
        return (answers, provider)
    }

    private enum Attempt: Sendable {
        case answered(Result)
        case failed(String)
    }

    /// Asks two providers at once; the first answer wins and the other is cancelled.
    private func race(_ pair: [Int], name: String, families: AddressFamilies, reasons: inout [String]) async -> Result? {
        await withTaskGroup(of: (Int, Attempt).self) { group -> Result? in
            for index in pair {
                group.addTask { (index, await self.ask(index, name: name, families: families)) }
            }
            var failures: [Int: String] = [:]
            for await (index, attempt) in group {
                switch attempt {
                case .answered(let result):
                    group.cancelAll()
                    return result
                case .failed(let reason):
                    failures[index] = reason
                }
            }
            reasons += pair.compactMap { failures[$0] }
            return nil
        }
    }

    /// One provider's attempt, with its health and bootstrap rotation updated.
    private func ask(_ index: Int, name: String, families: AddressFamilies) async -> Attempt {
        var provider = providers[index]
        let offset = health.withLock { $0[index].bootstrapOffset }
        let bootstrap = provider.bootstrapAddresses
        if bootstrap.count > 1 {
            let start = offset % bootstrap.count
            provider.bootstrapAddresses = Array(bootstrap[start...] + bootstrap[..<start])
        }
        let started = clock.now()
        do {
            var answer = try await provider.lookup(name, families: families, transport: transport, timeout: requestTimeout)
            let latency = clock.now() - started
            if rebindingGuard.screens(provider) {
                let screened = rebindingGuard.screen(answer)
                if !screened.dropped.isEmpty {
                    answer = screened.answer
                    observer?.warning(
                        "dropped \(screened.dropped.map(\.description).joined(separator: ", ")) from \(provider.url.host() ?? provider.url.absoluteString)'s answer for \(name): a local address (DNS rebinding guard, \(rebindingGuard == .allProviders ? "every provider" : "public resolvers"))"
                    )
                }
            }
            health.withLock {
                $0[index].consecutiveFailures = 0; $0[index].skipUntil = 0
            }
            observer?.providerAnswered(host: name, provider: provider.kind, endpoint: provider.url, latency: latency, answer: answer)
            return .answered(.answered(answer, provider: provider))
        } catch {
            switch error {
            case .invalidName:
                return .answered(.invalidName)
            case .endpointFailed where Task.isCancelled:
                // Cancelled, not failed: the race's loser, or a lookup nobody waits for any more.
                // Its health and bootstrap order stay as they were.
                return .failed(error.description)
            case .endpointFailed:
                let now = clock.now()
                health.withLock { health in
                    health[index].consecutiveFailures += 1
                    health[index].bootstrapOffset += 1
                    if failureThreshold > 0, health[index].consecutiveFailures >= failureThreshold {
                        health[index].skipUntil = now + failureBackoff
                    }
                }
                observer?.endpointFailed(host: name, provider: provider.kind, endpoint: provider.url, reason: error.description, latency: now - started)
                return .failed(error.description)
            }
        }
    }
}
