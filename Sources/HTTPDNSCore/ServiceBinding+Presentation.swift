import Foundation

extension ServiceBinding: CustomStringConvertible {
    /// The RDATA in presentation format (RFC 9460 §2.1, Appendix A), keys in ascending order:
    /// `1 . alpn=h2,h3 port=8443 ipv4hint=192.0.2.1`, `0 svc.example.net.`.
    ///
    /// Values are written unquoted with RFC 1035 §5.1 escapes (`\DDD` for octets outside printable
    /// ASCII and for space, `\` before `"`, `;`, `(`, `)` and `\`); `alpn` items escape `,` and `\`
    /// first (RFC 9460 Appendix A.1), so `f\oo,bar` is written `f\\\\oo\\,bar`. `ech` is base64, as
    /// the ECH specification defines; a key with an empty value is written bare (`no-default-alpn`).
    public var presentationFormat: String {
        var fields = ["\(priority)", targetName.isEmpty ? "." : targetName + "."]
        for key in parameters.keys {
            let value = Self.presentationValue(of: key, in: parameters)
            fields.append(value.isEmpty ? key.description : "\(key)=\(value)")
        }
        return fields.joined(separator: " ")
    }

    /// `presentationFormat`.
    public var description: String { presentationFormat }

    private static func presentationValue(of key: ServiceParameterKey, in parameters: ServiceParameters) -> String {
        switch key {
        case .mandatory:
            return (parameters.mandatory ?? []).map(\.description).joined(separator: ",")
        case .alpn:
            let items = (parameters.alpn ?? []).map { identifier in
                identifier.flatMap { octet -> [UInt8] in
                    octet == UInt8(ascii: ",") || octet == UInt8(ascii: "\\") ? [UInt8(ascii: "\\"), octet] : [octet]
                }
            }
            return characterString(Array(items.joined(separator: [UInt8(ascii: ",")])))
        case .noDefaultALPN:
            return ""
        case .port:
            return parameters.port.map { "\($0)" } ?? ""
        case .ipv4Hint:
            return (parameters.ipv4Hints ?? []).map(\.description).joined(separator: ",")
        case .ech:
            return Data(parameters.ech ?? []).base64EncodedString()
        case .ipv6Hint:
            return (parameters.ipv6Hints ?? []).map(\.description).joined(separator: ",")
        case .dohPath:
            return characterString(Array((parameters.dohPath ?? "").utf8))
        default:
            return characterString(parameters.unknown[key] ?? [])
        }
    }

    /// Octets as an unquoted RFC 1035 §5.1 character-string.
    private static func characterString(_ octets: [UInt8]) -> String {
        var text = ""
        for octet in octets {
            switch octet {
            case UInt8(ascii: "\""), UInt8(ascii: ";"), UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "\\"):
                text.append("\\")
                text.append(Character(Unicode.Scalar(octet)))
            case 0x21...0x7E:
                text.append(Character(Unicode.Scalar(octet)))
            default:
                text.append("\\" + String(format: "%03d", octet))
            }
        }
        return text
    }
}
