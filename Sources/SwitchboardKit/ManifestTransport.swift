import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import SystemSupport

/// How the client reaches the server: one GET, answered with status, headers and the
/// whole body. ``URLSessionTransport`` is the default; an app or backend brings its own
/// (its HTTP stack, a proxy, an authenticated session) by conforming to this.
///
/// A transport must honour task cancellation promptly: ``SwitchboardClient/stop()`` and
/// the client's own timeouts cancel the task that awaits ``get(_:)``, and a blocking
/// poll is held by the server for up to `wait` seconds.
public protocol SwitchboardTransport: Sendable {
    func get(_ request: TransportRequest) async throws -> TransportResponse
}

/// A GET to send.
public struct TransportRequest: Sendable, Equatable {
    public var url: String
    public var headers: [String: String]
    /// The longest the whole exchange may take (the client also enforces it).
    public var timeout: Duration

    public init(url: String, headers: [String: String], timeout: Duration) {
        self.url = url
        self.headers = headers
        self.timeout = timeout
    }
}

/// What the server answered; header names are looked up case-insensitively, the body is
/// decoded (no `Content-Encoding` left on it).
public struct TransportResponse: Sendable {
    public var status: Int
    public var headers: [String: String]
    public var body: [UInt8]

    public init(status: Int, headers: [String: String], body: [UInt8]) {
        self.status = status
        self.body = body
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { a, b in a + ", " + b })
    }

    public func header(_ name: String) -> String? { headers[name.lowercased()] }
}

/// The default transport: URLSession (FoundationNetworking on Linux, libcurl beneath),
/// an ephemeral session so that no HTTP cache of its own answers for the server, gzip
/// asked for and decoded by the session.
public struct URLSessionTransport: SwitchboardTransport {
    private let given: URLSession?
    /// The transport's own ephemeral session when it was given none, made at the first
    /// request rather than in the client's `init` (making one is most of what a start on
    /// the main thread would cost). One per transport: FoundationNetworking's session on
    /// Linux does not survive many clients' tasks cancelled and completed at once.
    private let own = LazySession()

    /// `session`: nil for an ephemeral session of the transport's own.
    public init(session: URLSession? = nil) {
        given = session
    }

    public func get(_ request: TransportRequest) async throws -> TransportResponse {
        guard let url = URL(string: request.url) else { throw URLError(.badURL) }
        var urlRequest = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalAndRemoteCacheData)
        urlRequest.timeoutInterval = Double(request.timeout.components.seconds) + 1
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        // The completion-handler API, cancelled from another queue: on Linux, URLSession's
        // async `data(for:)` cancels the transfer synchronously while Swift holds the task's
        // status lock, and deadlocks when the transfer completes at that moment (seen in
        // this project's tests: a held poll ending as the client stopped).
        let pending = PendingTransfer()
        let session = given ?? own.session
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<TransportResponse, any Error>) in
                let task = session.dataTask(with: urlRequest) { data, response, error in
                    if let error { return continuation.resume(throwing: error) }
                    guard let http = response as? HTTPURLResponse else { return continuation.resume(throwing: URLError(.badServerResponse)) }
                    var headers: [String: String] = [:]
                    for (name, value) in http.allHeaderFields {
                        if let name = name as? String, let value = value as? String { headers[name] = value }
                    }
                    continuation.resume(returning: TransportResponse(status: http.statusCode, headers: headers, body: [UInt8](data ?? Data())))
                }
                pending.start(task)
            }
        } onCancel: {
            DispatchQueue.global().async { pending.cancel() }
        }
    }
}

/// An ephemeral URLSession made when first asked for.
private final class LazySession: Sendable {
    private let made = Locked<URLSession?>(nil)

    var session: URLSession {
        made.withLock { made in
            if let session = made { return session }
            let session = URLSession(configuration: .ephemeral)
            made = session
            return session
        }
    }
}

/// A data task and whether it was cancelled, whichever comes first.
private final class PendingTransfer: Sendable {
    private let state = Locked<(task: URLSessionDataTask?, cancelled: Bool)>((nil, false))

    func start(_ task: URLSessionDataTask) {
        let cancelled = state.withLock { s in
            s.task = task
            return s.cancelled
        }
        task.resume()
        if cancelled { task.cancel() }
    }

    func cancel() {
        let task = state.withLock { s in
            s.cancelled = true
            return s.task
        }
        task?.cancel()
    }
}
