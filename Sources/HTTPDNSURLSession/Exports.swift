// `import HTTPDNSURLSession` brings the whole library (`HTTPDNS`) along with the URLSession
// integration, which is a product of its own so that users of the native API and the CLI do not
// link FoundationNetworking.
@_exported import HTTPDNS
