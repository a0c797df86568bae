import Dispatch
import Foundation
import MicroHTTPD
import ServerSystem
import SystemSupport

/// Runs the store's reloads one at a time on a thread of its own, off the request path,
/// and coalesces bursts of change events (an editor's save is several) into one. It is
/// also where the server hands freed heap pages back to the kernel, the one place.
///
/// A thread of its own rather than a dispatch queue's pool, for the allocator: glibc
/// gives each thread an arena, and only a thread can trim its arena's free top. Every
/// manifest after the first is built in this thread's arena (but for the half of a large
/// table that `concurrently` decodes on a dispatch worker, whose arena's top shrinks as
/// that half's large arrays are freed under the fixed trim threshold), so its memory goes
/// back there when it is replaced, and the thread trims it after each reload and once more
/// a second later (a manifest may outlive the swap by a held poll's answer). A burst of
/// connections let go (a reload's thousands of held polls answered, streams closed: the
/// daemon's `onReleases`) is trimmed a second after it too.
final class Reloader: Sendable {
    let store: ManifestStore
    /// Where change events arrive (the watcher's queue) and delayed work waits.
    let queue = DispatchQueue(label: "switchboard.reload")
    private let pending = Locked(false)
    /// Whether a trim is already due a second from now.
    private let trimPending = Locked(false)
    private let thread = SerialThread(name: "switchboard-reload")

    static let trimAgainAfter = DispatchTimeInterval.seconds(1)

    init(store: ManifestStore) { self.store = store }

    /// Reloads soon, once for any number of calls in the next few milliseconds.
    func schedule() {
        guard pending.withLock({ p in defer { p = true }; return !p }) else { return }
        queue.asyncAfter(deadline: .now() + .milliseconds(30)) { [self] in
            pending.withLock { $0 = false }
            thread.run { _ = self.reloadAndTrim() }
        }
    }

    /// Reloads now and returns what happened.
    func reloadNow() -> ManifestStore.ReloadOutcome {
        let outcome = Locked<ManifestStore.ReloadOutcome?>(nil)
        let done = DispatchSemaphore(value: 0)
        let queued = thread.run { [self] in
            outcome.withLock { $0 = reloadAndTrim() }
            done.signal()
        }
        guard queued else { return .failed("the server is stopping") }
        done.wait()
        return outcome.withLock { $0 } ?? .unchanged
    }

    /// Ends the thread once the reloads queued have run.
    func stop() { thread.stop() }

    /// A reload frees a whole manifest (the old one, or the refused new one).
    private func reloadAndTrim() -> ManifestStore.ReloadOutcome {
        let outcome = store.reload()
        releaseFreedMemory()
        trimSoon()
        return outcome
    }

    /// Trims the heap on this thread a second from now, once for any number of calls
    /// meanwhile.
    func trimSoon() {
        guard trimPending.withLock({ p in defer { p = true }; return !p }) else { return }
        queue.asyncAfter(deadline: .now() + Self.trimAgainAfter) { [thread, trimPending] in
            trimPending.withLock { $0 = false }
            thread.run { releaseFreedMemory() }
        }
    }
}

/// One thread that runs the closures given to it, in order.
final class SerialThread: Sendable {
    private struct State: Sendable {
        var jobs: [@Sendable () -> Void] = []
        var stopped = false
    }
    private let state = Locked(State())
    /// Signalled once per job queued, and once by `stop`.
    private let wake = DispatchSemaphore(value: 0)

    init(name: String) {
        let thread = Thread { [state, wake] in
            while true {
                wake.wait()
                guard let job = state.withLock({ $0.jobs.isEmpty ? nil : $0.jobs.removeFirst() }) else { return }
                job()
            }
        }
        thread.name = name
        thread.start()
    }

    /// Queues `job`; false once stopped (it will not run).
    @discardableResult
    func run(_ job: @escaping @Sendable () -> Void) -> Bool {
        let queued = state.withLock { s in
            guard !s.stopped else { return false }
            s.jobs.append(job)
            return true
        }
        if queued { wake.signal() }
        return queued
    }

    /// The thread ends after the jobs already queued.
    func stop() {
        let first = state.withLock { s in defer { s.stopped = true }; return !s.stopped }
        if first { wake.signal() }
    }

    deinit { stop() }
}
