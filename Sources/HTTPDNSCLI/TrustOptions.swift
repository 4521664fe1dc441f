import Foundation
import HTTPDNS
import HTTPDNSCore

/// The target-trust options of `fetch` and `probe`, with curl's names: pins, client certificate,
/// `-k`, `--cert-status`.
struct TrustOptions {
    /// Every TLS option of `fetch` and `probe`, in the order help lists them: CA files, then the
    /// pins (the DoH endpoints' beside the target's), then the client certificate.
    /// - Parameter probe: `probe`'s texts: a failure there makes the address FAILED (exit 1), where
    ///   `fetch` exits with curl's status for it.
    static func parserOptions(probe: Bool = false) -> [ArgumentParser.Option] {
        ResolverOptions.anchorOptions + pinOptions(probe: probe) + ResolverOptions.dohPinOptions + certificateOptions(probe: probe)
    }

    private static func pinOptions(probe: Bool) -> [ArgumentParser.Option] {
        [

            .init(
                names: ["--pinnedpubkey"], arity: .value, valueName: "PINS|FILE",
                summary: probe ? "Public-key pins each address's chain must match" : "Public-key pins the chain must match (exit 90)",
                detail: """
                    Public-key pins ('sha256//BASE64[;sha256//BASE64]...', SPKI SHA-256, RFC 7469): a certificate of the verified chain
                    must carry one, or \(probe ? "the address is FAILED" : "the request fails with exit 90"), listing the pins the server presented.
                    'httpdns pins URL' prints them ready to paste. FILE is a PEM or DER public key (or a
                    certificate, whose key is pinned), as curl's; it may be a pipe.
                    """),
            .init(
                names: ["--pin-cert"], arity: .value, valueName: "SHA256HEX",
                summary: "Whole-certificate pin (SHA-256 hex), repeatable",
                detail: """
                    Whole-certificate pin: the certificate's SHA-256 fingerprint in hex, colons allowed.
                    Repeatable; combines with --pinnedpubkey.
                    """)
        ]
    }

    /// The client certificate, OCSP stapling and `-k`.
    private static func certificateOptions(probe: Bool) -> [ArgumentParser.Option] {
        [

            .init(
                names: ["-E", "--cert"], arity: .value, valueName: "FILE[:PASSWORD]",
                summary: "Client certificate (PKCS#12, or PEM with --key)",
                detail: """
                    Client certificate for mutual TLS: PKCS#12 (AES or legacy 3DES/RC2) or PEM with the key
                    inside or in --key. It is loaded before any traffic: a file that cannot be used (not a
                    certificate, wrong or missing password, no key or another certificate's key, expired)
                    exits 2. A server that rejects it \(probe ? "makes the address FAILED" : "is exit 58"). FILE may be a pipe.
                    """),
            certificateTypeOption,
            .init(
                names: ["--key"], arity: .value, valueName: "FILE", summary: "Private key of a PEM --cert (may be encrypted)",
                detail: "The PEM private key of a PEM --cert (encrypted with --pass, or not)."),
            .init(
                names: ["--pass"], arity: .value, valueName: "PASSWORD", summary: "Password of --cert's PKCS#12 file or of --key",
                detail: "Password of --cert's PKCS#12 file, or passphrase of the PEM --key."),
            .init(
                names: ["--cert-status"], arity: .flag,
                summary: probe ? "Require a stapled OCSP response (else FAILED)" : "Require a stapled OCSP response (else exit 91)",
                detail: """
                    Require a stapled OCSP response showing the certificate good (curl's --cert-status); without one, \(probe ? "the address is FAILED" : "exit 91").
                    """),
            .init(
                names: ["-k", "--insecure"], arity: .flag,
                summary: "Verify no certificate or name (pins still apply)",
                detail: """
                    Do not verify the server's certificate or name at all: anyone on the path can impersonate
                    the server. Pins, if given, still apply. Each connection made so is warned about on stderr,
                    and every report says "not verified (verification disabled)" (fetch -v, probe's
                    verified=false, pins). The DoH endpoints stay verified: give --cacert for a private DoH
                    server's CA.
                    """)
        ]
    }

    static let certificateTypeOption = ArgumentParser.Option(
        names: ["--cert-type"], arity: .value, valueName: "P12|PEM",
        summary: "Type of --cert (default: from its extension)", detail: "Type of --cert: P12 or PEM (default: P12 for .p12 and .pfx files, else PEM).",
        values: [ClientIdentity.FileType.pkcs12.rawValue, ClientIdentity.FileType.pem.rawValue])

    var pins: [CertificatePin] = []
    /// Each pin as the command line gave it (a key file's path for a pin read from it), for the
    /// messages that name them.
    var spellings: [CertificatePin: String] = [:]
    var certificate: (path: String, password: String?)?
    /// `-E` or `--cert`, as the command line gave the certificate.
    var certificateSpelling = "--cert"
    var certificateType: ClientIdentity.FileType?
    var keyPath: String?
    var password: String?
    var insecure: Bool
    var requiresOCSPStapling: Bool

    /// - Throws: `UsageError` for a malformed pin or an unknown `--cert-type`, naming the option.
    init(_ parsed: ArgumentParser.Parsed, command: String) throws(UsageError) {
        for text in parsed.all("pinnedpubkey") {
            // curl's rule: a value that does not start with "sha256//" is a file name (and
            // ours: nor with "cert-sha256//", the whole-certificate pins CertificatePin parses).
            let trimmed = text.trimmingWhitespace()
            guard !trimmed.isEmpty else { throw UsageError("--pinnedpubkey: empty value (expected sha256//BASE64 or a key file)", command: command) }
            // "sha1//...", "md5//...": a hash curl does not take either, not a file name (a path
            // such as "keys//a.pem" still is one).
            if let range = trimmed.range(of: "//"),
                ["md5", "sha1", "sha224", "sha384", "sha512"].contains(trimmed[..<range.lowerBound].lowercased())
            {
                throw UsageError("--pinnedpubkey: unsupported pin '\(trimmed[..<range.upperBound])...' (only sha256// public-key pins, as curl, and cert-sha256//)", command: command)
            }
            do {
                if trimmed.hasPrefix("sha256//") || trimmed.hasPrefix("cert-sha256//") {
                    for (pin, written) in try CertificatePin.writtenList(parsing: text) {
                        pins.append(pin)
                        spellings[pin] = written
                    }
                } else {
                    let pin = try CertificatePin.publicKey(contentsOf: URL(fileURLWithPath: text))
                    pins.append(pin)
                    spellings[pin] = text
                }
            } catch {
                throw UsageError("--pinnedpubkey: \(error)", command: command)
            }
        }
        for text in parsed.all("pin-cert") {
            do {
                let pin = try CertificatePin.certificate(hex: text)
                pins.append(pin)
                spellings[pin] = text
            } catch {
                throw UsageError("--pin-cert: \(error)", command: command)
            }
        }
        if let text = parsed.value("cert") {
            certificateSpelling = parsed.spelling("cert")
            let split = Self.splitCertificate(text)
            guard !split.path.isEmpty else { throw UsageError("\(certificateSpelling) needs a file name", command: command) }
            try Self.checkReadable(split.path, option: certificateSpelling, command: command)
            certificate = split
        }
        if let type = parsed.value("cert-type") {
            guard let known = ClientIdentity.FileType(rawValue: type.uppercased()) else {
                throw OptionValue.refusal(type, for: Self.certificateTypeOption, command: command)
            }
            certificateType = known
        }
        keyPath = parsed.value("key")
        password = parsed.value("pass")
        if keyPath != nil, certificate == nil { throw UsageError("--key needs --cert", command: command) }
        // Options that only qualify --cert are refused without it rather than ignored.
        if password != nil, certificate == nil { throw UsageError("--pass needs --cert", command: command) }
        if certificateType != nil, certificate == nil { throw UsageError("--cert-type needs --cert", command: command) }
        if let keyPath { try Self.checkReadable(keyPath, option: "--key", command: command) }
        insecure = parsed.has("insecure")
        requiresOCSPStapling = parsed.has("cert-status")
    }

    /// A missing or unreadable file is bad input (exit 2), found before any traffic; a pipe is
    /// left unread for the identity's loading.
    private static func checkReadable(_ path: String, option: String, command: String) throws(UsageError) {
        do {
            try FileFailure.checkReadable(path)
        } catch {
            throw OptionValue.refusal(error, option: option, command: command)
        }
    }

    /// curl's `FILE:PASSWORD`; a colon escaped as `\:` belongs to the file name.
    static func splitCertificate(_ text: String) -> (path: String, password: String?) {
        var path = ""
        var characters = Substring(text)
        while let character = characters.first {
            characters = characters.dropFirst()
            if character == "\\", characters.first == ":" {
                path.append(":")
                characters = characters.dropFirst()
            } else if character == ":" {
                return (path, String(characters))
            } else {
                path.append(character)
            }
        }
        return (path, nil)
    }

    /// The client identity, loaded now.
    /// - Throws: `UsageError` naming the option at fault: `--pass` for a wrong password it gave,
    ///   else the one whose file is at fault, `--cert` (or `-E`) or `--key` (no key, expired,
    ///   unreadable, a wrong password given after the file name).
    func identity() throws(UsageError) -> ClientIdentity? {
        guard let certificate else { return nil }
        let file = URL(fileURLWithPath: certificate.path)
        let lowercased = certificate.path.lowercased()
        let type = certificateType ?? ((lowercased.hasSuffix(".p12") || lowercased.hasSuffix(".pfx")) ? .pkcs12 : .pem)
        let secret = certificate.password ?? password
        do {
            switch type {
            case .pkcs12:
                return try ClientIdentity.pkcs12(contentsOf: file, password: secret)
            case .pem:
                return try ClientIdentity.pem(certificate: file, key: keyPath.map { URL(fileURLWithPath: $0) }, passphrase: secret)
            }
        } catch {
            var option = keyPath != nil && Self.file(of: error) == keyPath ? "--key" : certificateSpelling
            if case .wrongPassword = error, certificate.password == nil, password != nil { option = "--pass" }
            var message = "\(option): \(error)"
            if case .wrongPassword = error, secret == nil { message += " (give it with --pass, or as --cert FILE:PASSWORD)" }
            if case .noPrivateKey = error, keyPath == nil, type == .pem { message += "; give its key with --key FILE" }
            throw UsageError(message)
        }
    }

    /// The file a loading error is about.
    private static func file(of error: TrustError) -> String? {
        switch error {
        case .unreadableFile(let path, _): path
        case .invalidPEM(let source, _), .invalidCertificate(let source, _), .wrongPassword(let source, _), .invalidIdentity(let source, _): source
        case .noCertificates(let source), .noPrivateKey(let source), .keyMismatch(let source): source
        case .identityExpired(let source, _, _): source
        case .invalidPin, .invalidPolicy, .noPolicy: nil
        }
    }

    /// The target policy: `base`'s anchors with these pins, identity and requirements.
    /// - Throws: `UsageError` from loading the identity (wrong or missing password, not a
    ///   certificate, no key, key mismatch, expired), naming `--cert` or `--key`: bad input found
    ///   before any traffic, which the commands exit 2 for, where curl gives 58.
    func policy(base: TrustPolicy) throws(UsageError) -> TrustPolicy {
        var policy = base
        if !pins.isEmpty { policy.pinSets = [PinSet(pins: Set(pins), spellings: spellings)] }
        policy.identity = try identity()
        policy.requiresOCSPStapling = requiresOCSPStapling
        if insecure { policy.verification = .insecureSkippingAllVerification }
        return policy
    }
}
