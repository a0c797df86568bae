import Dispatch
import MicroHTTPD
import Synchronization
import SystemSupport

/// Where requests whose cost grows with what they ask run: batches (`POST /v1/resolve`),
/// `explain=near`, `explain=1` of a URL longer than 1 KiB and `POST /v1/validate`. One at a time, on a thread of their own, their
/// connection parked meanwhile (a ``HeldRequest``): the daemon's threads stay free for
/// the cheap requests of everyone else. At most ``RequestLimits/expensiveRequests`` are taken
/// at once, from their start until their answer has been sent (or their client left), so
/// that what their answers hold in memory is bounded too; past it the answer is 503 with
/// `Retry-After`; one client block may take half of them, past which it gets 429. A client
/// that leaves stops its work: the hold loop sees the socket close, and the work checks
/// between items.
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

    /// Requests taken, in all and by client block.
    private struct Taken: Sendable {
        var total = 0
        var perBlock: [ClientBlock: Int] = [:]
    }

    let limits: RequestLimits
    private let taken = Locked(Taken())
    private let queue = DispatchQueue(label: "switchboard.expensive")
    /// Told of each refusal: whether the client's share was taken (rather than the server's).
    private let onRefusal: (@Sendable (_ clientShare: Bool) -> Void)?

    init(limits: RequestLimits, onRefusal: (@Sendable (_ clientShare: Bool) -> Void)? = nil) {
        self.limits = limits
        self.onRefusal = onRefusal
    }

    /// Seconds a stop waits for work in progress (a server's default grace period).
    static let stopWait = 10
    /// Seconds an answer may go unread before its connection, and its place, are let go.
    static let sendTimeoutSeconds = 5

    /// Requests taken now (queued, running or being sent).
    var inProgress: Int { taken.withLock { $0.total } }

    /// Runs `work` off the daemon's threads and answers with what it returns; `answered`
    /// is told the response and its outcomes when it goes out (not when the client left
    /// first). A 503 at once when ``RequestLimits/expensiveRequests`` are taken; a 429 when
    /// `client`'s block has taken ``RequestLimits/expensivePerClient``.
    func run(client: ClientBlock, _ work: @escaping @Sendable (Job) -> (HTTPResponse, OutcomeCounts),
             answered: @escaping @Sendable (HTTPResponse, OutcomeCounts) -> Void) -> (HTTPResponse, OutcomeCounts) {
        let limits = self.limits
        let refusal: Problem? = taken.withLock { t in
            if t.total >= limits.expensiveRequests {
                return Problem.unavailable("\(limits.expensiveRequests) batch, explain or validate requests are in progress; retry in a second",
                                           retryAfter: 1)
            }
            let mine = t.perBlock[client, default: 0]
            if mine >= limits.expensivePerClient {
                return Problem.tooManyRequests("this client has \(mine) batch, explain or validate requests in progress, as many as one client may; retry in a second",
                                               retryAfter: 1)
            }
            t.total += 1
            t.perBlock[client] = mine + 1
            return nil
        }
        if let refusal {
            onRefusal?(refusal.status == 429)
            return (refusal.response, .none)
        }
        let job = Job()
        let release: @Sendable () -> Void = { [self] in
            guard !job.released.exchange(true, ordering: .relaxed) else { return }
            taken.withLock { t in
                t.total -= 1
                let mine = t.perBlock[client, default: 1]
                t.perBlock[client] = mine > 1 ? mine - 1 : nil
            }
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
            // An answer its client stops reading gives its place back within seconds, not
            // at the daemon's inactivity timeout.
            answer.sendTimeoutSeconds = Self.sendTimeoutSeconds
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
