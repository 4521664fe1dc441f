// The CLI's argument parsing and option validation for every command, without running anything:
// arguments are the input split at NUL bytes.
@testable import FuzzedCLI
import FuzzSupport

runFuzzer { bytes in
    let (selector, rest) = split(bytes)
    // The raw bytes go beside the strings, as main passes argv (inline data is sent byte-exact).
    var raw = rest.split(separator: 0, omittingEmptySubsequences: false).map { Array($0) }
    var variables: [String: String] = [:]
    if selector & 0x80 != 0, let last = raw.popLast() { variables["HTTPDNS_DOH_URL"] = String(decoding: last, as: UTF8.self) }
    let arguments = raw.map { String(decoding: $0, as: UTF8.self) }
    let environment = Environment(variables)
    switch selector % 4 {
    case 0:
        guard let parsed = try? FetchCommand.parser.parse(arguments, raw: raw) else { return }
        _ = try? FetchCommand.makePlan(parsed, environment: environment)
    case 1:
        guard let parsed = try? ResolveCommand.parser.parse(arguments, raw: raw) else { return }
        _ = try? ResolverOptions(parsed, environment: environment, command: "resolve")
    case 2:
        guard let parsed = try? ProbeCommand.parser.parse(arguments, raw: raw) else { return }
        _ = try? ResolverOptions(parsed, environment: environment, command: "probe")
    default:
        guard let parsed = try? PinsCommand.parser.parse(arguments, raw: raw) else { return }
        _ = try? ResolverOptions(parsed, environment: environment, command: "pins")
        _ = try? TrustOptions(parsed, command: "pins")
    }
}
