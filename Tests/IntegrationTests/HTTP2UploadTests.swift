import Foundation
import HTTPDNS
import Testing

/// Uploads beside downloads on an HTTP/2 client: libcurl 7.88, driven through
/// curl_multi_socket_action, dropped DATA frames of downloads that shared a connection with an
/// upload (the server logged every byte sent; the download failed with curl's 18, "transfer closed
/// with 8192 bytes remaining"), so requests with a body get HTTP/2 connections of their own.
@Suite("HTTP/2 uploads beside downloads")
struct HTTP2UploadTests {
    let fixture: Fixture
    init() throws { fixture = try Fixture() }

    @Test(
        "downloads beside uploads on one HTTP/2 client arrive whole, and the uploads still use HTTP/2",
        arguments: [nil, 300 * 1024 + 7] as [Int64?])
    func downloadsBesideUploadsArriveWhole(streamLength: Int64?) async throws {
        let client = try fixture.client(version: .http2)
        let payload = TransportTests.randomBytes(300 * 1024 + 7)
        var failures: [String] = []
        for round in 0..<3 {
            try await withThrowingTaskGroup(of: String?.self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        do {
                            let response = try await client.execute(HTTPRequest(url: fixture.url("a.test", "/large")))
                            return response.body.count == 16 << 20 ? nil : "download: \(response.body.count) bytes"
                        } catch { return "download: \(error)" }
                    }
                    group.addTask {
                        do {
                            let request = HTTPRequest(
                                url: fixture.url("a.test", "/echo"), method: "POST",
                                body: .stream(InputStream(data: payload), length: streamLength))
                            let response = try await client.execute(request)
                            guard response.version == .http2 else { return "upload: went over \(response.version)" }
                            return response.body == payload ? nil : "upload: \(response.body.count) bytes echoed"
                        } catch { return "upload: \(error)" }
                    }
                }
                for try await failure in group { if let failure { failures.append("round \(round): \(failure)") } }
            }
        }
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
    }
}
