/// A response to queue: status, headers and a body.
package struct HTTPResponse: Sendable {
    package enum Body: Sendable {
        case bytes([UInt8])
        /// A response built once and queued many times (the manifest of a version); the
        /// response's `headers`, usually none, are added to the prepared ones.
        case prepared(PreparedResponse)
        /// A body written over time (`text/event-stream`).
        case stream(EventStream)
        /// No answer yet: the connection is parked until the request is woken
        /// (``HeldRequest``); status and headers come with the answer, and the
        /// response's `headers` are added to them.
        case held(HeldRequest)
    }

    package var status: Int
    package var headers: [(String, String)]
    package var body: Body
    /// Called once the request is over: its answer sent, or its connection gone. (For a
    /// held request, give it to the answer.)
    package var onCompleted: (@Sendable () -> Void)?
    /// Seconds the client may leave the answer unread before the connection is dropped
    /// (and with it what the answer holds), in place of the daemon's inactivity timeout.
    package var sendTimeoutSeconds: Int?

    package init(status: Int, headers: [(String, String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = .bytes(body)
    }

    /// A prepared response, with `headers` added for this request only (its body is
    /// shared, not copied).
    package init(status: Int, prepared: PreparedResponse, headers: [(String, String)] = []) {
        self.status = status
        self.headers = headers
        self.body = .prepared(prepared)
    }

    package init(status: Int, headers: [(String, String)], stream: EventStream) {
        self.status = status
        self.headers = headers
        self.body = .stream(stream)
    }

    /// Parks the request until `request` is woken; its answer decides status and headers.
    package static func held(_ request: HeldRequest) -> HTTPResponse {
        HTTPResponse(status: 0, headers: [], body: .held(request))
    }

    /// The bytes of a ``Body/bytes(_:)`` body, moved out (the body is left empty): the
    /// caller holds the only reference to the array.
    mutating func takeBytes() -> [UInt8] {
        guard case .bytes(let bytes) = body else { return [] }
        body = .bytes([])
        return bytes
    }

    private init(status: Int, headers: [(String, String)], body: Body) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}
