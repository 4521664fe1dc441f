import Foundation
import HTTPDNS

extension ResolverOptions {
    /// `message` with a hint when it says that a DoH endpoint's own host could not be resolved:
    /// an endpoint without bootstrap addresses is found with the system resolver, and a
    /// `--resolve` entry for it says where it is instead.
    func withBootstrapHint(_ message: String) -> String {
        for endpoint in endpoints where endpoint.bootstrapAddresses.isEmpty {
            guard let host = endpoint.url.host(percentEncoded: false), message.contains("could not resolve host '\(host)'") else { continue }
            let port = endpoint.url.port ?? 443
            return message
                + " (the DoH endpoint's host \(host) is looked up with the system resolver; --resolve \(host):\(port):ADDR gives its address)"
        }
        return message
    }
}
