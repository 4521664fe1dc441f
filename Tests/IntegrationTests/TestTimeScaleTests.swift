import Foundation
import Testing
import TestSupport

/// `HTTPDNS_TEST_TIME_SCALE`, which `scripts/sanitize.sh` sets to stretch the suite's time allowances.
@Suite("Test time scale")
struct TestTimeScaleTests {
    @Test("unset or empty is 1, so the ordinary run asserts every bound as written", arguments: [nil, ""] as [String?])
    func unsetIsOne(text: String?) {
        #expect(TestTimeScale.parse(text) == 1)
    }

    @Test("a number from 1 to 100 is the factor", arguments: [("1", 1.0), ("2", 2), ("3", 3), ("1.5", 1.5), ("100", 100)])
    func numbersAreFactors(text: String, factor: Double) {
        #expect(TestTimeScale.parse(text) == factor)
    }

    @Test("anything else is refused, never read as 1", arguments: ["0", "0.5", "-3", "101", "nan", "inf", "3x", " 3", "three"])
    func othersAreRefused(text: String) {
        #expect(TestTimeScale.parse(text) == nil)
    }

    @Test("the factor is the one the environment gives this process (1 in the ordinary run)")
    func factorComesFromEnvironment() {
        #expect(TestTimeScale.factor == TestTimeScale.parse(ProcessInfo.processInfo.environment[TestTimeScale.variable]))
    }
}
