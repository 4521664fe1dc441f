import Foundation
internal import COpenSSL
internal import CHTTPDNSShims

/// One transfer's trust state for the TLS callbacks: its pool's `CompiledTrust`, the pins that
/// govern its host, and what the handshake found (`struct httpdns_tls_transfer`).
///
/// Passed to libcurl as CURLOPT_SSL_CTX_DATA; it must outlive the transfer's easy handle.
package final class TransferTrust: @unchecked Sendable { // written by the TLS callbacks on the transfer thread, read there after completion
    /// What the handshake's pin check concluded.
    package enum PinOutcome: Sendable, Equatable {
        case notEvaluated, matched, mismatch, mismatchReported, anchoredByPin
    }

    package let compiled: CompiledTrust
    /// The pin set governing the host, nil when none applies.
    package let pinSet: PinSet?
    /// `struct httpdns_tls_transfer *`, for CURLOPT_SSL_CTX_DATA.
    package let callbackData: UnsafeMutableRawPointer?

    package init(compiled: CompiledTrust, host: String, date: Date) {
        self.compiled = compiled
        let pinSet = compiled.policy.pinSet(for: host, at: date)
        self.pinSet = pinSet
        var spki = Data()
        var whole = Data()
        var spkiCount: Int32 = 0
        var wholeCount: Int32 = 0
        for pin in pinSet?.pins ?? [] where pin.sha256.count == 32 {
            switch pin {
            case .publicKey(let digest): spki += digest; spkiCount += 1
            case .certificate(let digest): whole += digest; wholeCount += 1
            }
        }
        let transfer = spki.withUnsafeBytes { spkiBytes in
            whole.withUnsafeBytes { wholeBytes in
                httpdns_tls_transfer_new(
                    compiled.trust,
                    spkiBytes.bindMemory(to: UInt8.self).baseAddress, spkiCount,
                    wholeBytes.bindMemory(to: UInt8.self).baseAddress, wholeCount,
                    pinSet?.enforcement == .reportOnly ? 0 : 1,
                    compiled.policy.pinnedCertificatesAreAnchors ? 1 : 0)
            }
        }
        callbackData = transfer.map { UnsafeMutableRawPointer($0) }
    }

    deinit { httpdns_tls_transfer_free(state) }

    private var state: UnsafeMutablePointer<httpdns_tls_transfer>? {
        callbackData?.assumingMemoryBound(to: httpdns_tls_transfer.self)
    }

    package var pinOutcome: PinOutcome {
        switch Int(state?.pointee.pin_outcome ?? 0) {
        case Int(HTTPDNS_PIN_MATCHED): .matched
        case Int(HTTPDNS_PIN_MISMATCH): .mismatch
        case Int(HTTPDNS_PIN_MISMATCH_REPORTED): .mismatchReported
        case Int(HTTPDNS_PIN_ANCHORED): .anchoredByPin
        default: .notEvaluated
        }
    }

    /// True when this transfer's handshake ran without verification.
    package var verificationSkipped: Bool { (state?.pointee.verification_skipped ?? 0) != 0 }

    /// The chain verification built, else (verification off, or it failed) the chain the server
    /// sent; leaf first. Empty when no handshake verification ran (a resumed session).
    package var presentedChain: [Certificate] {
        let validated = validatedChain
        return validated.isEmpty ? servedChain : validated
    }

    /// True when the server's certificate reached the verification callback (cheaper than
    /// `servedChain`, which copies every certificate).
    package var sawCertificate: Bool { state?.pointee.served != nil }

    /// True when verification built a chain (and so succeeded), whatever the pins then found.
    package var verifiedChain: Bool { state?.pointee.validated != nil }

    /// The certificates the server sent, in its order, leaf first; empty when no handshake
    /// verification ran.
    package var servedChain: [Certificate] { Self.certificates(state?.pointee.served) }

    /// The chain verification built, leaf first and anchor last (X509_STORE_CTX_get1_chain); empty
    /// when verification was off, failed or did not run. Never made up from what the server sent.
    package var validatedChain: [Certificate] { Self.certificates(state?.pointee.validated) }

    private static func certificates(_ stack: OpaquePointer?) -> [Certificate] {
        guard let stack else { return [] }
        return (0..<httpdns_x509_stack_count(stack)).compactMap { index in
            httpdns_x509_stack_get(stack, index).map { Certificate(trustedDER: Certificate.derBytes(of: $0)) }
        }
    }
}
