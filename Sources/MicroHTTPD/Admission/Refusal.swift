/// A request the daemon refused, or a connection it cut, before any handler saw it: what
/// ``HTTPDaemon/Configuration/onRefusal`` is told, so that the access log and `/metrics`
/// have every answer, not only the handler's.
package struct Refusal: Sendable {
    package enum Reason: String, Sendable, CaseIterable {
        /// 400: framing a request could be smuggled through, or a field libmicrohttpd would
        /// misread.
        case malformed
        /// 411: a body sent chunked, without a `Content-Length` (RFC 9112 6.3); answered
        /// from the request's head, so libmicrohttpd never parses its chunks.
        case lengthRequired = "length_required"
        /// 505: an HTTP version other than 1.0 and 1.1.
        case version
        /// 413: a declared or received body past the limit.
        case contentTooLarge = "content_too_large"
        /// 414: a request target past the limit.
        case targetTooLong = "target_too_long"
        /// 431: too many header fields, or too large.
        case headersTooLarge = "headers_too_large"
        /// 408: the request (its body as framed) did not arrive whole within its deadline.
        case late
        /// Cut without an answer: a request's head did not arrive within its deadline.
        case lateHead = "late_head"
        /// Cut: the client did not read its answer within the answer's deadline.
        case slowReader = "slow_reader"
        /// 429: the client's block holds its share of the bodies being received.
        case clientBodies = "client_bodies"
        /// 503: the bodies being received hold the whole budget.
        case bodies
        /// A request libmicrohttpd ended itself with a status none of the above names, or
        /// without an answer (errors it answers with one of those statuses are counted
        /// under it).
        case libmicrohttpd
        /// Cut to make room: every connection was taken, a block below its fair share
        /// arrived, and this connection of the block holding the most (idle the longest,
        /// else the slowest) was shut (``AddressShares``).
        case gaveWay = "gave_way"
    }

    package let reason: Reason
    /// The status sent; 0 when the connection was cut without an answer or libmicrohttpd
    /// answered.
    package let status: Int
    /// The client it counts for, and the trusted proxy it came through.
    package let client: IPAddress
    package let proxy: IPAddress?
    /// The method and target when the request line was read.
    package let method: String?
    package let target: String?

    init(_ reason: Reason, status: Int, client: IPAddress, proxy: IPAddress? = nil, method: String? = nil, target: String? = nil) {
        self.reason = reason
        self.status = status
        self.client = client
        self.proxy = proxy
        self.method = method
        self.target = target
    }

    /// The reason of a refusal answered with `status`: by the checks of a request's head
    /// (`otherwise` `.malformed`) or by libmicrohttpd itself (`otherwise` `.libmicrohttpd`:
    /// a status we have no reason for, or 0 when it closed the connection without one).
    static func reason(of status: Int, otherwise: Reason) -> Reason {
        switch status {
        case 400: .malformed
        case 411: .lengthRequired
        case 413: .contentTooLarge
        case 414: .targetTooLong
        case 431: .headersTooLarge
        case 505: .version
        default: otherwise
        }
    }
}
