import ArgumentParser
import Dispatch
import Foundation
import Logging
import Switchboard
import SwitchboardServer
import Synchronization
import SystemSupport

struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the HTTP API (the default command).",
        discussion: """
            SIGHUP reloads the manifest; so does any change in its folder. SIGTERM starts a \
            drain: /readyz answers 503 at once while every request is still answered for \
            --drain-seconds, then held polls are answered, the listener closes and the process \
            exits 0. SIGINT (or a second SIGTERM) skips what is left of the drain.
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

    @Option(name: .customLong("forwarded-header"),
            help: ArgumentHelp("The one header a trusted proxy names the client in: x-forwarded-for, or forwarded (RFC 7239); the other is never read [env: SWITCHBOARD_FORWARDED_HEADER; default: x-forwarded-for].",
                               valueName: "header"))
    var forwardedHeader: String?

    @Option(name: .customLong("max-wait"),
            help: "The longest Prefer: wait granted to a held poll, in seconds; keep it under the timeout of every proxy in front [env: SWITCHBOARD_MAX_WAIT; default: 25].")
    var maxWait: Int?

    @Option(name: .customLong("max-live"),
            help: "Held polls and event streams at once; past it a poll is answered at once and a stream gets 503 with Retry-After. Size it to the memory limit (docs/operations.md) [env: SWITCHBOARD_MAX_LIVE; default: half of the connections].")
    var maxLive: Int?

    @Option(name: .customLong("drain-seconds"),
            help: "After SIGTERM, how long every request is still answered (with /readyz failing) before the listener closes [env: SWITCHBOARD_DRAIN_SECONDS; default: 5].")
    var drainSeconds: Int?

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
            help: "Batches, explain=near, explain=1 of a URL over 1 KiB and validate requests in progress at once; more get 503 with Retry-After [default: 4].")
    var maxExpensiveRequests = RequestLimits().expensiveRequests

    @Option(name: .customLong("max-stream-seconds"),
            help: "How long a /v1/events stream lives; its retry: then brings the client back [default: 3600].")
    var maxStreamSeconds = RequestLimits().streamSeconds

    var limits: RequestLimits {
        RequestLimits(batchURLs: maxBatchURLs, explainedBatchURLs: maxExplainedBatchURLs, batchResponseBytes: maxBatchResponseBytes,
                      expensiveRequests: maxExpensiveRequests, streamSeconds: maxStreamSeconds,
                      maxWaitSeconds: Self.number(maxWait, env: "SWITCHBOARD_MAX_WAIT") ?? RequestLimits().maxWaitSeconds,
                      maxLive: Self.number(maxLive, env: "SWITCHBOARD_MAX_LIVE"))
    }

    var drain: Int { Self.number(drainSeconds, env: "SWITCHBOARD_DRAIN_SECONDS") ?? 5 }

    /// A flag's number, else its environment variable's (nil when neither is a number).
    private static func number(_ flag: Int?, env name: String) -> Int? {
        flag ?? ProcessInfo.processInfo.environment[name].flatMap { Int($0) }
    }

    var header: ForwardedHeader? {
        ForwardedHeader(rawValue: (forwardedHeader ?? ProcessInfo.processInfo.environment["SWITCHBOARD_FORWARDED_HEADER"] ?? "x-forwarded-for").lowercased())
    }

    /// A repeatable option's values, or its environment variable's comma-separated ones.
    private static func listed(_ flags: [String], env name: String) -> [String] {
        if !flags.isEmpty { return flags }
        guard let raw = ProcessInfo.processInfo.environment[name] else { return [] }
        return raw.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    var trustedProxies: TrustedProxies {
        get throws {
            try TrustedProxies(parsing: Self.listed(trustedProxy, env: "SWITCHBOARD_TRUSTED_PROXIES"), header: header ?? .xForwardedFor)
        }
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
        for (name, flag) in [("SWITCHBOARD_PORT", port), ("SWITCHBOARD_THREADS", threads), ("SWITCHBOARD_MAX_WAIT", maxWait),
                             ("SWITCHBOARD_DRAIN_SECONDS", drainSeconds), ("SWITCHBOARD_MAX_LIVE", maxLive)] where flag == nil {
            if let raw = env[name], Int(raw) == nil { throw ValidationError("\(name)='\(raw)' is not a number") }
        }
        if level == nil {
            throw ValidationError("unknown log level '\(logLevel ?? ProcessInfo.processInfo.environment["SWITCHBOARD_LOG_LEVEL"] ?? "")'; use trace, debug, info, notice, warning, error or critical")
        }
        if header == nil {
            throw ValidationError("unknown forwarded header '\(forwardedHeader ?? ProcessInfo.processInfo.environment["SWITCHBOARD_FORWARDED_HEADER"] ?? "")'; use x-forwarded-for or forwarded")
        }
        let wait = limits.maxWaitSeconds
        guard LivePolling.waitRange.contains(wait) else {
            throw ValidationError("--max-wait must be between \(LivePolling.waitRange.lowerBound) and \(LivePolling.waitRange.upperBound) seconds, not \(wait)")
        }
        guard (0...3600).contains(drain) else { throw ValidationError("--drain-seconds must be between 0 and 3600, not \(drain)") }
        if let live = limits.maxLive, live < 1 { throw ValidationError("--max-live must be at least 1, not \(live)") }
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
        let drainRequested = Atomic<Bool>(false)
        let stopRequested = Atomic<Bool>(false)
        let stopped = DispatchSemaphore(value: 0)
        let signals = DispatchQueue(label: "switchboard.signals")
        let drainSeconds = drain
        // Once: the end of the drain, or SIGINT, or a second SIGTERM, whichever comes first.
        let stop: @Sendable () -> Void = {
            guard !stopRequested.exchange(true, ordering: .acquiringAndReleasing) else { return }
            logger.notice("stopping: answering held requests, finishing in-flight ones")
            server.withLock { $0 }?.stop()
            stopped.signal()
        }
        var sources: [DispatchSourceSignal] = []
        for number in [SIGINT, SIGTERM, SIGHUP] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: signals)
            source.setEventHandler {
                let running = server.withLock { $0 }
                if number == SIGHUP {
                    logger.info("SIGHUP: reloading the manifest")
                    if let running { logger.debug("reload", metadata: ["outcome": "\(running.reload())"]) }
                } else if number == SIGTERM, drainSeconds > 0, !drainRequested.exchange(true, ordering: .acquiringAndReleasing) {
                    // Kubernetes sends SIGTERM while it is still taking the pod out of its
                    // Service: what arrives meanwhile is answered, and /readyz tells the
                    // balancers that have not heard yet. (A server still starting drains
                    // once started.)
                    logger.notice("draining: /readyz fails, requests are answered for \(drainSeconds) s more")
                    server.withLock { $0 }?.drain()
                    signals.asyncAfter(deadline: .now() + .seconds(drainSeconds), execute: stop)
                } else {
                    stop()
                }
            }
            source.resume()
            sources.append(source)
        }
        defer { sources.forEach { $0.cancel() } }
        do {
            let s = settings
            let access = accessLog || ProcessInfo.processInfo.environment["SWITCHBOARD_ACCESS_LOG"] == "1"
            var configuration = SwitchboardServer.Configuration(
                manifestPath: s.config, host: s.host, port: s.port, threads: s.threads, logger: logger, accessLog: access,
                ui: !noUI, limits: limits, crossOrigin: try? crossOrigin)
            configuration.trustedProxies = (try? trustedProxies) ?? TrustedProxies()
            let started = try SwitchboardServer(configuration: configuration)
            server.withLock { $0 = started }
            // A signal that came while starting found no server to stop or drain.
            if stopRequested.load(ordering: .acquiring) {
                started.stop()
            } else if drainRequested.load(ordering: .acquiring) {
                started.drain()
            }
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
