import Dispatch
import Foundation
import Logging
import MicroHTTPD
import Switchboard
import ServerSystem
import Synchronization
import SystemSupport

/// What the command line sets of the HTTP layer, named here: it reaches the server through
/// this module alone.
package typealias TrustedProxies = MicroHTTPD.TrustedProxies
package typealias ForwardedHeader = MicroHTTPD.ForwardedHeader

/// The Switchboard HTTP service: the manifest store, its reloader (inotify on the
/// manifest's folder, plus ``reload()`` for SIGHUP) and the HTTP daemon.
///
/// ```swift
/// let server = try SwitchboardServer(configuration: .init(manifestPath: "Config/routes.json", port: 0))
/// print("listening on \(server.port)")
/// server.stop()
/// ```
package final class SwitchboardServer: Sendable {
    package struct Configuration: Sendable {
        package var manifestPath: String
        package var host: String
        package var port: Int
        package var threads: Int
        /// Watch the manifest's folder and reload on change.
        package var watch: Bool
        /// The daemon's limits (host, port and threads above override its own).
        package var http: HTTPDaemon.Configuration
        /// Where start-up, reloads and (with `accessLog`) requests are logged; silent by default.
        package var logger: Logger
        /// Log one line per request.
        package var accessLog: Bool
        /// Serve the route explorer at `/` and `/ui/` (`serve --no-ui` turns it off).
        package var ui: Bool
        /// The proxies whose forwarded client is believed, and the header they forward it in.
        package var trustedProxies: TrustedProxies {
            get { http.trustedProxies }
            set { http.trustedProxies = newValue }
        }
        /// What one request may ask for.
        package var limits: RequestLimits
        /// The origins whose pages may read the API (`serve --cors-origin`); nil: none.
        package var crossOrigin: CrossOrigin?

        package init(manifestPath: String = "Config/routes.json", host: String = "127.0.0.1", port: Int = 8080,
                    threads: Int = 2, watch: Bool = true, http: HTTPDaemon.Configuration = HTTPDaemon.Configuration(),
                    logger: Logger = Logger(label: "switchboard", factory: { _ in SwiftLogNoOpLogHandler() }),
                    accessLog: Bool = false, ui: Bool = true, limits: RequestLimits = RequestLimits(),
                    crossOrigin: CrossOrigin? = nil) {
            self.manifestPath = manifestPath
            self.host = host
            self.port = port
            self.threads = threads
            self.watch = watch
            self.http = http
            self.logger = logger
            self.accessLog = accessLog
            self.ui = ui
            self.limits = limits
            self.crossOrigin = crossOrigin
        }
    }

    /// Why the server could not start.
    package enum StartError: Error, Sendable, CustomStringConvertible {
        case manifest(ManifestFile.LoadError)
        case listen(HTTPDaemon.StartError)

        package var description: String {
            switch self {
            case .manifest(let e): return e.description
            case .listen(let e): return e.description
            }
        }
    }

    /// The bound port.
    package let port: Int
    let store: ManifestStore
    let metrics: Metrics
    private let daemon: HTTPDaemon
    private let api: SwitchboardAPI
    private let reloader: Reloader
    private let watcher: DirectoryWatcher?
    private let logger: Logger

    package init(configuration: Configuration) throws(StartError) {
        let logger = configuration.logger
        self.logger = logger
        // A reload frees a whole manifest: its pages go back to the kernel.
        keepFreedMemoryReturned()
        var http = configuration.http
        http.host = configuration.host
        http.port = configuration.port
        http.threads = configuration.threads
        // Caps larger than the descriptors the process may open let one client's idle
        // connections starve everyone else: raise the soft limit, then fit the caps.
        let limit = DescriptorLimit.raise()
        http = limit.fitting(http)
        http.requestHeaders = SwitchboardAPI.requestHeaders(crossOrigin: configuration.crossOrigin != nil)
        // Held polls and streams never end on their own: together they may take half of
        // the connections (or `--max-live`, which sizes memory), never all of them, and
        // one client block as many as it may hold connections.
        let live = LiveUpdates.Limits(connections: max(1, min(configuration.limits.maxLive ?? .max, http.connectionLimit / 2)),
                                      perClient: max(1, http.perIPConnectionLimit),
                                      streamSeconds: configuration.limits.streamSeconds)
        let metrics = Metrics()
        self.metrics = metrics
        let warning = ShareWarning(logger: logger, trustedProxies: http.trustedProxies)
        let untrusted = UntrustedForwardingWarning(logger: logger)
        http.onUntrustedForwarding = { peer, header in untrusted.sent(peer, header) }
        let accessLog = configuration.accessLog ? logger : nil
        http.onShareTaken = { block, atShare in
            metrics.recordShareRefusal(atShare ? .clientConnections : .serverConnections)
            if atShare { warning.taken(block, what: "connections") }
            accessLog?.info("refused", metadata: ["reason": atShare ? "share" : "connection_limit", "status": "0", "client": "\(block)"])
        }
        http.onRefusal = { refusal in
            metrics.recordRefusal(refusal.reason)
            guard let accessLog else { return }
            var metadata: Logger.Metadata = ["reason": "\(refusal.reason.rawValue)", "status": "\(refusal.status)",
                                             "client": "\(refusal.client)"]
            if let proxy = refusal.proxy, proxy != refusal.client { metadata["proxy"] = "\(proxy)" }
            if let method = refusal.method { metadata["method"] = "\(method)" }
            if let target = refusal.target { metadata["target"] = "\(target)" }
            accessLog.info("refused", metadata: metadata)
        }
        do {
            store = try ManifestStore(path: configuration.manifestPath, logger: logger, live: live) { refusal, block in
                metrics.recordShareRefusal(refusal == .client ? .clientLive : refusal == .server ? .serverLive : .largestLive)
                if refusal == .client { warning.taken(block, what: "held polls and event streams") }
            }
        } catch {
            throw .manifest(error)
        }
        let reloader = Reloader(store: store)
        self.reloader = reloader
        // A burst of connections let go frees their pools: the reloader's thread trims.
        http.onReleases = { reloader.trimSoon() }
        let api = SwitchboardAPI(store: store, metrics: metrics, accessLog: configuration.accessLog ? logger : nil,
                                 explorer: configuration.ui ? ExplorerAssets() : nil, limits: configuration.limits,
                                 crossOrigin: configuration.crossOrigin)
        self.api = api
        do {
            daemon = try HTTPDaemon(configuration: http, handler: api)
        } catch {
            throw .listen(error)
        }
        port = daemon.port
        if configuration.watch {
            let folder = (configuration.manifestPath as NSString).deletingLastPathComponent
            watcher = DirectoryWatcher(directory: folder.isEmpty ? "." : folder, queue: reloader.queue) { reloader.schedule() }
            if watcher == nil { logger.warning("cannot watch the manifest's folder; reload with SIGHUP", metadata: ["folder": "\(folder)"]) }
        } else {
            watcher = nil
        }
        let m = store.current.compiled.manifest
        logger.notice("serving on \(configuration.host):\(port)", metadata: [
            "switchboard": "\(SwitchboardVersion.current)",
            "path": "\(configuration.manifestPath)", "version": "\(m.version)", "routes": "\(m.routes.count)",
            "etag": "\(store.current.compiled.etag)", "host": "\(configuration.host)", "port": "\(port)",
            "descriptors": "\(limit.descriptors)", "connections": "\(http.connectionLimit)",
            "connections_per_address": "\(http.perIPConnectionLimit)", "live": "\(store.live.limits.connections)",
            "trusted_proxies": "\(http.trustedProxies.ranges.map(\.description).joined(separator: ","))",
            "forwarded_header": "\(http.trustedProxies.header.fieldName)",
        ])
    }

    /// Re-reads the manifest now (SIGHUP) and waits for the outcome.
    @discardableResult
    package func reload() -> String {
        switch reloader.reloadNow() {
        case .reloaded(let version, let etag): return "reloaded version \(version) \(etag)"
        case .unchanged: return "unchanged"
        case .failed(let message): return "failed: \(message)"
        }
    }

    /// The ETag of the manifest in service.
    package var etag: String { store.current.compiled.etag }

    /// Starts a drain (SIGTERM; ``stop(gracePeriod:)`` ends it): `/readyz` answers 503 at
    /// once so that load balancers and Kubernetes take the server out, while every request
    /// is still accepted and answered, each answer closing its connection.
    package func drain() {
        api.draining.store(true, ordering: .relaxed)
        daemon.drain()
    }

    /// Stops accepting, lets in-flight requests finish (up to `gracePeriod`), stops.
    package func stop(gracePeriod: Duration = .seconds(10)) {
        watcher?.cancel()
        reloader.stop()
        let report = daemon.stop(gracePeriod: gracePeriod)
        if report.resumesPending > 0 {
            logger.error("stopped without stopping the HTTP daemon: connections still being resumed",
                         metadata: ["resumes_pending": "\(report.resumesPending)"])
        }
        if report.requestsInFlight > 0 {
            logger.warning("requests cut off at the end of the grace period", metadata: ["requests": "\(report.requestsInFlight)"])
        }
        store.live.stop()
    }
}

/// Until trusted proxies are named, the first time a client block takes its share the log
/// says so, naming the block and `--trusted-proxy`, at most once a minute: behind a proxy
/// every connection comes from the proxy's block, whose share is then the whole server's.
final class ShareWarning: Sendable {
    private let logger: Logger
    private let enabled: Bool
    private let pace = OnceAMinute()

    init(logger: Logger, trustedProxies: TrustedProxies) {
        self.logger = logger
        enabled = trustedProxies.isEmpty
    }

    func taken(_ block: ClientBlock, what: String) {
        guard enabled, pace.due() else { return }
        logger.warning("client block \(block) holds all the \(what) one client may; if it is a reverse proxy, an ingress, a mesh sidecar or a CDN, name it with --trusted-proxy (SWITCHBOARD_TRUSTED_PROXIES) so that each client it forwards gets its own share",
                       metadata: ["block": "\(block)"])
    }
}

/// A peer that is not trusted sent a forwarded header: a proxy nobody named, whose clients
/// all count as one block until the 257th connection is refused (a client that writes the
/// header itself is told apart by the operator, from the address). Logged at most once a
/// minute, naming the peer and the header.
final class UntrustedForwardingWarning: Sendable {
    private let logger: Logger
    private let pace = OnceAMinute()

    init(logger: Logger) { self.logger = logger }

    func sent(_ peer: IPAddress, _ header: ForwardedHeader) {
        guard pace.due() else { return }
        logger.warning("\(peer) sent \(header.fieldName) but is not a trusted proxy, so the header was not read and every client behind it counts as \(peer.block); if it is a reverse proxy, an ingress, a mesh sidecar or a CDN, name it with --trusted-proxy (SWITCHBOARD_TRUSTED_PROXIES)",
                       metadata: ["peer": "\(peer)", "header": "\(header.fieldName)"])
    }
}

/// True at most once an interval (a minute by default), whichever thread asks: one
/// atomic load on the way, a compare-exchange when due.
final class OnceAMinute: Sendable {
    /// When it was last due (``monotonicNanoseconds()``), 0 for never.
    private let last = Atomic<UInt64>(0)
    private let interval: UInt64

    init(interval: UInt64 = 60 * 1_000_000_000) { self.interval = interval }

    func due() -> Bool {
        let now = monotonicNanoseconds(), previous = last.load(ordering: .relaxed)
        guard previous == 0 || now &- previous >= interval else { return false }
        return last.compareExchange(expected: previous, desired: now, ordering: .relaxed).exchanged
    }
}
