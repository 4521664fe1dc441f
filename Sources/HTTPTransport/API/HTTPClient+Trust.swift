import Foundation
import HTTPDNSCore
import TLSTrust

extension HTTPClient {
    /// The policy a request runs under: its own, else the manager's for its host, else the client's.
    /// - Throws: `HTTPClientError` `.trustConfigurationInvalid` when the manager requires a match
    ///   and none exists.
    func trustPolicy(for request: HTTPRequest, host: String) throws(HTTPClientError) -> TrustPolicy {
        if let trust = request.trust { return trust }
        guard let manager = configuration.trustPolicies else { return configuration.trust }
        do {
            return try manager.policy(for: host)
        } catch {
            throw HTTPClientError(kind: .trustConfigurationInvalid, message: error.description, url: request.url)
        }
    }

    func deliverTrustEvents(of connection: ConnectionReport, host: String, port: Int) {
        if connection.verificationSkipped {
            let event = TrustEvent.insecureConnection(host: host, port: port, remoteAddress: connection.remoteAddress)
            if let handler = configuration.trustEventHandler {
                handler(event)
            } else {
                // Never silent: this connection is not authenticated.
                StandardError.write("httpdns: warning: \(event)\n")
            }
        }
        if let report = connection.pinReport { deliver(report) }
    }

    func deliver(_ report: PinReport) {
        configuration.trustEventHandler?(.pinMismatch(report))
        guard let reportURL = report.pinSet.reportURL else { return }
        PinReportUploader.shared.upload(report, to: reportURL, client: self, interval: configuration.pinReportInterval)
    }
}

extension ResponseBodyDestination {
    /// This destination, with `observe` called with the connection report when the response head
    /// arrives, before any body byte is handed on. `.memory` and `.file` are returned as they are:
    /// their body is seen only once the request ends.
    func observingHead(_ observe: @escaping @Sendable (ConnectionReport) -> Void) -> ResponseBodyDestination {
        switch self {
        case .handler(let chunk):
            .streaming(head: { head in head.connection.map(observe) }, chunk: chunk)
        case .streaming(let received, let chunk):
            .streaming(
                head: { head in
                    head.connection.map(observe)
                    received(head)
                }, chunk: chunk)
        case .memory, .file:
            self
        }
    }
}
