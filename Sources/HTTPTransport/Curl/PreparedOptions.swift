import HTTPDNSCore

/// A `TransferOptions` list ready to set: its string lists built (libcurl reads CURLOPT_HTTPHEADER
/// and CURLOPT_CONNECT_TO without copying them), and its IP-direct route. Shared by the transfers
/// that use it and by the handles that hold it, which keep it alive while libcurl may read its lists.
final class PreparedOptions: Sendable {
    let facts: TransferOptions.Facts
    let options: TransferOptions
    /// The option ids in the order set, for `HandleReuse.application`.
    let optionIDs: [TransferOptions.Option]
    /// The synthetic CURLOPT_CONNECT_TO host and CURLOPT_RESOLVE entry of `facts.route`.
    let route: ConnectRoute?
    private let lists: [TransferOptions.Option: CurlStringList]

    /// - Parameter curlHost: the URL's host as libcurl writes it (an IPv6 literal in brackets).
    /// - Returns: nil when libcurl runs out of memory building a string list.
    init?(_ facts: TransferOptions.Facts, host curlHost: String) {
        let route = facts.route.map { ConnectRoute.cached(host: $0.host, addresses: $0.addresses, port: $0.connectPort) }
        let connectTo = facts.route.flatMap { target in route.map { "\(curlHost):\(target.port):\($0.name):\(target.connectPort)" } }
        let options = TransferOptions(facts, connectTo: connectTo)
        var lists: [TransferOptions.Option: CurlStringList] = [:]
        for entry in options.entries {
            guard case .lines(let lines) = entry.value else { continue }
            guard let list = CurlStringList(lines) else { return nil }
            lists[entry.option] = list
        }
        self.facts = facts
        self.options = options
        self.optionIDs = options.options
        self.route = route
        self.lists = lists
    }

    /// The built list of a `.lines` entry.
    func list(for option: TransferOptions.Option) -> CurlStringList? { lists[option] }
}
