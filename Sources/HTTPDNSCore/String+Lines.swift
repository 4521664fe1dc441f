extension StringProtocol {
    /// The text's lines, split at each LF or CRLF (files written on Windows), the break dropped;
    /// empty lines kept, and an empty last line after a final break. Swift reads CRLF as one
    /// `Character`, so a split at `"\n"` alone would leave such a file one line.
    package var textLines: [SubSequence] {
        split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" }
    }
}
