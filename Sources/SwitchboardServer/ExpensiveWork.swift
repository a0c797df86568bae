import Dispatch
import MicroHTTPD
import Synchronization
import SystemSupport

/// What one request may ask of the server (`serve`'s options; docs/http-api.md): the size of a
/// batch and of its answer, and how many expensive requests (batches, `explain=near`,
/// validation) may be in progress at once.
public struct RequestLimits: Sendable, Equatable {
    /// URLs in one `POST /v1/resolve` (`--max-batch-urls`).
    public var batchURLs: Int
    /// URLs in one batch with `explain`, each of whose answers lists every route tried
    /// (`--max-explained-batch-urls`).
    public var explainedBatchURLs: Int
    /// Bytes of a batch's answer; past them, 413 (`--max-batch-response-bytes`).
    public var batchResponseBytes: Int
    /// Expensive requests at once, queued or running, until their answer is sent; past
    /// them, 503 with `Retry-After` (`--max-expensive-requests`).
    public var expensiveRequests: Int
    /// How long one may wait and run before it is answered 503.
    public var expensiveSeconds: Int
    /// How long an event stream lives; it then ends, and its `retry:` (2 to 5 s, random
    /// per connection) brings the client back (`--max-stream-seconds`).
    public var streamSeconds: Int

    public init(batchURLs: Int = 10_000, explainedBatchURLs: Int = 1_000, batchResponseBytes: Int = 8 << 20,
                expensiveRequests: Int = 4, expensiveSeconds: Int = 30, streamSeconds: Int = 3600) {
        self.batchURLs = batchURLs
        self.explainedBatchURLs = explainedBatchURLs
        self.batchResponseBytes = batchResponseBytes
        self.expensiveRequests = expensiveRequests
        self.expensiveSeconds = expensiveSeconds
        self.streamSeconds = streamSeconds
    }
}

/// Where requests whose cost grows with what they ask run: batches (`POST /v1/resolve`),
/// `explain=near` and `POST /v1/validate`. One at a time, on a thread of their own, their
/// connection parked meanwhile (a ``HeldRequest``): the daemon's threads stay free for
/// the cheap requests of everyone else. At most ``RequestLimits/expensiveRequests`` are taken
/// at once, from their start until their answer has been sent (or their client left), so
/// that what their answers hold in memory is bounded too; past it the answer is 503 with
/// `Retry-After`. A client that leaves stops its work: the hold loop sees the socket
/// close, and the work checks between items.
final class ExpensiveWork: Sendable {
    /// Whether the client still wants the answer: checked by the work between items.
    final class Job: Sendable {
        private let cancelled = Atomic(false)
        /// Whether its place among ``RequestLimits/expensiveRequests`` was given back.
        fileprivate let released = Atomic(false)
        fileprivate let result = Locked<(HTTPResponse, OutcomeCounts)?>(nil)
        /// Signalled once the work has run (or was skipped).
        fileprivate let done = DispatchSemaphore(value: 0)
        var isCancelled: Bool { cancelled.load(ordering: .relaxed) }
        fileprivate func cancel() { cancelled.store(true, ordering: .relaxed) }
    }

    let limits: RequestLimits
    private let taken = Atomic(0)
    private let queue = DispatchQueue(label: "switchboard.expensive")

    init(limits: RequestLimits) { self.limits = limits }

    /// Seconds a stop waits for work in progress (a server's default grace period).
    static let stopWait = 10

    /// Requests taken now (queued, running or being sent).
    var inProgress: Int { taken.load(ordering: .relaxed) }

    /// Runs `work` off the daemon's threads and answers with what it returns; `answered`
    /// is told the response and its outcomes when it goes out (not when the client left
    /// first). A 503 at once when ``RequestLimits/expensiveRequests`` are taken.
    func run(_ work: @escaping @Sendable (Job) -> (HTTPResponse, OutcomeCounts),
             answered: @escaping @Sendable (HTTPResponse, OutcomeCounts) -> Void) -> (HTTPResponse, OutcomeCounts) {
        let (before, _) = taken.wrappingAdd(1, ordering: .relaxed)
        guard before < limits.expensiveRequests else {
            taken.wrappingSubtract(1, ordering: .relaxed)
            return (Problem.unavailable("\(limits.expensiveRequests) batch, explain=near or validate requests are in progress; retry in a second",
                                        retryAfter: 1).response, .none)
        }
        let job = Job()
        let release: @Sendable () -> Void = { [self] in
            if !job.released.exchange(true, ordering: .relaxed) { taken.wrappingSubtract(1, ordering: .relaxed) }
        }
        let seconds = limits.expensiveSeconds
        let held = HeldRequest(until: .now + .seconds(seconds)) { wake in
            // A stop lets work in progress finish, as it lets requests in flight finish.
            if wake == .stopping { _ = job.done.wait(timeout: .now() + .seconds(Self.stopWait)) }
            let result = wake == .woken || wake == .stopping ? job.result.withLock({ $0 }) : nil
            guard let (response, outcomes) = result else {
                job.cancel()
                release()
                let refused = Problem.unavailable(wake == .stopping ? "the server is stopping" : "the request took longer than \(seconds) seconds",
                                                  retryAfter: 1).response
                if wake != .clientGone { answered(refused, .none) }
                return refused
            }
            answered(response, outcomes)
            var answer = response
            answer.onCompleted = release
            return answer
        }
        queue.async {
            defer { job.done.signal() }
            guard !job.isCancelled else { return }
            let outcome = work(job)
            job.result.withLock { $0 = outcome }
            held.wake()
        }
        return (.held(held), .none)
    }
}
