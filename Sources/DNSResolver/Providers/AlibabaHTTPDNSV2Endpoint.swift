import Foundation
import HTTPDNSCore

/// Alibaba Cloud EMAS HTTPDNS's current resolve API, `GET {url}/v2/d` ("域名解析接口",
/// https://help.aliyun.com/document_detail/2978980.html), as its Android SDK sends it
/// (aliyun/alibabacloud-httpdns-android-sdk, `ResolveHostHelper`, `SignService`,
/// `AESEncryptService`, `ResolveHostResponseParser`):
///
/// - plain: `?id=ACCOUNT&m=0&dn=NAMES&q=4,6[&cip=ADDRESS][&sdns-K=V...]&v=1.0&exp=EXPIRY[&s=SIGN]`;
/// - encrypted (with `aesKey`): `?id=ACCOUNT&m=MODE&enc=HEX&v=1.0&exp=EXPIRY[&s=SIGN]`, `HEX` the hex
///   of a random IV then the ciphertext of the JSON object `{"dn","q","cip","sdns-K"}` under the
///   hex-decoded key: `m=2` AES-GCM (12-byte IV, the ciphertext then its 16-byte tag; the default,
///   as in the SDK on Android 5 and later) or `m=1` AES-CBC (16-byte IV, PKCS#7), per `encryption`;
/// - signed (with `secret`): `SIGN` the lower-case hex HMAC-SHA256, under the hex-decoded secret, of
///   the non-empty parameters among `id m dn cip q enc exp tags v sdns-*`, sorted by name, as
///   `name=value` joined with `&`.
///
/// `NAMES` is one name or up to 5 joined by `,`. The answer is `{"code":"success","mode":M,"data":D}`,
/// `D` the JSON object `{"cip","answers":[{"dn","v4":{"ips","ttl"},"v6":{...}}]}` (mode 0) or the
/// base64 of IV and ciphertext of its text (mode 1 AES-CBC, mode 2 AES-GCM), parsed by `AlibabaV2Answer`.
/// HTTP 400/403 (`MissingArgument`, `InvalidHost`, `TooManyHosts`, `InvalidAccount`, signature
/// errors), other statuses and malformed answers are failures of the endpoint, so `HostResolver`
/// fails over.
public struct AlibabaHTTPDNSV2Endpoint: ResolutionProvider, Hashable, CustomStringConvertible {
    /// The service's base URL, e.g. `https://203.107.1.1` (no account in it). Only `https` is queried.
    public var url: URL
    public var bootstrapAddresses: [IPAddress]
    /// The account ID (`id`).
    public var accountID: String
    /// The signing secret (the console's "SecretKey"), as hex; nil: unsigned.
    public var secret: String?
    /// The AES key (the console's "AES 加密密钥"), as hex of 16, 24 or 32 bytes; nil: the plain form.
    public var aesKey: String?
    /// The cipher of the encrypted form (used only with `aesKey`): `.aesGCM`, the default.
    public var encryption: Encryption

    /// The ciphers of `/v2/d`'s encrypted form (`m`; "域名解析接口" §6.1 lists the answer's `mode`
    /// 0 plain, 1 AES-CBC-128 with PKCS#7 padding, 2 AES-GCM-128), the SDK's `EncryptionMode`.
    public enum Encryption: String, Sendable, Hashable, CaseIterable {
        /// `m=1`: AES-CBC, a random 16-byte IV, PKCS#7 padding. Not authenticated: a changed
        /// ciphertext is caught only when it no longer decrypts to the expected JSON.
        case aesCBC = "aes-cbc"
        /// `m=2`: AES-GCM, a random 12-byte IV and a 16-byte tag (no additional data): a changed
        /// request or answer fails its tag check.
        case aesGCM = "aes-gcm"

        /// The `m` parameter.
        var mode: String { self == .aesCBC ? "1" : "2" }
        /// The IV length, in bytes.
        var ivLength: Int { self == .aesCBC ? 16 : ProviderCrypto.gcmIVLength }
    }
    /// `cip`: answer as for a client at this address; nil: the address the request comes from.
    public var clientSubnet: IPAddress?
    /// SDNS custom parameters, sent as `sdns-KEY=VALUE`: keys of letters, digits, `-` and `_`,
    /// values of those and `=` (the SDK's rule), at most 1,000 bytes in all.
    public var customParameters: [String: String]
    /// How long a request stays valid, in seconds (`exp` is now plus this): 600, the SDK's.
    public var signatureLifetime: TimeInterval
    /// Seconds to add to this machine's clock for `exp`: the right time minus the local time, the
    /// SDKs' `setAuthCurrentTime` correction for a skewed clock (see `correctingClock(to:now:)`).
    public var clockOffset: TimeInterval
    /// Whether `exp` also corrects for the skew the service's `Date` field shows (learned from each
    /// response, per URL, for the process; a 403 after which it moved is asked again once, as
    /// Alibaba's documents advise). Default true.
    public var correctsClockFromResponses: Bool
    /// Where the service IPs come from: nil, `bootstrapAddresses` (or the system resolver for `url`);
    /// a schedule, its service IPs (asked of the scheduling API, `AlibabaServiceSchedule`), with
    /// `url` its `serviceURL` (see `init(schedule:secret:aesKey:encryption:)`).
    public var schedule: AlibabaServiceSchedule?

    public init(
        url: URL, accountID: String, secret: String? = nil, aesKey: String? = nil, encryption: Encryption = .aesGCM, clientSubnet: IPAddress? = nil,
        customParameters: [String: String] = [:], bootstrapAddresses: [IPAddress] = [], signatureLifetime: TimeInterval = 600, clockOffset: TimeInterval = 0,
        correctsClockFromResponses: Bool = true
    ) {
        self.url = url
        self.accountID = accountID
        self.secret = secret
        self.aesKey = aesKey
        self.encryption = encryption
        self.clientSubnet = clientSubnet
        self.customParameters = customParameters
        self.bootstrapAddresses = bootstrapAddresses
        self.signatureLifetime = signatureLifetime
        self.clockOffset = clockOffset
        self.correctsClockFromResponses = correctsClockFromResponses
        self.schedule = nil
    }

    /// An endpoint that resolves through the service IPs `schedule` asks for, at its `serviceURL`,
    /// for its account.
    public init(schedule: AlibabaServiceSchedule, secret: String? = nil, aesKey: String? = nil, encryption: Encryption = .aesGCM) {
        self.init(url: schedule.serviceURL, accountID: schedule.accountID, secret: secret, aesKey: aesKey, encryption: encryption)
        self.schedule = schedule
    }

    public var kind: String { "httpdns-ali-v2" }
    public var source: ResolutionSource { .httpdns(endpoint: url) }
    /// The SDK's batch size (`BatchResolveHostService`, `maxCountPerRequest = 5`).
    public var batchLimit: Int { 5 }
    /// The URL, the account and the modes; never a secret or key.
    public var description: String {
        "\(url.absoluteString) (account \(accountID)\(secret == nil ? "" : ", signed")\(aesKey == nil ? "" : ", encrypted \(encryption.rawValue)"))"
    }

    /// This endpoint with `clockOffset` set so that `exp` is reckoned from `correctTime` (a time
    /// the caller trusts, e.g. from its own time service) rather than from this machine's clock.
    public func correctingClock(to correctTime: Date, now: Date = Date()) -> AlibabaHTTPDNSV2Endpoint {
        var copy = self
        copy.clockOffset = correctTime.timeIntervalSince(now).rounded()
        return copy
    }

    /// Why the settings cannot be used, or nil: a secret or key that is not hex, a key of another
    /// length than 16, 24 or 32 bytes, a custom parameter outside the SDK's rule. Never quotes a secret.
    public func problem() -> String? {
        if let secret, ProviderCrypto.bytes(hex: secret).map({ $0.isEmpty }) ?? true { return "the secret must be hex" }
        if let aesKey {
            guard let key = ProviderCrypto.bytes(hex: aesKey) else { return "the AES key must be hex" }
            guard [16, 24, 32].contains(key.count) else { return "the AES key must be 16, 24 or 32 bytes (32, 48 or 64 hex digits), not \(key.count)" }
        }
        return AlibabaV2Request.problem(with: customParameters)
    }

    public func lookup(_ name: String, families: AddressFamilies, transport: any DoHTransport, timeout: TimeInterval)
        async throws(ProviderFailure) -> ProviderAnswer
    {
        guard let answer = try await lookup(batch: [name], families: families, transport: transport, timeout: timeout)[name] else {
            throw .endpointFailed(url, reason: "the answer has nothing for \(name)")
        }
        return answer
    }

    public func lookup(batch names: [String], families: AddressFamilies, transport: any DoHTransport, timeout: TimeInterval)
        async throws(ProviderFailure) -> [String: ProviderAnswer]
    {
        guard !names.isEmpty else { return [:] }
        guard names.count <= batchLimit else { throw .endpointFailed(url, reason: "a batch holds at most \(batchLimit) names, not \(names.count)") }
        let response = try await ProviderHTTP.expiringGet(
            endpoint: url, clock: correctsClockFromResponses ? ServerClockSkew.shared : nil, schedule: schedule, accept: "application/json",
            bootstrap: bootstrapAddresses,
            transport: transport, timeout: timeout
        ) { skew throws(ProviderFailure) in try requestURL(for: names, families: families, now: Date(), skew: skew) }
        return try AlibabaV2Answer.parse(response.body, names: names, families: families, aesKey: aesKey.flatMap(ProviderCrypto.bytes(hex:)), endpoint: url)
    }

    /// The request URL for `names` at `now` (corrected by `clockOffset` and `skew`).
    /// - Parameters:
    ///   - skew: Seconds the service's clock is ahead of this machine's.
    ///   - iv: The AES IV (16 bytes for AES-CBC, 12 for AES-GCM); nil: random. Tests give one.
    /// - Throws: `.endpointFailed` ("not sent: ...") for the settings `problem()` rejects.
    func requestURL(for names: [String], families: AddressFamilies, now: Date, skew: TimeInterval = 0, iv: [UInt8]? = nil) throws(ProviderFailure) -> URL {
        if let problem = problem() { throw .endpointFailed(url, reason: "not sent: \(problem)") }
        guard let expiry = ProviderHTTP.expiry(now: now, offset: clockOffset + skew, lifetime: signatureLifetime) else {
            throw .endpointFailed(url, reason: "not sent: signatureLifetime \(signatureLifetime) and clockOffset \(clockOffset) give no valid expiry time")
        }
        let request = AlibabaV2Request(
            accountID: accountID, names: names, families: families, clientSubnet: clientSubnet, customParameters: customParameters, expiry: expiry)
        let items: [(String, String)]
        do {
            items = try request.items(
                secret: secret.flatMap(ProviderCrypto.bytes(hex:)), aesKey: aesKey.flatMap(ProviderCrypto.bytes(hex:)), encryption: encryption,
                iv: iv ?? ProviderCrypto.randomBytes(encryption.ivLength))
        } catch {
            throw .endpointFailed(url, reason: "cannot encrypt the query: \(error)")
        }
        return ProviderHTTP.url(url, path: "/v2/d", items: items)
    }
}
