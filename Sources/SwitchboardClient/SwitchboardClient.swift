import Foundation
import Logging
import Switchboard
import SystemSupport

/// The app and backend half of the routing update system (docs/clients.md): resolves URLs
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
/// Its lifecycle is an app's: `start()` and `stop()` (and `start()` again), `pause()` when
/// the app goes to the background (the held poll ends at once) and `resume()` when it comes
/// back (it asks at once, backoff forgotten), `refresh()` to ask now, `ready(timeout:)` to
/// wait for a first manifest. The TypeScript client (`clients/typescript`) has the same.
///
/// ```swift
/// let client = SwitchboardClient(configuration: .init(
///     server: URL(string: "https://routes.example.com")!,
///     cacheFile: URL.cachesDirectory.appending(path: "routes.cache"),
///     bundled: Array(try Data(contentsOf: Bundle.main.url(forResource: "routes", withExtension: "json")!)),
///     context: ResolveContext(platform: "ios", appVersion: SemanticVersion("7.2.0"))))
/// client.start()
/// if let answer = client.resolve("https://artsy.net/artwork/soup") {
///     open(answer.result.destination, answer.result.params)
/// }
/// for await update in client.updates() { log(update) }
/// ```
public final class SwitchboardClient: Sendable {
    public struct Configuration: Sendable {
        /// The server's base URL (`https://routes.example.com`); the client asks for
        /// `/v1/manifest` under it.
        public var server: URL
        /// Where the last good manifest is kept between runs; nil keeps none.
        public var cacheFile: URL?
        /// A manifest shipped with the app, for a first start with no cache and no network.
        public var bundled: [UInt8]?
        /// The context `resolve` uses when it is given none: the app's platform, idiom and
        /// version, set once.
        public var context: ResolveContext
        public var policy: UpdatePolicy
        /// Failures and adoptions are logged here (warning and info).
        public var logger: Logger

        public init(server: URL, cacheFile: URL? = nil, bundled: [UInt8]? = nil, context: ResolveContext = .none,
                    policy: UpdatePolicy = UpdatePolicy(), logger: Logger = Logger(label: "switchboard.client")) {
            self.server = server
            self.cacheFile = cacheFile
            self.bundled = bundled
            self.context = context
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

    /// Whether the client follows the server: not yet or no longer (`idle`), following
    /// (`running`), or paused by the app in the background (`paused`).
    public enum Mode: Sendable, Equatable {
        case idle, running, paused
    }

    private struct State: Sendable {
        var current: ManifestInUse?
        var subscribers: [Int: AsyncStream<ClientUpdate>.Continuation] = [:]
        var callbacks: [Int: @Sendable (ClientUpdate) -> Void] = [:]
        var nextSubscriber = 0
        var loop: Task<Void, Never>?
        var mode = Mode.idle
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
        cache = configuration.cacheFile.map { ManifestCache(path: $0.path) }
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

    /// Whether the client follows the server now.
    public var mode: Mode { state.withLock { $0.mode } }

    /// Resolves `url` with the manifest in use, offline, in `context` (the configuration's
    /// when nil); nil only before any manifest exists (no cache, no bundle, the server not
    /// reached yet).
    public func resolve(_ url: String, context: ResolveContext? = nil, explain: Bool = false) -> Answer? {
        guard let manifest = current else { return nil }
        return Answer(result: manifest.compiled.resolve(url, context: context ?? configuration.context, explain: explain), manifest: manifest)
    }

    /// The updates from now on, starting with the manifest in use (if any): each manifest
    /// adopted and each failure. Ends when the client goes away.
    public func updates() -> AsyncStream<ClientUpdate> {
        let (stream, continuation) = AsyncStream.makeStream(of: ClientUpdate.self, bufferingPolicy: .bufferingNewest(64))
        let id: Int = state.withLock { s in
            if let current = s.current { continuation.yield(.adopted(current)) }
            s.nextSubscriber += 1
            s.subscribers[s.nextSubscriber] = continuation
            return s.nextSubscriber
        }
        continuation.onTermination = { [weak self] _ in _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) } }
        return stream
    }

    /// Calls `handler` with each update from now on (for code that does not use Swift
    /// concurrency), on the thread that made the update, until the subscription is
    /// cancelled. The handler may call the client.
    @discardableResult
    public func onUpdate(_ handler: @escaping @Sendable (ClientUpdate) -> Void) -> UpdateSubscription {
        let id: Int = state.withLock { s in
            s.nextSubscriber += 1
            s.callbacks[s.nextSubscriber] = handler
            return s.nextSubscriber
        }
        return UpdateSubscription { [weak self] in _ = self?.state.withLock { $0.callbacks.removeValue(forKey: id) } }
    }

    /// True once a manifest is in use (at once when one is), false if none is within `timeout`.
    public func ready(timeout: Duration) async -> Bool {
        if current != nil { return true }
        let stream = updates()
        let adopted = await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                for await update in stream { if case .adopted = update { return true } }
                return false
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
        return adopted || current != nil
    }

    /// Starts following the server; again after `stop()`. Nothing while it already follows
    /// or is paused (`resume()` ends a pause).
    public func start() {
        if transition(from: .idle, to: .running) { startLoop() }
    }

    /// Stops following the server: a held request ends at once. The manifest in use stays,
    /// `resolve` goes on answering with it, and `start()` follows the server again.
    public func stop() async {
        state.withLock { $0.mode = .idle }
        await endLoop()
    }

    /// For an app going to the background: the held request ends at once (the server
    /// frees it), and nothing is asked until `resume()`.
    public func pause() async {
        if transition(from: .running, to: .paused) { await endLoop() }
    }

    /// For an app back in the foreground: asks the server at once, whatever backoff the
    /// last failures called for, then follows it again.
    public func resume() {
        if transition(from: .paused, to: .running) { startLoop() }
    }

    /// Moves the client from mode `from` to `to`; false when it was in another mode.
    private func transition(from: Mode, to: Mode) -> Bool {
        state.withLock { s in
            guard s.mode == from else { return false }
            s.mode = to
            return true
        }
    }

    /// Asks the server now with a conditional GET answered at once (ending a held request
    /// or a backoff in progress) and returns when its answer is handled, whatever it was;
    /// then, if the client follows the server, it goes on doing so.
    public func refresh() async {
        await endLoop()
        var failures = 0
        _ = await step(failures: &failures, hold: false)
        if state.withLock({ $0.mode }) == .running { startLoop() }
    }

    /// Starts the update loop if the client follows the server and none runs.
    private func startLoop() {
        state.withLock { s in
            guard s.mode == .running, s.loop == nil else { return }
            let client = WeakClient(value: self)
            s.loop = Task.detached { await Self.follow(client) }
        }
    }

    /// Ends the update loop, if one runs: its request or pause ends at once.
    private func endLoop() async {
        let loop = state.withLock { s in
            defer { s.loop = nil }
            return s.loop
        }
        loop?.cancel()
        await loop?.value
    }

    private func announce(_ update: ClientUpdate) {
        let callbacks = state.withLock { s in
            for continuation in s.subscribers.values { continuation.yield(update) }
            return Array(s.callbacks.values)
        }
        for callback in callbacks { callback(update) }
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

    /// One request (held when `hold` and there is a manifest to compare with) and what
    /// it calls for: the pause before the next.
    private func step(failures: inout Int, hold: Bool = true) async -> Duration {
        do {
            let pause = try await poll(hold: hold)
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
    private func poll(hold: Bool) async throws(ClientFailure) -> Duration {
        let policy = configuration.policy
        let known = current
        var headers = ["Accept": "application/json"]
        let held = hold && known != nil && policy.wait > 0
        if let known { headers["If-None-Match"] = known.etag }
        if held { headers["Prefer"] = "wait=\(policy.wait)" }
        let base = configuration.server.absoluteString
        let url = base.hasSuffix("/") ? base + "v1/manifest" : base + "/v1/manifest"
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
        state.withLock { $0.current = manifest }
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
