import Foundation

/// httpdns-bench's flags, checked before anything starts: a typo must not start a run of several
/// minutes (which also installs the Python peer from PyPI).
enum Usage {
    static let text = """
        Usage: httpdns-bench [options]     (build with `swift build -c release`; see Benchmarks/README.md)

        Starts the test servers (nginx, unbound) and prints each workload's figures beside its peers'.
          --requests N              Requests per keep-alive workload (default 2000).
          --rounds R                Alternating rounds for the keep-alive workloads (default 3).
          --memory-requests N       Requests of the memory workload (default 100000).
          --memory-version h1|h2    HTTP version of the memory workload (default h2).
          --lookups N               Cached lookups per round (default 300000).
          --busy-core               Measure each keep-alive comparison again beside a process spinning
                                    on one core (not pinned), and print both in the closing table.
          --busy-core-cpu N         The same with the spinner pinned to CPU N.
          --no-urlsession           Skip the URLSession peer.
          --no-memory               Skip the memory workload.
          --memory-only             Only the memory workload.
          --keep-alive-only         Only the sequential and 16-concurrent comparisons.
          --resolver-only           Only the resolver workloads (cached lookups, DoH beside dnspython,
                                    cold start beside curl --doh-url; needs python3-venv and PyPI).
          --cache-only              Only the cached lookups.
          --dnssec-only             Only the DNSSEC workloads: cold and cached lookups of the signed
                                    test zones, validated and not (also part of --resolver-only).
          --profile-resolver cached|cached-off|distinct|distinct-file|fill|immediate
                                    One resolver workload alone, for perf record: --lookups cached
                                    lookups (1 task), or 1,000 new names without or with a cache
                                    file, --rounds times; fill writes a cache file of 10,000 names
                                    that immediate loads for --lookups resolveImmediately hits on
                                    one thread (no task: it runs under valgrind --tool=callgrind).
          --profile h1|h2           Only this library's sequential loop (for perf record).
          --on-executor             With --profile or --profile-concurrent: callers on the client's
                                    executor.
          --profile-concurrent h1|h2
                                    Only this library's 16-concurrent loop (for perf record).
          --profile-raw h1|h2       Only the reused blocking easy handle's sequential loop.
          --profile-raw-concurrent h1|h2
                                    Only the raw libcurl 16-concurrent loop (for perf record beside
                                    --profile-concurrent).
          -h, --help                This help.

        HTTPDNS_TEST_SERVERS_DIR=DIR uses the servers `scripts/test-servers.sh start DIR` started instead
        of starting its own (under valgrind, which cannot start them; scripts/bench-instructions.sh).
        """

    private static let valued: Set<String> = [
        "--requests", "--rounds", "--memory-requests", "--memory-version", "--lookups", "--profile", "--profile-concurrent", "--profile-raw-concurrent", "--profile-raw", "--busy-core-cpu",
        "--profile-resolver"
    ]
    private static let flags: Set<String> = ["--busy-core", "--keep-alive-only", "--no-urlsession", "--no-memory", "--memory-only", "--resolver-only", "--cache-only", "--dnssec-only", "--on-executor"]

    /// nil when the arguments are fine; "" for --help; else what is wrong.
    static func check(_ arguments: [String]) -> String? {
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "-h" || argument == "--help" { return "" }
            if flags.contains(argument) { index += 1; continue }
            guard valued.contains(argument) else { return "unknown option '\(argument)'" }
            guard index + 1 < arguments.count else { return "\(argument) needs a value" }
            let value = arguments[index + 1]
            switch argument {
            case "--memory-version", "--profile", "--profile-concurrent", "--profile-raw-concurrent", "--profile-raw":
                guard value == "h1" || value == "h2" else { return "\(argument) takes h1 or h2, got '\(value)'" }
            case "--busy-core-cpu":
                guard let cpu = Int(value), (0..<ProcessInfo.processInfo.activeProcessorCount).contains(cpu) else {
                    return "--busy-core-cpu takes a CPU from 0 to \(ProcessInfo.processInfo.activeProcessorCount - 1), got '\(value)'"
                }
            case "--profile-resolver":
                guard ["cached", "cached-off", "distinct", "distinct-file", "fill", "immediate"].contains(value) else {
                    return "--profile-resolver takes cached, cached-off, distinct, distinct-file, fill or immediate, got '\(value)'"
                }
            default:
                guard let number = Int(value), number > 0 else { return "\(argument) needs a positive number, got '\(value)'" }
            }
            index += 2
        }
        return nil
    }
}
