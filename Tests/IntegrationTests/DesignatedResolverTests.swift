import Foundation
import Testing
import HTTPDNS
import TestSupport

extension ResolverIntegrationSuites {
    /// Discovery of Designated Resolvers (RFC 9462) against unbound's plain port, which designates
    /// a.test (whose certificate does not name 127.0.0.1) first and its own DoH server dns.test
    /// (whose certificate does) second: only dns.test is verified and used.
    @Suite("Discovery of Designated Resolvers")
    struct DesignatedResolverTests {
        let fixture: Fixture
        init() throws { fixture = try Fixture() }

        var plain: PlainDNSServer { PlainDNSServer(address: IPAddress("127.0.0.1")!, port: fixture.servers.dnsPort) }

        @Test("the plain resolver's _dns.resolver.arpa SVCB records become candidates by priority: hints as bootstrap addresses, else the TargetName's A record from the same resolver")
        func candidates() async throws {
            let (candidates, passedOver) = await DesignatedResolver.candidates(of: [plain])
            #expect(passedOver.isEmpty, "\(passedOver)")
            #expect(candidates.map(\.endpoint.url.absoluteString) == ["https://a.test:\(fixture.servers.httpsPort)/dns-query", fixture.servers.dohURL.absoluteString])
            #expect(candidates.map(\.endpoint.bootstrapAddresses) == [[IPAddress("127.0.0.1")!], [IPAddress("127.0.0.1")!]])
            #expect(candidates.allSatisfy { $0.unencrypted == plain })
            #expect(candidates.first?.record.priority == 1)
        }

        @Test("only a designated resolver whose certificate also names the plain resolver's address is verified (RFC 9462 §4.2); the other is passed over with the reason")
        func verification() async throws {
            let (resolvers, passedOver) = try await DesignatedResolver.verified(of: [plain], dohTrust: fixture.trust)
            #expect(resolvers.map(\.endpoint.url) == [fixture.servers.dohURL])
            #expect(passedOver.count == 1, "\(passedOver)")
            #expect(
                passedOver.first?.hasPrefix("https://a.test:\(fixture.servers.httpsPort)/dns-query (designated by 127.0.0.1:\(fixture.servers.dnsPort)): certificate verification failed") == true,
                "\(passedOver)")
            #expect(passedOver.first?.contains("IP address mismatch") == true, "\(passedOver)")

            // The verified endpoint resolves as any DoH endpoint does.
            var configuration = HostResolver.Configuration(endpoints: resolvers.map(\.endpoint))
            configuration.fallbackToSystemResolver = false
            let resolver = try HostResolver(configuration: configuration, dohTrust: fixture.trust)
            let resolution = try await resolver.resolve(host: "a.test", port: 443)
            #expect(resolution.addresses.contains(IPAddress("127.0.0.1")!))
            #expect(resolution.source == .doh(endpoint: fixture.servers.dohURL))
        }

        @Test("no verified designation is an error listing why: certificates not verified, a resolver that does not answer")
        func noneVerified() async throws {
            let silent = PlainDNSServer(address: IPAddress("127.0.0.1")!, port: try FreePort.tcp())
            do {
                _ = try await DesignatedResolver.verified(of: [silent, plain], dohTrust: .insecureSkippingAllVerification, timeout: 1)
                Issue.record("verified with verification disabled")
            } catch {
                guard case .noneVerified(let reasons) = error else {
                    Issue.record("\(error)")
                    return
                }
                #expect(reasons.count == 3, "\(reasons)")
                #expect(reasons.first?.hasPrefix("127.0.0.1:\(silent.port): _dns.resolver.arpa SVCB: ") == true, "\(reasons)")
                #expect(reasons.dropFirst().allSatisfy { $0.hasSuffix("certificate verification is disabled, so nothing can be verified") }, "\(reasons)")
                #expect(error.description.hasPrefix("no designated resolver verified (RFC 9462): "))
            }
        }

        @Test("TrustPolicy.requiredIPAddress: a certificate must carry the address as well as the name, or the request fails verification (curl 60)")
        func requiredIPAddress() async throws {
            func fetch(_ host: String, requiring address: String) async throws -> HTTPResponse {
                var trust = fixture.trust
                trust.requiredIPAddress = IPAddress(address)!
                let client = try HTTPClient(configuration: HTTPClient.Configuration(trust: trust), resolver: fixture.resolver())
                var request = HTTPRequest(url: fixture.url(host))
                request.connectTo = [IPAddress("127.0.0.1")!]
                return try await client.execute(request)
            }
            #expect(try await fetch("localhost", requiring: "127.0.0.1").status == 200, "localhost's certificate names 127.0.0.1")
            for (host, address) in [("a.test", "127.0.0.1"), ("localhost", "127.0.0.2")] {
                do {
                    _ = try await fetch(host, requiring: address)
                    Issue.record("\(host) passed though its certificate does not name \(address)")
                } catch let error as HTTPClientError {
                    #expect(error.kind == .certificateVerificationFailed)
                    #expect(error.curlExitStatus == 60)
                    #expect(error.message.contains("IP address mismatch"), "\(error.message)")
                }
            }
        }

        @Test("--upgrade-resolver puts the verified designated resolver first, -v says what was passed over and what is used; none verified warns and goes on with the others")
        func cli() async throws {
            let upgraded = try await fixture.httpdns([
                "resolve", "-v", "--no-fallback", "--upgrade-resolver", "127.0.0.1:\(fixture.servers.dnsPort)", "--cacert", fixture.servers.caCertificate.path, "a.test"
            ])
            #expect(upgraded.status == 0, "\(upgraded.stderrText)")
            #expect(upgraded.stdoutText.contains("a.test 127.0.0.1 "), "\(upgraded.stdoutText)")
            #expect(upgraded.stderrText.contains("* DDR: passed over https://a.test:\(fixture.servers.httpsPort)/dns-query"), "\(upgraded.stderrText)")
            #expect(upgraded.stderrText.contains("* DDR: using \(fixture.servers.dohURL.absoluteString) (designated by 127.0.0.1:\(fixture.servers.dnsPort))"), "\(upgraded.stderrText)")
            #expect(upgraded.stderrText.contains("doh \(fixture.servers.dohURL.absoluteString) answered a.test"), "\(upgraded.stderrText)")

            let silent = try FreePort.tcp()
            let fallback = try await fixture.httpdns(["resolve", "--upgrade-resolver", "127.0.0.1:\(silent)"] + fixture.dohOptions + ["a.test"])
            #expect(fallback.status == 0, "\(fallback.stderrText)")
            #expect(fallback.stderrText.hasPrefix("httpdns: warning: --upgrade-resolver: no designated resolver verified (RFC 9462): 127.0.0.1:\(silent): "), "\(fallback.stderrText)")
            #expect(fallback.stderrText.contains("; using the other endpoints"))

            let refused = try await fixture.httpdns(["resolve", "--upgrade-resolver", "dns.test", "a.test"])
            #expect(refused.status == 2)
            #expect(refused.stderrText.contains("--upgrade-resolver"), "\(refused.stderrText)")
        }
    }
}
