#if canImport(Glibc)
    import Glibc
#endif

/// The library's own warnings on the process's standard error (file descriptor 2).
package enum StandardError {
    /// Writes `text` to descriptor 2, whole, ignoring failure: a closed standard error, one open
    /// for reading only, or a pipe whose reader has gone. A warning must neither fail nor end the
    /// process (`FileHandle.standardError.write` traps on any error). SIGPIPE is blocked on the
    /// calling thread for the write, and one the write raised is taken back, so a broken pipe is
    /// EPIPE here rather than a signal that would end a process that does not ignore it.
    package static func write(_ text: String) {
        var pipeSignal = sigset_t()
        sigemptyset(&pipeSignal)
        sigaddset(&pipeSignal, SIGPIPE)
        var previous = sigset_t()
        pthread_sigmask(SIG_BLOCK, &pipeSignal, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        var pending = sigset_t()
        sigpending(&pending)
        // A SIGPIPE pending from elsewhere is left for the process to receive.
        let alreadyPending = sigismember(&pending, SIGPIPE) == 1
        var raisedPipe = false
        let bytes = Array(text.utf8)
        bytes.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return }
            var offset = 0
            while offset < raw.count {
                let written = Glibc.write(2, base + offset, raw.count - offset)
                if written > 0 {
                    offset += written
                } else if written < 0, errno == EINTR {
                    continue
                } else {
                    raisedPipe = errno == EPIPE
                    return
                }
            }
        }
        if raisedPipe, !alreadyPending {
            var now = timespec()
            _ = sigtimedwait(&pipeSignal, nil, &now)
        }
    }
}
