import Foundation
import Logging
import Switchboard
import SystemSupport

/// The app and backend half of the routing update system (SPEC §6): resolves URLs
/// offline with the same engine as the server, and keeps its manifest current.
///
/// It starts from the last good manifest it persisted, else from the bundled copy it is
/// given, else from the server; `resolve` works from the first moment one exists. Then
/// it follows the server: blocking conditional GETs (`Prefer: wait`) where the server
/// holds them, conditional GETs at `max-age` (never more often than a floor) where it
/// does not, exponential backoff with full jitter on failure, `Retry-After` honoured. A
/// fetched manifest is used only when its digest matches its ETag and it compiles; it is
/// then persisted atomically and announced.
///
/// ```swift
/// let client = SwitchboardClient(configuration: .init(
///     server: "https://routes.example.com",
///     cacheFile: caches + "/routes.cache",
///     bundled: try Data(contentsOf: Bundle.main.url(forResource: "routes", withExtension: "json")!)))
/// client.start()
/// if let answer = client.resolve("https://artsy.net/artwork/soup", context: .init(platform: "ios")) {
///     open(answer.result.destination, answer.result.params)
/// }
/// for await update in client.updates() { log(update) }
/// ```
public final class SwitchboardClient: Sendable {
    public struct Configuration: Sendable {
        /// The server's base URL (`https://routes.example.com`); the client asks for
        /// `/v1/manifest` under it.
        public var server: String
        /// Where the last good manifest is kept between runs; nil keeps none.
        public var cacheFile: String?
        /// A manifest shipped with the app, for a first start with no cache and no network.
        public var bundled: [UInt8]?
        public var policy: UpdatePolicy
        /// Failures and adoptions are logged here (warning and info).
        public var logger: Logger

        public init(server: String, cacheFile: String? = nil, bundled: [UInt8]? = nil, policy: UpdatePolicy = UpdatePolicy(),
                    logger: Logger = Logger(label: "switchboard.client")) {
            self.server = server
            self.cacheFile = cacheFile
            self.bundled = bundled
            self.policy = policy
            self.logger = logger
        }
    }

    /// A resolution and the manifest that answered it.
    public struct Answer: Sendable {
        public let result: Resolution
        public let manifest: ManifestInUse
        /// The result JSON, as `GET /v1/resolve` answers it for the same manifest and context.
        public var json: [UInt8] { manifest.compiled.resultJSON(result) }
    }

    private struct State: Sendable {
        var current: ManifestInUse?
        var subscribers: [Int: AsyncStream<ClientUpdate>.Continuation] = [:]
        var nextSubscriber = 0
        var loop: Task<Void, Never>?
        var stopped = false
    }

    public let configuration: Configuration
    /// Why the cache or the bundled copy could not be used at start, if either could not.
    public let bootstrapProblems: [ClientFailure]
    private let transport: any SwitchboardTransport
    private let cache: ManifestCache?
    private let state: Locked<State>

    /// Loads the cache file, else the bundled copy (checked and compiled); makes no request.
    public init(configuration: Configuration, transport: any SwitchboardTransport = URLSessionTransport()) {
        self.configuration = configuration
        self.transport = transport
        cache = configuration.cacheFile.map(ManifestCache.init(path:))
        var problems: [ClientFailure] = []
        var first: ManifestInUse?
        if let cache {
            cache.removeStaleTemporaries()
            do {
                let entry = try cache.read()
                first = ManifestInUse(compiled: try CompiledManifest(json: entry.body), etag: entry.etag, source: .cache)
            } catch let error as ManifestCache.ReadError {
                if case .missing = error {} else { problems.append(ClientFailure(.bootstrap, "\(cache.path): \(error)")) }
            } catch {
                problems.append(ClientFailure(.bootstrap, "\(cache.path): the cached manifest does not compile: \(error)"))
            }
        }
        if first == nil, let bundled = configuration.bundled {
            do {
                let compiled = try CompiledManifest(json: bundled)
                first = ManifestInUse(compiled: compiled, etag: compiled.etag, source: .bundle)
            } catch {
                problems.append(ClientFailure(.bootstrap, "the bundled manifest does not compile: \(error)"))
            }
        }
        for problem in problems { configuration.logger.warning("\(problem.message); not used") }
        if let first {
            configuration.logger.info("using version \(first.version) \(first.etag) from the \(first.source.rawValue)")
        }
        bootstrapProblems = problems
        state = Locked(State(current: first))
    }

    deinit {
        state.withLock { s in
            s.loop?.cancel()
            for continuation in s.subscribers.values { continuation.finish() }
        }
    }

    /// The manifest in use, if there is one yet.
    public var current: ManifestInUse? { state.withLock { $0.current } }

    /// Resolves `url` with the manifest in use, offline; nil only before any manifest
    /// exists (no cache, no bundle, the server not reached yet).
    public func resolve(_ url: String, context: ResolveContext = .none, explain: Bool = false) -> Answer? {
        guard let manifest = current else { return nil }
        return Answer(result: manifest.compiled.resolve(url, context: context, explain: explain), manifest: manifest)
    }

    /// The updates from now on, starting with the manifest in use (if any): each manifest
    /// adopted and each failure. Ends when the client stops.
    public func updates() -> AsyncStream<ClientUpdate> {
        let (stream, continuation) = AsyncStream.makeStream(of: ClientUpdate.self, bufferingPolicy: .bufferingNewest(64))
        let id: Int? = state.withLock { s in
            guard !s.stopped else { return nil }
            if let current = s.current { continuation.yield(.adopted(current)) }
            s.nextSubscriber += 1
            s.subscribers[s.nextSubscriber] = continuation
            return s.nextSubscriber
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) } }
        return stream
    }

    /// Starts following the server (once; later calls do nothing).
    public func start() {
        state.withLock { s in
            guard s.loop == nil, !s.stopped else { return }
            let client = WeakClient(value: self)
            s.loop = Task.detached { await Self.follow(client) }
        }
    }

    /// Stops following the server: a held request ends at once, the update sequences end.
    /// The manifest in use stays, and `resolve` goes on answering with it.
    public func stop() async {
        let loop: Task<Void, Never>? = state.withLock { s in
            s.stopped = true
            return s.loop
        }
        loop?.cancel()
        await loop?.value
        let subscribers = state.withLock { s in
            defer { s.subscribers = [:] }
            return Array(s.subscribers.values)
        }
        for continuation in subscribers { continuation.finish() }
    }

    private func announce(_ update: ClientUpdate) {
        state.withLock { s in
            for continuation in s.subscribers.values { continuation.yield(update) }
        }
    }

    // MARK: Following the server

    /// The update loop: one request at a time, then the pause its answer calls for. It
    /// holds the client only while a request is out, never while it pauses, so a client
    /// let go without `stop()` goes away (its `deinit` cancels the pause).
    private static func follow(_ weakClient: WeakClient) async {
        var failures = 0
        while !Task.isCancelled {
            guard let pause = await step(weakClient, failures: &failures) else { return }
            if pause > .zero { try? await Task.sleep(for: pause) }
        }
    }

    /// One step of the client, if it is still there: the strong reference ends with it.
    private static func step(_ weakClient: WeakClient, failures: inout Int) async -> Duration? {
        guard let client = weakClient.value else { return nil }
        return await client.step(failures: &failures)
    }

    private struct WeakClient: Sendable {
        weak var value: SwitchboardClient?
    }

    /// One request and what it calls for: the pause before the next.
    private func step(failures: inout Int) async -> Duration {
        do {
            let pause = try await poll()
            failures = 0
            return pause
        } catch {
            if Task.isCancelled { return .zero }
            failures += 1
            let wait = error.retryAfter ?? configuration.policy.backoff(failures: failures)
            configuration.logger.warning("update failed: \(error); retrying in \(wait)")
            announce(.failed(error))
            return wait
        }
    }

    /// One conditional GET, held when there is a manifest to compare with; returns the
    /// pause before the next.
    private func poll() async throws(ClientFailure) -> Duration {
        let policy = configuration.policy
        let known = current
        var headers = ["Accept": "application/json"]
        let held = known != nil && policy.wait > 0
        if let known { headers["If-None-Match"] = known.etag }
        if held { headers["Prefer"] = "wait=\(policy.wait)" }
        let url = configuration.server.hasSuffix("/") ? configuration.server + "v1/manifest" : configuration.server + "/v1/manifest"
        let request = TransportRequest(url: url, headers: headers, timeout: policy.timeout(held: held))
        let started = ContinuousClock.now
        let response = try await send(request)
        let interval = policy.interval(cacheControl: response.header("Cache-Control"))
        switch response.status {
        case 304:
            // A poll the server held answers after `wait`: ask again at once. One that came
            // back much sooner was not held (a proxy that dropped Prefer, say), and asking
            // again at once would spin.
            let wasHeld = held && LivePolling.appliedWait(response.header("Preference-Applied"))
                && ContinuousClock.now - started >= .seconds(policy.wait) / 2
            return wasHeld ? .zero : interval
        case 200:
            // A new manifest: ask again at once, now held on its ETag (a server that does not
            // hold answers 304 at once, and the interval applies from then). A 200 naming the
            // manifest in use is no news: never ask again at once for it.
            return try adopt(response, replacing: known) && policy.wait > 0 ? .zero : interval
        case 429, 503:
            throw ClientFailure(.status, "the server answered \(response.status)", status: response.status,
                                retryAfter: UpdatePolicy.retryAfter(response.header("Retry-After")))
        default:
            throw ClientFailure(.status, "the server answered \(response.status)", status: response.status)
        }
    }

    /// The request, within its timeout, whatever the transport does about time.
    private func send(_ request: TransportRequest) async throws(ClientFailure) -> TransportResponse {
        let transport = self.transport
        do {
            return try await withThrowingTaskGroup(of: TransportResponse?.self) { group in
                group.addTask { try await transport.get(request) }
                group.addTask {
                    try await Task.sleep(for: request.timeout)
                    return nil
                }
                defer { group.cancelAll() }
                guard let first = try await group.next(), let response = first else {
                    throw ClientFailure(.timeout, "no answer from \(request.url) within \(request.timeout)")
                }
                return response
            }
        } catch let failure as ClientFailure {
            throw failure
        } catch {
            throw ClientFailure(.unreachable, "\(request.url): \(error.localizedDescription)")
        }
    }

    /// Checks a 200 and puts its manifest in use when it is another one; returns whether it was.
    private func adopt(_ response: TransportResponse, replacing known: ManifestInUse?) throws(ClientFailure) -> Bool {
        let contentType = response.header("Content-Type") ?? "none"
        guard contentType.lowercased().split(separator: ";").first?.trimmingCharacters(in: .whitespaces) == "application/json" else {
            throw ClientFailure(.contentType, "the manifest came as \(contentType), not application/json")
        }
        let body = response.body
        var etag = response.header("ETag") ?? ""
        if etag.hasPrefix("W/") { etag.removeFirst(2) }
        // The ETag is the SHA-256 of the canonical bytes, which are the body.
        if etag.hasPrefix("\"sha256-"), etag != "\"sha256-\(SHA256.hex(body))\"" {
            throw ClientFailure(.integrity, "the body (\(body.count) bytes) is not the manifest its ETag \(etag) names")
        }
        let compiled: CompiledManifest
        do {
            compiled = try CompiledManifest(json: body)
        } catch {
            let first = error.diagnostics.first.map { ": \($0)" } ?? ""
            throw ClientFailure(.invalidManifest, "the server's manifest does not compile (\(error.diagnostics.count) problems)\(first); not used")
        }
        if etag.isEmpty { etag = compiled.etag }
        guard etag != known?.etag else { return false }
        let manifest = ManifestInUse(compiled: compiled, etag: etag, source: .server)
        let stillRunning = state.withLock { s in
            guard !s.stopped else { return false }
            s.current = manifest
            return true
        }
        guard stillRunning else { return false }
        configuration.logger.info("using version \(manifest.version) \(etag) from the server")
        if let cache {
            do {
                try cache.write(ManifestCache.Entry(body: body, etag: etag))
            } catch {
                let failure = ClientFailure(.persist, "cannot write \(cache.path): \(error.localizedDescription)")
                configuration.logger.warning("\(failure.message); the manifest is used all the same")
                announce(.failed(failure))
            }
        }
        announce(.adopted(manifest))
        return true
    }
}
