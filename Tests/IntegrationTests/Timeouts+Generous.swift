import HTTPDNS
import TestSupport

extension Timeouts {
    /// The limits of requests whose time is not under test: 5 s to resolve and again to connect,
    /// 30 s in all, stretched by `TestTimeScale` (a cold DoH lookup or TLS handshake under
    /// ThreadSanitizer, with the rest of the suite running, has taken over 5 s).
    static var generous: Timeouts { Timeouts(connect: TestTimeScale.scaled(5), total: TestTimeScale.scaled(30)) }
}
