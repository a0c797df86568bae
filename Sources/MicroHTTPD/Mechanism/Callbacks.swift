import CMicroHTTPD
import Glibc
import Synchronization
import ServerSystem
import SystemSupport

// The C callbacks libmicrohttpd calls on its threads. Kept out of any actor (a closure
// in main.swift would be main-actor isolated and trap on these threads) and free of
// anything that can trap on client input.
//
// Every object a callback reaches through a C pointer outlives the call: the daemon's
// context until `MHD_stop_daemon` returns, a connection's `RequestState` until the
// connection-closed notification releases it. So callbacks borrow them
// (`_withUnsafeGuaranteedRef`) and never retain or release them per call; only the
// notifications that begin and end a lifetime touch the reference count.

/// libmicrohttpd's accept policy: once the daemon is stopping, a new connection is closed
/// as soon as it is accepted (`HTTPDaemon.stop`); one its block's share does not admit
/// (``AddressShares``) is closed too, unless it comes from a trusted proxy.
func acceptPolicy(_ cls: UnsafeMutableRawPointer?, _ address: UnsafePointer<sockaddr>?, _ length: socklen_t) -> MHD_Result {
    guard let cls else { return .YES }
    return Unmanaged<DaemonContext>.fromOpaque(cls)._withUnsafeGuaranteedRef { context in
        if context.refusing.load(ordering: .relaxed) { return .NO }
        let peer = IPAddress(sb_address_ip(address))
        if context.isTrusted(peer) { return .YES }
        switch context.shares.admit(peer.block) {
        case .admitted:
            return .YES
        case .admittedInPlaceOf(let gaveWay):
            context.configuration.onRefusal?(Refusal(.gaveWay, status: 0, client: gaveWay))
            return .YES
        case .refused(let atShare):
            context.configuration.onShareTaken?(peer.block, atShare)
            return .NO
        }
    }
}

/// MHD_OPTION_EXTERNAL_LOGGER: libmicrohttpd's messages. The error answer it writes itself
/// (a request line or header it cannot read: 400, 414, 431, 505...) is logged as "Error
/// processing request (HTTP response code is N ...)" on the thread serving the connection,
/// which then closes it: the status is noted for that thread (``ErrorAnswer``) and
/// reported with the connection, when its request or the connection itself ends. Every
/// other message is dropped, as it was before the logger was set.
func libmicrohttpdLogged(_ cls: UnsafeMutableRawPointer?, _ format: UnsafePointer<CChar>?, _ arguments: CVaListPointer?) {
    guard let format, let arguments, strstr(format, "HTTP response code is") != nil else { return }
    withUnsafeTemporaryAllocation(of: CChar.self, capacity: 256) { text in
        guard let base = text.baseAddress, vsnprintf(base, text.count, format, arguments) > 0,
              let found = strstr(base, "HTTP response code is ") else { return }
        ErrorAnswer.note(strtol(found + 22, nil, 10))
    }
}

/// The status of the last error answer libmicrohttpd wrote on this thread, until it is
/// taken: a thread-specific slot, since the logger is told no connection. The connection
/// it belongs to closes right after the answer is written, on the same thread; a status
/// noted more than 2 s ago is not taken (a connection closing later is another's).
enum ErrorAnswer {
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    /// The status in the low 16 bits, the monotonic second it was noted above them.
    static func note(_ status: Int) {
        let noted = Int(monotonicNanoseconds() / 1_000_000_000) << 16 | (status & 0xFFFF)
        pthread_setspecific(key, UnsafeRawPointer(bitPattern: noted))
    }

    /// The status noted on this thread within 2 s, 0 when none; cleared.
    static func take() -> Int {
        let noted = Int(bitPattern: pthread_getspecific(key))
        guard noted != 0 else { return 0 }
        pthread_setspecific(key, nil)
        let age = Int(monotonicNanoseconds() / 1_000_000_000) - noted >> 16
        return age <= 2 ? noted & 0xFFFF : 0
    }
}

/// MHD_OPTION_NOTIFY_CONNECTION: a connection's state is made when it opens
/// (`passRetained`) and released when it closes, after its last request completed.
func connectionNotified(_ cls: UnsafeMutableRawPointer?, _ connection: OpaquePointer?,
                        _ socketContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?, _ code: MHD_ConnectionNotificationCode) {
    guard let socketContext, let cls else { return }
    let context = Unmanaged<DaemonContext>.fromOpaque(cls)
    if code == .CONNECTION_NOTIFY_STARTED {
        guard let connection else { return }
        let peer = IPAddress(sb_connection_ip(connection))
        context._withUnsafeGuaranteedRef { context in
            let fd = sb_connection_fd(connection)
            let state = RequestState(headerNames: context.headerNames, peer: peer, peerTrusted: context.isTrusted(peer), fd: fd)
            socketContext.pointee = Unmanaged.passRetained(state).toOpaque()
            context.connectionStates.wrappingAdd(1, ordering: .relaxed)
            // Past its share (another thread took the last slot): shut down before any read.
            if !state.peerTrusted && !context.shares.opened(state.watch, block: peer.block) { shutdown(state.watch.fd, Int32(SHUT_RDWR)) }
            context.deadlines.opened(state.watch)
        }
    } else if let state = socketContext.pointee {
        let request = Unmanaged<RequestState>.fromOpaque(state)
        let (counted, peer, trusted, watch) = request._withUnsafeGuaranteedRef { ($0.counted, $0.peer, $0.peerTrusted, $0.watch) }
        context._withUnsafeGuaranteedRef { context in
            // libmicrohttpd answered an error before any request of the connection started
            // (its request line unreadable): on record, with the peer. Only a connection
            // still waiting for a head can be the one (another, closing on this thread
            // meanwhile, has had its requests).
            if watch.phase.load(ordering: .relaxed) == RequestDeadlines.Phase.head.rawValue {
                let status = ErrorAnswer.take()
                if status != 0 { context.configuration.onRefusal?(Refusal(Refusal.reason(of: status, otherwise: .libmicrohttpd), status: status, client: peer)) }
            }
            if counted { context.inFlight.wrappingSubtract(1, ordering: .releasing) }
            if !trusted { context.shares.closed(watch, block: peer.block) }
            context.deadlines.closed(watch)
        }
        request.release()
        socketContext.pointee = nil
        _ = context._withUnsafeGuaranteedRef { $0.connectionStates.wrappingSubtract(1, ordering: .relaxed) }
    }
}

/// MHD_OPTION_URI_LOG_CALLBACK: called once per request with the raw target, before MHD
/// parses it. Starts the connection's request state and hands it (unretained: the
/// connection owns it) to libmicrohttpd as the request's context; MHD marks the
/// connection client-aware when it calls this, so `requestCompleted` always follows.
func requestStarted(_ cls: UnsafeMutableRawPointer?, _ uri: UnsafePointer<CChar>?, _ connection: OpaquePointer?) -> UnsafeMutableRawPointer? {
    guard let uri, let cls, let connection, let pointer = sb_socket_context(connection) else { return nil }
    let counted = Unmanaged<RequestState>.fromOpaque(pointer)._withUnsafeGuaranteedRef { state in
        state.begin(target: uri)
        // A kept-alive connection's next request line: the rest of its head is late past
        // the same deadline, now a refusal rather than an idle connection's close.
        if state.watch.phase.load(ordering: .relaxed) == RequestDeadlines.Phase.idle.rawValue {
            state.watch.phase.store(RequestDeadlines.Phase.head.rawValue, ordering: .relaxed)
        }
        defer { state.counted = true }
        return state.counted
    }
    if !counted { _ = Unmanaged<DaemonContext>.fromOpaque(cls)._withUnsafeGuaranteedRef { $0.inFlight.wrappingAdd(1, ordering: .relaxed) } }
    return pointer
}

/// MHD_OPTION_NOTIFY_COMPLETED: the request is over; its state is reset for the next.
func requestCompleted(_ cls: UnsafeMutableRawPointer?, _ connection: OpaquePointer?,
                      _ slot: UnsafeMutablePointer<UnsafeMutableRawPointer?>?, _ reason: MHD_RequestTerminationCode) {
    guard let cls, let slot, let pointer = slot.pointee else { return }
    Unmanaged<DaemonContext>.fromOpaque(cls)._withUnsafeGuaranteedRef { context in
        Unmanaged<RequestState>.fromOpaque(pointer)._withUnsafeGuaranteedRef { state in
            // Resumed, then closed before its answer could be queued (the client left): the
            // answer is still asked for once, so whoever holds the request learns it ended.
            if let held = state.held { _ = held.answer(.clientGone) }
            let watch = state.watch
            if !state.answered && !watch.lingering.load(ordering: .relaxed) && !watch.cut.load(ordering: .relaxed)
                && reason == .REQUEST_TERMINATED_WITH_ERROR {
                // Nobody here answered and the request ended in error: libmicrohttpd refused
                // it (a line or header section it could not read, a Host missing), with the
                // status it logged, or none when it closed without an answer.
                let status = ErrorAnswer.take()
                context.report(Refusal.reason(of: status, otherwise: .libmicrohttpd), status: status, state, method: nil)
            }
            state.end()
            if state.counted {
                state.counted = false
                context.inFlight.wrappingSubtract(1, ordering: .releasing)
            }
            // The connection's next head is due from now (idle until then: closed, not
            // refused, at the deadline); its body's bytes are free.
            state.watch.wait(for: .idle, until: monotonicNanoseconds() &+ context.deadlines.head)
            releaseBody(context, state)
        }
    }
    slot.pointee = nil
}

/// The access handler: called once with the headers, then with each piece of body,
/// then once more to answer. Responses are queued on the last call (queueing on the
/// first makes 0.9.75 close the connection).
func accessHandler(_ cls: UnsafeMutableRawPointer?, _ connection: OpaquePointer?, _ url: UnsafePointer<CChar>?,
                   _ method: UnsafePointer<CChar>?, _ version: UnsafePointer<CChar>?, _ uploadData: UnsafePointer<CChar>?,
                   _ uploadDataSize: UnsafeMutablePointer<Int>?,
                   _ stateSlot: UnsafeMutablePointer<UnsafeMutableRawPointer?>?) -> MHD_Result {
    guard let cls, let connection, let method, let uploadDataSize, let stateSlot, let statePointer = stateSlot.pointee else {
        return .NO
    }
    return Unmanaged<DaemonContext>.fromOpaque(cls)._withUnsafeGuaranteedRef { context in
        Unmanaged<RequestState>.fromOpaque(statePointer)._withUnsafeGuaranteedRef { state in
            access(context, state, connection, url, method, version, uploadData, uploadDataSize)
        }
    }
}

/// The access handler's work, with its context and request state borrowed: a resumed
/// request's answer, the checks of its head on the first call, the body's pieces, then the
/// handler.
private func access(_ context: DaemonContext, _ state: RequestState, _ connection: OpaquePointer,
                    _ url: UnsafePointer<CChar>?, _ method: UnsafePointer<CChar>, _ version: UnsafePointer<CChar>?,
                    _ uploadData: UnsafePointer<CChar>?, _ uploadDataSize: UnsafeMutablePointer<Int>) -> MHD_Result {
    if let held = state.held {
        // Resumed: the request was woken, timed out, lost its client or the daemon stops.
        state.held = nil
        var response = answer(of: held)
        if !state.heldHeaders.isEmpty {
            response.headers += state.heldHeaders
            state.heldHeaders = []
        }
        return queue(connection, response, context: context, state: state)
    }
    if state.watch.lingering.load(ordering: .relaxed) {
        // Answered before its body was read: what still arrives is dropped, up to a bound;
        // the request's end (or the bound, or the linger's deadline) closes the connection.
        let size = uploadDataSize.pointee
        guard size > 0 else { return .NO }
        uploadDataSize.pointee = 0
        // Answered 408 by a sweep, on its thread: the body kept so far is let go here.
        if state.bodyCounted {
            releaseBody(context, state)
            state.body = []
        }
        state.dropped += size
        return state.dropped > RequestDeadlines.lingerBytes ? .NO : .YES
    }
    if !state.started {
        state.started = true
        // The rest of the request, whatever its bytes, is due within the deadline of the whole.
        state.watch.wait(for: .message, until: state.began &+ context.deadlines.message)
        state.client = state.peer
        state.forwarded = false
        guard let refusal = headRefusal(context, state, connection, method, url, version) else { return .YES }
        let reason = Refusal.reason(of: refusal.status, otherwise: .malformed)
        // A body libmicrohttpd would read next: answered now and read to be dropped, so a
        // client still sending reads the answer. Otherwise queued, and the connection
        // closes after it (0.9.75 closes a connection answered on the first call).
        if refusal.bodyFollows { return refuseBeforeBody(context, state, method, reason, refusal.status, refusal.title, refusal.detail) }
        context.report(reason, status: refusal.status, state, method: method)
        return queue(connection, problem(refusal.status, refusal.title, refusal.detail), context: context, state: state)
    }
    if uploadDataSize.pointee > 0 {
        return receiveBody(context, state, method, uploadData, uploadDataSize)
    }
    // The request arrived whole: nothing more is awaited from the client.
    state.watch.clear()
    if state.bodyTooLarge {
        context.report(.contentTooLarge, status: 413, state, method: method)
        return queue(connection, problem(413, "Content Too Large", "the body is larger than \(context.configuration.maxBodySize) bytes"),
                     context: context, state: state)
    }
    var request = state.lendRequest(method: methodName(method))
    let response = context.handler.handle(request, scratch: &state.scratch)
    state.giveBack(&request)
    return queue(connection, response, context: context, state: state)
}

extension IPAddress {
    /// A peer's address as the shim reads it off its socket address.
    init(_ ip: sb_ip) { self.init(high: ip.high, low: ip.low) }
}

/// The request method as a String and as an ``HTTPMethod``; the common ones without
/// reading or allocating.
func methodName(_ method: UnsafePointer<CChar>) -> (name: String, kind: HTTPMethod) {
    func equals(_ name: StaticString) -> Bool { strcmp(method, UnsafeRawPointer(name.utf8Start).assumingMemoryBound(to: CChar.self)) == 0 }
    if equals("GET") { return ("GET", .get) }
    if equals("HEAD") { return ("HEAD", .head) }
    if equals("POST") { return ("POST", .post) }
    return (String(cString: method), .other)
}

/// A small problem+json response for errors found before the handler runs.
func problem(_ status: Int, _ title: String, _ detail: String) -> HTTPResponse {
    HTTPResponse(status: status, headers: [("Content-Type", "application/problem+json")], body: problemJSON(status, title, detail))
}

/// The problem+json body (title and detail are fixed ASCII text without quotes).
func problemJSON(_ status: Int, _ title: String, _ detail: String) -> [UInt8] {
    Array("{\"type\":\"about:blank\",\"title\":\"\(title)\",\"status\":\(status),\"detail\":\"\(detail)\"}".utf8)
}

/// Queues `response` on the connection: a held request is parked instead (or answered at
/// once when it was woken before it could be); a body of bytes, once libmicrohttpd has
/// copied it, leaves its array to the connection's scratch buffers.
func queue(_ connection: OpaquePointer, _ response: consuming HTTPResponse, context: DaemonContext,
           state: RequestState) -> MHD_Result {
    if context.draining.load(ordering: .relaxed) {
        // While draining, every answer closes its connection, so a proxy's kept-alive
        // connections leave this server for the others as they are used. Once, on the
        // answer itself: a held request's answer is queued through here again.
        if case .held = response.body {} else { response.headers.append(("Connection", "close")) }
    }
    if let seconds = response.sendTimeoutSeconds { sb_set_connection_timeout(connection, UInt32(clamping: seconds)) }
    state.answered = true
    switch response.body {
    case .held, .stream: break
    // An answer is on the clock from here until its request completes.
    default: state.watch.wait(for: .answer, until: monotonicNanoseconds() &+ context.deadlines.answer)
    }
    let status = UInt32(clamping: response.status)
    if let onCompleted = response.onCompleted { state.onCompleted = onCompleted }
    let made: OpaquePointer?
    switch response.body {
    case .prepared(let prepared) where response.headers.isEmpty:
        return MHD_queue_response(connection, status, prepared.response)
    case .prepared(let prepared):
        made = prepared.response(adding: response.headers)
    case .bytes:
        // Moved out, not bound here: the array's only reference, it is kept, not copied.
        made = PreparedResponse.make(response.takeBytes(), response.headers, scratch: &state.scratch)
    case .stream(let stream):
        made = stream.response(for: connection, headers: response.headers, registry: context.streams)
        // The daemon is stopping: the stream never starts.
        if made == nil { return queue(connection, problem(503, "Service Unavailable", "the server is stopping"), context: context, state: state) }
    case .held(let held):
        if held.park(connection, loop: context.holdLoop) {
            state.held = held
            state.heldHeaders = response.headers
            return .YES
        }
        var answer = answer(of: held)
        answer.headers += response.headers
        return queue(connection, answer, context: context, state: state)
    }
    guard let made else { return .NO }
    let result = MHD_queue_response(connection, status, made)
    MHD_destroy_response(made)
    return result
}

/// A held request's answer, asked for once. Only a handler's first answer may be held,
/// never the answer of a held request.
private func answer(of held: HeldRequest) -> HTTPResponse {
    let answer = held.answer(held.reason ?? .woken)
    if case .held = answer.body { return problem(500, "Internal Server Error", "a held request answered with another") }
    return answer
}
