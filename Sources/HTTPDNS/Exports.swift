@_exported import HTTPDNSCore
