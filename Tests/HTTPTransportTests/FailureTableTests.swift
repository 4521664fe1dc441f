import Testing
@testable import HTTPTransport

@Suite("Failure table")
struct FailureTableTests {
    @Test(
        "libcurl's codes map to their failure kinds",
        arguments: [
            (1, HTTPClientError.Kind.unsupportedScheme), (3, .invalidURL), (6, .couldNotResolve), (7, .couldNotConnect),
            (23, .outputFailed), (26, .bodyReadFailed), (28, .timedOut), (35, .tlsHandshakeFailed), (42, .bodyReadFailed),
            (58, .clientCertificateRejected), (60, .certificateVerificationFailed), (65, .bodyReadFailed),
            (77, .trustConfigurationInvalid), (90, .pinMismatch), (91, .certificateStatusInvalid),
            (5, .transferFailed), (52, .transferFailed), (56, .transferFailed), (92, .transferFailed)
        ])
    func codes(_ code: Int, _ kind: HTTPClientError.Kind) {
        #expect(FailureTable.kind(forCurlCode: code) == kind)
    }

    @Test("every kind exits as curl does for the same failure")
    func exitStatuses() {
        let expected: [HTTPClientError.Kind: Int32] = [
            .unsupportedScheme: 1, .invalidRequest: 2, .invalidURL: 3, .couldNotResolve: 6, .couldNotConnect: 7,
            .httpError: 22, .outputFailed: 23, .bodyReadFailed: 26, .timedOut: 28, .tlsHandshakeFailed: 35,
            .shutDown: 43, .tooManyRedirects: 47, .clientCertificateRejected: 58, .certificateVerificationFailed: 60,
            .responseTooLarge: 63, .trustConfigurationInvalid: 77, .pinMismatch: 90, .certificateStatusInvalid: 91
        ]
        for (kind, status) in expected { #expect(HTTPClientError.exitStatus(for: kind) == status, "\(kind)") }
    }

    @Test("a transfer failure exits with libcurl's own code, 56 when there is none")
    func transferFailures() {
        #expect(HTTPClientError.exitStatus(for: .transferFailed, curlCode: 52) == 52)
        #expect(HTTPClientError.exitStatus(for: .transferFailed, curlCode: 16) == 16)
        #expect(HTTPClientError.exitStatus(for: .transferFailed) == 56)
    }

    @Test("a code that is its own curl exit status round-trips through the table", arguments: [1, 3, 6, 7, 23, 26, 28, 35, 52, 56, 58, 60, 77, 90, 91])
    func roundTrip(_ code: Int) {
        #expect(HTTPClientError.exitStatus(for: FailureTable.kind(forCurlCode: code), curlCode: code) == Int32(code))
    }
}
