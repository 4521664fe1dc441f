import Foundation
import HTTPDNSCore
import HTTPTransport
import Testing

/// `HTTPClient.init` refuses a configuration duration its setting does not accept, with an
/// `InvalidDurationError` naming the setting and the value.
@Suite("HTTPClient configuration durations")
struct HTTPClientConfigurationTests {
    let resolver = StaticHostResolver(entries: [], fallback: nil)

    @Test(
        "a Timeouts limit that is not nil, above 0 and at most Timeouts.maximum is refused, named",
        arguments: [("connect", 0.0), ("connect", -1), ("total", .nan), ("total", .infinity), ("idle", Timeouts.maximum * 2)])
    func refusesInvalidTimeouts(limit: String, seconds: Double) {
        var configuration = HTTPClient.Configuration()
        switch limit {
        case "connect": configuration.timeouts.connect = seconds
        case "total": configuration.timeouts.total = seconds
        default: configuration.timeouts.idle = seconds
        }
        #expect {
            _ = try HTTPClient(configuration: configuration, resolver: resolver)
        } throws: { error in
            guard let error = error as? InvalidDurationError else { return false }
            return error.setting == "HTTPClient.Configuration.timeouts.\(limit)" && error.requirement == .positiveAtMost(Timeouts.maximum)
                && (seconds.isNaN ? error.value.isNaN : error.value == seconds)
        }
    }

    @Test("pinReportInterval takes 0 (every report) to .infinity (each once), not a negative or NaN one")
    func pinReportInterval() throws {
        for seconds in [0, 60, .infinity] as [Double] {
            var configuration = HTTPClient.Configuration()
            configuration.pinReportInterval = seconds
            _ = try HTTPClient(configuration: configuration, resolver: resolver)
        }
        for seconds in [-1, .nan] as [Double] {
            var configuration = HTTPClient.Configuration()
            configuration.pinReportInterval = seconds
            #expect {
                _ = try HTTPClient(configuration: configuration, resolver: resolver)
            } throws: { error in
                (error as? InvalidDurationError)?.setting == "HTTPClient.Configuration.pinReportInterval"
            }
        }
    }

    @Test("the defaults, and nil limits, are valid")
    func defaultsAreValid() throws {
        _ = try HTTPClient(resolver: resolver)
        _ = try HTTPClient(configuration: .init(timeouts: Timeouts(connect: nil, total: nil, idle: nil)), resolver: resolver)
    }
}
