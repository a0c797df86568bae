import Dispatch
import SystemSupport

/// The reading of the cached or bundled copy at start, which a synchronous `resolve` waits
/// for (blocking its thread) and async code awaits (the update loop, `refresh()`). The
/// thread that reads it wakes both kinds of waiter itself, with no dispatch queue or task
/// in between: a pool can be busy for long under load, and nothing here waits for one.
final class FirstCopy: Sendable {
    private struct Waiters: Sendable {
        var announced = false
        var continuations: [CheckedContinuation<Void, Never>] = []
    }

    private let read = DispatchGroup()
    private let waiters = Locked(Waiters())

    init() { read.enter() }

    /// The copy is in use, or known not to exist: a `resolve` waiting for it goes on.
    func markRead() { read.leave() }

    /// Blocks until `markRead()` (at once after it).
    func waitUntilRead() { read.wait() }

    /// What was found has been announced: async waiters go on.
    func markAnnounced() {
        let waiting = waiters.withLock { w in
            w.announced = true
            defer { w.continuations = [] }
            return w.continuations
        }
        for continuation in waiting { continuation.resume() }
    }

    /// Returns after `markAnnounced()` (at once after it).
    func announced() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = waiters.withLock { w in
                if !w.announced { w.continuations.append(continuation) }
                return w.announced
            }
            if now { continuation.resume() }
        }
    }
}
