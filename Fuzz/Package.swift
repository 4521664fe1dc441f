// swift-tools-version: 6.0
// libFuzzer targets for httpdns's parsers. Kept out of the main package: each target needs
// `-sanitize=fuzzer`, which `swift build` of the main package does not pass. Build and run with
// scripts/fuzz.sh; see Fuzz/README.md.
import Foundation
import PackageDescription

/// One executable per fuzzer; each reaches internal parsers through `@testable import` (debug builds
/// of the main package are compiled with `-enable-testing`).
let fuzzers: [(name: String, modules: [String])] = [
    ("FuzzDNSMessage", ["DNSWire"]),
    ("FuzzServiceBinding", ["DNSWire"]),
    ("FuzzDNSSECRecords", ["DNSSEC"]),
    ("FuzzJSONDoH", ["DNSResolver"]),
    ("FuzzAlibabaHTTPDNS", ["DNSResolver"]),
    ("FuzzDNSPodHTTPDNS", ["DNSResolver"]),
    ("FuzzHostName", ["HTTPDNSCore"]),
    ("FuzzCertificates", ["TLSTrust", "HTTPDNSCore"]),
    ("FuzzCLIArguments", ["FuzzedCLI"]),
    ("FuzzResponseHead", ["HTTPTransport"]),
    ("FuzzAuthenticationChallenge", ["HTTPDNSURLSession"]),
]

/// The main package's name as the compiler knows it (`-package-name`): SwiftPM derives it from the
/// package's identity, the name of its directory (the clone's, which varies), lower-cased, with
/// characters other than letters, digits and `_` made `_`. The CLI's sources use `package` symbols
/// of HTTPDNSCore, which only a module of that package may see.
let mainPackageName: String = {
    let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().lastPathComponent
    var name = String(directory.lowercased().map { $0.isLetter || $0.isNumber || $0 == "_" ? $0 : "_" })
    if name.first?.isNumber ?? true { name = "_" + name }
    return name
}()

let package = Package(
    name: "httpdns-fuzz",
    dependencies: [.package(name: "httpdns", path: "..")],
    targets: [
        // Declares libFuzzer's LLVMFuzzerRunDriver for Swift.
        .target(name: "CFuzzerDriver"),
        .target(name: "FuzzSupport", dependencies: ["CFuzzerDriver"]),
        // The CLI's sources under another module name (Sources/FuzzedCLI is a symbolic link to
        // ../../Sources/HTTPDNSCLI): the main package has no library product for them.
        // `packageAccess: false`: SwiftPM then passes no package name of its own, which would come
        // after this one and win.
        .target(name: "FuzzedCLI", dependencies: [.product(name: "HTTPDNS", package: "httpdns")],
                packageAccess: false, swiftSettings: [.unsafeFlags(["-package-name", mainPackageName])]),
        // Not a fuzzer: a bounded request loop for LeakSanitizer (scripts/sanitize.sh leaks).
        .executableTarget(name: "httpdns-leakcheck", dependencies: ["FuzzedCLI", .product(name: "HTTPDNS", package: "httpdns")]),
    ] + fuzzers.map { fuzzer in
        .executableTarget(
            name: fuzzer.name,
            dependencies: ["FuzzSupport", .product(name: "HTTPDNS", package: "httpdns")]
                + (fuzzer.modules.contains("FuzzedCLI") ? ["FuzzedCLI"] : [])
                + (fuzzer.modules.contains("DNSSEC") ? [.product(name: "DNSSEC", package: "httpdns")] : [])
                + (fuzzer.modules.contains("HTTPDNSURLSession") ? [.product(name: "HTTPDNSURLSession", package: "httpdns")] : []))
    },
    swiftLanguageModes: [.v6]
)
