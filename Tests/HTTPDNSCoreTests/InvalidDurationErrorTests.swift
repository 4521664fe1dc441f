import Testing
import HTTPDNSCore

@Suite("InvalidDurationError")
struct InvalidDurationErrorTests {
    @Test("each requirement accepts what it says; NaN never")
    func requirements() {
        #expect(InvalidDurationError.Requirement.positive.accepts(0.5) && !InvalidDurationError.Requirement.positive.accepts(0))
        #expect(!InvalidDurationError.Requirement.positive.accepts(.infinity))
        #expect(InvalidDurationError.Requirement.positiveAtMost(10).accepts(10) && !InvalidDurationError.Requirement.positiveAtMost(10).accepts(10.5))
        #expect(InvalidDurationError.Requirement.nonNegative.accepts(0) && !InvalidDurationError.Requirement.nonNegative.accepts(-0.1))
        #expect(!InvalidDurationError.Requirement.nonNegative.accepts(.infinity))
        #expect(InvalidDurationError.Requirement.nonNegativeOrInfinity.accepts(.infinity) && !InvalidDurationError.Requirement.nonNegativeOrInfinity.accepts(-.infinity))
        for requirement in [.positive, .positiveAtMost(10), .nonNegative, .nonNegativeOrInfinity] as [InvalidDurationError.Requirement] {
            #expect(!requirement.accepts(.nan), "\(requirement)")
        }
    }

    @Test("the message names the setting, what it takes and the value given")
    func message() {
        #expect(throws: InvalidDurationError(setting: "Example.timeout", value: -2, requirement: .nonNegative)) {
            try InvalidDurationError.check(-2, .nonNegative, setting: "Example.timeout")
        }
        let error = InvalidDurationError(setting: "Example.timeout", value: -2, requirement: .nonNegative)
        #expect(error.description == "Example.timeout needs a finite number of seconds, 0 or more, not -2.0")
        // Callers that show localizedDescription get the same text, not Foundation's generic one.
        #expect((error as any Error).localizedDescription == error.description)
        // nil is the setting off: always accepted.
        #expect(throws: Never.self) { try InvalidDurationError.check(nil as Double?, .positive, setting: "Example.window") }
    }
}
