import CMicroHTTPD
import ServerSystem

/// The state of a connection's request, from the request line to completion: one per
/// connection (made when libmicrohttpd accepts it, freed when it closes), reset for each
/// request, so a keep-alive request reuses the buffers of the one before and allocates
/// nothing to be read. One connection is served by one thread at a time, so it needs no
/// lock; nor does it need the runtime's exclusivity checks, paid on every access of every
/// request: nothing here calls out while it modifies a property, so no access can overlap
/// another.
final class RequestState {
    /// The raw request target; its capacity is kept between requests up to
    /// ``keptCapacity``.
    @exclusivity(unchecked) private(set) var target: [UInt8] = []
    /// When the request began (``monotonicNanoseconds()``): its body's deadline counts from here.
    @exclusivity(unchecked) private(set) var began = monotonicNanoseconds()
    /// Where the target's query starts (its `?`), or its length: found by `memchr` as the
    /// target is copied, not a byte at a time by the request.
    @exclusivity(unchecked) private(set) var questionMark = 0
    @exclusivity(unchecked) var started = false
    /// Whether the request is counted in ``DaemonContext/inFlight``: from its request line
    /// to its completion, or to the connection's close when libmicrohttpd gives up on it
    /// without completing it.
    @exclusivity(unchecked) var counted = false
    @exclusivity(unchecked) var body: [UInt8] = []
    @exclusivity(unchecked) var bodyTooLarge = false
    /// Values of the headers the handler reads (``HTTPRequest/headers``), taken with the
    /// checks of the request's head.
    @exclusivity(unchecked) var headers = HeaderValues()
    /// Set while the request is parked; its answer is queued when libmicrohttpd calls the
    /// access handler again after the resume.
    @exclusivity(unchecked) var held: HeldRequest?
    /// The headers of the held response, added to its answer.
    @exclusivity(unchecked) var heldHeaders: [(String, String)] = []
    /// The queued answer's ``HTTPResponse/onCompleted``, called when the request completes.
    @exclusivity(unchecked) var onCompleted: (@Sendable () -> Void)?
    /// Lent to the handler by each request, kept between them.
    @exclusivity(unchecked) var scratch = ScratchBuffers()
    /// The daemon's ``DaemonContext/headerNames``, held once per connection: a request
    /// borrows them with its buffers (``lendRequest(method:)``).
    @exclusivity(unchecked) private var headerNames: [String]

    /// The connection's peer, and whether it is a trusted proxy (then not counted in
    /// ``AddressShares``, and each request's client is the one it forwards).
    let peer: IPAddress
    let peerTrusted: Bool
    /// The client the request counts for: the peer, or the client a trusted peer
    /// forwarded (set with the checks of the request's head).
    @exclusivity(unchecked) var client: IPAddress
    /// Whether ``client`` is the one a trusted peer's forwarded header named.
    @exclusivity(unchecked) var forwarded = false
    /// When what the connection waits for is due (``RequestDeadlines``).
    let watch: RequestDeadlines.Watch
    /// An answer was queued for the request (none: libmicrohttpd answered, or nobody did).
    @exclusivity(unchecked) var answered = false
    /// Whether the body's bytes are counted in ``DaemonContext/bodies``.
    @exclusivity(unchecked) var bodyCounted = false
    /// Bytes read and dropped after a refusal written before the body was read (a
    /// lingering close); the connection closes past ``RequestDeadlines/lingerBytes``.
    @exclusivity(unchecked) var dropped = 0

    init(headerNames: [String], peer: IPAddress, peerTrusted: Bool, fd: Int32) {
        self.headerNames = headerNames
        self.peer = peer
        self.peerTrusted = peerTrusted
        self.client = peer
        self.watch = RequestDeadlines.Watch(fd: fd, peer: peer)
    }

    /// Buffers larger than this are let go at the end of a request rather than kept for
    /// the next: a connection idling after one long target keeps no more than this.
    static let keptCapacity = 2048

    /// A request starts: its target copied (MHD parses the request line in place later).
    /// Its query is then hidden from libmicrohttpd, which would split it into arguments
    /// nobody reads (the handler parses the target itself): a query of hundreds of items
    /// ran it out of connection memory and left the request unanswered. 0.9.75 found the
    /// `?` before this callback and parses what follows it after: an empty string now.
    func begin(target uri: UnsafePointer<CChar>) {
        let count = strlen(uri)
        let bytes = UnsafeRawBufferPointer(start: uri, count: count)
        target.replaceSubrange(target.indices, with: bytes)
        questionMark = memchr(uri, Int32(UInt8(ascii: "?")), count).map { UnsafeRawPointer($0) - UnsafeRawPointer(uri) } ?? count
        if questionMark + 1 < count { UnsafeMutablePointer(mutating: uri)[questionMark + 1] = 0 }
        began = monotonicNanoseconds()
    }

    /// The request for the handler, with the state's buffers moved into it, not copied
    /// (a copy was a retain of each, five a request); ``giveBack(_:)`` returns them.
    func lendRequest(method: (name: String, kind: HTTPMethod)) -> HTTPRequest {
        var target: [UInt8] = [], body: [UInt8] = [], headers = HeaderValues(), names: [String] = []
        swap(&target, &self.target)
        swap(&body, &self.body)
        swap(&headers, &self.headers)
        swap(&names, &headerNames)
        return HTTPRequest(method: method.name, target: target, body: body, headerNames: names, headers: headers, began: began,
                           questionMark: questionMark, methodKind: method.kind, client: client, proxy: forwarded ? peer : nil)
    }

    /// The buffers lent to `request` back, for the connection's next request. (If the
    /// handler kept a copy of the request, they are shared, and the next request's
    /// writes copy them first.) Swapped, not assigned from a consumed request: that
    /// copied each one through the runtime's witnesses.
    func giveBack(_ request: inout HTTPRequest) {
        swap(&target, &request.target)
        swap(&body, &request.body)
        swap(&headers, &request.headers)
        swap(&headerNames, &request.headerNames)
    }

    /// The request completed: the state is ready for the connection's next one. A
    /// handler that kept the request (``HTTPRequest`` shares these buffers) keeps its
    /// copy; the next request then writes to new buffers.
    func end() {
        if let onCompleted {
            self.onCompleted = nil
            onCompleted()
        }
        started = false
        bodyTooLarge = false
        answered = false
        held = nil
        if !heldHeaders.isEmpty { heldHeaders = [] }
        if target.capacity > Self.keptCapacity { target = [] }
        if body.capacity > 0 { body = [] }
        headers.clear(keepingCapacityUpTo: Self.keptCapacity)
    }
}
