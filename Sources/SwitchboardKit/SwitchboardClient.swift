import Dispatch
import Foundation
import Logging
import Switchboard
import SystemSupport

/// The app and backend half of the routing update system (docs/clients.md): resolves URLs
/// offline with the same engine as the server, and keeps its manifest current.
///
/// `init` returns at once: reading the last good manifest it persisted (else compiling the
/// bundled copy it is given) happens off the caller's thread (a compile of a 10,000-route
/// manifest takes a noticeable part of a second, too long for the main thread at launch).
/// A `resolve` made before that copy is ready waits for it, so the link that launched the
/// app is answered; `resolve` answers nil only when there is no copy at all (no cache, no
/// bundle, the server not reached yet). Then it follows the server: blocking conditional
/// GETs (`Prefer: wait`) where the server holds them, conditional GETs at `max-age` (never
/// more often than a floor) where it does not, exponential backoff with full jitter on
/// failure, `Retry-After` honoured. A fetched manifest is used only when its digest matches
/// its ETag and it compiles; it is then persisted atomically and announced.
///
/// Its lifecycle is an app's: `start()` and `stop()` (and `start()` again), `pause()` when
/// the app goes to the background (the held poll ends at once) and `resume()` when it comes
/// back (it asks at once, backoff forgotten), `refresh()` to ask now, `ready(timeout:)` to
/// wait for a first manifest. `pause()`, `resume()` and `stop()` return at once, so a
/// synchronous handler can call them (`pauseAndWait()` and `stopAndWait()` also wait for
/// the request that was out); on Apple's platforms the client calls `pause()` and
/// `resume()` itself on the app's background and foreground notifications
/// (``Configuration/followsAppLifecycle``).
///
/// ```swift
/// let client = SwitchboardClient(configuration: .init(
///     server: URL(string: "https://routes.example.com")!,
///     cacheFile: URL.cachesDirectory.appending(path: "routes.cache"),
///     bundled: .file(Bundle.main.url(forResource: "routes", withExtension: "json")!),
///     context: try ResolveContext(platform: "ios", appVersion: "7.2.0")))
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
        /// A manifest shipped with the app, for a first start with no cache and no network:
        /// its bytes, or the file to read them from (read off the caller's thread).
        public var bundled: BundledManifest?
        /// The context `resolve` uses when it is given none: the app's platform, idiom and
        /// version, set once (an app version that does not parse is refused where the
        /// context is made: `try ResolveContext(platform:idiom:appVersion:)` with a `String`).
        public var context: ResolveContext
        public var policy: UpdatePolicy
        /// Failures and adoptions are logged here (warning and info), with swift-log
        /// (`import Logging` to pass one). The default writes to standard error.
        public var logger: Logging.Logger
        /// What the client sets on the cache file it creates (backup exclusion, protection class).
        public var cacheFileOptions: CacheFileOptions
        /// Whether the client pauses on the app's background notification and resumes on
        /// its foreground one (UIKit's, and an app extension's host's), as an app would call
        /// `pause()` and `resume()`. Default true; off for a backend or an app that calls them.
        public var followsAppLifecycle: Bool
        /// What the update loop measures and waits on (the updater scenarios give their own).
        package var clock: any UpdateClock = SystemUpdateClock()

        public init(server: URL, cacheFile: URL? = nil, bundled: BundledManifest? = nil, context: ResolveContext = .empty,
                    policy: UpdatePolicy = UpdatePolicy(), logger: Logging.Logger = Logging.Logger(label: "switchboard.client"),
                    cacheFileOptions: CacheFileOptions = CacheFileOptions(), followsAppLifecycle: Bool = true) {
            self.server = server
            self.cacheFile = cacheFile
            self.bundled = bundled
            self.context = context
            self.policy = policy
            self.logger = logger
            self.cacheFileOptions = cacheFileOptions
            self.followsAppLifecycle = followsAppLifecycle
        }
    }

    /// A resolution and the manifest that answered it.
    public struct Answer: Sendable {
        public let result: Resolution
        public let manifest: ManifestInUse
        /// The result JSON, as `GET /v1/resolve` answers it for the same manifest and context.
        public var json: [UInt8] { manifest.compiled.resultJSON(result) }

        public init(result: Resolution, manifest: ManifestInUse) {
            self.result = result
            self.manifest = manifest
        }
    }

    /// Whether the client follows the server: not yet or no longer (`idle`), following
    /// (`running`), or paused by the app in the background (`paused`).
    public enum Mode: Sendable, Hashable {
        case idle, running, paused
    }

    struct State: Sendable {
        var current: ManifestInUse?
        var subscribers: [Int: AsyncStream<ClientUpdate>.Continuation] = [:]
        var callbacks: [Int: @Sendable (ClientUpdate) -> Void] = [:]
        var modeWatchers: [Int: @Sendable (Mode) -> Void] = [:]
        var nextSubscriber = 0
        var loop: Task<Void, Never>?
        /// The last loop cancelled, which `stopAndWait()` and `pauseAndWait()` wait for.
        var ending: Task<Void, Never>?
        var mode = Mode.idle
        var bootstrapProblems: [ClientFailure] = []
        /// Counts pauses and resumes: a request that fails across one was cut by the app's
        /// suspension, not by the server or the network, and is not reported.
        var lifecycle = 0
    }

    public let configuration: Configuration
    let transport: any SwitchboardTransport
    let cache: ManifestCache?
    let state: Locked<State>
    /// Reading the cache or compiling the bundled copy, on a thread of its own started by
    /// `init` (not on a pool: `resolve`s blocking every thread of a pool would otherwise
    /// wait for work with no thread to run on), and announcing what it found: what a
    /// `resolve` made before then, the update loop and `refresh()` wait for.
    let firstCopy = FirstCopy()
    private let observers: LifecycleObservers?

    /// Returns at once: the cache file is read (else the bundled copy compiled) off the
    /// caller's thread; `resolve` waits for it, `ready(timeout:)` awaits it. Makes no
    /// request until `start()`.
    public init(configuration: Configuration, transport: any SwitchboardTransport = URLSessionTransport()) {
        self.configuration = configuration
        self.transport = transport
        cache = configuration.cacheFile.map { ManifestCache(path: $0.path, options: configuration.cacheFileOptions) }
        state = Locked(State())
        observers = configuration.followsAppLifecycle ? LifecycleObservers() : nil
        let thread = Thread { [self] in
            let problems = readFirstCopy()
            firstCopy.markRead()
            announceFirstCopy(problems: problems)
            firstCopy.markAnnounced()
        }
        thread.name = "switchboard.client.bootstrap"
        thread.qualityOfService = .userInitiated
        thread.start()
        observers?.observe(
            background: { [weak self] in self?.pauseNow() },
            foreground: { [weak self] in self?.resume() })
    }

    /// The first manifest, put in use: the cache file, else the bundled copy (checked and
    /// compiled). Returns why either could not be used.
    private func readFirstCopy() -> [ClientFailure] {
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
                let compiled = try CompiledManifest(json: try bundled.bytes())
                first = ManifestInUse(compiled: compiled, etag: compiled.etag, source: .bundle)
            } catch let error as BundledManifest.ReadError {
                problems.append(ClientFailure(.bootstrap, error.description))
            } catch {
                problems.append(ClientFailure(.bootstrap, "the bundled manifest does not compile: \(error)"))
            }
        }
        // Nothing else puts a manifest in use before this ends: the loop and `refresh()` wait for it.
        state.withLock { s in
            s.bootstrapProblems = problems
            if let first { s.current = first }
        }
        return problems
    }

    /// Logs and announces what `readFirstCopy` found, once a `resolve` no longer waits on it.
    private func announceFirstCopy(problems: [ClientFailure]) {
        for problem in problems {
            configuration.logger.warning("\(problem.message); not used")
            announce(.failed(problem))
        }
        if let adopted = current {
            configuration.logger.info("using version \(adopted.version) \(adopted.etag) from the \(adopted.source.rawValue)")
            announce(.adopted(adopted))
        }
    }

    /// Waits until the cache or the bundled copy has been read (whether or not it could be used).
    package func bootstrapped() async {
        await firstCopy.announced()
    }

    /// Why the cache or the bundled copy could not be used at start, if either could not
    /// (empty until they are read: `ready(timeout:)`).
    public var bootstrapProblems: [ClientFailure] { state.withLock { $0.bootstrapProblems } }

    deinit {
        state.withLock { s in
            s.loop?.cancel()
            for continuation in s.subscribers.values { continuation.finish() }
        }
    }

    /// The manifest in use, if there is one yet (without waiting for the cached or bundled
    /// copy, as `resolve` does).
    public var current: ManifestInUse? { state.withLock { $0.current } }

    /// Whether the client follows the server now.
    public var mode: Mode { state.withLock { $0.mode } }

    /// Resolves `url` with the manifest in use, offline, in `context` (the configuration's
    /// when nil). Called before the cached or bundled copy is ready (right after `init`, for
    /// the link that launched the app), it waits for that copy. Nil only when no manifest
    /// exists (no usable cache, no bundle, the server not reached yet).
    public func resolve(_ url: String, context: ResolveContext? = nil, explain: Bool = false) -> Answer? {
        guard let manifest = current ?? firstCopyRead() else { return nil }
        return Answer(result: manifest.compiled.resolve(url, context: context ?? configuration.context, explain: explain), manifest: manifest)
    }

    /// The manifest in use once the cached or bundled copy has been read (at once if it has).
    private func firstCopyRead() -> ManifestInUse? {
        firstCopy.waitUntilRead()
        return current
    }

    /// ``resolve(_:context:explain:)`` for the `URL` an app is handed (`onOpenURL`,
    /// `application(_:open:)`, a universal link's `webpageURL`), as its absolute string.
    public func resolve(_ url: URL, context: ResolveContext? = nil, explain: Bool = false) -> Answer? {
        resolve(url.absoluteString, context: context, explain: explain)
    }

    /// True once a manifest is in use (at once when one is), false if none is within
    /// `timeout`: the cached or bundled copy once read, else the server's first answer.
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
        if transition(from: [.idle], to: .running) { startLoop() }
    }

    /// Stops following the server, from any code, returning at once: a held request is
    /// cancelled (the server frees it) without waiting for it to end. The manifest in use
    /// stays, `resolve` goes on answering with it, and `start()` follows the server again.
    public func stop() {
        if transition(from: [.running, .paused], to: .idle) { cancelLoop() }
    }

    /// ``stop()``, then waits until the request that was out has ended (a backend's
    /// shutdown, a test).
    public func stopAndWait() async {
        stop()
        await endLoop()
    }

    /// For an app going to the background, from any code, returning at once: the held
    /// request is cancelled (the server frees it), and nothing is asked until `resume()`.
    public func pause() {
        pauseNow()
    }

    /// ``pause()``, then waits until the request that was out has ended.
    public func pauseAndWait() async {
        pauseNow()
        await endLoop()
    }

    private func pauseNow() {
        if transition(from: [.running], to: .paused) { cancelLoop() }
    }

    /// For an app back in the foreground: asks the server at once, whatever backoff the
    /// last failures called for, then follows it again.
    public func resume() {
        if transition(from: [.paused], to: .running) { startLoop() }
    }

    /// Moves the client from mode `from` to `to`; false when it was in another mode.
    private func transition(from: Set<Mode>, to: Mode) -> Bool {
        let watchers: [@Sendable (Mode) -> Void]? = state.withLock { s in
            guard from.contains(s.mode) else { return nil }
            if to == .paused || s.mode == .paused { s.lifecycle += 1 }
            s.mode = to
            return Array(s.modeWatchers.values)
        }
        guard let watchers else { return false }
        for watch in watchers { watch(to) }
        return true
    }

    /// Asks the server now with a conditional GET answered at once (ending a held request
    /// or a backoff in progress) and returns when its answer is handled, whatever it was;
    /// then, if the client follows the server, it goes on doing so.
    public func refresh() async {
        await bootstrapped()
        await endLoop()
        var failures = 0
        _ = await step(failures: &failures, hold: false)
        if state.withLock({ $0.mode }) == .running { startLoop() }
    }

    /// Starts the update loop if the client follows the server and none runs. The loop
    /// begins once the cache or bundled copy has been read, so its first request names it.
    private func startLoop() {
        state.withLock { s in
            guard s.mode == .running, s.loop == nil else { return }
            let client = WeakClient(value: self)
            let firstCopy = self.firstCopy
            let clock = configuration.clock
            s.loop = Task.detached {
                await firstCopy.announced()
                await Self.follow(client, clock: clock)
            }
        }
    }

    /// Cancels the update loop, if one runs, without waiting: its request or pause ends.
    private func cancelLoop() {
        let loop = state.withLock { s in
            defer {
                if s.loop != nil { s.ending = s.loop }
                s.loop = nil
            }
            return s.loop
        }
        loop?.cancel()
    }

    /// Ends the update loop, if one runs, and waits until the request of the last loop
    /// cancelled (now or by an earlier `stop()` or `pause()`) has ended.
    private func endLoop() async {
        cancelLoop()
        await state.withLock { $0.ending }?.value
    }

}
