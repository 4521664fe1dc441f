import Foundation
import HTTPDNSCore
import Synchronization
import HTTPDNS
import TestSupport

/// The trust fixtures `scripts/test-servers.sh` makes: vhosts expired.test, self-signed.test,
/// *.wild.test and mtls.test, and client identities (password "secret").
extension Fixture {
    /// A file named by a `servers.env` key (`CLIENT_P12`, `SELF_SIGNED_CERT`, ...).
    func file(_ key: String) -> URL {
        URL(fileURLWithPath: servers.environment[key] ?? "/missing-\(key)")
    }

    var clientPassword: String { servers.environment["CLIENT_PASSWORD"] ?? "" }

    /// The first certificate of a PKI leaf's PEM file (`a.test`, `other.test`, ...).
    func leafCertificate(_ name: String) throws -> Certificate {
        try Certificate.certificates(contentsOf: servers.leaf(name).certificate)[0]
    }

    /// The test CA as the only anchor, in a policy no other call returns (so its pool starts
    /// cold). Without the system roots, a new pool costs no parsing of the system CA bundle.
    func freshAnchors() -> TrustPolicy.Anchors {
        .only(freshTrust().additionalAnchors)
    }
}

/// Collects trust events from the handler, which may run on any thread.
final class TrustEventLog: Sendable {
    private let events = LockedValue<[TrustEvent]>([])
    var handler: @Sendable (TrustEvent) -> Void { { [self] event in events.withLock { $0.append(event) } } }
    var all: [TrustEvent] { events.withLock { $0 } }
    var pinReports: [PinReport] {
        all.compactMap { if case .pinMismatch(let report) = $0 { report } else { nil } }
    }
    var insecureConnections: Int {
        all.filter { if case .insecureConnection = $0 { true } else { false } }.count
    }
}

extension Fixture {
    /// One caching resolver for the trust suites: they test TLS, and resolving every name afresh
    /// in every test only adds load (which the timing tests of other suites feel).
    func sharedResolver() throws -> HostResolver {
        try Self.sharedResolverStore.withLock { stored in
            if let stored { return stored }
            let made = try resolver()
            stored = made
            return made
        }
    }

    private static let sharedResolverStore = Mutex<HostResolver?>(nil)
}
