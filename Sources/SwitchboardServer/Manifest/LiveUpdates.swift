import Dispatch
import MicroHTTPD
import Switchboard
import SystemSupport

/// The manifest in service and those waiting for the next one (docs/http-api.md, the server's
/// half): conditional GETs held until another manifest is in service (`Prefer: wait=N`)
/// and Server-Sent Event streams.
///
/// It is the one owner of the manifest in service: requests read it here, the store puts
/// a new one here, and the swap, the choice of the polls it wakes and a poll's
/// registration happen under one lock. A poll registers only while the manifest it
/// compared with is still the one in service, so none can miss a change between its
/// comparison and its registration, and none is answered from a manifest older than one
/// a request was already answered from. Held requests and streams are parked in the HTTP
/// daemon and cost no thread; the answer of a held poll is decided when it is sent, from
/// the manifest in service then, so a burst of reloads leaves every client on the last one.
final class LiveUpdates: Sendable {
    /// Seconds between keep-alive comments on a stream (at most).
    static let keepAliveSeconds = 15
    /// Bytes a stream's reader may fall behind before the stream is ended.
    static let streamBacklogLimit = 64 << 10
    /// Bytes of a refusal's message a `reload-failed` event carries.
    static let eventErrorLimit = 4 << 10
    /// Upper bounds of the wake-up latency buckets, in seconds.
    static let wakeupBuckets: [Double] = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1]

    /// What held polls and streams may take.
    struct Limits: Sendable {
        /// Held polls and streams together; past it a poll is answered at once (the
        /// preference not applied, as RFC 7240 allows) and a stream gets 503.
        var connections = Int.max
        /// Held polls and streams of one client block (``HTTPRequest/client``); past it
        /// its poll is answered at once and its stream gets 429.
        var perClient = Int.max
        /// How long a stream lives before it is ended (its client comes back after its `retry:`).
        var streamSeconds = 3600
    }

    private struct Waiter: Sendable {
        let request: HeldRequest
        let etag: String
        let echo: Bool
        let block: ClientBlock
    }

    /// What `/metrics` shows.
    struct Figures: Sendable {
        var heldPolls = 0
        var streams = 0
        /// Held polls answered because the manifest changed, by latency bucket (the last
        /// one past every bound), from the swap to the answer being queued.
        var wakeups = [Int](repeating: 0, count: LiveUpdates.wakeupBuckets.count + 1)
        var wakeupSeconds = 0.0
    }

    /// The manifest in service and how reloads went, changed together: a request never
    /// sees a new manifest beside the previous reload's error.
    struct Service: Sendable {
        var current: ServedManifest
        var lastReloadError: String?
        var reloads = 0
        var reloadFailures = 0
    }

    private struct State: Sendable {
        var service: Service
        var waiters: [UInt64: Waiter] = [:]
        /// Waiters woken by a swap and not yet answered, with the swap's time.
        var woken: [UInt64: (swapped: ContinuousClock.Instant, block: ClientBlock)] = [:]
        var streams: [UInt64: (stream: EventStream, ends: ContinuousClock.Instant, block: ClientBlock)] = [:]
        /// Held polls and streams, shared max-min fairly by client block.
        var shares: FairShares<ClientBlock>
        /// The ids of each block's held polls and streams, for the one that gives way.
        var byBlock: [ClientBlock: Set<UInt64>] = [:]

        /// Takes a place for `block`'s held poll or stream `id`, or says why not. When the
        /// places are all taken and `block` holds less than its share, the place is taken
        /// from the block holding the most: its newest held poll is returned to be answered
        /// now (as at the end of its wait), else its newest stream to be ended.
        mutating func take(_ block: ClientBlock, id: UInt64) -> (refusal: Refusal?, givingWay: GivingWay?) {
            switch shares.take(block) {
            case .refused(let atShare):
                return (atShare ? .client : .server, nil)
            case .granted:
                byBlock[block, default: []].insert(id)
                return (nil, nil)
            case .grantedFrom(let giver):
                byBlock[block, default: []].insert(id)
                let ids = byBlock[giver] ?? []
                if let newest = ids.filter({ waiters[$0] != nil }).max(), let waiter = waiters.removeValue(forKey: newest) {
                    forget(newest, of: giver)
                    return (nil, .poll(waiter.request))
                }
                if let newest = ids.filter({ streams[$0] != nil }).max(), let stream = streams.removeValue(forKey: newest) {
                    forget(newest, of: giver)
                    return (nil, .stream(stream.stream))
                }
                // Its places are all held polls being answered: nothing to take back now.
                return (nil, nil)
            }
        }

        /// `block`'s held poll or stream `id` gives its place back.
        mutating func forget(_ id: UInt64, of block: ClientBlock) {
            guard byBlock[block]?.remove(id) != nil else { return }
            if byBlock[block]?.isEmpty == true { byBlock[block] = nil }
            shares.release(block)
        }
        var nextID: UInt64 = 1
        var figures = Figures()
        /// The refusal last announced: the same file refused again (every write in its
        /// folder re-reads it) is not news until a manifest is put in service.
        var lastFailure: String?
    }

    /// Why a held poll or a stream was refused: the server's share of the connections is
    /// taken, or the client's; or a place was taken back from the block holding the most.
    enum Refusal: Error, Sendable, Equatable { case server, client, gaveWay }

    /// A held poll or stream of the block holding the most, giving its place to a block
    /// below its share: the poll is answered now, the stream ended.
    enum GivingWay: Sendable {
        case poll(HeldRequest)
        case stream(EventStream)

        func giveWay() {
            switch self {
            case .poll(let request): request.wake()
            case .stream(let stream): stream.finish()
            }
        }
    }

    /// Told of each refusal, with the client's block (for the log and `/metrics`).
    let onRefusal: (@Sendable (Refusal, ClientBlock) -> Void)?

    private let state: Locked<State>
    /// Runs between a swap and the wake-ups it decided, for tests that pause there.
    let afterSwap = Locked<(@Sendable () -> Void)?>(nil)
    /// Sends the keep-alive comment; cancelled by `stop()`. Dispatch sources are thread-safe.
    nonisolated(unsafe) private let keepAlive: DispatchSourceTimer

    let limits: Limits

    init(current: ServedManifest, limits: Limits = Limits(), onRefusal: (@Sendable (Refusal, ClientBlock) -> Void)? = nil) {
        self.limits = limits
        self.onRefusal = onRefusal
        state = Locked(State(service: Service(current: current),
                             shares: FairShares(capacity: limits.connections, perHolder: limits.perClient)))
        keepAlive = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "switchboard.keep-alive"))
        // Often enough to end a stream within a second of its end when streams are short.
        let period = max(1, min(Self.keepAliveSeconds, limits.streamSeconds))
        keepAlive.schedule(deadline: .now() + .seconds(period), repeating: .seconds(period))
        keepAlive.setEventHandler { [weak self] in self?.tick() }
        keepAlive.resume()
    }

    /// The keep-alive comment to every stream, and the end of those whose time is up.
    private func tick() {
        let now = ContinuousClock.now
        let (open, over) = state.withLock { s in
            let over = s.streams.values.filter { $0.ends <= now }.map(\.stream)
            return (s.streams.values.map(\.stream), over)
        }
        for stream in over { stream.finish() }
        for stream in open { stream.send(ServerSentEvent.keepAlive) }
    }

    func stop() { keepAlive.cancel() }

    /// The manifest to answer one request from.
    var current: ServedManifest { state.withLock { $0.service.current } }

    /// The manifest in service with the reload figures of the same moment.
    var service: Service { state.withLock { $0.service } }

    var figures: Figures {
        state.withLock { s in
            var f = s.figures
            f.heldPolls = s.waiters.count + s.woken.count
            f.streams = s.streams.count
            return f
        }
    }

    // MARK: Held polls

    /// Holds a poll whose `If-None-Match` matched `seen` until another manifest is in
    /// service (200 with it) or `wait` seconds and a random extra of up to `wait`/16 pass
    /// (304); both carry `Preference-Applied`. `answered` is told the status sent (not
    /// when the client left first). Nil when held polls and streams already take their
    /// share of the connections, or those of `client`'s block take its share: the poll is
    /// then answered as if it had asked for no wait.
    func hold(seen: ServedManifest, echo: Bool, gzip: Bool, wait: Int, client: ClientBlock,
              answered: @escaping @Sendable (Int) -> Void) -> HTTPResponse? {
        let etag = echo ? seen.echoETag : seen.compiled.etag
        let jitter = LivePolling.maxJitter(wait: wait) * Double.random(in: 0...1)
        let id = state.withLock { s in
            defer { s.nextID += 1 }
            return s.nextID
        }
        let request = HeldRequest(until: .now + .seconds(wait) + jitter) { [weak self] wake in
            let served = self?.finish(id) ?? seen
            let changed = (echo ? served.echoETag : served.compiled.etag) != etag
            let response = served.heldAnswer(changed: changed, echo: echo, gzip: gzip, wait: wait)
            if wake != .clientGone { answered(response.status) }
            return response
        }
        let (registered, givingWay): (Result<Bool, Refusal>, GivingWay?) = state.withLock { s in
            guard (echo ? s.service.current.echoETag : s.service.current.compiled.etag) == etag else { return (.success(false), nil) }
            let (refusal, givingWay) = s.take(client, id: id)
            if let refusal { return (.failure(refusal), nil) }
            s.waiters[id] = Waiter(request: request, etag: etag, echo: echo, block: client)
            return (.success(true), givingWay)
        }
        if let givingWay {
            givingWay.giveWay()
            onRefusal?(.gaveWay, client)
        }
        switch registered {
        case .failure(let refusal):
            onRefusal?(refusal, client)
            return nil
        case .success(let registered):
            // The manifest changed since the comparison: the answer, a 200, goes out at once.
            if !registered { request.wake() }
            return .held(request)
        }
    }

    /// Forgets a waiter being answered; returns the manifest to answer from.
    private func finish(_ id: UInt64) -> ServedManifest {
        let now = ContinuousClock.now
        return state.withLock { s in
            if let waiter = s.waiters.removeValue(forKey: id) { s.forget(id, of: waiter.block) }
            if let (swapped, block) = s.woken.removeValue(forKey: id) {
                s.forget(id, of: block)
                let seconds = Double((now - swapped) / .microseconds(1)) / 1e6
                let bucket = Self.wakeupBuckets.firstIndex { seconds <= $0 } ?? Self.wakeupBuckets.count
                s.figures.wakeups[bucket] += 1
                s.figures.wakeupSeconds += seconds
            }
            return s.service.current
        }
    }

    // MARK: Streams

    /// `GET /v1/events`: a stream that starts with its `retry:` delay (2 to 5 s, random
    /// per connection) and, unless `lastEventID` names the manifest in service, a
    /// `manifest` event for it.
    func subscribe(lastEventID: String?, client: ClientBlock) -> HTTPResponse {
        let retry = ServerSentEvent.retry(milliseconds: Int.random(in: 2000...5000))
        let ends = ContinuousClock.now + .seconds(limits.streamSeconds)
        let limits = self.limits
        let (stream, givingWay): (Result<EventStream, Refusal>, GivingWay?) = state.withLock { s in
            let id = s.nextID
            s.nextID += 1
            let (refusal, givingWay) = s.take(client, id: id)
            if let refusal { return (.failure(refusal), nil) }
            let current = s.service.current
            let initial = lastEventID == current.compiled.etag ? retry : retry + Self.manifestEvent(current)
            let stream = EventStream(initial: initial, limit: Self.streamBacklogLimit) { [weak self] in
                self?.state.withLock { s in
                    s.streams[id] = nil
                    s.forget(id, of: client)
                }
            }
            s.streams[id] = (stream, ends, client)
            return (.success(stream), givingWay)
        }
        if let givingWay {
            givingWay.giveWay()
            onRefusal?(.gaveWay, client)
        }
        let refusal: Refusal
        switch stream {
        case .success(let stream):
            return HTTPResponse(status: 200, headers: [("Content-Type", "text/event-stream; charset=utf-8"),
                                                       ("Cache-Control", "no-cache"), ("X-Accel-Buffering", "no")],
                                stream: stream)
        case .failure(let reason):
            refusal = reason
        }
        onRefusal?(refusal, client)
        if refusal == .client {
            return Problem.tooManyRequests("this client holds all the polls and event streams one client may (\(limits.perClient)); retry in a few seconds",
                                           retryAfter: Int.random(in: 2...5)).response
        }
        return Problem.unavailable("held polls and event streams take all the connections they may; retry in a few seconds",
                                   retryAfter: Int.random(in: 2...5)).response
    }

    // MARK: Changes

    /// Puts `served` in service: swaps it in, wakes the polls whose manifest it replaces
    /// and tells the streams (when its ETag differs from the last).
    func putInService(_ served: ServedManifest) {
        let now = ContinuousClock.now
        let (wake, streams): ([HeldRequest], [EventStream]) = state.withLock { s in
            let changed = s.service.current.compiled.etag != served.compiled.etag
            s.service.current = served
            s.service.reloads += 1
            s.service.lastReloadError = nil
            s.lastFailure = nil
            var wake: [HeldRequest] = []
            let stale = s.waiters.filter { $0.value.etag != ($0.value.echo ? served.echoETag : served.compiled.etag) }
            wake.reserveCapacity(stale.count)
            for (id, waiter) in stale {
                s.waiters[id] = nil
                s.woken[id] = (now, waiter.block)
                wake.append(waiter.request)
            }
            return (wake, changed ? s.streams.values.map(\.stream) : [])
        }
        afterSwap.withLock { $0 }?()
        // Streams first: a send each, where a poll's wake-up is a resume and an answer.
        if !streams.isEmpty {
            let event = Self.manifestEvent(served)
            for stream in streams { stream.send(event) }
        }
        for request in wake { request.wake() }
    }

    /// Records that a new file was refused and the last good one stays (`message`: what
    /// `/readyz` and the streams may show of why); announced once until a manifest is put
    /// in service or another refusal comes.
    func refused(_ message: String, at epoch: Int64) {
        let news = state.withLock { s in
            s.service.reloadFailures += 1
            s.service.lastReloadError = message
            defer { s.lastFailure = message }
            return s.lastFailure != message
        }
        guard news else { return }
        // The summary names one error, which may still quote a long pattern: an event
        // carries its start, far below a stream's backlog limit.
        var error = message
        if error.utf8.count > Self.eventErrorLimit {
            error = String(decoding: message.utf8.prefix(Self.eventErrorLimit), as: UTF8.self) + " …"
        }
        broadcast(ServerSentEvent.event("reload-failed", data: .object([
            .init("error", .string(error)), .init("at", .string(HTTPDate.rfc3339(epoch))),
        ])))
    }

    private func broadcast(_ bytes: [UInt8]) {
        for stream in state.withLock({ $0.streams.values.map(\.stream) }) { stream.send(bytes) }
    }

    /// `manifest`, with the ETag as its id: `{"version","etag","updatedAt","loadedAt","routes"}`.
    static func manifestEvent(_ served: ServedManifest) -> [UInt8] {
        let m = served.compiled.manifest
        return ServerSentEvent.event("manifest", id: served.compiled.etag, data: .object([
            .init("version", .integer(m.version)),
            .init("etag", .string(served.compiled.etag)),
            .init("updatedAt", m.updatedAt.map { .string($0) } ?? .null),
            .init("loadedAt", .string(HTTPDate.rfc3339(served.loadedAt))),
            .init("routes", .integer(Int64(m.routes.count))),
        ]))
    }
}
