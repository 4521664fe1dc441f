// swift-tools-version: 6.0
// httpdns: IP-direct HTTPS over DNS-over-HTTPS, with SNI, Host and certificate verification kept on the name.
import PackageDescription

let package = Package(
    name: "httpdns",
    products: [
        .library(name: "HTTPDNS", targets: ["HTTPDNS"]),
        // URLSession integration: a product of its own, so the core library does not link FoundationNetworking.
        .library(name: "HTTPDNSURLSession", targets: ["HTTPDNSURLSession"]),
        // DNSSEC validation (Documentation/DNSSEC.md); HostResolver validates through it.
        .library(name: "DNSSEC", targets: ["DNSSEC"]),
        .executable(name: "httpdns", targets: ["httpdns"])
    ],
    targets: [
        // C libraries from Debian (libcurl, OpenSSL, libidn2 for IDNA), and the shim for curl's variadic setters and OpenSSL's macros.
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "openssl",
            providers: [.apt(["libssl-dev"])]
        ),
        .systemLibrary(
            name: "CIDN2",
            pkgConfig: "libidn2",
            providers: [.apt(["libidn2-dev"])]
        ),
        // SQLite for the resolver's persistent cache (several processes may share the file).
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .target(name: "CHTTPDNSShims", dependencies: ["CCurl", "COpenSSL"]),

        // Shared vocabulary: addresses, host names, the resolver protocol the client sees.
        .target(name: "HTTPDNSCore", dependencies: ["CIDN2"]),
        // RFC 1035 / 3596 / 8484 message codec. Pure Swift, no I/O.
        .target(name: "DNSWire", dependencies: ["HTTPDNSCore"]),
        // DNSSEC validation (RFC 4033-4035, 5155, 6840): signatures, DS digests and trust anchors with OpenSSL.
        .target(name: "DNSSEC", dependencies: ["HTTPDNSCore", "DNSWire", "COpenSSL"]),
        // Trust anchors and policies (OpenSSL).
        .target(name: "TLSTrust", dependencies: ["HTTPDNSCore", "COpenSSL", "CHTTPDNSShims"]),
        // HTTP/1.1 + HTTP/2 client on the libcurl multi interface; connects where the resolver says.
        .target(name: "HTTPTransport", dependencies: ["HTTPDNSCore", "TLSTrust", "CCurl", "COpenSSL", "CHTTPDNSShims"]),
        // DoH client, system resolver, TTL cache and fallback. Sends its HTTPS exchanges through its
        // own `DoHTransport` protocol: the HTTP client's conformance lives in HTTPDNS.
        .target(name: "DNSResolver", dependencies: ["HTTPDNSCore", "DNSWire", "DNSSEC", "COpenSSL", "CSQLite"]),
        // The library users import.
        .target(name: "HTTPDNS", dependencies: ["HTTPDNSCore", "DNSWire", "DNSSEC", "TLSTrust", "HTTPTransport", "DNSResolver"]),
        // URLProtocol routing URLSession requests through the IP-direct client (FoundationNetworking).
        .target(name: "HTTPDNSURLSession", dependencies: ["HTTPDNS"]),
        // The command-line tool: commands live in a library so tests can drive them in-process.
        .target(name: "HTTPDNSCLI", dependencies: ["HTTPDNS"]),
        .executableTarget(name: "httpdns", dependencies: ["HTTPDNSCLI"]),

        // Figures side by side with the peers, against the same real servers as the tests.
        .executableTarget(
            name: "httpdns-bench",
            dependencies: ["HTTPDNS", "TestSupport", "CCurl", "CHTTPDNSShims"],
            path: "Benchmarks/HTTPDNSBenchmarks",
            // main.swift holds the @main type beside other files: compile it as a library file, as
            // SwiftPM does for a lone main.swift (top-level async code crashes in OpenSSL's exit cleanup).
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]
        ),

        // Starts real nginx and unbound on free loopback ports with a PKI made at test time.
        .target(name: "TestSupport", dependencies: ["HTTPDNSCore", "DNSResolver"], path: "Tests/TestSupport"),
        // One test target per module: a suite lives with the module it tests.
        .testTarget(name: "HTTPDNSCoreTests", dependencies: ["HTTPDNSCore"]),
        .testTarget(name: "DNSWireTests", dependencies: ["DNSWire", "TestSupport"]),
        .testTarget(name: "DNSSECTests", dependencies: ["DNSSEC", "DNSWire", "TestSupport"]),
        .testTarget(name: "DNSResolverTests", dependencies: ["DNSResolver", "HTTPDNS", "TestSupport", "CSQLite"]),
        .testTarget(name: "IntegrationTests", dependencies: ["HTTPDNS", "HTTPDNSCLI", "HTTPDNSURLSession", "TestSupport", "CSQLite"]),
        .testTarget(name: "TLSTrustTests", dependencies: ["TLSTrust"]),
        // The transport's rules as pure types (handle reuse, deadlines, failure table), no server.
        .testTarget(name: "HTTPTransportTests", dependencies: ["HTTPTransport"]),
        .testTarget(name: "HTTPDNSCLITests", dependencies: ["HTTPDNSCLI", "HTTPDNS", "HTTPDNSCore"])
    ],
    swiftLanguageModes: [.v6]
)
