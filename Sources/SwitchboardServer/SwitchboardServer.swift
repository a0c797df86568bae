import Dispatch
import Foundation
import Logging
import MicroHTTPD
import Switchboard
import ServerSystem
import SystemSupport

/// The Switchboard HTTP service: the manifest store, its reloader (inotify on the
/// manifest's folder, plus ``reload()`` for SIGHUP) and the HTTP daemon.
///
/// ```swift
/// let server = try SwitchboardServer(configuration: .init(manifestPath: "Config/routes.json", port: 0))
/// print("listening on \(server.port)")
/// server.stop()
/// ```
public final class SwitchboardServer: Sendable {
    public struct Configuration: Sendable {
        public var manifestPath: String
        public var host: String
        public var port: Int
        public var threads: Int
        /// Watch the manifest's folder and reload on change.
        public var watch: Bool
        /// The daemon's limits (host, port and threads above override its own).
        public var http: HTTPDaemon.Configuration
        /// Where start-up, reloads and (with `accessLog`) requests are logged; silent by default.
        public var logger: Logger
        /// Log one line per request.
        public var accessLog: Bool
        /// Serve the route explorer at `/` and `/ui/` (`serve --no-ui` turns it off).
        public var ui: Bool
        /// What one request may ask for.
        public var limits: RequestLimits

        public init(manifestPath: String = "Config/routes.json", host: String = "127.0.0.1", port: Int = 8080,
                    threads: Int = 2, watch: Bool = true, http: HTTPDaemon.Configuration = HTTPDaemon.Configuration(),
                    logger: Logger = Logger(label: "switchboard", factory: { _ in SwiftLogNoOpLogHandler() }),
                    accessLog: Bool = false, ui: Bool = true, limits: RequestLimits = RequestLimits()) {
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
        }
    }

    /// Why the server could not start.
    public enum StartError: Error, Sendable, CustomStringConvertible {
        case manifest(ManifestFile.LoadError)
        case listen(HTTPDaemon.StartError)

        public var description: String {
            switch self {
            case .manifest(let e): return e.description
            case .listen(let e): return e.description
            }
        }
    }

    /// The bound port.
    public let port: Int
    let store: ManifestStore
    let metrics = Metrics()
    private let daemon: HTTPDaemon
    private let reloader: Reloader
    private let watcher: DirectoryWatcher?
    private let logger: Logger

    public init(configuration: Configuration) throws(StartError) {
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
        http.requestHeaders = SwitchboardAPI.requestHeaders
        // Held polls and streams never end on their own: together they may take half of
        // the connections, never all of them.
        let live = LiveUpdates.Limits(connections: max(1, http.connectionLimit / 2), streamSeconds: configuration.limits.streamSeconds)
        do {
            store = try ManifestStore(path: configuration.manifestPath, logger: logger, live: live)
        } catch {
            throw .manifest(error)
        }
        let reloader = Reloader(store: store)
        self.reloader = reloader
        // A burst of connections let go frees their pools: the reloader's thread trims.
        http.onReleases = { reloader.trimSoon() }
        do {
            daemon = try HTTPDaemon(configuration: http, handler: SwitchboardAPI(store: store, metrics: metrics,
                                                                            accessLog: configuration.accessLog ? logger : nil,
                                                                            explorer: configuration.ui ? ExplorerAssets() : nil,
                                                                            limits: configuration.limits))
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
            "connections_per_address": "\(http.perIPConnectionLimit)",
        ])
    }

    /// Re-reads the manifest now (SIGHUP) and waits for the outcome.
    @discardableResult
    public func reload() -> String {
        switch reloader.reloadNow() {
        case .reloaded(let version, let etag): return "reloaded version \(version) \(etag)"
        case .unchanged: return "unchanged"
        case .failed(let message): return "failed: \(message)"
        }
    }

    /// The ETag of the manifest in service.
    public var etag: String { store.current.compiled.etag }

    /// Stops accepting, lets in-flight requests finish (up to `gracePeriod`), stops.
    public func stop(gracePeriod: Duration = .seconds(10)) {
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
