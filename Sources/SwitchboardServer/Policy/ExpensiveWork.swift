import Dispatch
import MicroHTTPD
import Synchronization
import SystemSupport

/// Where requests whose cost grows with what they ask run: batches (`POST /v1/resolve`),
/// `explain=near`, `explain=1` of a URL longer than 1 KiB and `POST /v1/validate`. One at a
/// time, on a thread of their own, their connection parked meanwhile (a ``HeldRequest``):
/// the daemon's threads stay free for the cheap requests of everyone else. At most
/// ``RequestLimits/expensiveRequests`` are taken at once, queued or computing, shared
/// max-min fairly by client block (``FairShares``): a block alone may take all but one
/// (``RequestLimits/expensivePerClient``), past which it gets 429; once all are taken, a
/// block below its fair share still gets one, and the block holding the most gives its
/// newest queued request back, answered 503 with `Retry-After`; else 503. A place is held
/// while its work waits and computes, not while its answer is sent: the answer is kept
/// whole, and a client that does not read it holds only its connection, cut within
/// seconds (``sendTimeoutSeconds``). A client that leaves stops its work: the hold loop sees
/// the socket close, and the work checks between items.
final class ExpensiveWork: Sendable {
    /// Whether the client still wants the answer: checked by the work between items.
    final class Job: Sendable {
        private let cancelled = Atomic(false)
        /// Whether its place among ``RequestLimits/expensiveRequests`` was given back.
        fileprivate let released = Atomic(false)
        /// Whether it was cancelled before it started, its place given to a block below
        /// its share.
        fileprivate let gaveWay = Atomic(false)
        fileprivate let result = Locked<(HTTPResponse, OutcomeCounts)?>(nil)
        /// Signalled once the work has run (or was skipped).
        fileprivate let done = DispatchSemaphore(value: 0)
        var isCancelled: Bool { cancelled.load(ordering: .relaxed) }
        fileprivate func cancel() { cancelled.store(true, ordering: .relaxed) }
    }

    /// Places taken, shared by client block, and each block's requests not yet started
    /// (oldest first), with what answers them.
    private struct Taken: Sendable {
        var shares: FairShares<ClientBlock>
        var queued: [ClientBlock: [(job: Job, held: HeldRequest)]] = [:]

        mutating func started(_ job: Job, of block: ClientBlock) {
            queued[block]?.removeAll { $0.job === job }
            if queued[block]?.isEmpty == true { queued[block] = nil }
        }
    }

    let limits: RequestLimits
    private let taken: Locked<Taken>
    private let queue = DispatchQueue(label: "switchboard.expensive")
    /// Told of each refusal: whose share was taken.
    private let onRefusal: (@Sendable (Refusal) -> Void)?

    /// Why a request was refused, or another gave way.
    enum Refusal: Sendable, Equatable {
        /// The client's block holds all it may (429).
        case client
        /// Every place is taken and no block holds more than its share (503).
        case server
        /// The block holding the most gave its newest queued request back (503).
        case gaveWay
    }

    init(limits: RequestLimits, onRefusal: (@Sendable (Refusal) -> Void)? = nil) {
        self.limits = limits
        self.onRefusal = onRefusal
        taken = Locked(Taken(shares: FairShares(capacity: limits.expensiveRequests, perHolder: limits.expensivePerClient)))
    }

    /// Seconds a stop waits for work in progress (a server's default grace period).
    static let stopWait = 10
    /// Seconds an answer may go unread before its connection is let go.
    static let sendTimeoutSeconds = 5

    /// Requests taken now (queued or running).
    var inProgress: Int { taken.withLock { $0.shares.total } }

    /// Runs `work` off the daemon's threads and answers with what it returns; `answered`
    /// is told the response and its outcomes when it goes out (not when the client left
    /// first). A 503 at once when the places are taken and none can be taken back; a 429
    /// when `client`'s block has taken ``RequestLimits/expensivePerClient``.
    func run(client: ClientBlock, _ work: @escaping @Sendable (Job) -> (HTTPResponse, OutcomeCounts),
             answered: @escaping @Sendable (HTTPResponse, OutcomeCounts) -> Void) -> (HTTPResponse, OutcomeCounts) {
        let limits = self.limits
        let job = Job()
        let release: @Sendable () -> Void = { [self] in
            guard !job.released.exchange(true, ordering: .relaxed) else { return }
            taken.withLock { t in
                t.started(job, of: client)
                t.shares.release(client)
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
                let refused = job.gaveWay.load(ordering: .relaxed)
                    ? Problem.unavailable("this client has more batch, explain or validate requests waiting than its share while others wait; retry in a second",
                                          retryAfter: 1).response
                    : Problem.unavailable(wake == .stopping ? "the server is stopping" : "the request took longer than \(seconds) seconds",
                                          retryAfter: 1).response
                if wake != .clientGone { answered(refused, .none) }
                return refused
            }
            answered(response, outcomes)
            var answer = response
            // An answer its client stops reading lets its connection go within seconds, not
            // at the daemon's inactivity timeout.
            answer.sendTimeoutSeconds = Self.sendTimeoutSeconds
            return answer
        }
        let (verdict, givingWay): (FairShares<ClientBlock>.Verdict, (job: Job, held: HeldRequest)?) = taken.withLock { t in
            let verdict = t.shares.take(client)
            guard case .grantedFrom(let giver) = verdict else {
                if case .granted = verdict { t.queued[client, default: []].append((job, held)) }
                return (verdict, nil)
            }
            // The giver's newest request not yet started gives way; when all of its are
            // computing, nothing can be taken back, and the asker waits like everyone else.
            guard let newest = t.queued[giver]?.popLast() else {
                t.shares.release(client)
                return (.refused(atShare: false), nil)
            }
            if t.queued[giver]?.isEmpty == true { t.queued[giver] = nil }
            t.queued[client, default: []].append((job, held))
            return (verdict, newest)
        }
        if let givingWay {
            givingWay.job.gaveWay.store(true, ordering: .relaxed)
            givingWay.job.cancel()
            givingWay.held.wake()
            onRefusal?(.gaveWay)
        }
        if case .refused(let atShare) = verdict {
            onRefusal?(atShare ? .client : .server)
            if atShare {
                let mine = taken.withLock { $0.shares.places(of: client) }
                return (Problem.tooManyRequests("this client has \(mine) batch, explain or validate requests in progress, as many as one client may; retry in a second",
                                                retryAfter: 1).response, .none)
            }
            return (Problem.unavailable("\(limits.expensiveRequests) batch, explain or validate requests are in progress; retry in a second",
                                        retryAfter: 1).response, .none)
        }
        queue.async {
            defer { job.done.signal() }
            guard !job.isCancelled else { return }
            self.taken.withLock { $0.started(job, of: client) }
            let outcome = work(job)
            job.result.withLock { $0 = outcome }
            // Computed: the place goes to the next request; the answer is kept whole until sent.
            release()
            held.wake()
        }
        return (.held(held), .none)
    }
}
