import Foundation
import HTTPDNSCore
import Synchronization

/// Alibaba Cloud EMAS HTTPDNS's scheduling API ("调度服务接口",
/// https://help.aliyun.com/document_detail/2868209.html; "服务IP调度接口",
/// https://alibabacloud.com/help/zh/httpdns/latest/service-ip-address-scheduling-operation): the
/// list of service IPs to resolve through, asked of the startup IPs an app is given.
///
/// `GET https://{startup or service IP}/{account}/ss?region=REGION[&n=NONCE&t=EXPIRY&s=SIGN]`, TLS
/// verified for `serviceHost` (the documents: "证书校验 Host 需手动指定 resolvers.httpdns.aliyuncs.com"),
/// `SIGN` the lower-case hex HMAC-MD5, under the secret, of `NONCE-SECRET-EXPIRY`, `NONCE` 8 to 16
/// hex digits and `EXPIRY` now plus `signatureLifetime` (30 to 300 s advised). The answer:
/// `{"service_ip":["IPv4",...],"service_ipv6":["IPv6",...]}`, with `"service_status":"disable"` when
/// the service is off for the account.
///
/// The list is asked for on first use, again after `refreshInterval` (the documents: at least every
/// 8 hours), and after `serviceFailed()`. It is asked of the current service IPs first, then of the
/// startup IPs (the documents: "当所有服务IP不可用时,降级使用启动IP"); after all fail, a lookup waits
/// out a doubling back-off (1 s to 5 min) before asking again, and the endpoint fails over meanwhile.
///
/// Give one schedule to `AlibabaHTTPDNSV2Endpoint.schedule` or `AlibabaHTTPDNSEndpoint.schedule`:
/// its resolution requests then go to `https://serviceHost/...` at the service IPs. Equal only to
/// itself (`===`): two schedules are two lists.
///
/// The SDK's per-address ports (`service_ip_port`, not in the documents) are not used: every
/// service IP is asked on port 443. The key the HMAC uses is the secret's UTF-8 text, as the
/// signed input spells it; the documents name it "加签密钥" without saying more.
public final class AlibabaServiceSchedule: Sendable, Hashable, CustomStringConvertible {
    /// Where the scheduling service clusters are (`region`).
    public enum Region: String, Sendable, CaseIterable {
        case chinaMainland = "cn", hongKong = "hk", singapore = "sg", unitedStates = "us", germany = "de"
        /// The nearest cluster to the client (`global`).
        case global
    }

    public let accountID: String
    /// The startup IPs (the documents: ask for them by ticket and build them into the app). Never
    /// used for resolution.
    public let startupAddresses: [IPAddress]
    public let region: Region
    /// The signing secret; nil: unsigned.
    public let secret: String?
    /// The TLS name of the startup and service IPs: `resolvers.httpdns.aliyuncs.com`.
    public let serviceHost: String
    /// The HTTPS port; 443.
    public let port: Int
    /// Seconds after which the list is asked for again: 8 hours.
    public let refreshInterval: TimeInterval
    /// Seconds a signature stays valid: 300.
    public let signatureLifetime: TimeInterval
    private let clock: @Sendable () -> Date

    private struct State {
        var serviceAddresses: [IPAddress] = []
        var fetched: Date?
        var failures = 0
        var retryAfter: Date?
    }
    private let state = Mutex(State())

    /// - Parameter now: The clock (tests give one).
    public init(
        accountID: String, startupAddresses: [IPAddress], region: Region = .global, secret: String? = nil,
        serviceHost: String = "resolvers.httpdns.aliyuncs.com", port: Int = 443, refreshInterval: TimeInterval = 8 * 3_600,
        signatureLifetime: TimeInterval = 300, now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.accountID = accountID
        self.startupAddresses = startupAddresses
        self.region = region
        self.secret = secret
        self.serviceHost = serviceHost
        self.port = port
        self.refreshInterval = refreshInterval
        self.signatureLifetime = signatureLifetime
        self.clock = now
    }

    /// `https://serviceHost[:port]`: the base URL of requests to the service IPs.
    public var serviceURL: URL { URL(string: "https://\(serviceHost)\(port == 443 ? "" : ":\(port)")")! }

    public var description: String { "scheduling \(serviceURL.absoluteString) (account \(accountID), region \(region.rawValue))" }

    /// The service IPs last received (empty before the first answer).
    public var serviceAddresses: [IPAddress] { state.withLock { $0.serviceAddresses } }

    /// The service IPs, asked for when there are none, when they are older than `refreshInterval`
    /// or after `serviceFailed()`.
    /// - Throws: `.endpointFailed` naming the scheduling URL when neither the service IPs nor the
    ///   startup IPs answer with a list (or during the back-off after they did not), or when the
    ///   service says it is off for the account.
    func addresses(transport: any DoHTransport, timeout: TimeInterval) async throws(ProviderFailure) -> [IPAddress] {
        let now = clock()
        let (current, due, waitUntil) = state.withLock { state in
            (state.serviceAddresses, state.serviceAddresses.isEmpty || state.fetched.map { now.timeIntervalSince($0) >= refreshInterval } ?? true, state.retryAfter)
        }
        guard due else { return current }
        if let waitUntil, now < waitUntil {
            if !current.isEmpty { return current }
            throw .endpointFailed(serviceURL, reason: "the scheduling service did not answer; asked again after \(Int(waitUntil.timeIntervalSince(now).rounded(.up))) s")
        }
        var reasons: [String] = []
        for addresses in [current, startupAddresses] where !addresses.isEmpty {
            do {
                let list = try await fetch(from: addresses, transport: transport, timeout: timeout)
                state.withLock { $0 = State(serviceAddresses: list, fetched: clock(), failures: 0, retryAfter: nil) }
                return list
            } catch {
                if case .endpointFailed(_, let reason) = error, reason.hasPrefix(Self.disabled) { throw error }
                reasons.append("\(error)")
            }
        }
        let backOff = state.withLock { state -> TimeInterval in
            state.failures += 1
            let seconds = min(300, pow(2, Double(state.failures - 1)))
            state.retryAfter = clock().addingTimeInterval(seconds)
            return seconds
        }
        if !current.isEmpty { return current }
        throw .endpointFailed(serviceURL, reason: "no service IPs: \(reasons.joined(separator: "; ")); asked again after \(Int(backOff)) s")
    }

    /// Marks the list as due: every service IP failed a resolution request, so the next lookup asks
    /// for a new one (of those IPs, then of the startup IPs).
    public func serviceFailed() {
        state.withLock { $0.fetched = nil }
    }

    static let disabled = "the scheduling service says HTTPDNS is disabled"

    /// One `ss` request to `addresses` (tried in order by the transport).
    private func fetch(from addresses: [IPAddress], transport: any DoHTransport, timeout: TimeInterval) async throws(ProviderFailure) -> [IPAddress] {
        let response = try await ProviderHTTP.get(
            requestURL(now: clock()), endpoint: serviceURL, accept: "application/json", bootstrap: addresses, transport: transport, timeout: timeout)
        return try Self.parse(response.body, endpoint: serviceURL)
    }

    /// The `ss` request URL at `now`.
    /// - Parameter nonce: `n`; nil: 16 random hex digits.
    func requestURL(now: Date, nonce: String? = nil) -> URL {
        var items = [("region", region.rawValue)]
        if let secret {
            let n = nonce ?? ProviderCrypto.hex(ProviderCrypto.randomBytes(8))
            let t = String(ProviderHTTP.expiry(now: now, offset: 0, lifetime: signatureLifetime) ?? 0)
            items += [("n", n), ("t", t), ("s", Self.signature(nonce: n, secret: secret, expiry: t))]
        }
        let account = accountID.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        return ProviderHTTP.url(serviceURL, path: "/\(account)/ss", items: items)
    }

    /// `s`: lower-case hex HMAC-MD5 of `NONCE-SECRET-EXPIRY` under the secret.
    static func signature(nonce: String, secret: String, expiry: String) -> String {
        ProviderCrypto.hmacMD5Hex(key: Array(secret.utf8), input: Array("\(nonce)-\(secret)-\(expiry)".utf8))
    }

    /// The service IPs of an `ss` answer: IPv4 then IPv6, each as listed, without repeats.
    /// - Throws: `.endpointFailed` for malformed JSON, a list holding something that is not an
    ///   address of its family, no address at all, or `"service_status":"disable"`.
    static func parse(_ body: Data, endpoint: URL) throws(ProviderFailure) -> [IPAddress] {
        let object = try ProviderHTTP.jsonObject(body, endpoint: endpoint)
        if let status = object["service_status"] as? String, status == "disable" {
            throw .endpointFailed(endpoint, reason: "\(disabled) for this account (service_status disable)")
        }
        let ipv4 = try ProviderHTTP.addresses(object["service_ip"], family: .ipv4, endpoint: endpoint, field: "service_ip")
        let ipv6 = try ProviderHTTP.addresses(object["service_ipv6"], family: .ipv6, endpoint: endpoint, field: "service_ipv6")
        guard !(ipv4.isEmpty && ipv6.isEmpty) else { throw .endpointFailed(endpoint, reason: "the scheduling answer lists no service IP") }
        return ipv4 + ipv6
    }

    public static func == (lhs: AlibabaServiceSchedule, rhs: AlibabaServiceSchedule) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
