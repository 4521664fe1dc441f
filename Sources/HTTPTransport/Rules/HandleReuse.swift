/// What becomes of a transfer's easy handle when the transfer ends: the one rule behind
/// `EasyHandleCache`, decided from the transfer's facts once it is out of the multi handle.
///
/// libcurl keeps state in an easy handle that `curl_easy_reset` does not clear, and state
/// that only a reset clears (Documentation/LibcurlNotes.md #9):
/// - a handle that waited in a multi handle's pending queue (under CURLMOPT_MAX_HOST_CONNECTIONS,
///   or for a connection to multiplex on with CURLOPT_PIPEWAIT) keeps `state.previouslypending`
///   for good and can starve the oldest waiter: it is cleaned up;
/// - an upload buffer (64 KiB) or a grown header buffer is kept at its size: cleaned up;
/// - the retry count (`state.retrycount`), a 401's authentication offer (`state.authhost.avail`),
///   proxy and URL-credential state are cleared by a reset only: reset.
/// Any other handle keeps the options it holds; the next transfer sets its own over them
/// (`application`).
enum HandleReuse: Equatable, Sendable {
    /// curl_easy_cleanup.
    case cleanUp
    /// curl_easy_reset, then kept.
    case reset
    /// Kept holding its options (the next transfer resets first when its options differ).
    case keepOptions

    /// What the decision depends on.
    struct Facts: Equatable, Sendable {
        /// The pool limits connections per host (CURLMOPT_MAX_HOST_CONNECTIONS) and, during the
        /// transfer, its transfers outnumbered that limit.
        var oversubscribedMeanwhile = false
        /// The transfer could wait to multiplex (CURLOPT_PIPEWAIT), and a connection was being set
        /// up when it started or began to be during it.
        var besideConnectionSetUp = false
        /// It sent a request body.
        var sentBody = false
        /// The response head's size (CURLINFO_HEADER_SIZE), in bytes.
        var headBytes = 0
        /// The handle left the pool's share handle (CURLOPT_SHARE NULL succeeded).
        var leftShare = true
        var succeeded = false
        /// How many times libcurl was about to send the request (CURLOPT_PREREQFUNCTION).
        var sendAttempts = 1
        var viaProxy = false
        var urlCredentials = false
        var cancelled = false
        /// Connections the transfer opened (CURLINFO_NUM_CONNECTS).
        var connectionsOpened = 0
        /// The server or proxy offered authentication (CURLINFO_HTTPAUTH_AVAIL, CURLINFO_PROXYAUTH_AVAIL).
        var authOffered = false
    }

    /// The largest response head whose handle is kept, in bytes (libcurl keeps its header buffer
    /// at the size it grew to).
    static let largestKeptHead = 16 * 1024

    static func decide(_ facts: Facts) -> HandleReuse {
        if facts.oversubscribedMeanwhile || facts.besideConnectionSetUp { return .cleanUp }
        if facts.sentBody || facts.headBytes > largestKeptHead || !facts.leftShare { return .cleanUp }
        let leftNoResetOnlyState =
            facts.succeeded && facts.sendAttempts == 1 && !facts.viaProxy && !facts.urlCredentials
            && !facts.cancelled && facts.connectionsOpened == 0 && !facts.authOffered
        return leftNoResetOnlyState ? .keepOptions : .reset
    }

    /// Whether a handle from the cache, holding a list of options (`heldOptions`, nil: it was
    /// reset), must be reset before a transfer with URL credentials uses it: libcurl authenticates
    /// from state that only a reset clears.
    static func resetsBefore(heldOptions: Bool, urlCredentials: Bool) -> Bool {
        heldOptions && urlCredentials
    }

    /// How a transfer sets its option list on a handle from the cache.
    enum Application: Equatable, Sendable {
        /// The handle holds this very list: only the callbacks are bound to the new transfer.
        case bindOnly
        /// Every entry, over what the handle holds (the same options, or libcurl's defaults).
        case setAll
        /// curl_easy_reset first: the handle holds an option the new list does not set, which
        /// would be left in force.
        case resetThenSetAll
    }

    /// - Parameters:
    ///   - held: the options the handle holds, in the order set (nil: it was reset).
    ///   - sameList: the handle holds the very list the transfer wants (`PreparedOptions` identity).
    ///   - wanted: the options the transfer sets, in order.
    static func application(held: [TransferOptions.Option]?, sameList: Bool, wanted: [TransferOptions.Option]) -> Application {
        guard let held else { return .setAll }
        if sameList { return .bindOnly }
        return held == wanted ? .setAll : .resetThenSetAll
    }
}
