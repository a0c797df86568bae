import CMicroHTTPD
import Dispatch
import Synchronization

import ServerSystem
import SystemSupport

#if canImport(Glibc)
import Glibc
#endif

/// An HTTP/1.1 server on libmicrohttpd: internal epoll threads, the limits that keep
/// slow or hostile clients from starving others, and a ``HTTPHandler`` called once per
/// complete request. A handler may also answer later (``HeldRequest``) or over time
/// (``EventStream``): such connections are parked in libmicrohttpd, not given a thread,
/// and count against the connection limits like any other.
///
/// ```swift
/// let daemon = try HTTPDaemon(configuration: .init(host: "127.0.0.1", port: 0), handler: MyHandler())
/// print(daemon.port)   // the bound port
/// daemon.stop()
/// ```
package final class HTTPDaemon: Sendable {
    package struct Configuration: Sendable {
        package var host: String
        /// 0 picks a free port; read it back from ``HTTPDaemon/port``.
        package var port: Int
        package var threads: Int
        /// Connections in all, held polls and event streams included, shared max-min fairly
        /// among client blocks (``AddressShares``); lowered to the descriptors the process
        /// may open by ``DescriptorLimit/fitting(_:)``.
        package var connectionLimit: Int
        /// Connections one client may hold at most, however many are free (slowloris):
        /// counted by /24 for IPv4 and by /64 for IPv6, the blocks one holder gets whole.
        package var perIPConnectionLimit: Int
        /// Connections libmicrohttpd accepts past ``connectionLimit``: it stops accepting at
        /// its own limit, leaving connections unseen in the listen queue, so its limit is
        /// set above the shares' for them to see, count and refuse every connection (and
        /// for a block below its share to be admitted while another's gives way).
        package var connectionHeadroom: Int { Self.headroom(connectionLimit) }
        static func headroom(_ limit: Int) -> Int { max(8, limit / 32) }
        /// Seconds of inactivity before a connection is closed.
        package var timeoutSeconds: Int
        /// Per-connection memory: bounds the request line and headers (beyond it,
        /// 414 or 431).
        package var connectionMemoryLimit: Int
        /// Longest request target accepted (longer gets 414).
        package var maxTargetLength: Int
        /// Most header fields a request may have (more gets 431).
        package var maxHeaderFields: Int
        /// Largest header section, counting each field as `Name: value\r\n` (larger gets 431).
        package var maxHeaderBytes: Int
        /// Largest body accepted (larger gets 413).
        package var maxBodySize: Int
        /// Seconds from the request line by which the whole request must have arrived, its
        /// body as framed (chunk-size lines, extensions, data and trailers) included; one
        /// still arriving after it gets 408 and is closed.
        package var bodyDeadlineSeconds: Int
        /// Seconds within which a request's head (request line and header section) must
        /// arrive, from the connection's start or the end of its previous request: a head
        /// trickled a byte at a time, which the inactivity timeout never ends, is cut off.
        /// (An idle keep-alive connection is closed after as long.)
        package var headDeadlineSeconds: Int
        /// Seconds a client may take to read an answer once it is queued (held polls and
        /// event streams apart): past them the connection is closed, and counted as
        /// `slow_reader`. An answer the socket's buffers take whole is never late.
        package var answerDeadlineSeconds: Int
        /// Bytes of request bodies being received, all connections together; a body that
        /// would take more gets 503. One client block may take an eighth of it (at least
        /// ``maxBodySize``); past that its body gets 429.
        package var bodyMemoryBudget: Int
        /// Peers whose forwarded client is believed (``TrustedProxies``); their connections
        /// are not held to a block's share, and each request counts for its forwarded client
        /// (``HTTPRequest/client``).
        package var trustedProxies: TrustedProxies
        /// Told of each request from a peer not in ``trustedProxies`` that carries a
        /// forwarded header (which one, `Forwarded` first), on the thread reading it: a
        /// proxy nobody named, whose clients then all count as one.
        package var onUntrustedForwarding: (@Sendable (IPAddress, ForwardedHeader) -> Void)?
        /// Told of a connection refused, on the thread accepting it, with its block and
        /// whether the block held its share (`true`; behind a proxy not named in
        /// ``trustedProxies``, that is every client at once) or every connection was taken
        /// and no block held more than its share (`false`).
        package var onShareTaken: (@Sendable (ClientBlock, _ atShare: Bool) -> Void)?
        /// Told of every request the daemon refuses and every connection it cuts past a
        /// deadline (``Refusal``), on the thread that refuses it: for the access log and
        /// `/metrics`.
        package var onRefusal: (@Sendable (Refusal) -> Void)?
        /// Request headers copied into ``HTTPRequest``.
        package var requestHeaders: [String]
        /// Told of every thousand connection states let go (held requests answered,
        /// streams closed): after such a burst, freed pages may be worth handing back.
        package var onReleases: (@Sendable () -> Void)?

        package init(host: String = "127.0.0.1", port: Int = 8080, threads: Int = 2, connectionLimit: Int = 65_536,
                    perIPConnectionLimit: Int = 256, timeoutSeconds: Int = 15, connectionMemoryLimit: Int = 32 << 10,
                    maxTargetLength: Int = 12 << 10, maxHeaderFields: Int = 100, maxHeaderBytes: Int = 8 << 10,
                    maxBodySize: Int = 1 << 20, bodyDeadlineSeconds: Int = 10, headDeadlineSeconds: Int = 10, answerDeadlineSeconds: Int = 60,
                    bodyMemoryBudget: Int = 64 << 20, trustedProxies: TrustedProxies = TrustedProxies(),
                    requestHeaders: [String] = []) {
            self.host = host
            self.port = port
            self.threads = threads
            self.connectionLimit = connectionLimit
            self.perIPConnectionLimit = perIPConnectionLimit
            self.timeoutSeconds = timeoutSeconds
            self.connectionMemoryLimit = connectionMemoryLimit
            self.maxTargetLength = maxTargetLength
            self.maxHeaderFields = maxHeaderFields
            self.maxHeaderBytes = maxHeaderBytes
            self.maxBodySize = maxBodySize
            self.bodyDeadlineSeconds = bodyDeadlineSeconds
            self.answerDeadlineSeconds = answerDeadlineSeconds
            self.headDeadlineSeconds = headDeadlineSeconds
            self.bodyMemoryBudget = bodyMemoryBudget
            self.trustedProxies = trustedProxies
            self.requestHeaders = requestHeaders
        }
    }

    /// Why the daemon could not start.
    package enum StartError: Error, Sendable, Equatable, CustomStringConvertible {
        case invalidAddress(String)
        case cannotListen(host: String, port: Int)
        /// The thread or descriptors that answer parked requests could not be made.
        case noHoldLoop

        package var description: String {
            switch self {
            case .invalidAddress(let host): return "'\(host)' is not an IPv4 or IPv6 address"
            case .cannotListen(let host, let port): return "cannot listen on \(host):\(port) (in use, or not permitted)"
            case .noHoldLoop: return "cannot start the thread that answers held requests (out of threads or descriptors)"
            }
        }
    }

    package let configuration: Configuration
    /// The port the daemon listens on (the chosen one when started with port 0).
    package let port: Int
    /// The running daemon; nil once stopped.
    private let daemon: Locked<DaemonHandle?>
    /// The context handed to the C callbacks; its retain is released in `stop()`.
    private let context: Unmanaged<DaemonContext>

    package init(configuration: Configuration, handler: some HTTPHandler) throws(StartError) {
        let names = configuration.requestHeaders.map { $0.lowercased() }
        guard let holdLoop = HoldLoop(onReleases: configuration.onReleases) else { throw .noHoldLoop }
        // Retained for the C callbacks; released in stop(), after MHD_stop_daemon.
        let context = Unmanaged.passRetained(DaemonContext(configuration: configuration, headerNames: names, handler: handler,
                                                           holdLoop: holdLoop))
        var config = sb_daemon_config()
        let started: OpaquePointer? = configuration.host.withCString { host in
            config.host = host
            config.port = UInt16(clamping: configuration.port)
            config.threads = UInt32(max(1, configuration.threads))
            config.connection_limit = UInt32(configuration.connectionLimit + configuration.connectionHeadroom)
            // Counted here by /24 and /64, trusted proxies apart (``AddressShares``), not per
            // address by libmicrohttpd.
            config.per_ip_limit = 0
            config.timeout_seconds = UInt32(configuration.timeoutSeconds)
            config.memory_limit = configuration.connectionMemoryLimit
            config.stack_size = 1 << 20
            return sb_start_daemon(&config, accessHandler, context.toOpaque(), requestCompleted, context.toOpaque(),
                                   requestStarted, context.toOpaque(), connectionNotified, context.toOpaque(),
                                   acceptPolicy, context.toOpaque(), libmicrohttpdLogged, nil)
        }
        guard let started else {
            holdLoop.stop()
            context.release()
            var probe = in6_addr()
            var probe4 = in_addr()
            if inet_pton(AF_INET, configuration.host, &probe4) != 1 && inet_pton(AF_INET6, configuration.host, &probe) != 1 {
                throw .invalidAddress(configuration.host)
            }
            throw .cannotListen(host: configuration.host, port: configuration.port)
        }
        self.configuration = configuration
        self.port = Int(sb_daemon_port(started))
        self.daemon = Locked(DaemonHandle(pointer: started))
        self.context = context
    }

    /// Requests received and not yet completed.
    package var requestsInFlight: Int { context.takeUnretainedValue().inFlight.load(ordering: .relaxed) }

    /// The callbacks' context, retained by the caller (tests read its counters after `stop()`).
    var callbackContext: DaemonContext { context.takeUnretainedValue() }

    /// What a stop left behind: nothing, unless the bounds it waits within passed.
    package struct StopReport: Sendable, Equatable {
        /// Connections whose resume another thread decided and had not made when the
        /// bound passed. The daemon is then left running rather than stopped:
        /// libmicrohttpd aborts the process when stopped with a connection suspended.
        package var resumesPending = 0
        /// Requests still in flight when the grace period ended (cut off by the stop).
        package var requestsInFlight = 0
    }

    /// The start of a drain (SIGTERM): requests are still accepted and answered, each
    /// answer closing its connection, so that the proxies in front reconnect elsewhere as
    /// they take the server out; ``stop(gracePeriod:)`` ends it.
    package func drain() {
        // Under the lock a stop takes the daemon out with: the context is still retained.
        daemon.withLock { running in
            if running != nil { context.takeUnretainedValue().draining.store(true, ordering: .relaxed) }
        }
    }

    /// Seconds a request still arriving when a stop begins has to arrive whole.
    static let arrivalGrace = 2

    /// How long a stop waits for the resumes other threads decided.
    static let resumeBound = Duration.seconds(5)

    /// Stops accepting connections, answers every held request (``HeldRequest/Wake/stopping``)
    /// and ends every event stream, lets open requests finish for up to `gracePeriod`, then
    /// stops the daemon. Safe to call more than once.
    @discardableResult
    package func stop(gracePeriod: Duration = .seconds(10)) -> StopReport {
        guard let running = daemon.withLock({ d -> DaemonHandle? in
            defer { d = nil }
            return d
        }) else { return StopReport() }
        // New connections are closed as soon as they are accepted (`acceptPolicy`), not
        // left queued unanswered. Not MHD_quiesce_daemon: with epoll it races the daemon's
        // threads to take the listening socket out of their epoll sets, and the loser
        // aborts the process ("Failed to remove listen FD from epoll set", an open
        // libmicrohttpd defect).
        let state = context.takeUnretainedValue()
        state.refusing.store(true, ordering: .relaxed)
        // A request still arriving has 2 s more at most (a trickle would hold the stop to
        // its own deadline, 10 s); a request being answered has the grace period.
        state.deadlines.hurry(within: Self.arrivalGrace)
        let clock = ContinuousClock()
        let deadline = clock.now + gracePeriod
        // libmicrohttpd must not be stopped with a connection suspended: every parked
        // request is answered and every stream ended, and none can start from here on;
        // then the resumes other threads decided (a wake-up, a send) and have not made yet.
        state.holdLoop.stop()
        state.streams.finishAll()
        var report = StopReport()
        report.resumesPending = state.holdLoop.waitForResumes(within: Self.resumeBound)
        if report.resumesPending > 0 { return report }
        // MHD_DAEMON_INFO_CURRENT_CONNECTIONS counts idle keep-alive connections too, which
        // need no waiting for: count requests in flight.
        while state.inFlight.load(ordering: .acquiring) > 0 && clock.now < deadline {
            usleep(10_000)
        }
        report.requestsInFlight = state.inFlight.load(ordering: .acquiring)
        // Deadlines were kept during the grace period: a request trickled in is cut at its
        // own deadline, not waited for to the end of the grace.
        state.deadlines.stop()
        MHD_stop_daemon(running.pointer)
        context.release()
        return report
    }

    deinit {
        stop(gracePeriod: .zero)
    }
}

/// `struct MHD_Daemon *`: libmicrohttpd's daemon functions may be called from any thread.
struct DaemonHandle: @unchecked Sendable {
    let pointer: OpaquePointer
}

/// What the C callbacks need: the handler and the limits. Immutable.
final class DaemonContext: Sendable {
    let configuration: HTTPDaemon.Configuration
    let headerNames: [String]
    /// The same names as a C array of C strings, for `sb_scan_headers`; allocated in
    /// `init`, never written after it, freed in `deinit`.
    nonisolated(unsafe) let headerNamesC: UnsafeMutablePointer<UnsafePointer<CChar>?>
    let handler: any HTTPHandler
    /// Requests between their request line and their completion (held ones and streams
    /// included).
    let inFlight = Atomic<Int>(0)
    /// Set by `stop`: new connections are closed as they are accepted.
    let refusing = Atomic<Bool>(false)
    /// Set by ``HTTPDaemon/drain()``: every answer closes its connection.
    let draining = Atomic<Bool>(false)
    /// Connections with a request state: made when libmicrohttpd accepts one, freed when
    /// it closes (0 again once the daemon stopped).
    let connectionStates = Atomic<Int>(0)
    /// Answers parked requests at their deadline or when their client leaves.
    let holdLoop: HoldLoop
    /// Open connections by /24 or /64.
    let shares: AddressShares
    /// Whether a peer is one of ``HTTPDaemon/Configuration/trustedProxies`` (false at once
    /// when none are named).
    func isTrusted(_ peer: IPAddress) -> Bool {
        !configuration.trustedProxies.isEmpty && configuration.trustedProxies.contains(peer)
    }
    /// Connections whose request is late, its head or the rest, are cut off.
    let deadlines: RequestDeadlines
    /// Bytes of bodies being received, all connections together within
    /// ``HTTPDaemon/Configuration/bodyMemoryBudget``, shared max-min fairly by client
    /// block; one block alone may take all but room for one body of the largest size.
    let bodies: BodyBudget

    /// Tells ``HTTPDaemon/Configuration/onRefusal`` of a refusal of the request in `state`.
    func report(_ reason: Refusal.Reason, status: Int, _ state: RequestState, method: UnsafePointer<CChar>?) {
        guard configuration.onRefusal != nil else { return }
        report(reason, status: status, state, methodName: method.map { String(cString: $0) })
    }

    /// The same with the method's name.
    func report(_ reason: Refusal.Reason, status: Int, _ state: RequestState, methodName: String?) {
        guard let onRefusal = configuration.onRefusal else { return }
        // A target is named up to 1 KiB: a refused one may be far longer.
        let target = state.target.isEmpty ? nil : String(decoding: state.target.prefix(1024), as: UTF8.self)
        onRefusal(Refusal(reason, status: status, client: state.client, proxy: state.forwarded ? state.peer : nil,
                          method: methodName, target: target))
    }
    let streams: OpenStreams

    init(configuration: HTTPDaemon.Configuration, headerNames: [String], handler: any HTTPHandler, holdLoop: HoldLoop) {
        self.configuration = configuration
        self.headerNames = headerNames
        headerNamesC = .allocate(capacity: max(1, headerNames.count))
        for (i, name) in headerNames.enumerated() { headerNamesC[i] = UnsafePointer(strdup(name)) }
        self.handler = handler
        self.holdLoop = holdLoop
        self.streams = OpenStreams(holdLoop: holdLoop)
        self.shares = AddressShares(capacity: configuration.connectionLimit, perBlock: configuration.perIPConnectionLimit)
        self.bodies = BodyBudget(budget: configuration.bodyMemoryBudget,
                                 perBlock: max(configuration.maxBodySize, configuration.bodyMemoryBudget - configuration.maxBodySize))
        let onRefusal = configuration.onRefusal
        self.deadlines = RequestDeadlines(headSeconds: configuration.headDeadlineSeconds, messageSeconds: configuration.bodyDeadlineSeconds,
                                          answerSeconds: configuration.answerDeadlineSeconds) { phase, peer in
            switch phase {
            case .head: onRefusal?(Refusal(.lateHead, status: 0, client: peer))
            case .message: onRefusal?(Refusal(.late, status: 408, client: peer))
            case .answer: onRefusal?(Refusal(.slowReader, status: 0, client: peer))
            case .idle, .linger: break
            }
        }
    }

    deinit {
        for i in headerNames.indices { free(UnsafeMutablePointer(mutating: headerNamesC[i])) }
        headerNamesC.deallocate()
    }
}
