import CMicroHTTPD

/// A libmicrohttpd connection (`struct MHD_Connection *`) handed between the daemon's
/// threads and the hold loop. Sendable because libmicrohttpd allows a suspended
/// connection to be resumed from any thread, and a suspended connection stays valid
/// until it is resumed; only ``PendingResume`` resumes one.
struct ConnectionHandle: @unchecked Sendable {
    let pointer: OpaquePointer
}

/// A resume decided and not yet made: the one way a parked connection (a held request's,
/// or a stream's waiting for bytes) is resumed, exactly once by construction. It is
/// decided under the lock of the request or stream that was parked, so that a stop that
/// finds it unparked finds the resume counted with its hold loop; it is made when the
/// value is consumed, after that lock is released (``resume()``, or at the end of its
/// scope at the latest), and only then uncounted.
struct PendingResume: ~Copyable, Sendable {
    private let connection: ConnectionHandle
    private let loop: HoldLoop

    init(_ connection: ConnectionHandle, loop: HoldLoop) {
        self.connection = connection
        self.loop = loop
        loop.resumeDecided()
    }

    /// Resumes the connection: the end of this value's life, where ``deinit`` makes it.
    consuming func resume() {}

    deinit {
        MHD_resume_connection(connection.pointer)
        loop.resumeMade()
    }
}
