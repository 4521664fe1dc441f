/// Fixed `HOST:PORT → addresses` mappings in front of another resolver, like curl's `--resolve`
/// (CURLOPT_RESOLVE). Used to bootstrap DoH endpoints and to skip DNS for chosen names.
public struct StaticHostResolver: HostResolving {
    /// One `HOST:PORT:ADDR[,ADDR]...` entry. A port of `nil` (written `*`) matches every port.
    public struct Entry: Sendable, Hashable {
        public var host: String
        public var port: Int?
        public var addresses: [IPAddress]

        public init(host: String, port: Int?, addresses: [IPAddress]) {
            self.host = HostName.normalize(host) ?? host.lowercased()
            self.port = port
            self.addresses = addresses
        }

        /// Parses curl's `--resolve` syntax: `HOST:PORT:ADDR[,ADDR]...`, IPv6 addresses optionally in
        /// brackets, PORT a number 1-65535 or `*`. curl's `+` prefix (an entry that expires like a
        /// DNS answer, since curl 7.75) is accepted and means the same here: entries live as long as
        /// the resolver. curl's `-HOST:PORT` (removing an entry) is not an entry and is refused here;
        /// the CLI applies it to the entries given before it.
        /// - Throws: `StaticHostResolver.ParseError` naming what is wrong.
        public init(parsing text: String) throws {
            let text = text.hasPrefix("+") ? String(text.dropFirst()) : text
            let parts = text.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard parts.count == 3, !parts[0].isEmpty else {
                throw ParseError(entry: text, reason: "expected HOST:PORT:ADDR[,ADDR]...")
            }
            guard let host = HostName.normalize(String(parts[0])) else {
                throw ParseError(entry: text, reason: "invalid host name '\(parts[0])'")
            }
            let port: Int?
            if parts[1] == "*" {
                port = nil
            } else if let value = Int(parts[1]), (1...65535).contains(value) {
                port = value
            } else {
                throw ParseError(entry: text, reason: "invalid port '\(parts[1])'")
            }
            var addresses: [IPAddress] = []
            for item in parts[2].split(separator: ",", omittingEmptySubsequences: false) {
                guard let address = IPAddress(item) else {
                    throw ParseError(entry: text, reason: "invalid address '\(item)'")
                }
                addresses.append(address)
            }
            guard !addresses.isEmpty else { throw ParseError(entry: text, reason: "no address given") }
            self.init(host: host, port: port, addresses: addresses)
        }
    }

    /// A malformed `--resolve` entry.
    public struct ParseError: Error, Sendable, CustomStringConvertible {
        public var entry: String
        public var reason: String
        public var description: String { "bad --resolve entry '\(entry)': \(reason)" }
    }

    public let entries: [Entry]
    /// Consulted for names with no entry; `nil` makes such names fail with `.resolverUnavailable`.
    public let fallback: (any HostResolving)?

    public init(entries: [Entry], fallback: (any HostResolving)?) {
        self.entries = entries
        self.fallback = fallback
    }

    /// The addresses fixed for `host:port`, if any (an exact port wins over `*`).
    public func addresses(host: String, port: Int) -> [IPAddress]? {
        guard !entries.isEmpty, let name = HostName.normalize(host) else { return nil }
        return
            (entries.first { $0.host == name && $0.port == port }
            ?? entries.first { $0.host == name && $0.port == nil })?.addresses
    }

    public func resolve(host: String, port: Int) async throws -> HostResolution {
        guard let name = HostName.normalize(host) else { throw ResolutionError.invalidHostName(host) }
        if let known = fixed(name: name, port: port) { return known }
        guard let fallback else {
            throw ResolutionError.resolverUnavailable(host: name, reasons: ["no --resolve entry for \(name):\(port)"])
        }
        return try await fallback.resolve(host: name, port: port)
    }

    /// An IP literal or an entry's addresses at once; else the fallback's immediate answer, if any.
    /// - Throws: `ResolutionError.invalidHostName`, or what the fallback throws.
    public func resolveImmediately(host: String, port: Int) throws -> HostResolution? {
        guard let name = HostName.normalize(host) else { throw ResolutionError.invalidHostName(host) }
        if let known = fixed(name: name, port: port) { return known }
        return try fallback?.resolveImmediately(host: name, port: port)
    }

    /// A literal, or the addresses fixed for `name:port`.
    private func fixed(name: String, port: Int) -> HostResolution? {
        if IPAddress.mayBeLiteral(name), let literal = IPAddress(name) {
            return HostResolution(host: name, addresses: [literal], ttl: nil, source: .literal)
        }
        if let addresses = addresses(host: name, port: port) {
            return HostResolution(host: name, addresses: addresses, ttl: nil, source: .staticMapping)
        }
        return nil
    }
}
