import Foundation
import HTTPDNSCore

/// Chooses the trust policy for each host (Alamofire's `ServerTrustManager`): the most specific
/// matching pattern wins (exact, then `*.`, then `**.`, longer domains first), else the default.
///
/// ```swift
/// let manager = TrustPolicyManager(
///     policies: ["api.example.com": .publicKeyPins([pin, backup]),
///                "**.internal.example": .anchors(privateCA, includingSystemRoots: false)],
///     default: .system)
/// ```
public struct TrustPolicyManager: Sendable, Hashable {
    /// Pattern and policy pairs.
    public var policies: [HostPattern: TrustPolicy]
    /// The policy for hosts no pattern matches; ignored when `requiresMatch` is true.
    public var defaultPolicy: TrustPolicy
    /// When true, a host that matches no pattern fails with `TrustError.noPolicy` (curl has no
    /// equivalent; Alamofire's `allHostsMustBeEvaluated`).
    public var requiresMatch: Bool

    /// - Parameters:
    ///   - policies: Host patterns and their policies.
    ///   - defaultPolicy: For hosts no pattern matches (unless `requiresMatch`).
    ///   - requiresMatch: Fail hosts no pattern matches instead.
    public init(policies: [HostPattern: TrustPolicy] = [:], default defaultPolicy: TrustPolicy = .system, requiresMatch: Bool = false) {
        self.policies = policies
        self.defaultPolicy = defaultPolicy
        self.requiresMatch = requiresMatch
    }

    /// The policy for `host`.
    /// - Throws: `TrustError.noPolicy` when nothing matches and `requiresMatch` is set.
    public func policy(for host: String) throws(TrustError) -> TrustPolicy {
        if let match = HostPattern.mostSpecificMatch(for: host, in: policies) { return match }
        if requiresMatch { throw TrustError.noPolicy(host: host) }
        return defaultPolicy
    }
}
