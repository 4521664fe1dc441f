import HTTPDNS
import Testing
@testable import HTTPDNSCLI

/// Text output names a failure in words (`probe`'s `FAILED certificate verification failed: ...`),
/// never by the Swift case's name, which `--json` keeps as its documented identifier.
@Suite("failures in words")
struct FailureWordsTests {
    @Test("a failure's line is its words, then its message; a message that starts with the words is not repeated")
    func summaryIsWordsThenMessage() {
        let timedOut = HTTPClientError(kind: .timedOut, message: "request to https://a.test/ timed out after 1 s")
        #expect(timedOut.summary == "timed out: request to https://a.test/ timed out after 1 s")
        let verification = HTTPClientError(kind: .certificateVerificationFailed, message: "certificate verification failed for a.test: self-signed certificate")
        #expect(verification.summary == "certificate verification failed for a.test: self-signed certificate")
        let pins = HTTPClientError(kind: .pinMismatch, message: "certificate pinning failed for a.test:443: no certificate of the chain matches sha256//x")
        #expect(pins.summary == "pin mismatch: certificate pinning failed for a.test:443: no certificate of the chain matches sha256//x")
    }

    @Test(
        "each kind's words are lower-case words, not its case name",
        arguments: [
            HTTPClientError.Kind.invalidURL, .unsupportedScheme, .invalidRequest, .couldNotResolve, .couldNotConnect, .timedOut,
            .tlsHandshakeFailed, .certificateVerificationFailed, .trustConfigurationInvalid, .pinMismatch, .clientCertificateRejected,
            .certificateStatusInvalid, .httpError, .responseTooLarge, .outputFailed, .bodyReadFailed, .transferFailed, .shutDown,
            .tooManyRedirects
        ])
    func wordsAreNotTheCaseName(kind: HTTPClientError.Kind) {
        #expect(kind.words != kind.rawValue)
        #expect(kind.words.contains(" "), "\(kind.words)")
        // Acronyms (URL, TLS, HTTP, OCSP) stay capitalized; no camelCase word.
        for word in kind.words.split(separator: " ") {
            #expect(word == word.lowercased() || word == word.uppercased(), "'\(word)' in '\(kind.words)'")
        }
    }
}
