import CMicroHTTPD
import ServerSystem
import SystemSupport

/// The methods a handler tells apart without comparing Strings; any other is `other`
/// (its name is in ``HTTPRequest/method``).
package enum HTTPMethod: Int, Sendable, CaseIterable {
    case get, head, post, other

    /// The method a name spells (case-sensitive, RFC 9110 9.1).
    package init(_ name: String) {
        switch name {
        case "GET": self = .get
        case "HEAD": self = .head
        case "POST": self = .post
        default: self = .other
        }
    }

    /// `GET`, `HEAD` or `POST`; nil for another.
    package var name: String? {
        switch self {
        case .get: "GET"
        case .head: "HEAD"
        case .post: "POST"
        case .other: nil
        }
    }
}

/// A request as the handler sees it: copied out of libmicrohttpd, valid after the
/// callback returns.
package struct HTTPRequest: Sendable {
    /// `GET`, `HEAD`, `POST`, ... as sent.
    package let method: String
    /// ``method`` as an ``HTTPMethod``: what handlers compare, an integer rather than a
    /// String.
    package let methodKind: HTTPMethod
    /// The raw request target (`/v1/resolve?url=...`), not decoded.
    package internal(set) var target: [UInt8]
    /// The body (empty when none), at most ``HTTPDaemon/Configuration/maxBodySize``.
    package internal(set) var body: [UInt8]
    /// Values of the headers named in ``HTTPDaemon/Configuration/requestHeaders``,
    /// in that order; read them through ``header(at:)`` or ``headerBytes(at:)``.
    var headers: HeaderValues
    var headerNames: [String]
    /// Where the query starts in ``target`` (its `?`), or its end: found once, not by
    /// ``path`` and ``query`` each.
    private let questionMark: Int
    /// When the request line was read (``monotonicNanoseconds()``), as its body's
    /// deadline counts: a handler times the request from here instead of reading the
    /// clock again.
    package let began: UInt64
    /// The client the request counts for, whose block its shares are kept by: the peer,
    /// or the client a trusted proxy forwarded (``TrustedProxies``).
    package let client: IPAddress
    /// The trusted proxy that forwarded the request, naming its client (nil when its peer
    /// is not one, or sent no forwarded header that named a client).
    package let proxy: IPAddress?

    /// `questionMark`: where the target's `?` is (or its length), when the caller found it.
    init(method: String, target: [UInt8], body: [UInt8], headerNames: [String], headers: HeaderValues,
         began: UInt64 = monotonicNanoseconds(), questionMark: Int? = nil, methodKind: HTTPMethod? = nil,
         client: IPAddress = IPAddress(ipv4: 0x7F00_0001), proxy: IPAddress? = nil) {
        self.method = method
        self.client = client
        self.proxy = proxy
        self.methodKind = methodKind ?? HTTPMethod(method)
        self.began = began
        self.target = target
        self.body = body
        self.headerNames = headerNames
        self.headers = headers
        self.questionMark = questionMark ?? target.firstIndex(of: UInt8(ascii: "?")) ?? target.endIndex
    }

    /// The value of a header listed in the daemon's configuration (case-insensitive).
    package func header(_ name: String) -> String? {
        guard headers.found > 0 else { return nil }
        for k in headerNames.indices where Self.equalsIgnoringASCIICase(headerNames[k], name) { return header(at: k) }
        return nil
    }

    /// The value of the header at `index` in ``HTTPDaemon/Configuration/requestHeaders``:
    /// what ``header(_:)`` finds, without comparing names.
    package func header(at index: Int) -> String? {
        headers[index].map { String(decoding: $0, as: UTF8.self) }
    }

    /// The bytes of the header at `index`, as sent: what ``header(at:)`` decodes, for a
    /// handler that compares them without making a String.
    package func headerBytes(at index: Int) -> ArraySlice<UInt8>? {
        headers[index]
    }

    /// Header names compare ASCII letters without case (RFC 9110 5.1), and without
    /// building a lowercased copy per lookup.
    static func equalsIgnoringASCIICase(_ a: String, _ b: String) -> Bool {
        guard a.utf8.count == b.utf8.count else { return false }
        let x = a.utf8.span, y = b.utf8.span
        for i in 0..<x.count where x[i] != y[i] {
            let lower = x[i] | 0x20
            guard lower == y[i] | 0x20, lower >= UInt8(ascii: "a"), lower <= UInt8(ascii: "z") else { return false }
        }
        return true
    }

    /// The path part of the target, before `?`.
    package var path: ArraySlice<UInt8> { target[..<questionMark] }

    /// The query part of the target, after `?` (empty when none).
    package var query: ArraySlice<UInt8> {
        questionMark < target.endIndex ? target[(questionMark + 1)...] : []
    }
}

/// The values of the headers a daemon reads, as bytes: one buffer of values and, for each
/// name, where its value lies (nil when the request lacks it). Bytes and ranges, not
/// Strings: releasing them is a free each, not a walk through the runtime's witnesses,
/// and a connection's next request reuses them (a slot is written only when its header
/// is present; the slots are emptied after a request that had any).
struct HeaderValues: Sendable {
    private var bytes: [UInt8] = []
    private var ranges: [Range<Int>?] = []
    /// How many slots hold a value.
    private(set) var found = 0

    init() {}

    /// Values given as text (tests).
    init(_ values: [String?]) {
        for value in values {
            guard let value else { ranges.append(nil); continue }
            let start = bytes.count
            bytes.append(contentsOf: value.utf8)
            ranges.append(start..<bytes.count)
            found += 1
        }
    }

    /// The value in slot `index`, nil when absent.
    subscript(index: Int) -> ArraySlice<UInt8>? {
        guard index >= 0, index < ranges.count, let range = ranges[index] else { return nil }
        return bytes[range]
    }

    /// Copies the C strings `sb_scan_headers` found (`values[k]` for the k-th name) into
    /// empty slots.
    mutating func read(_ values: UnsafeMutableBufferPointer<UnsafePointer<CChar>?>) {
        if ranges.count != values.count { ranges = Array(repeating: nil, count: values.count) }
        for k in values.indices {
            guard let string = values[k] else { continue }
            let value = UnsafeRawBufferPointer(start: string, count: strlen(string))
            // The first value replaces what an earlier request left (one call, where
            // emptying and appending are two).
            let start = found == 0 ? 0 : bytes.count
            bytes.replaceSubrange(start..<bytes.count, with: value)
            ranges[k] = start..<bytes.count
            found += 1
        }
    }

    /// Empties the slots for the next request (the bytes stay until its first value
    /// replaces them), keeping the buffer unless the values grew past `limit` bytes.
    mutating func clear(keepingCapacityUpTo limit: Int) {
        guard found > 0 else { return }
        for k in ranges.indices { ranges[k] = nil }
        found = 0
        if bytes.capacity > limit { bytes = [] }
    }
}
