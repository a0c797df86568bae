/// A request as the handler sees it: copied out of libmicrohttpd, valid after the
/// callback returns.
public struct HTTPRequest: Sendable {
    /// `GET`, `HEAD`, `POST`, ... as sent.
    public let method: String
    /// The raw request target (`/v1/resolve?url=...`), not decoded.
    public let target: [UInt8]
    /// The body (empty when none), at most ``HTTPDaemon/Configuration/maxBodySize``.
    public let body: [UInt8]
    /// Values of the headers named in ``HTTPDaemon/Configuration/requestHeaders``,
    /// in that order.
    let headerValues: [String?]
    let headerNames: [String]

    init(method: String, target: [UInt8], body: [UInt8], headerNames: [String], headerValues: [String?]) {
        self.method = method
        self.target = target
        self.body = body
        self.headerNames = headerNames
        self.headerValues = headerValues
    }

    /// The value of a header listed in the daemon's configuration (case-insensitive).
    public func header(_ name: String) -> String? {
        for (k, n) in headerNames.enumerated() where Self.equalsIgnoringASCIICase(n, name) { return headerValues[k] }
        return nil
    }

    /// Header names compare ASCII letters without case (RFC 9110 5.1), and without
    /// building a lowercased copy per lookup.
    static func equalsIgnoringASCIICase(_ a: String, _ b: String) -> Bool {
        let x = a.utf8.span, y = b.utf8.span
        guard x.count == y.count else { return false }
        for i in 0..<x.count where x[i] != y[i] {
            let lower = x[i] | 0x20
            guard lower == y[i] | 0x20, lower >= UInt8(ascii: "a"), lower <= UInt8(ascii: "z") else { return false }
        }
        return true
    }

    /// The path part of the target, before `?`.
    public var path: ArraySlice<UInt8> {
        target[..<(target.firstIndex(of: UInt8(ascii: "?")) ?? target.endIndex)]
    }

    /// The query part of the target, after `?` (empty when none).
    public var query: ArraySlice<UInt8> {
        guard let q = target.firstIndex(of: UInt8(ascii: "?")) else { return [] }
        return target[(q + 1)...]
    }
}

/// A response to queue: status, headers and a body.
public struct HTTPResponse: Sendable {
    public enum Body: Sendable {
        case bytes([UInt8])
        /// A response built once and queued many times (the manifest of a version); the
        /// response's `headers`, usually none, are added to the prepared ones.
        case prepared(PreparedResponse)
        /// A body written over time (`text/event-stream`).
        case stream(EventStream)
        /// No answer yet: the connection is parked until the request is woken
        /// (``HeldRequest``); status and headers come with the answer.
        case held(HeldRequest)
    }

    public var status: Int
    public var headers: [(String, String)]
    public var body: Body

    public init(status: Int, headers: [(String, String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = .bytes(body)
    }

    /// A prepared response, with `headers` added for this request only (its body is
    /// shared, not copied).
    public init(status: Int, prepared: PreparedResponse, headers: [(String, String)] = []) {
        self.status = status
        self.headers = headers
        self.body = .prepared(prepared)
    }

    public init(status: Int, headers: [(String, String)], stream: EventStream) {
        self.status = status
        self.headers = headers
        self.body = .stream(stream)
    }

    /// Parks the request until `request` is woken; its answer decides status and headers.
    public static func held(_ request: HeldRequest) -> HTTPResponse {
        HTTPResponse(status: 0, headers: [], body: .held(request))
    }

    private init(status: Int, headers: [(String, String)], body: Body) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// Answers requests. Called on libmicrohttpd's threads, concurrently: it must be
/// `Sendable`, must not block, and must not trap (a trap takes the server down).
public protocol HTTPHandler: Sendable {
    func handle(_ request: HTTPRequest) -> HTTPResponse
}
