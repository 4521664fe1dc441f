import Foundation
import HTTPDNSCore

/// An unencrypted DNS resolver (RFC 1035 over UDP, TCP when truncated): the network's own, which
/// Discovery of Designated Resolvers (RFC 9462) upgrades to its encrypted endpoint.
public struct PlainDNSServer: Sendable, Hashable, CustomStringConvertible {
    public var address: IPAddress
    /// UDP and TCP port. Default: 53.
    public var port: Int

    public init(address: IPAddress, port: Int = 53) {
        self.address = address
        self.port = port
    }

    public var description: String { IPAddress.authority(host: address.description, port: port) }

    /// The `nameserver` lines of a resolv.conf(5) file, in order (IPv6 addresses with a zone, such
    /// as `fe80::1%eth0`, are skipped: a certificate cannot name them).
    /// - Parameter path: Default: /etc/resolv.conf.
    /// - Throws: `DesignatedResolverError.cannotReadResolvConf` when the file cannot be read.
    public static func system(resolvConf path: String = "/etc/resolv.conf") throws(DesignatedResolverError) -> [PlainDNSServer] {
        do {
            return parse(resolvConf: String(decoding: try FileContents.read(path, limit: 1 << 20), as: UTF8.self))
        } catch {
            throw .cannotReadResolvConf(error.description)
        }
    }

    /// `system`'s parse of resolv.conf text: `nameserver ADDRESS` lines, comments (`#`, `;`) ignored.
    static func parse(resolvConf text: String) -> [PlainDNSServer] {
        var servers: [PlainDNSServer] = []
        for line in text.textLines {
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard fields.count >= 2, fields[0] == "nameserver", let address = IPAddress(String(fields[1])) else { continue }
            let server = PlainDNSServer(address: address)
            if !servers.contains(server) { servers.append(server) }
        }
        return servers
    }
}

extension PlainDNSServer {
    /// `ADDRESS` (port 53), `IPV4:PORT` or `[IPV6]:PORT`; nil for anything else.
    public init?(parsing text: String) {
        if let address = IPAddress(text) {
            self.init(address: address)
            return
        }
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (1...65535).contains(port) else { return nil }
        var host = String(text[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") {
            host = String(host.dropFirst().dropLast())
            guard let address = IPAddress(host), address.family == .ipv6 else { return nil }
            self.init(address: address, port: port)
        } else {
            guard let address = IPAddress(host), address.family == .ipv4 else { return nil }
            self.init(address: address, port: port)
        }
    }
}
