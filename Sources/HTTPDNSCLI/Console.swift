import Foundation

/// Where a command writes: the body to `output`, messages to `error`. Injected so tests can run
/// commands in-process.
public struct Console: Sendable {
    public var output: @Sendable (Data) -> Void
    public var error: @Sendable (String) -> Void

    public init(output: @escaping @Sendable (Data) -> Void, error: @escaping @Sendable (String) -> Void) {
        self.output = output
        self.error = error
    }

    /// The process's standard output and standard error.
    public static let standard = Console(
        output: { FileHandle.standardOutput.write($0) },
        error: { FileHandle.standardError.write(Data($0.utf8)) })

    func print(_ line: String) { output(Data((line + "\n").utf8)) }
    func note(_ line: String) { error(line + "\n") }
}
