import CMicroHTTPD
import SystemSupport

/// A response body written over time, for as long as the client stays (Server-Sent
/// Events): a handler answers `HTTPResponse(status: 200, headers: ..., stream: stream)`,
/// then anyone may ``send(_:)`` bytes from any thread. The body goes out chunked; while
/// nothing is waiting to be sent the connection is parked (suspended in libmicrohttpd,
/// no thread), and a send resumes it.
///
/// Memory is bounded per stream: a reader that falls more than `limit` bytes behind (it
/// stopped reading, and the kernel's socket buffers are full) has its stream ended and its
/// connection closed. ``finish()`` ends the stream cleanly (the closing chunk).
///
/// ```swift
/// let stream = EventStream(initial: Array("retry: 3000\n\n".utf8)) { subscribers.remove(id) }
/// subscribers.add(id, stream)
/// return HTTPResponse(status: 200, headers: [("Content-Type", "text/event-stream")], stream: stream)
/// ```
package final class EventStream: Sendable {
    /// Bytes sent and not yet taken by the connection beyond which the stream is ended.
    package let limit: Int
    private let onClose: @Sendable () -> Void

    private struct State: Sendable {
        var pending: [UInt8]
        var offset = 0
        /// Its connection, from when its response is made.
        var connection: ConnectionHandle?
        var parked = false
        var end: End?
        var closed = false
        /// The daemon's open streams, which hold this one until it is released.
        var registry: OpenStreams?
    }

    private enum End: Sendable { case finished, overflowed }

    private let state: Locked<State>

    /// A stream that starts with `initial`; `onClose` runs once, on any thread, when the
    /// connection is done with it (client gone, ended, overflowed, daemon stopped).
    package init(initial: [UInt8] = [], limit: Int = 64 << 10, onClose: @escaping @Sendable () -> Void = {}) {
        self.limit = limit
        self.onClose = onClose
        self.state = Locked(State(pending: initial))
    }

    /// Queues `bytes` for the client. Returns false when the stream has ended, or when
    /// the client is more than ``limit`` bytes behind (the stream then ends, and the
    /// connection is closed).
    @discardableResult
    package func send(_ bytes: [UInt8]) -> Bool {
        var open = false
        let resume = state.withLock { s -> PendingResume? in
            guard s.end == nil, !s.closed else { return nil }
            if s.pending.count - s.offset + bytes.count > limit {
                s.end = .overflowed
                s.pending = []
                s.offset = 0
            } else {
                s.pending.append(contentsOf: bytes)
            }
            open = s.end == nil
            return Self.unpark(&s)
        }
        resume?.resume()
        return open
    }

    /// Ends the stream once what was sent has gone out.
    package func finish() {
        let resume = state.withLock { s -> PendingResume? in
            guard s.end == nil else { return nil }
            s.end = .finished
            return Self.unpark(&s)
        }
        resume?.resume()
    }

    /// Whether the client may still receive what is sent.
    package var isOpen: Bool { state.withLock { $0.end == nil && !$0.closed } }

    /// The resume of the connection when it was parked (and is parked no longer),
    /// decided under the stream's lock and made by the caller after it: the connection
    /// stays suspended, and so valid, until then, and only the thread that unparked it
    /// makes it.
    private static func unpark(_ s: inout State) -> PendingResume? {
        guard s.parked, let connection = s.connection, let registry = s.registry else { return nil }
        s.parked = false
        return PendingResume(connection, loop: registry.holdLoop)
    }

    /// A libmicrohttpd response reading from this stream, for `connection`; the caller
    /// queues it, then destroys its reference. Nil when the daemon is stopping.
    func response(for connection: OpaquePointer, headers: [(String, String)], registry: OpenStreams) -> OpaquePointer? {
        guard registry.add(self) else {
            close()
            return nil
        }
        state.withLock { s in
            s.connection = ConnectionHandle(pointer: connection)
            s.registry = registry
        }
        // Released in `streamReleased`, when libmicrohttpd destroys the response (which
        // closes the stream).
        let retained = Unmanaged.passRetained(self)
        guard let response = MHD_create_response_from_callback(UInt64.max, 2048, streamRead, retained.toOpaque(),
                                                                streamReleased) else {
            retained.release()
            close()
            return nil
        }
        guard addHeaders(headers, to: response) else {
            MHD_destroy_response(response)
            return nil
        }
        return response
    }

    /// What the connection takes next: up to `max` bytes, the end, or nothing yet (then
    /// the connection is parked; called on its thread, where suspending is allowed).
    fileprivate func read(into buffer: UnsafeMutablePointer<CChar>, max: Int) -> Int {
        state.withLock { s in
            let available = s.pending.count - s.offset
            if available > 0 {
                let n = min(available, max)
                s.pending.withUnsafeBytes { bytes in
                    UnsafeMutableRawPointer(buffer).copyMemory(from: bytes.baseAddress! + s.offset, byteCount: n)
                }
                s.offset += n
                if s.offset == s.pending.count {
                    s.pending.removeAll(keepingCapacity: s.pending.capacity <= 4096)
                    s.offset = 0
                }
                return n
            }
            switch s.end {
            case .finished?: return -1  // MHD_CONTENT_READER_END_OF_STREAM: the closing chunk
            case .overflowed?: return -2  // MHD_CONTENT_READER_END_WITH_ERROR: close the connection
            case nil:
                // Parked only with its daemon's registry, whose hold loop counts the resume.
                guard let connection = s.connection, s.registry != nil else { return -2 }
                MHD_suspend_connection(connection.pointer)
                s.parked = true
                return 0
            }
        }
    }

    /// The stream is over, or never started (its connection is done with it, or it was
    /// never given one): it leaves its registry and `onClose` runs, once.
    func close() {
        let (first, registry) = state.withLock { s in
            defer { s.closed = true }
            s.pending = []
            return (!s.closed, s.registry)
        }
        guard first else { return }
        registry?.remove(self)
        onClose()
    }
}

/// The content reader of a stream's response (`MHD_ContentReaderCallback`).
private func streamRead(_ cls: UnsafeMutableRawPointer?, _ position: UInt64, _ buffer: UnsafeMutablePointer<CChar>?,
                        _ max: Int) -> Int {
    guard let cls, let buffer else { return -2 }
    return Unmanaged<EventStream>.fromOpaque(cls).takeUnretainedValue().read(into: buffer, max: max)
}

/// The response's free callback: balances the `passRetained` of
/// ``EventStream/response(for:headers:registry:)``.
private func streamReleased(_ cls: UnsafeMutableRawPointer?) {
    guard let cls else { return }
    let stream = Unmanaged<EventStream>.fromOpaque(cls)
    stream.takeUnretainedValue().close()
    stream.release()
}

/// The streams a daemon has open, so that stopping can end them all: libmicrohttpd must
/// not be stopped with a connection suspended.
final class OpenStreams: Sendable {
    private let state = Locked<(open: [ObjectIdentifier: EventStream], stopping: Bool)>(([:], false))
    /// Told of each stream released, toward its heap trim; counts the streams' resumes.
    let holdLoop: HoldLoop

    init(holdLoop: HoldLoop) { self.holdLoop = holdLoop }

    /// Registers a stream being queued; false once the daemon is stopping.
    func add(_ stream: EventStream) -> Bool {
        state.withLock { s in
            guard !s.stopping else { return false }
            s.open[ObjectIdentifier(stream)] = stream
            return true
        }
    }

    func remove(_ stream: EventStream) {
        state.withLock { _ = $0.open.removeValue(forKey: ObjectIdentifier(stream)) }
        holdLoop.noteRelease()
    }

    /// Ends every open stream and refuses new ones.
    func finishAll() {
        let all = state.withLock { s in
            s.stopping = true
            return Array(s.open.values)
        }
        for stream in all { stream.finish() }
    }
}
