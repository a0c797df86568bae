/// What one request may ask of the server (`serve`'s options; docs/http-api.md): the size of a
/// batch and of its answer, and how many expensive requests (batches, `explain=near`,
/// `explain=1` of a URL longer than 1 KiB, validation) may be in progress at once.
package struct RequestLimits: Sendable, Equatable {
    /// URLs in one `POST /v1/resolve` (`--max-batch-urls`).
    package var batchURLs: Int
    /// URLs in one batch with `explain`, each of whose answers lists every route tried
    /// (`--max-explained-batch-urls`).
    package var explainedBatchURLs: Int
    /// Bytes of a batch's answer; past them, 413 (`--max-batch-response-bytes`).
    package var batchResponseBytes: Int
    /// Expensive requests at once, queued or computing, shared max-min fairly by client
    /// block; past them, 503 with `Retry-After` (`--max-expensive-requests`).
    package var expensiveRequests: Int
    /// How long one may wait and run before it is answered 503.
    package var expensiveSeconds: Int
    /// Expensive requests one client block may have at once: all but one (at least one),
    /// so that one client never takes them all; past it, 429 with `Retry-After`.
    package var expensivePerClient: Int { max(1, expensiveRequests - 1) }
    /// How long an event stream lives; it then ends, and its `retry:` (2 to 5 s, random
    /// per connection) brings the client back (`--max-stream-seconds`).
    package var streamSeconds: Int
    /// The longest `Prefer: wait` granted to a held poll (`--max-wait`): under the timeout
    /// of every proxy in front (30 s for Google's load balancer, 50 s for HAProxy's Debian
    /// default, 60 s for nginx and ingress-nginx), so a quiet poll ends in 304, never in
    /// the proxy's 504. `Preference-Applied` says what was granted.
    package var maxWaitSeconds: Int
    /// Held polls and event streams at once (`--max-live`), nil for half of the
    /// connections: what sizes a pod's memory (6.4 KiB each parked, about 22 KiB at the
    /// wake-up's peak; docs/operations.md). Past it a poll is answered at once and a
    /// stream gets 503 with `Retry-After`.
    package var maxLive: Int?

    package init(batchURLs: Int = 10_000, explainedBatchURLs: Int = 1_000, batchResponseBytes: Int = 8 << 20,
                expensiveRequests: Int = 4, expensiveSeconds: Int = 30, streamSeconds: Int = 3600, maxWaitSeconds: Int = 25,
                maxLive: Int? = nil) {
        self.batchURLs = batchURLs
        self.explainedBatchURLs = explainedBatchURLs
        self.batchResponseBytes = batchResponseBytes
        self.expensiveRequests = expensiveRequests
        self.expensiveSeconds = expensiveSeconds
        self.streamSeconds = streamSeconds
        self.maxWaitSeconds = maxWaitSeconds
        self.maxLive = maxLive
    }
}
