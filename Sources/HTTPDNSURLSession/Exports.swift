// `import HTTPDNSURLSession` brings the whole library (`HTTPDNS`) along with the URLSession
// integration, which is a product of its own so that users of the native API and the CLI do not
// link FoundationNetworking.
@_exported import HTTPDNS
#if canImport(FoundationNetworking)
    // URLSession and its types live in FoundationNetworking on Linux: `import HTTPDNSURLSession` is
    // enough to use them with the protocol.
    @_exported import FoundationNetworking
#endif
