import DNSResolver
import Foundation
import HTTPDNSCore
import Testing

/// `HostResolver.init` refuses a configuration duration its setting does not accept, with an
/// `InvalidDurationError` naming the setting and the value, before it starts anything.
@Suite("HostResolver configuration durations")
struct HostResolverConfigurationTests {
    /// One duration setting: its name, how to set it, and the values it must refuse and accept.
    struct Setting: CustomTestStringConvertible, Sendable {
        let name: String
        let set: @Sendable (inout HostResolver.Configuration, TimeInterval) -> Void
        let refused: [TimeInterval]
        let accepted: [TimeInterval]
        var testDescription: String { name }
    }

    static let settings: [Setting] = [
        Setting(name: "requestTimeout", set: { $0.requestTimeout = $1 }, refused: [0, -1, .nan, .infinity], accepted: [0.001, 5]),
        Setting(name: "minimumTTL", set: { $0.minimumTTL = $1 }, refused: [-1, .nan, .infinity], accepted: [0, 60]),
        Setting(name: "maximumTTL", set: { $0.maximumTTL = $1 }, refused: [-1, .nan, .infinity], accepted: [0, 86_400]),
        Setting(name: "negativeCacheTTLCap", set: { $0.negativeCacheTTLCap = $1 }, refused: [-0.5, .nan, .infinity], accepted: [0, 300]),
        Setting(name: "failureBackoff", set: { $0.failureBackoff = $1 }, refused: [-1, .nan, .infinity], accepted: [0, 30]),
        Setting(name: "maximumStaleness", set: { $0.maximumStaleness = $1 }, refused: [0, -1, .nan, .infinity], accepted: [1, 3_600]),
        Setting(name: "refreshAheadWindow", set: { $0.refreshAheadWindow = $1 }, refused: [0, -1, .nan, .infinity], accepted: [1, 30]),
        Setting(name: "persistentCacheMaximumAge", set: { $0.persistentCacheMaximumAge = $1 }, refused: [-1, .nan, .infinity], accepted: [0, 86_400]),
        Setting(name: "persistentCacheBusyTimeout", set: { $0.persistentCacheBusyTimeout = $1 }, refused: [-1, .nan, .infinity], accepted: [0, 2]),
        // RFC 8767's timers: no timer and no age limit are infinity; a TTL or recheck interval must end.
        Setting(
            name: "serveStale.clientResponseTimeout", set: { $0.serveStale = .init(clientResponseTimeout: $1) }, refused: [-1, .nan],
            accepted: [0, 1.8, .infinity]),
        Setting(name: "serveStale.staleAnswerTTL", set: { $0.serveStale = .init(staleAnswerTTL: $1) }, refused: [-5, .nan, .infinity], accepted: [0, 30]),
        Setting(
            name: "serveStale.maximumStaleAge", set: { $0.serveStale = .init(maximumStaleAge: $1) }, refused: [-1, .nan], accepted: [0, 86_400, .infinity]),
        Setting(
            name: "serveStale.failureRecheckInterval", set: { $0.serveStale = .init(failureRecheckInterval: $1) }, refused: [-1, .nan, .infinity],
            accepted: [0, 30])
    ]

    @Test("each duration setting refuses negative, NaN and infinite values (and 0 where 0 would do nothing) with the setting and value named", arguments: settings)
    func refusesInvalidDurations(setting: Setting) throws {
        for value in setting.refused {
            var configuration = HostResolver.Configuration.default
            setting.set(&configuration, value)
            #expect {
                _ = try HostResolver(configuration: configuration, transport: FakeDoHTransport(zone: ResolverHarness.zone))
            } throws: { error in
                guard let error = error as? InvalidDurationError else { return false }
                return error.setting == "HostResolver.Configuration.\(setting.name)" && (value.isNaN ? error.value.isNaN : error.value == value)
                    && error.description.hasPrefix("HostResolver.Configuration.\(setting.name) needs ")
            }
        }
    }

    @Test("each duration setting accepts what its documentation says, 0 included where 0 has a meaning", arguments: settings)
    func acceptsValidDurations(setting: Setting) throws {
        for value in setting.accepted {
            var configuration = HostResolver.Configuration.default
            setting.set(&configuration, value)
            _ = try HostResolver(configuration: configuration, transport: FakeDoHTransport(zone: ResolverHarness.zone))
        }
    }

    @Test("nil turns the optional ones off, and is valid")
    func nilIsOff() throws {
        var configuration = HostResolver.Configuration.default
        configuration.maximumStaleness = nil
        configuration.refreshAheadWindow = nil
        _ = try HostResolver(configuration: configuration, transport: FakeDoHTransport(zone: ResolverHarness.zone))
    }

    @Test("an Alibaba-style provider's signatureLifetime is checked too, named by the provider's place")
    func alibabaSignatureLifetime() {
        var configuration = HostResolver.Configuration.default
        let url = URL(string: "https://203.0.113.1")!
        configuration.providers = [
            ResolverHarness.first,
            AlibabaHTTPDNSEndpoint(url: url, accountID: "1", secret: "s", signatureLifetime: .infinity)
        ]
        #expect(throws: InvalidDurationError(setting: "HostResolver.Configuration.providers[1].signatureLifetime", value: .infinity, requirement: .positive)) {
            _ = try HostResolver(configuration: configuration, transport: FakeDoHTransport(zone: ResolverHarness.zone))
        }
    }

    @Test("a minimumTTL above maximumTTL is refused: it could never apply")
    func minimumAboveMaximumIsRefused() throws {
        var configuration = HostResolver.Configuration.default
        configuration.minimumTTL = 600
        configuration.maximumTTL = 300
        #expect(throws: InvalidDurationError(setting: "HostResolver.Configuration.minimumTTL", value: 600, requirement: .nonNegativeAtMost(300))) {
            _ = try HostResolver(configuration: configuration, transport: FakeDoHTransport(zone: ResolverHarness.zone))
        }
        configuration.minimumTTL = 300
        _ = try HostResolver(configuration: configuration, transport: FakeDoHTransport(zone: ResolverHarness.zone))
    }

    @Test("a refused configuration starts nothing: its cache file is not created")
    func refusedConfigurationTouchesNoFile() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("httpdns-config-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = HostResolver.Configuration.default
        configuration.persistentCacheFile = directory.appendingPathComponent("cache.sqlite")
        configuration.persistentCacheBusyTimeout = -2
        #expect(throws: InvalidDurationError.self) {
            _ = try HostResolver(configuration: configuration, transport: FakeDoHTransport(zone: ResolverHarness.zone))
        }
        #expect(!FileManager.default.fileExists(atPath: directory.path))
    }
}
