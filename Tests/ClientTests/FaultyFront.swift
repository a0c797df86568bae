import Dispatch
import Foundation
import MicroHTTPD
import Switchboard
@testable import SwitchboardServer
import SystemSupport
import TestSupport

/// A real server (its manifest in a folder of its own, watched) and, on a second port, a
/// front that answers with the same API over the same store until it is told to fail:
/// 500s, 503s with Retry-After, a body cut short, a manifest that does not compile, a
/// wrong Content-Type, a body that never comes. Reloads of the server reach held polls on
/// both ports.
final class FaultyServer: Sendable {
    enum Fault: Sendable, Equatable {
        case none
        case status(Int, retryAfter: String?)
        case truncated
        case invalidManifest
        case wrongContentType
        case stall
        /// A proxy in front whose timeout ends a poll before the server answers it: the
        /// request is held `after`, then answered `status` (502 or 504).
        case proxyTimeout(Int, after: Duration)
    }

    let folder: ManifestFolder
    let server: SwitchboardServer
    private let front: HTTPDaemon
    private let handler: FrontHandler
    /// The front's address: what clients are given.
    var url: String { "http://127.0.0.1:\(front.port)" }

    init(_ manifest: String) throws {
        folder = try ManifestFolder(manifest)
        server = try SwitchboardServer(configuration: .init(manifestPath: folder.manifest.path, port: 0, watch: true))
        handler = FrontHandler(api: SwitchboardAPI(store: server.store, metrics: server.metrics))
        var http = HTTPDaemon.Configuration(port: 0, threads: 2)
        http.requestHeaders = SwitchboardAPI.requestHeaders(crossOrigin: false)
        front = try HTTPDaemon(configuration: http, handler: handler)
    }

    deinit {
        front.stop(gracePeriod: .zero)
        server.stop(gracePeriod: .zero)
    }

    var fault: Fault {
        get { handler.state.withLock { $0.fault } }
        set { handler.state.withLock { $0.fault = newValue } }
    }

    /// Requests for the manifest answered with a fault so far.
    var faultsAnswered: Int { handler.state.withLock { $0.faults } }
    /// When each request for the manifest arrived.
    var arrivals: [ContinuousClock.Instant] { handler.state.withLock { $0.arrivals } }
    var heldPolls: Int { server.store.live.figures.heldPolls }
    /// Held polls answered because the manifest changed (not at the end of their wait).
    var wakeups: Int { server.store.live.figures.wakeups.reduce(0, +) }

    /// Replaces the manifest (atomic rename) and waits until the server has it.
    func replace(_ manifest: String) async throws {
        let before = server.etag
        try folder.replace(manifest)
        guard await waitUntil({ server.etag != before }) else { throw CocoaError(.fileReadUnknown) }
    }
}

private final class FrontHandler: HTTPHandler {
    struct State: Sendable {
        var fault = FaultyServer.Fault.none
        var faults = 0
        var arrivals: [ContinuousClock.Instant] = []
    }

    let api: SwitchboardAPI
    let state = Locked(State())

    init(api: SwitchboardAPI) { self.api = api }

    func handle(_ request: HTTPRequest) -> HTTPResponse {
        guard request.path.elementsEqual("/v1/manifest".utf8) else { return api.handle(request) }
        let fault: FaultyServer.Fault = state.withLock { s in
            s.arrivals.append(.now)
            if s.fault != .none { s.faults += 1 }
            return s.fault
        }
        let manifest = api.store.current.compiled
        let json = [("Content-Type", "application/json")]
        switch fault {
        case .none:
            return api.handle(request)
        case .status(let status, let retryAfter):
            return HTTPResponse(status: status, headers: json + (retryAfter.map { [("Retry-After", $0)] } ?? []),
                                body: Array("{\"title\":\"failing on purpose\"}".utf8))
        case .truncated:
            // Half the manifest, then the connection closes without the closing chunk.
            let stream = EventStream(initial: Array(manifest.canonicalBytes.prefix(manifest.canonicalBytes.count / 2)), limit: 1 << 20)
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(100)) {
                stream.send([UInt8](repeating: 0x20, count: (1 << 20) + 1))
            }
            return HTTPResponse(status: 200, headers: json + [("ETag", manifest.etag)], stream: stream)
        case .invalidManifest:
            // Well-formed JSON whose ETag is its own digest, but a route without a pattern.
            let body = Array("{\"version\":99,\"routes\":[{\"name\":\"broken\",\"destination\":\"Nowhere\"}]}".utf8)
            return HTTPResponse(status: 200, headers: json + [("ETag", "\"sha256-\(SHA256.hex(body))\"")], body: body)
        case .wrongContentType:
            return HTTPResponse(status: 200, headers: [("Content-Type", "text/html"), ("ETag", manifest.etag)],
                                body: manifest.canonicalBytes)
        case .stall:
            return HTTPResponse(status: 200, headers: json + [("ETag", manifest.etag)], stream: EventStream())
        case .proxyTimeout(let status, let after):
            return .held(HeldRequest(until: .now + after) { _ in
                HTTPResponse(status: status, headers: [("Content-Type", "text/html")], body: Array("<html>Gateway Timeout</html>".utf8))
            })
        }
    }
}

/// The client's updates, collected as they come, for tests to wait on.
final class UpdateLog: Sendable {
    private let entries = Locked<[ClientUpdateSummary]>([])
    private let task: Task<Void, Never>

    init(_ stream: AsyncStream<ClientUpdateSummary>) {
        let entries = self.entries
        task = Task { for await entry in stream { entries.withLock { $0.append(entry) } } }
    }

    deinit { task.cancel() }

    var all: [ClientUpdateSummary] { entries.withLock { $0 } }

    /// Waits until an entry satisfies `condition`; returns it.
    func first(within seconds: Double = 120, where condition: (ClientUpdateSummary) -> Bool) async -> ClientUpdateSummary? {
        var found: ClientUpdateSummary?
        _ = await waitUntil(within: seconds) {
            found = all.first(where: condition)
            return found != nil
        }
        return found
    }
}

/// An update in a form tests compare easily.
struct ClientUpdateSummary: Sendable, Equatable {
    var version: Int64?
    var source: String?
    var failure: String?
    var at: ContinuousClock.Instant
}

/// Polls `condition` until it holds or `seconds` pass, sleeping between tries: a test that
/// blocked its thread instead would starve the client's tasks of Swift concurrency's
/// small pool (two threads on two cores, shared with every suite running in parallel,
/// whose synchronous tests block it for seconds at the start of a run: hence two minutes;
/// a CI run on this machine once needed 66 s for a client's first report).
func waitUntil(within seconds: Double = 120, _ condition: () throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    while ContinuousClock.now < deadline {
        if try condition() { return true }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return try condition()
}
