import DNSWire
import Foundation
import HTTPDNSCore

extension ResolutionProvider {
    /// nil: the provider cannot carry SVCB or HTTPS records.
    public func lookupServiceBindings(_ name: String, type: DNSRecordType, transport: any DoHTransport, timeout: TimeInterval)
        async throws(ProviderFailure) -> ServiceBindingAnswer?
    {
        nil
    }
}

extension DoHEndpoint {
    /// The records from `DoHClient.serviceBindings(_:type:endpoint:timeout:)`, sent through `transport`
    /// as the address queries are (one HTTP/2 connection carries them side by side).
    public func lookupServiceBindings(_ name: String, type: DNSRecordType, transport: any DoHTransport, timeout: TimeInterval)
        async throws(ProviderFailure) -> ServiceBindingAnswer?
    {
        try await DoHClient(transport: transport).serviceBindings(name, type: type, endpoint: self, timeout: timeout)
    }
}
