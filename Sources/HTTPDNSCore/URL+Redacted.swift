import Foundation

extension URL {
    /// The URL as text with its password, if any, replaced by `***`: for error messages and `-v`
    /// output, which end up in logs and bug reports. The user name stays (curl's messages name it
    /// too); a URL without a password is `absoluteString` unchanged.
    package var redactedString: String {
        guard password(percentEncoded: true) != nil, var components = URLComponents(url: self, resolvingAgainstBaseURL: false) else {
            return absoluteString
        }
        components.percentEncodedPassword = "***"
        return components.string ?? absoluteString
    }
}
