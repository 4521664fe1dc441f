import Foundation
import Testing
@testable import TLSTrust

/// The pool's store reads the system CA bundle only when a lookup misses: the roots must still be
/// there when a chain needs them, and only when the policy includes them.
@Suite("System roots in the pool's store")
struct SystemRootsTests {
    /// Two self-signed roots from the system bundle that verify today (the bundle is what libcurl
    /// was built to use on Debian: /etc/ssl/certs/ca-certificates.crt, from ca-certificates).
    static func twoRoots() throws -> (Certificate, Certificate) {
        let bundle = try Certificate.certificates(contentsOf: URL(fileURLWithPath: "/etc/ssl/certs/ca-certificates.crt"))
        let system = CompiledTrust(.system)
        let roots = bundle.filter { $0.subject == $0.issuer && system.verifiesChain(of: $0) }
        try #require(roots.count >= 2, "the system bundle has no two current self-signed roots")
        return (roots[0], roots[1])
    }

    @Test func aSystemRootVerifiesUnderTheSystemPolicyOnItsFirstLookup() throws {
        let (root, other) = try Self.twoRoots()
        let trust = CompiledTrust(.system)
        #expect(trust.verifiesChain(of: root))
        #expect(trust.verifiesChain(of: other))
    }

    @Test func extraAnchorsDoNotHideTheSystemRoots() throws {
        let (root, other) = try Self.twoRoots()
        // The anchor is found without a lookup; the other root needs the bundle, read lazily.
        let trust = CompiledTrust(.anchors([root]))
        #expect(trust.verifiesChain(of: root))
        #expect(trust.verifiesChain(of: other))
    }

    @Test func anchorsOnlyNeverReadTheSystemRoots() throws {
        let (root, other) = try Self.twoRoots()
        let trust = CompiledTrust(.anchors([root], includingSystemRoots: false))
        #expect(trust.verifiesChain(of: root))
        #expect(!trust.verifiesChain(of: other))
        #expect(!CompiledTrust(.anchors([], includingSystemRoots: false)).verifiesChain(of: root))
    }
}
