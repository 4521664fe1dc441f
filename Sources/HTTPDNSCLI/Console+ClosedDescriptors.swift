import Foundation
import HTTPDNSCore
#if canImport(Glibc)
    import Glibc
#endif

extension Console {
    /// Puts a placeholder on each of descriptors 0, 1 and 2 the process was started without
    /// (`>&-`, `<&-`), before anything else is opened. Otherwise the next file, socket or eventfd
    /// opened takes the number, and the body meant for standard output is written into it (an
    /// eventfd refuses it with a baffling "Invalid argument"; a socket would carry it).
    ///
    /// The placeholder is the end of a fresh pipe that cannot do what the descriptor is for (the
    /// read end for 1 and 2, the write end for 0), so using it fails with `EBADF`, which
    /// `Console.standard` reports as a closed stream, and no path names it (an `-o` path is never
    /// taken for standard output because of it). A path that reaches it anyway (`/dev/stdin`,
    /// `/dev/fd/0`) is refused by `FileContents` as the closed stream, since reading it never ends.
    public static func occupyClosedStandardDescriptors() {
        for fd in Int32(0)...2 where fcntl(fd, F_GETFD) == -1 && errno == EBADF {
            var ends: [Int32] = [-1, -1]
            guard pipe(&ends) == 0 else { continue }
            // pipe(2) takes the lowest free numbers, so either end may already be `fd`.
            let placeholder = fd == 0 ? ends[1] : ends[0]
            let other = fd == 0 ? ends[0] : ends[1]
            if placeholder != fd {
                _ = dup2(placeholder, fd)
                close(placeholder)
            }
            if other != fd { close(other) }
            // A path to the placeholder (`/dev/stdin`) is refused as the closed stream, not read.
            FileContents.noteClosedStandardDescriptor(fd)
        }
    }
}
