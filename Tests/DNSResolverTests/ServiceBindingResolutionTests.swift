@testable import DNSResolver
import DNSWire
import Foundation
import HTTPDNSCore
import Testing

/// HTTPS records beside A and AAAA (RFC 9460 §3): asked in parallel when configured, AliasMode
/// followed with a limit, ServiceMode ordered, cached for their TTL, never failing the address lookup.
@Suite("HostResolver service bindings")
struct ServiceBindingResolutionTests {
    static let typeHTTPS: UInt16 = 65

    /// An HTTPS RRset per name: each entry's wire RDATA, with one TTL. Names not listed are NODATA.
    struct HTTPSZone: Sendable {
        var records: [String: [[UInt8]]]
        var ttl: UInt32 = 60
        var cnames: [String: String] = [:]

        func respond(to query: [UInt8]) -> DoHHTTPResponse {
            let question = DNSFixture.question(of: query)!
            var answers: [DNSFixture.Record] = []
            var owner = question.name
            if let target = cnames[owner] {
                answers.append(.cname(owner, target, ttl: 300))
                owner = target
            }
            answers += (records[owner] ?? []).map { DNSFixture.Record(name: owner, type: ServiceBindingResolutionTests.typeHTTPS, ttl: ttl, rdata: $0) }
            let soa = [DNSFixture.Record.soa("test", ttl: 3600, minimum: 30)]
            return .dns(DNSFixture.response(to: query, answers: answers, authorities: answers.isEmpty ? soa : []))
        }
    }

    static let addresses = FakeZone(hosts: [
        "svc.test": .init(ipv4: ["192.0.2.1"], ipv6: ["2001:db8::1"], ttl: 300),
        "alias.test": .init(ipv4: ["192.0.2.2"], ttl: 300),
        "bad.test": .init(ipv4: ["192.0.2.3"], ttl: 300),
        "order.test": .init(ipv4: ["192.0.2.7"], ttl: 300),
        "loop1.test": .init(ipv4: ["192.0.2.4"], ttl: 300),
        "long0.test": .init(ipv4: ["192.0.2.5"], ttl: 300),
        "www.svc.test": .init(ipv4: ["192.0.2.1"], ttl: 300),
        "gone.test": .init(ipv4: ["192.0.2.6"], ttl: 300),
        "a.test": .init(ipv4: ["192.0.2.8"], ttl: 300)
    ])

    static func rdata(_ priority: UInt16, _ target: String = "", _ parameters: ServiceParameters = ServiceParameters()) -> [UInt8] {
        try! ServiceBinding(priority: priority, targetName: target, parameters: parameters).wireRData()
    }

    static let h2 = ServiceParameters(alpnProtocols: ["h2"], port: 8443)
    static let https = HTTPSZone(
        records: [
            "svc.test": [rdata(3, "c.test"), rdata(1, "", h2), rdata(2, "b.test")],
            "alias.test": [rdata(0, "svc.test")],
            "gone.test": [rdata(0, "")],
            // Port of one octet: RFC 9460 §7.2 wants exactly two.
            "bad.test": [[0x00, 0x01, 0x00, 0x00, 0x03, 0x00, 0x01, 0x01]],
            // port (3) before alpn (1): RFC 9460 §2.2 wants the keys strictly ascending. (unbound
            // sorts them, so the suite's real server cannot serve this.)
            "order.test": [[0x00, 0x01, 0x00, 0x00, 0x03, 0x00, 0x02, 0x20, 0xFB, 0x00, 0x01, 0x00, 0x03, 0x02, 0x68, 0x32]],
            "loop1.test": [rdata(0, "loop2.test")],
            "loop2.test": [rdata(0, "loop1.test")]
        ].merging((0...9).map { ("long\($0).test", [rdata(0, "long\($0 + 1).test")]) }) { first, _ in first }
            .merging([("long10.test", [rdata(1)])]) { first, _ in first },
        cnames: ["www.svc.test": "svc.test"])

    static func transport(https: HTTPSZone = ServiceBindingResolutionTests.https, failingHTTPS: Set<String> = []) -> FakeDoHTransport {
        FakeDoHTransport { request in
            guard request.question?.type == typeHTTPS else { return addresses.respond(to: request.query) }
            if failingHTTPS.contains(request.endpoint) { return DoHHTTPResponse(status: 500, contentType: "text/plain", body: Data()) }
            return https.respond(to: request.query)
        }
    }

    static func harness(
        transport: FakeDoHTransport = ServiceBindingResolutionTests.transport(), observer: EventRecorder? = nil,
        configure: @escaping (inout HostResolver.Configuration) -> Void = { _ in }
    ) throws -> ResolverHarness {
        try ResolverHarness(transport: transport) { configuration in
            configuration.asksForServiceBindings = true
            configuration.observer = observer
            configure(&configuration)
        }
    }

    static func httpsQueries(_ harness: ResolverHarness) -> Int {
        harness.transport.requests.filter { $0.question?.type == typeHTTPS }.count
    }

    // MARK: Asking

    @Test func recordsAreNotAskedForUnlessConfigured() async throws {
        let harness = try ResolverHarness(transport: Self.transport())
        let resolution = try await harness.resolve("svc.test")
        #expect(resolution.serviceBindingRecords == nil)
        #expect(Self.httpsQueries(harness) == 0)
    }

    @Test func theResolutionCarriesTheServiceModeRecordsInPriorityOrder() async throws {
        let harness = try Self.harness()
        let resolution = try await harness.resolve("svc.test")
        #expect(resolution.addresses.count == 2)
        #expect(resolution.serviceBindings.map(\.priority) == [1, 2, 3])
        #expect(resolution.serviceBindings.first == ServiceBinding(priority: 1, targetName: "", parameters: Self.h2))
        #expect(resolution.serviceBindingRecords?.name == "svc.test")
        #expect(resolution.serviceBindingRecords?.ttl == 60)
        #expect(harness.transport.requests.allSatisfy { $0.endpoint == ResolverHarness.first.url.absoluteString })
        #expect(harness.queries == 3, "A, AAAA and HTTPS")
    }

    @Test func theHTTPSQueryIsSentBeforeTheAddressAnswersArrive() async throws {
        let base = Self.transport()
        // The A and AAAA answers are held until the HTTPS query has been sent: a query sent only
        // after them would never come, and the lookup would time out.
        let transport = FakeDoHTransport { request in
            if request.question?.type != Self.typeHTTPS {
                let deadline = Date().addingTimeInterval(5)
                while !base.requests.contains(where: { $0.question?.type == Self.typeHTTPS }) {
                    guard Date() < deadline else { throw TransportFailure(description: "no HTTPS query in parallel") }
                    try await Task.sleep(for: .milliseconds(2))
                }
            }
            return try await base.send(
                url: request.url, method: request.method, headers: request.headers, body: request.body,
                connectTo: request.connectTo, timeout: request.timeout, maxResponseBytes: request.maxResponseBytes)
        }
        let harness = try Self.harness(transport: transport)
        let resolution = try await harness.resolve("svc.test")
        #expect(resolution.source == .doh(endpoint: ResolverHarness.first.url))
        #expect(resolution.serviceBindings.count == 3)
    }

    @Test func aCNAMEBeforeTheRRsetIsFollowedWithinTheAnswer() async throws {
        let harness = try Self.harness()
        let resolution = try await harness.resolve("www.svc.test")
        #expect(resolution.serviceBindingRecords?.name == "svc.test")
        #expect(resolution.serviceBindings.count == 3)
    }

    // MARK: AliasMode

    @Test func aliasModeIsFollowedToTheTargetsRecords() async throws {
        let harness = try Self.harness()
        let records = try #require(try await harness.resolve("alias.test").serviceBindingRecords)
        #expect(records.name == "svc.test")
        #expect(records.aliasChain == ["svc.test"])
        #expect(records.records.map(\.priority) == [1, 2, 3])
        #expect(Self.httpsQueries(harness) == 2)
    }

    @Test func aliasModeWinsOverServiceModeInOneRRset() async throws {
        let zone = HTTPSZone(records: ["svc.test": [Self.rdata(1, "", Self.h2), Self.rdata(0, "alias-target.test")], "alias-target.test": [Self.rdata(5)]])
        let harness = try Self.harness(transport: Self.transport(https: zone))
        let records = try #require(try await harness.resolve("svc.test").serviceBindingRecords)
        #expect(records.name == "alias-target.test")
        #expect(records.records.map(\.priority) == [5])
    }

    @Test func aliasModeToTheRootMeansTheServiceDoesNotExist() async throws {
        let harness = try Self.harness()
        let records = try #require(try await harness.resolve("gone.test").serviceBindingRecords)
        #expect(records.records.isEmpty)
    }

    @Test func anAliasLoopGivesNoRecordsAndIsReported() async throws {
        let recorder = EventRecorder()
        let harness = try Self.harness(observer: recorder)
        let resolution = try await harness.resolve("loop1.test")
        #expect(resolution.addresses == [IPAddress("192.0.2.4")!])
        #expect(resolution.serviceBindingRecords == nil)
        #expect(recorder.events.contains("bindings dropped loop1.test: AliasMode records loop: loop1.test -> loop2.test -> loop1.test (RFC 9460 §3.1)"))
    }

    @Test func anAliasChainLongerThanTheLimitIsRefused() async throws {
        let harness = try Self.harness()
        await #expect(throws: ServiceBindingError.aliasChainTooLong(chain: ["long0.test"] + (1...8).map { "long\($0).test" }, limit: 8)) {
            try await harness.resolver.serviceBindings(host: "long0.test")
        }
        #expect(Self.httpsQueries(harness) == 9)
    }

    @Test func aChainWithinTheLimitIsFollowed() async throws {
        let harness = try Self.harness { $0.serviceBindingAliasLimit = 10 }
        let records = try await harness.resolver.serviceBindings(host: "long0.test")
        #expect(records.name == "long10.test")
        #expect(records.aliasChain.count == 10)
    }

    // MARK: Failures never fail the address lookup

    @Test func aMalformedHTTPSRecordIsReportedAndDropped() async throws {
        let recorder = EventRecorder()
        let harness = try Self.harness(observer: recorder)
        let resolution = try await harness.resolve("bad.test")
        #expect(resolution.addresses == [IPAddress("192.0.2.3")!])
        #expect(resolution.serviceBindingRecords == nil)
        let dropped = recorder.events.filter { $0.hasPrefix("bindings dropped bad.test") }
        #expect(dropped.count == 1)
        #expect(dropped.first?.contains("port has a 1-octet value; it must be exactly 2") == true)
    }

    @Test func keysOutOfOrderAreReportedAndDropped() async throws {
        let recorder = EventRecorder()
        let harness = try Self.harness(observer: recorder)
        let resolution = try await harness.resolve("order.test")
        #expect(resolution.addresses == [IPAddress("192.0.2.7")!])
        #expect(resolution.serviceBindingRecords == nil, "a client then connects to the origin's port")
        let dropped = recorder.events.filter { $0.hasPrefix("bindings dropped order.test") }
        #expect(dropped.count == 1, "\(recorder.events)")
        #expect(dropped.first?.contains("SvcParamKey alpn follows port; keys must be strictly ascending") == true, "\(dropped)")
    }

    @Test func aMalformedHTTPSRecordInAnAddressAnswerIsIgnored() async throws {
        let transport = FakeDoHTransport { request in
            let question = request.question!
            let junk = DNSFixture.Record(name: question.name, type: Self.typeHTTPS, ttl: 60, rdata: [0x00, 0x01, 0xC0, 0x0C])
            let answers: [DNSFixture.Record] = question.type == DNSFixture.typeA ? [.a(question.name, "192.0.2.10", ttl: 300), junk] : [junk]
            return .dns(DNSFixture.response(to: request.query, answers: answers))
        }
        let answer = try await DoHClient(transport: transport).lookup("svc.test", families: .ipv4, endpoint: ResolverHarness.first, timeout: 3)
        #expect(answer == .addresses([IPAddress("192.0.2.10")!], ttl: 300))
        await #expect(throws: ProviderFailure.self) {
            try await DoHClient(transport: transport).serviceBindings("svc.test", type: .https, endpoint: ResolverHarness.first, timeout: 3)
        }
    }

    @Test func aFailedHTTPSQueryFailsOverToTheNextEndpoint() async throws {
        let harness = try Self.harness(transport: Self.transport(failingHTTPS: [ResolverHarness.first.url.absoluteString]))
        let resolution = try await harness.resolve("svc.test")
        #expect(resolution.serviceBindings.count == 3)
        #expect(harness.transport.requests.filter { $0.question?.type == Self.typeHTTPS }.map(\.endpoint) == [ResolverHarness.first.url.absoluteString, ResolverHarness.second.url.absoluteString])
    }

    @Test func httpsFailingEverywhereLeavesTheAddressesAndIsKeptBriefly() async throws {
        let failing: Set<String> = [ResolverHarness.first.url.absoluteString, ResolverHarness.second.url.absoluteString]
        let harness = try Self.harness(transport: Self.transport(failingHTTPS: failing))
        #expect(try await harness.resolve("svc.test").serviceBindingRecords == nil)
        #expect(try await harness.resolve("svc.test").serviceBindingRecords == nil)
        #expect(Self.httpsQueries(harness) == 2, "the failure is kept: the cached hit does not ask again")
        harness.clock.advance(by: DoHClient.partialAnswerTTLCap)
        // A hit never waits: it starts the one refresh, which asks both endpoints again.
        _ = try await harness.resolve("svc.test")
        try await Self.waitFor { Self.httpsQueries(harness) >= 4 }
        #expect(Self.httpsQueries(harness) == 4)
    }

    /// Polls `condition` for up to 5 s (a background refresh on the fake transport).
    static func waitFor(_ condition: () -> Bool) async throws {
        for _ in 0..<1_000 where !condition() { try await Task.sleep(for: .milliseconds(5)) }
    }

    // MARK: Caching

    @Test func recordsAreCachedForTheirTTL() async throws {
        let harness = try Self.harness()
        _ = try await harness.resolve("svc.test")
        harness.clock.advance(by: 20)
        let cached = try await harness.resolve("svc.test")
        #expect(cached.source == .cache)
        #expect(cached.serviceBindingRecords?.ttl == 40)
        #expect(Self.httpsQueries(harness) == 1)
        harness.clock.advance(by: 40)
        // The records expired while the addresses live on (300 s): the hit goes without records at
        // once and refreshes them in the background; the next hit has them.
        let again = try await harness.resolve("svc.test")
        #expect(again.source == .cache, "the addresses live 300 s")
        #expect(again.serviceBindingRecords == nil)
        try await Self.waitFor { Self.httpsQueries(harness) >= 2 && (try? harness.resolver.resolveImmediately(host: "svc.test", port: 443))??.serviceBindingRecords != nil }
        #expect(Self.httpsQueries(harness) == 2)
        #expect(try await harness.resolve("svc.test").serviceBindingRecords?.ttl == 60)
        #expect(Self.httpsQueries(harness) == 2, "one refresh")
    }

    @Test func aHitCarriesTheRecordsInItsAddressEntry() async throws {
        let harness = try Self.harness()
        _ = try await harness.resolve("svc.test")
        _ = try await harness.resolve("svc.test")
        // One lookup answers both: the entry holds the HTTPS answer with its own expiry (60 s, the addresses 300 s).
        let entry = try #require(harness.resolver.cache.entries[ResolutionCache.Key(name: "svc.test", families: .both)])
        let bindings = try #require(entry.serviceBindings)
        #expect(bindings.records?.records.count == 3)
        #expect(bindings.expires == harness.clock.now() + 60)
        #expect(entry.expires == harness.clock.now() + 300)
        #expect(try await harness.resolve("svc.test").serviceBindingRecords?.ttl == 60)
        #expect(Self.httpsQueries(harness) == 1)
    }

    @Test func recordsOutliveARefreshOfTheAddresses() async throws {
        var https = Self.https
        https.ttl = 600
        let harness = try Self.harness(transport: Self.transport(https: https))
        _ = try await harness.resolve("svc.test")
        _ = try await harness.resolve("svc.test")
        harness.clock.advance(by: 301)
        let refreshed = try await harness.resolve("svc.test")
        #expect(refreshed.source == .doh(endpoint: ResolverHarness.first.url), "the addresses expired")
        #expect(refreshed.serviceBindingRecords?.ttl == 299)
        let hit = try await harness.resolve("svc.test")
        #expect(hit.source == .cache)
        #expect(hit.serviceBindingRecords?.ttl == 299, "still the first HTTPS answer")
        #expect(Self.httpsQueries(harness) == 1)
    }

    @Test func aKnownAbsenceIsCarriedAsNone() async throws {
        let harness = try Self.harness()
        _ = try await harness.resolve("a.test")
        _ = try await harness.resolve("a.test")
        let entry = try #require(harness.resolver.cache.entries[ResolutionCache.Key(name: "a.test", families: .both)])
        let bindings = try #require(entry.serviceBindings)
        #expect(bindings.records?.records == [])
        harness.clock.advance(by: 30)
        let expired = try await harness.resolve("a.test")
        #expect(expired.serviceBindingRecords == nil, "the negative answer's 30 s passed: none, one refresh started")
        try await Self.waitFor { Self.httpsQueries(harness) >= 2 }
        #expect(Self.httpsQueries(harness) == 2)
    }

    @Test func noRecordsIsCachedForTheNegativeTTL() async throws {
        let harness = try Self.harness()
        let first = try await harness.resolve("a.test")
        #expect(first.serviceBindingRecords == ServiceBindingRecords(name: "a.test", records: [], ttl: 30))
        #expect(first.serviceBindings.isEmpty)
        _ = try await harness.resolve("a.test")
        #expect(Self.httpsQueries(harness) == 1)
    }

    @Test func resolveImmediatelyWaitsUntilTheRecordsAreCachedToo() async throws {
        let harness = try Self.harness()
        #expect(try harness.resolver.resolveImmediately(host: "svc.test", port: 443) == nil)
        _ = try await harness.resolve("svc.test")
        let immediate = try #require(try harness.resolver.resolveImmediately(host: "svc.test", port: 443))
        #expect(immediate.serviceBindings.count == 3)
    }

    @Test func flushingAHostForgetsItsRecords() async throws {
        let harness = try Self.harness()
        _ = try await harness.resolve("svc.test")
        harness.resolver.flush(host: "svc.test")
        _ = try await harness.resolve("svc.test")
        #expect(Self.httpsQueries(harness) == 2)
    }

    @Test func concurrentCallsShareOneQuery() async throws {
        let harness = try Self.harness()
        async let first = harness.resolver.serviceBindings(host: "svc.test")
        async let second = harness.resolver.serviceBindings(host: "svc.test")
        let both = try await [first, second]
        #expect(both[0].records == both[1].records)
        #expect(Self.httpsQueries(harness) == 1)
    }

    /// A transport whose HTTPS answers take `delay` seconds (real time), addresses at once.
    static func slowHTTPS(_ delay: Duration) -> FakeDoHTransport {
        FakeDoHTransport { request in
            if request.question?.type == typeHTTPS { try? await Task.sleep(for: delay) }
            return request.question?.type == typeHTTPS ? https.respond(to: request.query) : addresses.respond(to: request.query)
        }
    }

    @Test func aCancelledCallerStopsWaitingAtOnce() async throws {
        let harness = try Self.harness(transport: Self.slowHTTPS(.seconds(30)))
        let started = ContinuousClock.now
        let task = Task { try await harness.resolver.serviceBindings(host: "svc.test") }
        try await Task.sleep(for: .milliseconds(50))
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(ContinuousClock.now - started < .seconds(10))
    }

    /// Moves the harness's clock on until the returned task is cancelled, so waits measured on it pass.
    static func ticking(_ harness: ResolverHarness) -> Task<Void, Never> {
        Task {
            while !Task.isCancelled {
                harness.clock.advance(by: 0.1)
                try? await Task.sleep(for: .milliseconds(5))
            }
        }
    }

    @Test func theHTTPSAnswerIsWaitedForOnlyWithinServiceBindingWait() async throws {
        let harness = try Self.harness(transport: Self.slowHTTPS(.seconds(30)))
        let ticker = Self.ticking(harness)
        defer { ticker.cancel() }
        let started = ContinuousClock.now
        let resolution = try await harness.resolve("svc.test")
        #expect(resolution.addresses.count == 2)
        #expect(resolution.serviceBindingRecords == nil, "past serviceBindingWait the addresses go alone")
        #expect(ContinuousClock.now - started < .seconds(10))
    }

    @Test func withoutServiceBindingWaitTheHTTPSAnswerIsWaitedFor() async throws {
        let harness = try Self.harness(transport: Self.slowHTTPS(.milliseconds(300))) { $0.serviceBindingWait = nil }
        let ticker = Self.ticking(harness)
        defer { ticker.cancel() }
        let resolution = try await harness.resolve("svc.test")
        #expect(resolution.serviceBindings.count == 3)
    }

    @Test func aFailedAddressLookupDoesNotWaitForTheHTTPSAnswer() async throws {
        let harness = try Self.harness(transport: Self.slowHTTPS(.seconds(30)))
        let started = ContinuousClock.now
        await #expect(throws: ResolutionError.self) { try await harness.resolve("nxdomain.test") }
        #expect(ContinuousClock.now - started < .seconds(10))
    }

    // MARK: Providers that cannot carry them

    /// A vendor-style provider: addresses only.
    struct AddressOnlyProvider: ResolutionProvider {
        var kind: String { "httpdns-fake" }
        var url: URL { URL(string: "https://vendor.test/d")! }
        var bootstrapAddresses: [IPAddress] = []
        func lookup(_ name: String, families: AddressFamilies, transport: any DoHTransport, timeout: TimeInterval) async throws(ProviderFailure) -> ProviderAnswer {
            .addresses([IPAddress("192.0.2.9")!], ttl: 300)
        }
    }

    @Test func aProviderThatCannotCarryThemGivesNoRecordsAndNoReport() async throws {
        let recorder = EventRecorder()
        let harness = try Self.harness(observer: recorder) { $0.providers = [AddressOnlyProvider()] }
        let resolution = try await harness.resolve("svc.test")
        #expect(resolution.addresses == [IPAddress("192.0.2.9")!])
        #expect(resolution.serviceBindingRecords == nil)
        #expect(!recorder.events.contains { $0.hasPrefix("bindings dropped") })
        await #expect(throws: ServiceBindingError.notCarried(type: .https, providers: ["httpdns-fake"])) {
            try await harness.resolver.serviceBindings(host: "svc.test")
        }
    }

    @Test func literalsAndStaticEntriesGetNoRecords() async throws {
        let harness = try Self.harness { $0.staticEntries = [StaticHostResolver.Entry(host: "pinned.test", port: 443, addresses: [IPAddress("192.0.2.77")!])] }
        #expect(try await harness.resolve("192.0.2.1").serviceBindingRecords == nil)
        #expect(try await harness.resolve("pinned.test").serviceBindingRecords == nil)
        #expect(Self.httpsQueries(harness) == 0)
        await #expect(throws: ServiceBindingError.invalidHostName("192.0.2.1")) { try await harness.resolver.serviceBindings(host: "192.0.2.1") }
    }

    @Test func svcbRecordsCanBeAskedForDirectly() async throws {
        let transport = FakeDoHTransport { request in
            let question = request.question!
            let record = DNSFixture.Record(name: question.name, type: 64, ttl: 120, rdata: Self.rdata(1, "doh.test", ServiceParameters(alpn: [Array("h2".utf8)], dohPath: "/dns-query{?dns}")))
            return .dns(DNSFixture.response(to: request.query, answers: question.type == 64 ? [record] : []))
        }
        let harness = try Self.harness(transport: transport)
        let records = try await harness.resolver.serviceBindings(host: "_dns.resolver.arpa", type: .svcb)
        #expect(records.records.first?.parameters.dohPath == "/dns-query{?dns}")
        #expect(transport.requests.map { $0.question?.type } == [64])
    }
}
