import Foundation
import HTTPDNS
import Testing
import TestSupport

/// Policies by host pattern, and cached answers that keep their DNSSEC outcome.
extension DNSSECResolverTests {
    func resolver(
        _ settings: HostResolver.DNSSECSettings, observer: Outcomes? = nil, cacheFile: URL? = nil, transport: (any DoHTransport)? = nil,
        asksForServiceBindings: Bool = false
    ) throws -> HostResolver {
        var configuration = HostResolver.Configuration(endpoints: [fixture.endpoint], requestTimeout: TestTimeScale.scaled(5), fallbackToSystemResolver: false)
        configuration.asksForServiceBindings = asksForServiceBindings
        var settings = settings
        settings.trustAnchors = settings.trustAnchors ?? anchors
        configuration.dnssec = settings
        configuration.observer = observer
        configuration.persistentCacheFile = cacheFile
        if let transport { return try HostResolver(configuration: configuration, transport: transport) }
        return try HostResolver(configuration: configuration, dohTrust: fixture.trust)
    }

    @Test("a host pattern's policy overrides the resolver's: require for *.tampered, report elsewhere, off for one name")
    func hostPolicies() async throws {
        let log = QueryLog()
        let client = try HTTPClient(configuration: HTTPClient.Configuration(trust: fixture.trust), resolver: SystemResolver())
        let settings = HostResolver.DNSSECSettings(
            policy: .report, hostPolicies: ["*.tampered.dnssec.test": .require, "www.dnssec.test": .off])
        let resolver = try resolver(settings, transport: LoggingTransport(real: client, log: log))
        await expectBogus(resolver, "www.tampered.dnssec.test", "does not verify")
        let expired = try await resolver.resolve(host: "www.expired.dnssec.test", port: 443, families: .ipv4)
        #expect(expired.dnssec?.name == "bogus")
        #expect(expired.addresses == [IPAddress("127.0.0.1")!])

        let before = log.queries.withLock { $0.count }
        let plain = try await resolver.resolve(host: "www.dnssec.test", port: 443, families: .ipv4)
        #expect(plain.dnssec == nil, "off for this name: not validated")
        let sent = log.queries.withLock { Array($0[before...]) }
        #expect(sent.map(\.type) == [.a], "no chain fetched: \(sent)")
        #expect(sent.allSatisfy { !$0.checkingDisabled }, "off: queries without CD")
    }

    @Test("the most specific pattern wins: exact, then *., then **., longer domains first")
    func mostSpecificPattern() {
        let settings = HostResolver.DNSSECSettings(
            policy: .off,
            hostPolicies: ["**.dnssec.test": .report, "**.signed.dnssec.test": .require, "*.signed.dnssec.test": .off, "www.signed.dnssec.test": .report])
        #expect(settings.policy(for: "dnssec.test") == .report)
        #expect(settings.policy(for: "a.b.dnssec.test") == .report)
        #expect(settings.policy(for: "signed.dnssec.test") == .require)
        #expect(settings.policy(for: "a.b.signed.dnssec.test") == .require)
        #expect(settings.policy(for: "alias.signed.dnssec.test") == .off)
        #expect(settings.policy(for: "www.signed.dnssec.test") == .report)
        #expect(settings.policy(for: "example.com") == .off)
        #expect(settings.validatesAny)
        #expect(!HostResolver.DNSSECSettings(policy: .off, hostPolicies: ["a.test": .off]).validatesAny)
    }

    @Test("a cached validated answer keeps its outcome: secure, insecure and (under report) bogus")
    func cachedOutcomes() async throws {
        let outcomes = Outcomes()
        let resolver = try resolver(HostResolver.DNSSECSettings(policy: .report), observer: outcomes)
        for (host, status) in [("www.signed.dnssec.test", "secure"), ("www.unsigned.dnssec.test", "insecure"), ("www.tampered.dnssec.test", "bogus")] {
            let first = try await resolver.resolve(host: host, port: 443, families: .ipv4)
            #expect(first.source != .cache)
            let second = try await resolver.resolve(host: host, port: 443, families: .ipv4)
            #expect(second.source == .cache, "\(host)")
            #expect(second.dnssec?.name == status, "\(host): \(String(describing: second.dnssec))")
            #expect(second.dnssec == first.dnssec)
            #expect(resolver.cachedResolution(host: host, families: .ipv4)?.dnssec == first.dnssec)
        }
        // A negative answer from the cache: the observer is told its proof again.
        await #expect(throws: ResolutionError.self) { try await resolver.resolve(host: "nope.signed.dnssec.test", port: 443, families: .ipv4) }
        outcomes.seen.withLock { $0["nope.signed.dnssec.test"] = nil }
        await #expect(throws: ResolutionError.self) { try await resolver.resolve(host: "nope.signed.dnssec.test", port: 443, families: .ipv4) }
        #expect(outcomes.seen.withLock { $0["nope.signed.dnssec.test"] } == .secure)
    }

    @Test("an answer cached without validation (the cache file of an unvalidating resolver) does not answer under require: the bogus answer is refused")
    func unvalidatedCacheEntry() async throws {
        let scratch = try fixture.scratchDirectory("dnssec-cache")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let file = scratch.appendingPathComponent("cache.sqlite")
        let plain = try resolver(HostResolver.DNSSECSettings(policy: .off), cacheFile: file)
        let forged = try await plain.resolve(host: "www.tampered.dnssec.test", port: 443, families: .ipv4)
        #expect(forged.addresses == [IPAddress("127.0.0.66")!])
        _ = try await plain.resolve(host: "www.signed.dnssec.test", port: 443, families: .ipv4)
        plain.savePersistentCache()

        let strict = try resolver(HostResolver.DNSSECSettings(policy: .require), cacheFile: file)
        #expect(strict.cachedCount >= 2, "the file's rows are loaded")
        do {
            let resolution = try await strict.resolve(host: "www.tampered.dnssec.test", port: 443, families: .ipv4)
            Issue.record("a cached unvalidated answer slipped through: \(resolution.addresses) \(resolution.source)")
        } catch let error as ResolutionError {
            guard case .dnssecBogus = error else {
                Issue.record("expected dnssecBogus, got \(error)")
                return
            }
        }
        #expect(strict.cachedResolution(host: "www.signed.dnssec.test", families: .ipv4) == nil, "no outcome: not a usable hit")
        let validated = try await strict.resolve(host: "www.signed.dnssec.test", port: 443, families: .ipv4)
        #expect(validated.source != .cache)
        #expect(validated.dnssec == .secure)
        let hit = try await strict.resolve(host: "www.signed.dnssec.test", port: 443, families: .ipv4)
        #expect(hit.source == .cache)
        #expect(hit.dnssec == .secure)
    }

    @Test("with asksForServiceBindings, a validated host is never asked for HTTPS records, which would not be validated; an unvalidated one is")
    func noUnvalidatedServiceBindings() async throws {
        let log = QueryLog()
        let client = try HTTPClient(configuration: HTTPClient.Configuration(trust: fixture.trust), resolver: SystemResolver())
        let resolver = try resolver(
            HostResolver.DNSSECSettings(policy: .require, hostPolicies: ["www.dnssec.test": .off]), transport: LoggingTransport(real: client, log: log),
            asksForServiceBindings: true)
        let validated = try await resolver.resolve(host: "www.signed.dnssec.test", port: 443, families: .ipv4)
        #expect(validated.dnssec?.name == "secure")
        #expect(validated.serviceBindingRecords == nil)
        #expect(!log.queries.withLock { $0 }.contains { $0.type == .https }, "an HTTPS query for a validated host")
        let plain = try await resolver.resolve(host: "www.dnssec.test", port: 443, families: .ipv4)
        #expect(plain.dnssec == nil)
        #expect(log.queries.withLock { $0 }.contains { $0.type == .https }, "no HTTPS query for the unvalidated host")
    }
}
