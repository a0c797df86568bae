import CMicroHTTPD
import Synchronization

#if canImport(Glibc)
import Glibc
import SystemSupport
#endif

/// The daemon's one thread for parked requests: it answers each at its deadline, and at
/// once when its client hangs up. A parked connection is out of libmicrohttpd's event
/// loop ("while a connection is suspended, MHD will not detect disconnects"), so its
/// socket goes into an epoll set of this loop's, watched for the peer's close only
/// (`EPOLLRDHUP`; a pipelined request does not wake it): a poller that gives up frees its
/// descriptor at once instead of at the end of its wait.
///
/// It also counts the connections' states let go (requests answered, streams closed): a
/// burst of them (a reload wakes thousands) frees their memory pools as their clients go,
/// and ``HTTPDaemon/Configuration/onReleases`` is told of every thousand, for whoever
/// hands free heap pages back to the kernel.
final class HoldLoop: Sendable {
    private struct State: Sendable {
        var held: [UInt64: HeldRequest] = [:]
        var deadlines = DeadlineHeap()
        var nextID: UInt64 = 1
        var stopping = false
        /// When the thread's current `epoll_wait` returns at the latest.
        var sleepsUntil: ContinuousClock.Instant?
        /// Requests answered and streams closed since `onReleases` was last told.
        var released = 0
    }

    /// Releases between two calls of `onReleases`.
    static let releasesPerSignal = 1000
    /// Told of every ``releasesPerSignal`` releases.
    private let onReleases: (@Sendable () -> Void)?

    private let state = Locked(State())
    private let epoll: Int32
    /// An eventfd in the epoll set (data 0) that wakes the thread early.
    private let wakeup: Int32

    init?(onReleases: (@Sendable () -> Void)? = nil) {
        self.onReleases = onReleases
        epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        wakeup = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        // On any failure from here, `deinit` closes what was opened (every stored
        // property is set), and nothing else does.
        guard epoll >= 0, wakeup >= 0 else { return nil }
        var event = epoll_event()
        event.events = EPOLLIN.rawValue
        event.data.u64 = 0
        guard epoll_ctl(epoll, EPOLL_CTL_ADD, wakeup, &event) == 0 else { return nil }
        // Retained for the thread; released by the thread as it exits (`run`).
        let retained = Unmanaged.passRetained(self)
        var thread = pthread_t()
        guard pthread_create(&thread, nil, { argument in
            guard let argument else { return nil }
            let loop = Unmanaged<HoldLoop>.fromOpaque(argument)
            loop.takeUnretainedValue().run()
            loop.release()
            return nil
        }, retained.toOpaque()) == 0 else {
            retained.release()
            return nil
        }
        pthread_detach(thread)
    }

    deinit {
        if epoll >= 0 { close(epoll) }
        if wakeup >= 0 { close(wakeup) }
    }

    /// Requests parked now.
    var count: Int { state.withLock { $0.held.count } }

    /// Resumes decided and not yet made (``PendingResume``), of held requests and streams
    /// alike, so that a stop can wait for those it found decided.
    private let resumesPending = Atomic<Int>(0)

    /// Counts a ``PendingResume`` as it is made.
    func resumeDecided() {
        resumesPending.wrappingAdd(1, ordering: .relaxed)
    }

    /// Uncounts a ``PendingResume`` once its connection is resumed.
    func resumeMade() {
        resumesPending.wrappingSubtract(1, ordering: .releasing)
    }

    /// Waits until every resume decided has been made, or `bound` passes; returns how many
    /// were still pending then. libmicrohttpd aborts the process when stopped with a
    /// connection suspended and not resumed, and a thread that decided a resume (a
    /// wake-up, a deadline, a stream's send) may not have made it yet when `stop` finds
    /// the request answering or the stream unparked.
    func waitForResumes(within bound: Duration) -> Int {
        let clock = ContinuousClock()
        let deadline = clock.now + bound
        while true {
            let pending = resumesPending.load(ordering: .acquiring)
            if pending <= 0 || clock.now >= deadline { return max(0, pending) }
            sched_yield()
        }
    }

    /// Registers a request being parked on socket `fd`; nil once the loop is stopping.
    func add(_ request: HeldRequest, fd: Int32) -> UInt64? {
        let registered: (id: UInt64, wake: Bool)? = state.withLock { s in
            guard !s.stopping else { return nil }
            let id = s.nextID
            s.nextID += 1
            s.held[id] = request
            s.deadlines.insert(request.deadline, id)
            // Woken requests leave their deadline behind; rebuild before those outnumber the live.
            if s.deadlines.count > 2 * s.held.count + 1024 {
                let live = s.held
                s.deadlines.keep { live[$0] != nil }
            }
            let wake = s.sleepsUntil.map { request.deadline < $0 } ?? true
            if wake { s.sleepsUntil = request.deadline }
            return (id, wake)
        }
        guard let (id, wake) = registered else { return nil }
        if fd >= 0 {
            // One-shot, and never removed on the wake-up path (a syscall saved per request
            // woken): closing the socket takes it out of the set; a connection kept alive
            // keeps a disarmed entry whose id is stale, re-armed with a new id (MOD) when
            // its next request is parked, and ignored if it fires before. The peer's
            // hang-up shows whatever it sent after the held request, unread.
            var event = epoll_event()
            event.events = EPOLLRDHUP.rawValue | EPOLLONESHOT.rawValue
            event.data.u64 = id
            if epoll_ctl(epoll, EPOLL_CTL_ADD, fd, &event) != 0 && errno == EEXIST {
                _ = epoll_ctl(epoll, EPOLL_CTL_MOD, fd, &event)
            }
        }
        if wake { signal() }
        return id
    }

    /// Forgets a request that is being answered.
    func remove(_ id: UInt64) {
        noteRelease { _ = $0.held.removeValue(forKey: id) }
    }

    /// Counts a connection's state let go (an event stream closed).
    func noteRelease() { noteRelease { _ in } }

    private func noteRelease(_ body: (inout State) -> Void) {
        let burst = state.withLock { s -> Bool in
            body(&s)
            s.released += 1
            guard s.released >= Self.releasesPerSignal else { return false }
            s.released = 0
            return true
        }
        if burst { onReleases?() }
    }

    /// Answers every parked request (`.stopping`), refuses new ones, and ends the thread.
    func stop() {
        let all = state.withLock { s in
            s.stopping = true
            return Array(s.held.values)
        }
        for request in all { request.fire(.stopping) }
        signal()
    }

    private func signal() {
        var one: UInt64 = 1
        _ = write(wakeup, &one, 8)
    }

    private func run() {
        var events = [epoll_event](repeating: epoll_event(), count: 64)
        let clock = ContinuousClock()
        while true {
            let timeout: Int32? = state.withLock { s in
                if s.stopping { return nil }
                guard let next = s.deadlines.first?.deadline else {
                    s.sleepsUntil = nil
                    return -1
                }
                s.sleepsUntil = next
                let ms = (next - clock.now) / .milliseconds(1)
                return Int32(max(0, min(ms.rounded(.up), 60_000)))
            }
            guard let timeout else { break }
            let n = epoll_wait(epoll, &events, Int32(events.count), timeout)
            var gone: [HeldRequest] = []
            for i in 0..<max(0, Int(n)) {
                let id = events[i].data.u64
                if id == 0 {
                    var value: UInt64 = 0
                    _ = read(wakeup, &value, 8)
                } else if let request = state.withLock({ $0.held[id] }) {
                    gone.append(request)
                }
            }
            for request in gone { request.fire(.clientGone) }
            let now = clock.now
            let expired: [HeldRequest] = state.withLock { s in
                var due: [HeldRequest] = []
                while let first = s.deadlines.first, first.deadline <= now {
                    s.deadlines.removeFirst()
                    if let request = s.held[first.id] { due.append(request) }
                }
                return due
            }
            for request in expired { request.fire(.timedOut) }
        }
    }
}

/// Deadlines in a binary min-heap, each with the id of its request.
struct DeadlineHeap: Sendable {
    private var items: [(deadline: ContinuousClock.Instant, id: UInt64)] = []

    var count: Int { items.count }
    var first: (deadline: ContinuousClock.Instant, id: UInt64)? { items.first }

    mutating func insert(_ deadline: ContinuousClock.Instant, _ id: UInt64) {
        items.append((deadline, id))
        var child = items.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard items[child].deadline < items[parent].deadline else { break }
            items.swapAt(child, parent)
            child = parent
        }
    }

    mutating func removeFirst() {
        guard !items.isEmpty else { return }
        items.swapAt(0, items.count - 1)
        items.removeLast()
        siftDown(0)
    }

    /// Keeps the entries whose id passes `isLive`, in heap order again.
    mutating func keep(_ isLive: (UInt64) -> Bool) {
        items.removeAll { !isLive($0.id) }
        for i in stride(from: items.count / 2 - 1, through: 0, by: -1) { siftDown(i) }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < items.count, items[left].deadline < items[smallest].deadline { smallest = left }
            if right < items.count, items[right].deadline < items[smallest].deadline { smallest = right }
            if smallest == parent { return }
            items.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
