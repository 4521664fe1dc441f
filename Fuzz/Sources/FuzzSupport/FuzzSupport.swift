import CFuzzerDriver
import Foundation

/// The input handler of this process; set once by `runFuzzer` before libFuzzer starts.
nonisolated(unsafe) private var handler: ([UInt8]) -> Void = { _ in }

/// Runs libFuzzer's loop over `body` and exits with its status.
///
/// SwiftPM renames an executable's `main` (and links `main` to it), so libFuzzer's own `main` is not
/// the entry point: top-level code calls this instead, which hands argv (libFuzzer's flags, corpus
/// directories) to `LLVMFuzzerRunDriver`.
public func runFuzzer(_ body: @escaping ([UInt8]) -> Void) -> Never {
    handler = body
    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    exit(
        LLVMFuzzerRunDriver(&argc, &argv) { data, size in
            handler(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
            return 0
        })
}

/// libFuzzer's usual entry point, for when its own `main` is linked in instead.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    handler(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
    return 0
}

/// Splits fuzzer bytes into a selector byte and the rest, so one target can drive several entry points.
public func split(_ bytes: [UInt8]) -> (selector: UInt8, rest: [UInt8]) {
    guard let first = bytes.first else { return (0, []) }
    return (first, Array(bytes.dropFirst()))
}
