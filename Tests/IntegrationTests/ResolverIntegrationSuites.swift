import Testing

/// The resolver work's integration suites (issue 3), run one test at a time: they start helper
/// processes (provider server, proxy, lying DNS server, the CLI) and many TLS connections, and run in
/// parallel with the rest of the suite, whose timing tests measure the shared transfer thread.
@Suite(.serialized)
struct ResolverIntegrationSuites {}
