/// What changed in the host's network during one debounce window of a `NetworkMonitor`: the
/// rtnetlink address and route messages (rtnetlink(7)) that arrived, in order.
public struct NetworkChange: Sendable, Hashable {
    /// One route of the main (or another non-local) routing table.
    public struct Route: Sendable, Hashable, CustomStringConvertible {
        public var family: IPAddress.Family
        /// The destination network; nil for a default route (prefix length 0, `RTA_DST` absent).
        public var destination: IPAddress?
        /// The destination's prefix length in bits (`rtm_dst_len`); 0 for a default route.
        public var prefixLength: Int
        /// The next hop (`RTA_GATEWAY`), nil for a directly connected network.
        public var gateway: IPAddress?
        /// The outgoing interface's index (`RTA_OIF`), nil when the message names none.
        public var interfaceIndex: Int?

        public init(family: IPAddress.Family, destination: IPAddress?, prefixLength: Int, gateway: IPAddress?, interfaceIndex: Int?) {
            self.family = family
            self.destination = destination
            self.prefixLength = prefixLength
            self.gateway = gateway
            self.interfaceIndex = interfaceIndex
        }

        /// A route to everywhere of its family (`default` in `ip route`).
        public var isDefault: Bool { prefixLength == 0 }

        /// `ip route`'s words: `default via 10.0.0.1 dev #3`, `10.0.0.0/24 dev #3`.
        public var description: String {
            var text = destination.map { "\($0)/\(prefixLength)" } ?? (isDefault ? "default" : "?/\(prefixLength)")
            if let gateway { text += " via \(gateway)" }
            if let interfaceIndex { text += " dev #\(interfaceIndex)" }
            return text
        }
    }

    /// One rtnetlink message.
    public enum Event: Sendable, Hashable, CustomStringConvertible {
        /// `RTM_NEWADDR`: an address on interface `interfaceIndex` (also sent again when an IPv6
        /// address leaves the tentative state).
        case addressAdded(IPAddress, prefixLength: Int, interfaceIndex: Int)
        /// `RTM_DELADDR`.
        case addressRemoved(IPAddress, prefixLength: Int, interfaceIndex: Int)
        /// `RTM_NEWROUTE` outside the local table (whose routes come with every address).
        case routeAdded(Route)
        /// `RTM_DELROUTE` outside the local table.
        case routeRemoved(Route)
        /// The socket's buffer overflowed (`ENOBUFS`): messages were lost, so anything may have changed.
        case messagesLost

        public var description: String {
            switch self {
            case .addressAdded(let address, let length, let index): "address added \(address)/\(length) dev #\(index)"
            case .addressRemoved(let address, let length, let index): "address removed \(address)/\(length) dev #\(index)"
            case .routeAdded(let route): "route added \(route)"
            case .routeRemoved(let route): "route removed \(route)"
            case .messagesLost: "messages lost"
            }
        }

        /// The family the message is about; nil for `messagesLost`.
        public var family: IPAddress.Family? {
            switch self {
            case .addressAdded(let address, _, _), .addressRemoved(let address, _, _): address.family
            case .routeAdded(let route), .routeRemoved(let route): route.family
            case .messagesLost: nil
            }
        }
    }

    /// The messages, oldest first, at most `NetworkMonitor.eventLimit` (then `messagesLost` ends them).
    public var events: [Event]

    public init(events: [Event]) { self.events = events }

    /// Whether a default route came or went (or messages were lost, which may hide one).
    public var touchesDefaultRoute: Bool {
        events.contains {
            switch $0 {
            case .routeAdded(let route), .routeRemoved(let route): route.isDefault
            case .messagesLost: true
            case .addressAdded, .addressRemoved: false
            }
        }
    }
}
