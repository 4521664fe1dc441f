// The library users import: `import HTTPDNS` brings every public module of the package.
@_exported import HTTPDNSCore
@_exported import DNSWire
@_exported import TLSTrust
@_exported import HTTPTransport
@_exported import DNSResolver
@_exported import DNSSEC
