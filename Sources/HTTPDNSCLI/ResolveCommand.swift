import Foundation
import HTTPDNS

/// `httpdns resolve HOST...`: print each name's addresses and where they came from.
enum ResolveCommand {
    static let help = """
    Usage: httpdns resolve [options] HOST...

    Resolves each HOST over DNS-over-HTTPS (RFC 8484), falling back to the system resolver when
    every endpoint fails (unless --no-fallback). One line per address:
      HOST ADDRESS ttl=SECONDS source=doh|cache|system|static|literal
    (ttl=- when the source gives none.)

    Options:
          --type A|AAAA|both    Address types to ask for (default both).
          --json                One JSON object per host instead.
    \(ResolverOptions.help)
      -h, --help                This help.

    Exit status: 0 all names resolved, 2 usage or bad input, 6 a name could not be resolved.
    """

    static let parser = ArgumentParser(command: "resolve", options: [
        .init(names: ["--type"], arity: .value),
        .init(names: ["--json"], arity: .flag),
        .init(names: ["-h", "--help"], arity: .flag),
    ] + ResolverOptions.parserOptions)

    static func run(_ arguments: [String], console: Console, environment: [String: String]) async -> Int32 {
        let hosts: [String]
        let options: ResolverOptions
        let families: AddressFamilies
        let json: Bool
        do {
            let parsed = try parser.parse(arguments)
            if parsed.has("help") {
                console.print(help)
                return HTTPDNSTool.ExitStatus.success
            }
            guard !parsed.positionals.isEmpty else { throw UsageError("no host given", command: "resolve") }
            for host in parsed.positionals where HostName.normalize(host) == nil {
                throw UsageError("invalid host name '\(host)'", command: "resolve")
            }
            switch parsed.value("type")?.lowercased() {
            case nil, "both": families = .both
            case "a": families = .ipv4
            case "aaaa": families = .ipv6
            default: throw UsageError("--type must be A, AAAA or both, not '\(parsed.value("type") ?? "")'", command: "resolve")
            }
            hosts = parsed.positionals
            options = try ResolverOptions(parsed, environment: environment, command: "resolve")
            json = parsed.has("json")
        } catch let error as UsageError {
            return HTTPDNSTool.report(error, console: console)
        } catch {
            return HTTPDNSTool.report(UsageError("\(error)", command: "resolve"), console: console)
        }

        let resolver = options.makeResolver(families: families)
        var status = HTTPDNSTool.ExitStatus.success
        for host in hosts {
            do {
                let resolution = try await resolver.resolve(host: host, port: 443)
                if json {
                    console.print(jsonLine(host: host, resolution: resolution))
                } else {
                    let ttl = resolution.ttl.map { String(Int($0)) } ?? "-"
                    for address in resolution.addresses {
                        console.print("\(resolution.host) \(address) ttl=\(ttl) source=\(resolution.source)")
                    }
                }
            } catch {
                status = HTTPDNSTool.ExitStatus.couldNotResolve
                if json {
                    console.print(jsonLine(host: host, error: "\(error)"))
                }
                console.note("httpdns: \(error)")
            }
        }
        return status
    }

    private static func jsonLine(host: String, resolution: HostResolution? = nil, error: String? = nil) -> String {
        var object: [String: Any] = ["host": HostName.normalize(host) ?? host]
        if let resolution {
            object["addresses"] = resolution.addresses.map(\.description)
            object["ttl"] = resolution.ttl.map { Int($0) } as Any? ?? NSNull()
            object["source"] = resolution.source.description
            if case .doh(let endpoint) = resolution.source { object["endpoint"] = endpoint.absoluteString }
        }
        if let error { object["error"] = error }
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
