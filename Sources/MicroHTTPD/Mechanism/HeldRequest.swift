import CMicroHTTPD
import SystemSupport

/// A request answered later, without a thread: a handler returns it
/// (``HTTPResponse/held(_:)``), the daemon parks the connection
/// (`MHD_suspend_connection`), and the request is answered when someone calls
/// ``wake()``, its deadline passes, its client hangs up, or the daemon stops, whichever
/// comes first. The answer is computed then, on the daemon's thread, by the closure given
/// here, so it reflects the state of that moment, not of the wake-up's. The closure is
/// called exactly once, even when the client left before the answer could be sent
/// (``Wake/clientGone``, its answer dropped).
///
/// ```swift
/// let held = HeldRequest(until: .now + .seconds(30)) { wake in
///     wake == .woken ? newAnswer() : notModified()
/// }
/// waiters.append(held)   // someone calls held.wake() later
/// return .held(held)
/// ```
package final class HeldRequest: Sendable {
    /// Why a held request is being answered.
    package enum Wake: Sendable, Equatable {
        /// ``HeldRequest/wake()`` was called.
        case woken
        /// The deadline passed.
        case timedOut
        /// The client closed its side of the connection.
        case clientGone
        /// The daemon is stopping.
        case stopping
    }

    package let deadline: ContinuousClock.Instant
    let answer: @Sendable (Wake) -> HTTPResponse

    private enum State: Sendable {
        /// Returned by the handler, not parked yet.
        case waiting
        /// Parked: the connection and its registration with the hold loop.
        case parked(ConnectionHandle, id: UInt64, loop: HoldLoop)
        case answering(Wake)
    }

    private let state = Locked(State.waiting)

    package init(until deadline: ContinuousClock.Instant, answer: @escaping @Sendable (Wake) -> HTTPResponse) {
        self.deadline = deadline
        self.answer = answer
    }

    /// Answers the request as soon as its connection's thread can; calls after the first
    /// wake-up (of any kind) do nothing. Safe from any thread, at any time.
    package func wake() { fire(.woken) }

    /// Why it is being answered; nil while it waits.
    var reason: Wake? {
        state.withLock { s in
            if case .answering(let wake) = s { return wake }
            return nil
        }
    }

    /// Parks the connection, from the access handler that returned this request. Returns
    /// false when it was woken before it could be parked (or the loop is stopping): then
    /// the caller answers at once.
    func park(_ connection: OpaquePointer, loop: HoldLoop) -> Bool {
        state.withLock { s in
            guard case .waiting = s else { return false }
            guard let id = loop.add(self, fd: sb_connection_fd(connection)) else {
                s = .answering(.stopping)
                return false
            }
            // Under this request's lock, so a concurrent `fire` waits until the
            // connection really is suspended before it resumes it.
            MHD_suspend_connection(connection)
            s = .parked(ConnectionHandle(pointer: connection), id: id, loop: loop)
            return true
        }
    }

    /// Moves to answering for `wake`, exactly once, and resumes the connection if parked.
    func fire(_ wake: Wake) {
        decide(wake)?.resume()
    }

    /// Moves to answering for `wake`, exactly once. Returns the resume of the connection
    /// when it was parked, decided under this request's lock (so a `stop` that finds the
    /// request answering finds the resume pending).
    func decide(_ wake: Wake) -> PendingResume? {
        state.withLock { s -> PendingResume? in
            switch s {
            case .waiting:
                s = .answering(wake)
                return nil
            case .parked(let connection, let id, let loop):
                s = .answering(wake)
                loop.remove(id)
                return PendingResume(connection, loop: loop)
            case .answering:
                return nil
            }
        }
    }
}
