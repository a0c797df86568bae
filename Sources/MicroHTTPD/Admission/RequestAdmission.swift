import CMicroHTTPD
import ServerSystem

// Admission: what the daemon refuses of a request before any handler sees it, and how a
// refusal is answered when its body is still to come. The callbacks (`Callbacks.swift`)
// call these; the budgets and shares they check live in `DaemonContext`.

/// Why a request is refused from its head, and whether libmicrohttpd would read a body
/// after it.
struct HeadRefusal {
    let status: Int
    let title: String
    let detail: String
    let bodyFollows: Bool
}

/// The request's framing and size, checked on its head (RFC 9112): the refusal, or nil.
/// Reads the headers the handler asks for on the way.
func headRefusal(_ context: DaemonContext, _ state: RequestState, _ connection: OpaquePointer, _ method: UnsafePointer<CChar>,
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
func refuseBeforeBody(_ context: DaemonContext, _ state: RequestState, _ method: UnsafePointer<CChar>,
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
func receiveBody(_ context: DaemonContext, _ state: RequestState, _ method: UnsafePointer<CChar>,
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
        // What every body being received holds is bounded, and shared by client block.
        switch context.bodies.receive(size, for: state.watch, block: state.client.block) {
        case .accepted:
            state.bodyCounted = true
        case .client:
            return refuseBeforeBody(context, state, method, .clientBodies, 429, "Too Many Requests",
                                    "this client is sending as many request bodies as one client may; retry in a second")
        case .server:
            return refuseBeforeBody(context, state, method, .bodies, 503, "Service Unavailable",
                                    "too many request bodies are being received; retry in a second")
        case .gaveWay:
            return refuseBeforeBody(context, state, method, .bodies, 503, "Service Unavailable",
                                    "this client is sending more request bodies than its share while others wait; retry in a second")
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

/// The bytes of the request's body counted against the budget are free: the request
/// completed, or was refused and its body will not be kept.
func releaseBody(_ context: DaemonContext, _ state: RequestState) {
    guard state.bodyCounted else { return }
    context.bodies.release(state.watch, block: state.client.block)
    state.bodyCounted = false
}
