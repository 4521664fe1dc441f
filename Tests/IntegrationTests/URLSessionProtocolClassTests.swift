import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
import Testing
import HTTPDNSURLSession
import TestSupport

/// A subclass with a configuration of its own.
final class DistrustingURLProtocol: HTTPDNSURLProtocol {}
/// A subclass without one: it uses the process default.
final class UnconfiguredURLProtocol: HTTPDNSURLProtocol {}

/// Sessions with protocol classes of their own (`makeClass(for:)`, subclasses), side by side in
/// one process with the default `HTTPDNSURLProtocol`.
@Suite("URLSession protocol classes with configurations of their own")
struct URLSessionProtocolClassTests {
    let fixture: Fixture
    init() throws { fixture = try Fixture() }

    enum Outcome: Equatable, Sendable {
        case status(Int)
        case failed(URLError.Code)
    }

    func outcome(_ session: URLSession, _ url: URL) async -> Outcome {
        do {
            let (_, response) = try await session.data(from: url)
            return .status((response as? HTTPURLResponse)?.statusCode ?? 0)
        } catch let error as URLError {
            return .failed(error.code)
        } catch {
            return .failed(.unknown)
        }
    }

    @Test("sessions whose classes were made for different clients (trust, resolver) each use their own, concurrently")
    func madeClassesKeepTheirClients() async throws {
        try fixture.configureURLProtocol()
        let trusting = HTTPDNSURLProtocol.makeClass(for: .init(client: try fixture.client(trust: fixture.freshTrust())))
        // Pools of their own: a failing pool shared with other tests' concurrent requests has seen a
        // request wait out its timeout (libcurl's PIPEWAIT), which is not what this test is about.
        let distrusting = HTTPDNSURLProtocol.makeClass(for: .init(client: try fixture.client(trust: fixture.freshDistrust())))
        // Nothing listens on 127.0.0.3: this resolver's answer fails to connect, where DoH's works.
        let elsewhere = StaticHostResolver(entries: [.init(host: "a.test", port: nil, addresses: [IPAddress("127.0.0.3")!])], fallback: nil)
        let otherResolver = HTTPDNSURLProtocol.makeClass(for: .init(client: try fixture.client(trust: fixture.freshTrust(), resolver: elsewhere)))
        let sessions: [(URLSession, Outcome)] = [
            (try fixture.urlSession(), .status(200)),
            (fixture.urlSession(protocolClass: trusting), .status(200)),
            (fixture.urlSession(protocolClass: distrusting), .failed(.serverCertificateHasUnknownRoot)),
            (fixture.urlSession(protocolClass: otherResolver), .failed(.cannotConnectToHost))
        ]
        let url = fixture.url("a.test")
        let results = await withTaskGroup(of: (Int, Outcome).self) { group in
            for round in 0..<8 {
                for (index, (session, _)) in sessions.enumerated() {
                    group.addTask { (index, await outcome(session, url.appending(queryItems: [URLQueryItem(name: "round", value: "\(round)")]))) }
                }
            }
            return await group.reduce(into: [(Int, Outcome)]()) { $0.append($1) }
        }
        #expect(results.count == 8 * sessions.count)
        for (index, result) in results {
            #expect(result == sessions[index].1, "session \(index)")
        }
    }

    @Test("a subclass given its own configure(_:) uses it; one without uses the process default")
    func subclassesConfigureThemselves() async throws {
        try fixture.configureURLProtocol()
        DistrustingURLProtocol.configure(.init(client: try fixture.client(trust: fixture.freshDistrust())))
        let url = fixture.url("a.test")
        #expect(await outcome(fixture.urlSession(protocolClass: DistrustingURLProtocol.self), url) == .failed(.serverCertificateHasUnknownRoot))
        #expect(await outcome(fixture.urlSession(protocolClass: UnconfiguredURLProtocol.self), url) == .status(200))
        #expect(await outcome(try fixture.urlSession(), url) == .status(200))
        #expect(UnconfiguredURLProtocol.configuration != nil)
    }

    @Test("every made class is a class of its own, and configure(_:) replaces its configuration")
    func madeClassesAreDistinct() throws {
        try fixture.configureURLProtocol()
        let request = URLRequest(url: fixture.url("a.test"))
        let classes = try (0..<5).map { _ in HTTPDNSURLProtocol.makeClass(for: .init(client: try fixture.isolatedClient(), handles: { _ in false })) }
        #expect(Set(classes.map(ObjectIdentifier.init)).count == classes.count)
        #expect(!classes.contains { $0 == HTTPDNSURLProtocol.self })
        #expect(classes.allSatisfy { !$0.canInit(with: request) })
        #expect(HTTPDNSURLProtocol.canInit(with: request))
        classes[2].configure(.init(client: try fixture.isolatedClient()))
        #expect(classes[2].canInit(with: request))
        #expect(!classes[3].canInit(with: request))
    }
}
