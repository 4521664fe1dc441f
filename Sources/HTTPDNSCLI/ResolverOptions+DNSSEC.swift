import Foundation
import HTTPDNS

extension ResolverOptions {
    /// `--dnssec` and `--trust-anchor`: DNSSEC validation of the RFC 8484 answers.
    static let dnssecOptions: [ArgumentParser.Option] = [
        dnssecOption,
        .init(
            names: ["--trust-anchor"], arity: .value, valueName: "FILE",
            summary: "DNSSEC trust anchors (DS or DNSKEY lines)",
            detail: """
                DNSSEC trust anchors instead of the root's: DS or DNSKEY records in presentation format, one a
                line (as ldns-keygen's .ds files and Debian's /usr/share/dns/root.ds), repeatable; for
                private zones and tests. Only with --dnssec.
                """)
    ]

    static let dnssecOption = ArgumentParser.Option(
        names: ["--dnssec"], arity: .value, valueName: "POLICY[:PATTERN]",
        summary: "Validate DNSSEC: report or require (off)",
        detail: """
            Validate the DNS-over-HTTPS answers with DNSSEC (RFC 4035) in the client: queries carry DO and CD,
            and the DNSKEY and DS records from the trust anchor (the root's, from Debian's dns-root-data,
            unless --trust-anchor) down to the name are fetched over the same endpoint. report: each
            answer is marked secure, insecure (provably unsigned), bogus or indeterminate (no anchor
            leads to it) and used whatever it is; require: a bogus answer fails the lookup (exit 6, the
            reason on stderr), the others pass. off (the default): no validation. POLICY:PATTERN sets
            the policy of the hosts PATTERN matches (example.com, *.example.com: one label in front,
            **.example.com: any number, none included), repeatable; the most specific pattern wins, and
            a POLICY alone is for every other host: --dnssec 'report' --dnssec 'require:**.bank.example'.
            Only RFC 8484 endpoints carry signatures: under report another provider (json, httpdns-*)
            is asked only after them, its answers indeterminate; under require it is never asked (so
            --dnssec require with another --provider is refused, exit 2).
            """,
        values: HostResolver.DNSSECSettings.Policy.allCases.map(\.rawValue))

    /// The DNSSEC settings `parsed` asks for: each `--dnssec POLICY` sets the policy (the last one
    /// given), each `--dnssec POLICY:PATTERN` the policy of the hosts PATTERN matches.
    /// - Throws: `UsageError` for an unknown policy, an invalid host pattern, a pattern given two
    ///   policies, an anchor file that cannot be read or parsed, or `--trust-anchor` when no host is
    ///   validated.
    static func dnssecSettings(_ parsed: ArgumentParser.Parsed, command: String) throws(UsageError) -> HostResolver.DNSSECSettings {
        let files = parsed.all("trust-anchor")
        var settings = HostResolver.DNSSECSettings()
        for text in parsed.all("dnssec") {
            let (policyText, patternText) = splitPolicy(text)
            guard let policy = HostResolver.DNSSECSettings.Policy(rawValue: policyText.lowercased()) else {
                throw OptionValue.refusal("--dnssec", expected: "off, report or require, or POLICY:PATTERN", got: text, command: command)
            }
            guard let patternText else {
                settings.policy = policy
                continue
            }
            let pattern: HostPattern
            do {
                pattern = try HostPattern(parsing: String(patternText))
            } catch {
                throw OptionValue.refusal("--dnssec", expected: "POLICY:PATTERN with a host pattern (example.com, *.example.com, **.example.com)", got: text, why: error.reason, command: command)
            }
            if let earlier = settings.hostPolicies[pattern], earlier != policy {
                throw UsageError("--dnssec: \(pattern) is given both \(earlier.rawValue) and \(policy.rawValue)", command: command)
            }
            settings.hostPolicies[pattern] = policy
        }
        guard settings.validatesAny else {
            if !files.isEmpty { throw UsageError("--trust-anchor needs --dnssec report or --dnssec require", command: command) }
            return settings
        }
        guard !files.isEmpty else { return settings }
        var anchors: [TrustAnchor] = []
        for path in files {
            let contents: String
            do {
                // A pipe too (a shell's <(...)), as every file option reads one.
                contents = String(decoding: try FileContents.read(path, limit: 1 << 20), as: UTF8.self)
            } catch {
                throw UsageError("--trust-anchor: \(error)", command: command)
            }
            do {
                anchors += try TrustAnchor.parse(contents, source: path)
            } catch {
                throw UsageError("--trust-anchor: \(error)", command: command)
            }
        }
        guard !anchors.isEmpty else { throw UsageError("--trust-anchor: \(files.joined(separator: ", ")) holds no DS or DNSKEY record", command: command) }
        settings.trustAnchors = anchors
        return settings
    }
}

extension ResolverOptions {
    /// `require:*.bank.example` as its policy and pattern; `require` as a policy alone.
    private static func splitPolicy(_ text: String) -> (policy: Substring, pattern: Substring?) {
        guard let colon = text.firstIndex(of: ":") else { return (Substring(text), nil) }
        return (text[..<colon], text[text.index(after: colon)...])
    }
}

extension FetchCommand {
    /// What `-v`'s "resolved" line adds about DNSSEC: the outcome for a validated answer (`--dnssec`),
    /// cache hits included, else that the address was not validated (other sources, `--dnssec off`).
    static func dnssecNote(_ resolution: HostResolution) -> String {
        guard let status = resolution.dnssec else { return ", not DNSSEC-validated" }
        return status == .secure ? ", DNSSEC-validated (secure)" : ", DNSSEC \(status.name): \(status.reason ?? "")"
    }
}

/// `resolve --dnssec`: keeps each name's DNSSEC outcome (a negative answer's too, which reaches the
/// caller as an error without a `HostResolution`) and passes every event on to `inner`.
final class DNSSECOutcomeObserver: ResolverObserver {
    let inner: any ResolverObserver
    private let outcomes = LockedValue<[String: DNSSECStatus]>([:])

    init(_ inner: any ResolverObserver) { self.inner = inner }

    /// The last outcome for the normalized `host`.
    func outcome(_ host: String) -> DNSSECStatus? { outcomes.withLock { $0[HostName.normalize(host) ?? host] } }

    func dnssecValidated(host: String, status: DNSSECStatus) {
        outcomes.withLock { $0[host] = status }
        inner.dnssecValidated(host: host, status: status)
    }
    func cacheHit(host: String, resolution: HostResolution) { inner.cacheHit(host: host, resolution: resolution) }
    func negativeCacheHit(host: String, error: ResolutionError) { inner.negativeCacheHit(host: host, error: error) }
    func cacheMiss(host: String) { inner.cacheMiss(host: host) }
    func staleAnswerServed(host: String, resolution: HostResolution, expiredFor: TimeInterval, reason: StaleAnswerReason) {
        inner.staleAnswerServed(host: host, resolution: resolution, expiredFor: expiredFor, reason: reason)
    }
    func refreshStarted(host: String, reason: RefreshReason) { inner.refreshStarted(host: host, reason: reason) }
    func providerAnswered(host: String, provider: String, endpoint: URL, latency: TimeInterval, answer: ProviderAnswer) {
        inner.providerAnswered(host: host, provider: provider, endpoint: endpoint, latency: latency, answer: answer)
    }
    func endpointFailed(host: String, provider: String, endpoint: URL, reason: String, latency: TimeInterval) {
        inner.endpointFailed(host: host, provider: provider, endpoint: endpoint, reason: reason, latency: latency)
    }
    func endpointSkipped(host: String, endpoint: URL, consecutiveFailures: Int, retryAfter: TimeInterval) {
        inner.endpointSkipped(host: host, endpoint: endpoint, consecutiveFailures: consecutiveFailures, retryAfter: retryAfter)
    }
    func fellBackToSystemResolver(host: String, reasons: [String]) { inner.fellBackToSystemResolver(host: host, reasons: reasons) }
    func bypassed(host: String) { inner.bypassed(host: host) }
    func warning(_ message: String) { inner.warning(message) }
    func cacheFileWarning(file: URL, message: String) { inner.cacheFileWarning(file: file, message: message) }
    func serviceBindingsDropped(host: String, error: ServiceBindingError) { inner.serviceBindingsDropped(host: host, error: error) }
    func serviceBindingsAnswered(host: String, type: DNSRecordType, provider: String, endpoint: URL, latency: TimeInterval, count: Int) {
        inner.serviceBindingsAnswered(host: host, type: type, provider: provider, endpoint: endpoint, latency: latency, count: count)
    }
    func serviceBindingsFailed(host: String, type: DNSRecordType, provider: String, endpoint: URL, reason: String) {
        inner.serviceBindingsFailed(host: host, type: type, provider: provider, endpoint: endpoint, reason: reason)
    }
    func networkChanged(_ change: NetworkChange, families: AddressFamilies, policy: NetworkChangePolicy) {
        inner.networkChanged(change, families: families, policy: policy)
    }
}
