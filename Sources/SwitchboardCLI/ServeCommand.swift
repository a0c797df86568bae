import ArgumentParser
import Dispatch
import Foundation
import Logging
import MicroHTTPD
import Switchboard
import SwitchboardServer
import Synchronization
import SystemSupport

struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the HTTP API (the default command).",
        discussion: """
            SIGHUP reloads the manifest; so does any change in its folder. SIGINT and SIGTERM \
            stop accepting connections, let in-flight requests finish, and exit 0.
            """
    )

    @OptionGroup var manifest: ManifestOptions

    @Option(help: "The address to listen on, IPv4 or IPv6 [env: SWITCHBOARD_HOST; default: 127.0.0.1].")
    var host: String?

    @Option(help: "The port to listen on; 0 picks a free one [env: SWITCHBOARD_PORT; default: 8080].")
    var port: Int?

    @Option(help: "Worker threads [env: SWITCHBOARD_THREADS; default: one per core].")
    var threads: Int?

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical [env: SWITCHBOARD_LOG_LEVEL; default: info].")
    var logLevel: String?

    @Flag(name: .customLong("access-log"), help: "Log one line per request [env: SWITCHBOARD_ACCESS_LOG=1].")
    var accessLog = false

    @Flag(name: .customLong("no-ui"), help: "Do not serve the route explorer at / and /ui/ (the API stays).")
    var noUI = false

    @Option(name: .customLong("trusted-proxy"),
            help: ArgumentHelp("A proxy whose forwarded client is believed (Forwarded, X-Forwarded-For), as an address or CIDR range; repeatable [env: SWITCHBOARD_TRUSTED_PROXIES, comma-separated].",
                               valueName: "cidr"))
    var trustedProxy: [String] = []

    @Option(name: .customLong("cors-origin"),
            help: ArgumentHelp("A web origin whose pages may read /v1/resolve, /v1/manifest, /v1/events and /v1/routes (https://app.example.com), or *; repeatable [env: SWITCHBOARD_CORS_ORIGINS, comma-separated].",
                               valueName: "origin"))
    var corsOrigin: [String] = []

    @Option(name: .customLong("max-batch-urls"), help: "URLs in one POST /v1/resolve; more gets 413 [default: 10000].")
    var maxBatchURLs = RequestLimits().batchURLs

    @Option(name: .customLong("max-explained-batch-urls"), help: "URLs in one POST /v1/resolve with explain; more gets 413 [default: 1000].")
    var maxExplainedBatchURLs = RequestLimits().explainedBatchURLs

    @Option(name: .customLong("max-batch-response-bytes"), help: "Bytes of a batch's answer; more gets 413 [default: 8388608].")
    var maxBatchResponseBytes = RequestLimits().batchResponseBytes

    @Option(name: .customLong("max-expensive-requests"),
            help: "Batches, explain=near and validate requests in progress at once; more get 503 with Retry-After [default: 4].")
    var maxExpensiveRequests = RequestLimits().expensiveRequests

    @Option(name: .customLong("max-stream-seconds"),
            help: "How long a /v1/events stream lives; its retry: then brings the client back [default: 3600].")
    var maxStreamSeconds = RequestLimits().streamSeconds

    var limits: RequestLimits {
        RequestLimits(batchURLs: maxBatchURLs, explainedBatchURLs: maxExplainedBatchURLs, batchResponseBytes: maxBatchResponseBytes,
                      expensiveRequests: maxExpensiveRequests, streamSeconds: maxStreamSeconds)
    }

    /// A repeatable option's values, or its environment variable's comma-separated ones.
    private static func listed(_ flags: [String], env name: String) -> [String] {
        if !flags.isEmpty { return flags }
        guard let raw = ProcessInfo.processInfo.environment[name] else { return [] }
        return raw.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    var trustedProxies: TrustedProxies {
        get throws { try TrustedProxies(parsing: Self.listed(trustedProxy, env: "SWITCHBOARD_TRUSTED_PROXIES")) }
    }

    var crossOrigin: CrossOrigin? {
        get throws {
            let origins = Self.listed(corsOrigin, env: "SWITCHBOARD_CORS_ORIGINS")
            return origins.isEmpty ? nil : try CrossOrigin(parsing: origins)
        }
    }

    var level: Logger.Level? {
        Logger.Level(rawValue: logLevel ?? ProcessInfo.processInfo.environment["SWITCHBOARD_LOG_LEVEL"] ?? "info")
    }

    /// Flags win over the environment, the environment over the defaults.
    var settings: (config: String, host: String, port: Int, threads: Int) {
        let env = ProcessInfo.processInfo.environment
        return (manifest.config,
                host ?? env["SWITCHBOARD_HOST"] ?? "127.0.0.1",
                port ?? env["SWITCHBOARD_PORT"].flatMap { Int($0) } ?? 8080,
                threads ?? env["SWITCHBOARD_THREADS"].flatMap { Int($0) } ?? max(1, ProcessInfo.processInfo.activeProcessorCount))
    }

    func validate() throws {
        let env = ProcessInfo.processInfo.environment
        for (name, flag) in [("SWITCHBOARD_PORT", port), ("SWITCHBOARD_THREADS", threads)] where flag == nil {
            if let raw = env[name], Int(raw) == nil { throw ValidationError("\(name)='\(raw)' is not a number") }
        }
        if level == nil {
            throw ValidationError("unknown log level '\(logLevel ?? ProcessInfo.processInfo.environment["SWITCHBOARD_LOG_LEVEL"] ?? "")'; use trace, debug, info, notice, warning, error or critical")
        }
        do {
            _ = try trustedProxies
            _ = try crossOrigin
        } catch {
            throw ValidationError("\(error)")
        }
        let s = settings
        guard (0...65535).contains(s.port) else { throw ValidationError("the port must be between 0 and 65535, not \(s.port)") }
        guard (1...256).contains(s.threads) else { throw ValidationError("threads must be between 1 and 256, not \(s.threads)") }
        for (name, value) in [("--max-batch-urls", maxBatchURLs), ("--max-explained-batch-urls", maxExplainedBatchURLs),
                              ("--max-batch-response-bytes", maxBatchResponseBytes), ("--max-expensive-requests", maxExpensiveRequests),
                              ("--max-stream-seconds", maxStreamSeconds)]
        where value < 1 {
            throw ValidationError("\(name) must be at least 1, not \(value)")
        }
    }

    func run() throws {
        let level = self.level ?? .info
        let logger = Logger(label: "switchboard") { _ in JSONLogHandler(level: level) }
        // Signal handling is in place before the server starts (and logs its port), so a
        // signal sent as soon as the port is known is never lost.
        let server = Locked<SwitchboardServer?>(nil)
        let stopRequested = Atomic<Bool>(false)
        let stopped = DispatchSemaphore(value: 0)
        let signals = DispatchQueue(label: "switchboard.signals")
        var sources: [DispatchSourceSignal] = []
        for number in [SIGINT, SIGTERM, SIGHUP] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: signals)
            source.setEventHandler {
                let running = server.withLock { $0 }
                if number == SIGHUP {
                    logger.info("SIGHUP: reloading the manifest")
                    if let running { logger.debug("reload", metadata: ["outcome": "\(running.reload())"]) }
                } else if !stopRequested.exchange(true, ordering: .acquiringAndReleasing) {
                    logger.notice("stopping: finishing in-flight requests")
                    running?.stop()
                    stopped.signal()
                }
            }
            source.resume()
            sources.append(source)
        }
        defer { sources.forEach { $0.cancel() } }
        do {
            let s = settings
            let access = accessLog || ProcessInfo.processInfo.environment["SWITCHBOARD_ACCESS_LOG"] == "1"
            var http = HTTPDaemon.Configuration()
            http.trustedProxies = (try? trustedProxies) ?? TrustedProxies()
            let started = try SwitchboardServer(
                configuration: .init(manifestPath: s.config, host: s.host, port: s.port, threads: s.threads, http: http,
                                     logger: logger, accessLog: access, ui: !noUI, limits: limits,
                                     crossOrigin: try? crossOrigin))
            server.withLock { $0 = started }
            // A stop that came while starting found no server to stop.
            if stopRequested.load(ordering: .acquiring) { started.stop() }
        } catch {
            switch error {
            case .manifest(.invalid(let path, let manifestError)):
                Diagnostics.report(path, manifestError.diagnostics, printError)
                throw ExitCode(1)
            default:
                printError("switchboard: \(error)")
                throw ExitCode(2)
            }
        }
        stopped.wait()
        logger.notice("stopped")
    }
}
