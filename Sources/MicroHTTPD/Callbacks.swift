import CMicroHTTPD
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
/// as soon as it is accepted (`HTTPDaemon.stop`); one from a block that holds its share
/// is closed too, unless it comes from a trusted proxy.
func acceptPolicy(_ cls: UnsafeMutableRawPointer?, _ address: UnsafePointer<sockaddr>?, _ length: socklen_t) -> MHD_Result {
    guard let cls else { return .YES }
    return Unmanaged<DaemonContext>.fromOpaque(cls)._withUnsafeGuaranteedRef { context in
        if context.refusing.load(ordering: .relaxed) { return .NO }
        let peer = IPAddress(sb_address_ip(address))
        if context.isTrusted(peer) || context.shares.admits(peer.block) { return .YES }
        context.configuration.onShareTaken?(peer.block)
        return .NO
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
            if !state.peerTrusted && !context.shares.opened(peer.block) { shutdown(state.watch.fd, Int32(SHUT_RDWR)) }
            context.deadlines.opened(state.watch)
        }
    } else if let state = socketContext.pointee {
        let request = Unmanaged<RequestState>.fromOpaque(state)
        let (counted, peer, trusted, watch) = request._withUnsafeGuaranteedRef { ($0.counted, $0.peer, $0.peerTrusted, $0.watch) }
        context._withUnsafeGuaranteedRef { context in
            if counted { context.inFlight.wrappingSubtract(1, ordering: .releasing) }
            if !trusted { context.shares.closed(peer.block) }
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
            if !state.answered && !state.watch.lingering.load(ordering: .relaxed) && reason == .REQUEST_TERMINATED_WITH_ERROR {
                // Nobody here answered and the request ended in error: libmicrohttpd refused
                // it (a line or header section it could not read, a Host missing).
                context.report(.libmicrohttpd, status: 0, state, method: nil)
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

/// The bytes of the request's body counted against the budgets are free: the request
/// completed, or was refused and its body will not be kept.
private func releaseBody(_ context: DaemonContext, _ state: RequestState) {
    guard state.bodyCounted > 0 else { return }
    context.bodyBytes.wrappingSubtract(state.bodyCounted, ordering: .relaxed)
    let (block, counted) = (state.client.block, state.bodyCounted)
    context.bodyBytesByBlock.withLock { bytes in
        let left = (bytes[block] ?? 0) - counted
        bytes[block] = left > 0 ? left : nil
    }
    state.bodyCounted = 0
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
        if state.bodyCounted > 0 {
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
        let reason = Refusal.reason(ofHead: refusal.status)
        // A body libmicrohttpd would read next: answered now and read to be dropped, so a
        // client still sending reads the answer. Otherwise queued, and the connection
        // closes after it (0.9.75 closes a connection answered on the first call).
        if refusal.bodyFollows { return refuseBeforeBody(context, state, method, reason, refusal.status, refusal.title, refusal.detail) }
        context.report(reason, status: refusal.status, state, method: method)
        return queue(connection, problem(refusal.status, refusal.title, refusal.detail), context: context, state: state)
    }
    if uploadDataSize.pointee > 0 {
        return receiveBody(context, state, connection, method, uploadData, uploadDataSize)
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

/// Why a request is refused from its head, and whether libmicrohttpd would read a body
/// after it.
private struct HeadRefusal {
    let status: Int
    let title: String
    let detail: String
    let bodyFollows: Bool
}

/// The request's framing and size, checked on its head (RFC 9112): the refusal, or nil.
/// Reads the headers the handler asks for on the way.
private func headRefusal(_ context: DaemonContext, _ state: RequestState, _ connection: OpaquePointer, _ method: UnsafePointer<CChar>,
                         _ url: UnsafePointer<CChar>?, _ version: UnsafePointer<CChar>?) -> HeadRefusal? {
    let limits = context.configuration
    let wanted = context.headerNames.count
    let headers = withUnsafeTemporaryAllocation(of: UnsafePointer<CChar>?.self, capacity: max(1, wanted)) { values in
        let headers = sb_scan_headers(connection, context.headerNamesC, values.baseAddress, UInt32(wanted))
        if headers.found > 0 { state.headers.read(UnsafeMutableBufferPointer(rebasing: values.prefix(wanted))) }
        return headers
    }
    // A body libmicrohttpd reads next, as it frames one (the first Transfer-Encoding, else
    // the first Content-Length), unless the client waits for 100 Continue before sending it.
    let chunked = headers.transfer_encoding.map { strcasecmp($0, "chunked") == 0 } ?? false
    let hasBody = chunked || (headers.transfer_encoding == nil && headers.content_length.map { declaredLength($0, exceeds: 0) } ?? false)
    let expectsContinue = headers.expect.map { strcasecmp($0, "100-continue") == 0 } ?? false
    if expectsContinue && !hasBody {
        // No body to wait for: answered as the request it is, without a 100 Continue first
        // (0.9.75 sends one after the first call whenever the header asks, then closes the
        // connection). libmicrohttpd keeps the value in the request's buffer, where the
        // query is hidden too (`RequestState.begin`).
        UnsafeMutablePointer(mutating: headers.expect!).pointee = 0
    }
    func refuse(_ status: Int, _ title: String, _ detail: String) -> HeadRefusal {
        HeadRefusal(status: status, title: title, detail: detail, bodyFollows: hasBody && !expectsContinue)
    }
    // RFC 9112 2.3: a server answers 505 to a major version it does not support; 0.9.75
    // takes any HTTP/1.x as 1.1.
    if let version, strcmp(version, "HTTP/1.1") != 0 && strcmp(version, "HTTP/1.0") != 0 {
        return refuse(505, "HTTP Version Not Supported", "only HTTP/1.0 and HTTP/1.1 are served")
    }
    // The client: the one a trusted proxy forwarded in its header, else the peer. A peer
    // not trusted that sends either header is a proxy nobody named (or a client lying).
    if state.peerTrusted {
        let lines = limits.trustedProxies.header == .forwarded ? headers.forwardeds : headers.x_forwarded_fors
        if lines > 0, let client = forwardedClient(limits.trustedProxies, connection) {
            state.client = client
            state.forwarded = true
        }
    } else if headers.forwardeds > 0 || headers.x_forwarded_fors > 0, let told = limits.onUntrustedForwarding {
        told(state.peer, headers.forwardeds > 0 ? .forwarded : .xForwardedFor)
    }
    if headers.fields > limits.maxHeaderFields {
        return refuse(431, "Request Header Fields Too Large", "more than \(limits.maxHeaderFields) header fields")
    }
    if headers.bytes > limits.maxHeaderBytes {
        return refuse(431, "Request Header Fields Too Large", "the header fields are larger than \(limits.maxHeaderBytes) bytes")
    }
    // RFC 9112 5: whitespace before a colon, obs-fold, a bare CR or a NUL are what
    // libmicrohttpd 0.9.75 misreads, leaving a body to be read as another request (a
    // strict libmicrohttpd refuses them itself: `SB_STRICT_PARSER`).
    if let malformed = headers.malformed { return refuse(400, "Bad Request", String(cString: malformed)) }
    // Neither libmicrohttpd checks these: duplicates a smuggler relies on.
    if headers.hosts > 1 { return refuse(400, "Bad Request", "more than one Host header") }
    let lengths = headers.content_lengths
    if lengths > 1 || (lengths == 1 && headers.transfer_encodings > 0) {
        return refuse(400, "Bad Request", "conflicting Content-Length / Transfer-Encoding headers")
    }
    if headers.transfer_encodings > 0 {
        // RFC 9112 6.3: a body without a Content-Length may be refused with 411. Chunk
        // lines and trailers are where 0.9.75 and a proxy in front could read one request
        // two ways; none is ever parsed here, and no client of Switchboard sends one.
        if chunked && headers.transfer_encodings == 1 {
            return refuse(411, "Length Required", "send the body with a Content-Length; chunked request bodies are not accepted")
        }
        // RFC 9112 6.1: a request whose transfer coding is not chunked has no knowable
        // length; 0.9.75 would wait on it until the inactivity timeout.
        return refuse(400, "Bad Request", "a transfer coding other than chunked leaves the body's length unknown")
    }
    // A NUL byte inside the request target truncates the C string MHD hands out; the
    // version follows the target in the same request-line buffer, so a gap larger than
    // the target we saw means bytes were hidden behind a NUL.
    if sb_strict_parser == 0, let url, let version, version.pointee != 0 {
        let gap = UnsafeRawPointer(version) - UnsafeRawPointer(url)
        if gap > state.target.count + 1 && gap < limits.connectionMemoryLimit {
            return refuse(400, "Bad Request", "NUL byte in the request target")
        }
    }
    if state.target.count > limits.maxTargetLength {
        return refuse(414, "URI Too Long", "the request target is longer than \(limits.maxTargetLength) bytes")
    }
    if let declared = headers.content_length, declaredLength(declared, exceeds: limits.maxBodySize) {
        return refuse(413, "Content Too Large", "the body is larger than \(limits.maxBodySize) bytes")
    }
    return nil
}

extension IPAddress {
    /// A peer's address as the shim reads it off its socket address.
    init(_ ip: sb_ip) { self.init(high: ip.high, low: ip.low) }
}

/// Whether a `Content-Length` of digits declares more than `limit` bytes, however many
/// digits it has (2^64 and past it too); a value that is not digits is libmicrohttpd's
/// to refuse.
func declaredLength(_ value: UnsafePointer<CChar>, exceeds limit: Int) -> Bool {
    let digits = UnsafeRawBufferPointer(start: value, count: strlen(value))
    guard !digits.isEmpty, digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return false }
    var length = 0
    for digit in digits {
        // Saturated: past the limit is all that matters.
        length = min(length, limit + 1) * 10 + Int(digit - UInt8(ascii: "0"))
    }
    return length > limit
}

/// Refuses a request before (the rest of) its body is read: too early or too late to
/// queue a response (0.9.75 closes the connection at once after an answer queued on the
/// first call, and refuses one mid-body), the answer is written to the socket, then what
/// the client still sends is read and dropped until the request ends or the lingering
/// close's bounds pass (``RequestDeadlines/Phase/linger``), and the connection closes.
private func refuseBeforeBody(_ context: DaemonContext, _ state: RequestState, _ method: UnsafePointer<CChar>,
                              _ reason: Refusal.Reason, _ status: Int, _ title: String, _ detail: String) -> MHD_Result {
    context.report(reason, status: status, state, method: method)
    // Counted here, and so never also as libmicrohttpd's refusal when the connection drops.
    state.answered = true
    // Nothing of the body is kept: what it held of the budgets goes back to other requests.
    releaseBody(context, state)
    state.body = []
    state.watch.answerAndLinger(status: status, title: title, body: problemJSON(status, title, detail),
                                lingerNanoseconds: context.deadlines.linger)
    return .YES
}

/// A piece of the body: kept up to the size limit, refused past its deadline.
private func receiveBody(_ context: DaemonContext, _ state: RequestState, _ connection: OpaquePointer, _ method: UnsafePointer<CChar>,
                         _ uploadData: UnsafePointer<CChar>?, _ uploadDataSize: UnsafeMutablePointer<Int>) -> MHD_Result {
    let limits = context.configuration
    let size = uploadDataSize.pointee
    // Whatever is refused, this piece is read.
    uploadDataSize.pointee = 0
    if monotonicNanoseconds() &- state.began > UInt64(limits.bodyDeadlineSeconds) * 1_000_000_000 {
        return refuseBeforeBody(context, state, method, .late, 408, "Request Timeout",
                             "the body did not arrive within \(limits.bodyDeadlineSeconds) seconds")
    }
    if let uploadData, !state.bodyTooLarge {
        // What every body being received holds, together and by client block, is bounded too.
        let (total, _) = context.bodyBytes.wrappingAdd(size, ordering: .relaxed)
        let block = state.client.block, share = context.bodyBudgetPerClient
        let mine = context.bodyBytesByBlock.withLock { bytes in
            let mine = (bytes[block] ?? 0) + size
            bytes[block] = mine
            return mine
        }
        state.bodyCounted += size
        if mine > share {
            return refuseBeforeBody(context, state, method, .clientBodies, 429, "Too Many Requests",
                                 "this client is sending as many request bodies as one client may; retry in a second")
        }
        if total + size > limits.bodyMemoryBudget {
            return refuseBeforeBody(context, state, method, .bodies, 503, "Service Unavailable",
                                 "too many request bodies are being received; retry in a second")
        }
        if state.body.count + size > limits.maxBodySize {
            state.bodyTooLarge = true
            state.body = []
        } else {
            state.body.append(contentsOf: UnsafeRawBufferPointer(start: uploadData, count: size))
        }
    }
    return .YES
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
