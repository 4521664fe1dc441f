import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
import HTTPDNS

/// One hop's response as the transfer thread delivers it: cookies stored, and the redirect or Basic
/// challenge found, when the head arrives; a final response's head and chunks passed on at once
/// when the task streams (or, for a download task, written to its file), else collected. A
/// redirect's or challenge's head and body are held for the loader, which may send the request
/// again instead.
final class HopCollector: @unchecked Sendable { // written only on the transfer thread during the transfer; read after it completes
    /// Redirect bodies are kept for a declined redirect, up to this many bytes.
    private static let redirectBodyLimit = 1 << 20

    let url: URL
    let method: String
    let cookies: HTTPCookieStorage?
    let streams: Bool
    let download: DownloadFile?
    let loader: URLProtocolLoader
    private(set) var redirect: HTTPRedirect?
    /// The protection space of a 401's Basic challenge.
    private(set) var challenge: URLProtectionSpace?
    /// A redirect or challenge: nothing was passed on.
    var isHeld: Bool { redirect != nil || challenge != nil }
    private(set) var response: HTTPURLResponse?
    private(set) var body = Data()

    init(url: URL, method: String, cookies: HTTPCookieStorage?, streams: Bool, download: DownloadFile?, loader: URLProtocolLoader) {
        self.url = url
        self.method = method
        self.cookies = cookies
        self.streams = streams
        self.download = download
        self.loader = loader
    }

    func receiveHead(_ head: HTTPResponseHead) {
        if let cookies { HTTPCookieStorageJar(cookies).storeCookies(head.headers[all: "Set-Cookie"], from: url) }
        let response = HTTPURLResponse.httpdns(url: url, head: head)
        self.response = response
        redirect = HTTPRedirect(status: head.status, headers: head.headers, url: url, method: method)
        challenge = redirect == nil ? BasicAuthentication.protectionSpace(for: head, url: url) : nil
        guard !isHeld else { return }
        // A download task's response only sets `task.response` in Foundation: safe to pass on.
        loader.deliver { $0.urlProtocol($1, didReceive: response, cacheStoragePolicy: .notAllowed) }
        download?.expect(Self.bodyLength(of: head, method: method))
    }

    func receiveChunk(_ data: Data) {
        if !isHeld, let download {
            download.write(data)
        } else if !isHeld, streams {
            loader.deliver { $0.urlProtocol($1, didLoad: data) }
        } else if redirect == nil || body.count + data.count <= Self.redirectBodyLimit {
            body.append(data)
        }
    }

    /// The body's length as received, for progress: `Content-Length`, unless the body is
    /// decoded on the way (a `Content-Encoding`, which it counts before decoding) or has none.
    static func bodyLength(of head: HTTPResponseHead, method: String) -> Int64? {
        guard method != "HEAD", head.status != 204, head.status != 304 else { return 0 }
        if let coding = head.headers[first: "Content-Encoding"], coding.lowercased() != "identity" { return nil }
        return head.headers[first: "Content-Length"].flatMap { Int64($0.trimmingCharacters(in: .whitespaces)) }
    }
}
