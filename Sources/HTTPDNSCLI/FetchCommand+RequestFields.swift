import Foundation
import HTTPDNS

extension FetchCommand {
    /// curl's `-u USER:PASSWORD`: `Authorization: Basic` (RFC 7617) of the value's bytes as given,
    /// unless `-H` sends or leaves out an `Authorization` of its own, which wins as in curl. Only
    /// the first ':' separates: the password may hold more. The library drops the field on a
    /// redirect to another origin (`HTTPRedirect.headers(after:from:)`), as curl 7.88 drops it.
    /// - Returns: The user name, for `-v` (which never shows the password); nil without `-u`, or
    ///   when an `-H` wins.
    /// - Throws: `UsageError` for a value without ':', where curl would prompt for the password
    ///   on the terminal: a command that may run unattended must not wait for input.
    static func addCredentials(_ parsed: ArgumentParser.Parsed, to headers: inout HTTPHeaders, omitted: Set<String>) throws(UsageError) -> String? {
        guard let value = parsed.allBytes("user").last else { return nil }
        guard let colon = value.firstIndex(of: UInt8(ascii: ":")) else {
            // The value is not repeated: given alone it is often a token, and this goes to logs.
            let option = parsed.spelling("user")
            throw UsageError(
                "\(option) USER has no password (no ':'), and httpdns does not prompt for one (curl would): give \(option) USER:PASSWORD (\(option) USER: for an empty one)",
                command: "fetch")
        }
        let user = String(decoding: value[..<colon], as: UTF8.self)
        guard !headers.contains(name: "Authorization"), !omitted.contains(where: { $0.lowercased() == "authorization" }) else { return nil }
        headers.add(name: "Authorization", value: "Basic " + Data(value).base64EncodedString())
        return user
    }

    /// curl's `-e URL[;auto]`: `Referer: URL` on the first request ("" sends none); `;auto` also
    /// sets it on each request after a redirect (`-L`) to the URL redirected from. A `-H` that
    /// sends or leaves out `Referer` wins over both, on every request, as in curl.
    /// - Returns: Whether redirects set `Referer` (`RedirectPolicy.setsReferer`).
    static func addReferer(_ parsed: ArgumentParser.Parsed, to headers: inout HTTPHeaders, omitted: Set<String>) -> Bool {
        guard var referer = parsed.value("referer") else { return false }
        guard !headers.contains(name: "Referer"), !omitted.contains(where: { $0.lowercased() == "referer" }) else { return false }
        let auto = referer.hasSuffix(";auto")
        if auto { referer.removeLast(";auto".count) }
        if !referer.isEmpty { headers.add(name: "Referer", value: referer) }
        return auto
    }
}
