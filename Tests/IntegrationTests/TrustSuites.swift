import Testing

/// The trust suites run one test at a time: they add many TLS handshakes and subprocesses, and
/// other suites' tests time themselves on the same two cores and cooperative threads.
@Suite("Trust and identity", .serialized)
enum TrustSuites {}
