import CMicroHTTPD
import Dispatch
import ServerSystem
import Synchronization
import SystemSupport

/// Every byte on the clock: a connection waiting for a request's head, or for the rest of a
/// request whose head arrived (its body as framed: chunk-size lines, extensions, data and
/// trailers, which libmicrohttpd reads without telling the handler), or for its client to
/// read an answer, is cut off once its deadline passes. A late head is closed; a late
/// message is answered 408, then closed after a lingering close (``Phase/linger``); an
/// answer not read in time is closed (a slow reader); a kept-alive connection idle past the
/// head's deadline is closed and not counted as a refusal. Checked once a second by a timer of its own; a request only stores its
/// deadline (``Watch``) and clears it, lock-free.
final class RequestDeadlines: Sendable {
    /// What a connection is waiting for.
    enum Phase: UInt8, Sendable {
        /// A request's head (from the connection's start, or the end of its previous request).
        case head
        /// The rest of a request whose head arrived (from its request line).
        case message
        /// The client reading an answer (from the answer queued); held polls and event
        /// streams are not on this clock.
        case answer
        /// The next request on a kept-alive connection (from the end of the previous one):
        /// closed at the head's deadline, as an idle connection, not a refusal.
        case idle
        /// A lingering close: an answer was written straight to the socket before the
        /// request's body was read, and its sending side shut. What the client still sends
        /// is read and dropped (so that its unread bytes do not reset the connection and
        /// lose the answer) until ``RequestDeadlines/linger`` has passed; then both sides
        /// are shut, not counted again.
        case linger
    }

    /// One connection's socket, its deadline (0: none pending) and what it waits for.
    final class Watch: Sendable {
        let fd: Int32
        /// The connection's peer, named when it is cut.
        let peer: IPAddress
        let deadline = Atomic<UInt64>(0)
        let phase = Atomic<UInt8>(Phase.head.rawValue)
        /// A final answer was written straight to the socket (a refusal before the body was
        /// read, or a 408 by a sweep): counted already, so never also as libmicrohttpd's
        /// refusal; what the client still sends is dropped, and the connection closes when
        /// the request ends. Never cleared: the connection does not outlive it.
        let lingering = Atomic<Bool>(false)
        /// Cut by a sweep at its head's or answer's deadline: counted already, so never
        /// also as libmicrohttpd's refusal when the request ends in error.
        let cut = Atomic<Bool>(false)
        init(fd: Int32, peer: IPAddress) {
            self.fd = fd
            self.peer = peer
        }

        func wait(for phase: Phase, until deadline: UInt64) {
            self.phase.store(phase.rawValue, ordering: .relaxed)
            self.deadline.store(deadline, ordering: .relaxed)
        }

        /// Nothing is awaited from the client: the request is being answered.
        func clear() { deadline.store(0, ordering: .relaxed) }

        /// Writes a final answer straight to the socket, shuts its sending side, and starts
        /// the lingering close that lets a client still sending read it.
        func answerAndLinger(status: Int, title: String, body: [UInt8], lingerNanoseconds: UInt64) {
            lingering.store(true, ordering: .relaxed)
            _ = body.withUnsafeBytes { bytes in
                sb_write_final_answer(fd, "\(status) \(title)", "application/problem+json",
                                      bytes.baseAddress?.assumingMemoryBound(to: CChar.self), bytes.count)
            }
            wait(for: .linger, until: monotonicNanoseconds() &+ lingerNanoseconds)
        }
    }

    /// Nanoseconds a head may take.
    let head: UInt64
    /// Nanoseconds a whole request may take from its request line.
    let message: UInt64
    /// Nanoseconds a client may take to read an answer, from its queueing.
    let answer: UInt64
    /// Nanoseconds a lingering close reads and drops what a refused client still sends:
    /// 5 s, none once the daemon stops (``hurry(within:)``), which it must not wait for.
    var linger: UInt64 { hurrying.load(ordering: .relaxed) ? 0 : 5_000_000_000 }
    private let hurrying = Atomic<Bool>(false)
    /// Bytes a lingering close reads and drops at most, before it closes.
    static let lingerBytes = 16 << 20
    /// Told of each connection cut, with its peer, on the timer's thread.
    private let onCut: (@Sendable (Phase, IPAddress) -> Void)?
    private let watched = Locked<[ObjectIdentifier: Watch]>([:])
    /// Dispatch sources are thread-safe.
    nonisolated(unsafe) private let timer: DispatchSourceTimer

    init(headSeconds: Int, messageSeconds: Int, answerSeconds: Int, onCut: (@Sendable (Phase, IPAddress) -> Void)? = nil) {
        head = UInt64(max(1, headSeconds)) * 1_000_000_000
        message = UInt64(max(1, messageSeconds)) * 1_000_000_000
        answer = UInt64(max(1, answerSeconds)) * 1_000_000_000
        self.onCut = onCut
        timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "microhttpd.request-deadlines"))
        timer.schedule(deadline: .now() + 1, repeating: 1, leeway: .milliseconds(200))
        timer.setEventHandler { [weak self] in self?.sweep() }
        timer.resume()
    }

    func stop() { timer.cancel() }

    deinit { timer.cancel() }

    /// A connection opens: its first head is due within the deadline.
    func opened(_ watch: Watch) {
        watch.wait(for: .head, until: monotonicNanoseconds() &+ head)
        watched.withLock { $0[ObjectIdentifier(watch)] = watch }
    }

    /// A connection closes: forgotten before libmicrohttpd closes its socket, under the
    /// lock a sweep cuts sockets off under, so a sweep never touches a reused descriptor.
    func closed(_ watch: Watch) {
        watched.withLock { _ = $0.removeValue(forKey: ObjectIdentifier(watch)) }
    }

    /// The daemon stops: a request still arriving gets at most `seconds` more, so that a
    /// client trickling its body does not hold the stop for the whole grace period.
    func hurry(within seconds: Int) {
        hurrying.store(true, ordering: .relaxed)
        let now = monotonicNanoseconds(), latest = now &+ UInt64(seconds) * 1_000_000_000
        watched.withLock { all in
            for watch in all.values {
                let phase = watch.phase.load(ordering: .relaxed), deadline = watch.deadline.load(ordering: .relaxed)
                if phase == Phase.message.rawValue && deadline > latest { watch.deadline.store(latest, ordering: .relaxed) }
                // A lingering close ends at the next sweep.
                if phase == Phase.linger.rawValue && deadline > now { watch.deadline.store(now, ordering: .relaxed) }
            }
        }
    }

    private static let lateBody = Array(#"{"type":"about:blank","title":"Request Timeout","status":408,"detail":"the request did not arrive whole within its deadline"}"#.utf8)

    private func sweep() {
        let now = monotonicNanoseconds()
        var cut: [(Phase, IPAddress)] = []
        watched.withLock { all in
            for watch in all.values {
                let deadline = watch.deadline.load(ordering: .relaxed)
                guard deadline != 0, deadline < now else { continue }
                watch.deadline.store(0, ordering: .relaxed)
                let phase = Phase(rawValue: watch.phase.load(ordering: .relaxed)) ?? .head
                if phase == .message {
                    // Answered, then read and dropped until the linger passes.
                    watch.answerAndLinger(status: 408, title: "Request Timeout", body: Self.lateBody, lingerNanoseconds: linger)
                    if linger == 0 { shutdown(watch.fd, Int32(SHUT_RDWR)) }
                } else {
                    watch.cut.store(true, ordering: .relaxed)
                    shutdown(watch.fd, Int32(SHUT_RDWR))
                }
                if phase != .idle && phase != .linger { cut.append((phase, watch.peer)) }
            }
        }
        if let onCut { for (phase, peer) in cut { onCut(phase, peer) } }
    }
}
