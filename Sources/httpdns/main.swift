import Foundation
import HTTPDNSCLI

// First, before anything opens a file: a descriptor 0, 1 or 2 the shell closed (`>&-`) must not be
// reused by a socket or file the body would then be written into.
Console.occupyClosedStandardDescriptors()
// A closed stdout must be an error the tool reports (exit 23, as curl), not a silent SIGPIPE death.
signal(SIGPIPE, SIG_IGN)
// The arguments' bytes, not `CommandLine.arguments`, which replaces invalid UTF-8 with U+FFFD: a
// body given inline (`--data-binary $'\xff'`) is sent byte for byte, as curl sends it.
let arguments = (1..<Int(CommandLine.argc)).map { index in
    CommandLine.unsafeArgv[index].map { Array(UnsafeRawBufferPointer(start: $0, count: strlen($0))) } ?? []
}
// The command runs on the concurrency pool and exits from there as soon as it returns: its output
// is written by then (write(2), no buffer) and an -o file renamed into place. Top-level `await`
// would resume on the main actor first, whose queue Linux drains on a thread made for it, which
// cost a thread start and a scheduling delay (1-10 ms) between the last byte and the exit.
Task.detached {
    exit(await HTTPDNSTool.run(rawArguments: arguments))
}
dispatchMain()
