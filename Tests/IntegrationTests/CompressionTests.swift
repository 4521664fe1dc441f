import Foundation
import Testing
import HTTPDNS
import TestSupport

/// Content coding: the library asks for every coding libcurl decodes and decodes the body
/// (`Configuration.decompressesResponses`, CURLOPT_ACCEPT_ENCODING ""); the CLI only with
/// `--compressed`, as curl. Against nginx's `/gzip` location, which compresses when asked and says
/// in `X-Accept-Encoding` what the request carried.
@Suite("Compressed responses")
struct CompressionTests {
    let fixture: Fixture
    init() throws { fixture = try Fixture() }

    static let text = String(repeating: "compressible ", count: 64) + "\n"

    @Test("by default a gzip body is asked for and arrives decoded", arguments: [HTTPVersionPreference.http1_1, .http2])
    func decodedByDefault(version: HTTPVersionPreference) async throws {
        let client = try HTTPClient(configuration: .init(trust: fixture.trust, httpVersion: version), resolver: fixture.resolver())
        let response = try await client.execute(HTTPRequest(url: fixture.url("a.test", "/gzip")))
        #expect(response.status == 200)
        #expect(response.headers[first: "Content-Encoding"] == "gzip")
        #expect(response.headers[first: "X-Accept-Encoding"]?.contains("gzip") == true)
        #expect(response.text == Self.text)
    }

    @Test("decompressesResponses = false asks for no coding and gets the body as sent")
    func notAskedWhenOff() async throws {
        var configuration = HTTPClient.Configuration(trust: fixture.trust)
        configuration.decompressesResponses = false
        let response = try await HTTPClient(configuration: configuration, resolver: fixture.resolver())
            .execute(HTTPRequest(url: fixture.url("a.test", "/gzip")))
        #expect(response.headers[first: "Content-Encoding"] == nil)
        #expect(response.headers[first: "X-Accept-Encoding"] == nil)
        #expect(response.text == Self.text)
    }

    @Test("fetch asks for no coding unless --compressed, as curl")
    func cliCompressedFlag() async throws {
        let url = fixture.url("a.test", "/gzip").absoluteString
        let plain = try await fixture.httpdns(["fetch", "-i", url] + fixture.dohOptions)
        #expect(plain.status == 0, "\(plain.stderrText)")
        #expect(!plain.stdoutText.lowercased().contains("content-encoding"), "\(plain.stdoutText)")
        #expect(plain.stdoutText.hasSuffix(Self.text))
        let compressed = try await fixture.httpdns(["fetch", "-i", "--compressed", url] + fixture.dohOptions)
        #expect(compressed.status == 0, "\(compressed.stderrText)")
        #expect(compressed.stdoutText.lowercased().contains("content-encoding: gzip"), "\(compressed.stdoutText)")
        #expect(compressed.stdoutText.hasSuffix(Self.text), "decoded")
    }
}
