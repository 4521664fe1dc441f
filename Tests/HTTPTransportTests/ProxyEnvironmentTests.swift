import Foundation
import Testing

@testable import HTTPTransport

#if canImport(Glibc)
    import Glibc
#endif

@Suite("ProxyEnvironment: the proxy variables of an environ-shaped list, in one pass")
struct ProxyEnvironmentTests {
    /// `body` run on `entries` laid out as `environ` is (C strings, then NULL).
    private func withEnviron<Result>(_ entries: [String], _ body: (UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Result) -> Result {
        let strings = entries.map { strdup($0) }
        defer { strings.forEach { free($0) } }
        var list = strings + [nil]
        return list.withUnsafeMutableBufferPointer { body($0.baseAddress!) }
    }

    @Test("Every proxy variable is found, the others are not kept")
    func findsEveryName() {
        let entries = ProxyPolicy.variableNames.map { "\($0)=value-of-\($0)" } + ["PATH=/usr/bin", "HOME=/root", "AUTH=x"]
        let found = withEnviron(entries) { ProxyEnvironment.reading($0) }
        #expect(found.values == Dictionary(uniqueKeysWithValues: ProxyPolicy.variableNames.map { ($0, "value-of-\($0)") }))
    }

    @Test("A name is matched whole: a longer or shorter name, or one without '=', is not it")
    func matchesWholeNames() {
        let entries = ["https_proxyX=a", "https_prox=b", "https_proxy", "no_proxy_list=c", "http_proxys=d", "HTTP_PROXY=e"]
        let found = withEnviron(entries) { ProxyEnvironment.reading($0) }
        #expect(found.values.isEmpty)
    }

    @Test("The first entry of a name wins, as with getenv; an empty value is kept as set")
    func firstEntryWins() {
        let found = withEnviron(["no_proxy=first", "no_proxy=second", "all_proxy="]) { ProxyEnvironment.reading($0) }
        #expect(found.values == ["no_proxy": "first", "all_proxy": ""])
    }

    @Test("No environment (environ is NULL after clearenv) has no variables")
    func noEnvironment() {
        #expect(ProxyEnvironment.reading(nil).values.isEmpty)
    }

    @Test("The process environment read in one pass agrees with getenv for every name")
    func agreesWithGetenv() {
        let found = ProxyEnvironment.current()
        for name in ProxyPolicy.variableNames {
            #expect(found.values[name] == getenv(name).map { String(cString: $0) }, "\(name)")
        }
    }
}
