/// A request as the handler sees it: copied out of libmicrohttpd, valid after the
/// callback returns.
public struct HTTPRequest: Sendable {
    /// `GET`, `HEAD`, `POST`, ... as sent.
    public let method: String
    /// The raw request target (`/v1/resolve?url=...`), not decoded.
    public let target: [UInt8]
    /// The body (empty when none), at most ``HTTPDaemon/Configuration/maxBodySize``.
    public let body: [UInt8]
    /// Values of the headers named in ``HTTPDaemon/Configuration/requestHeaders``,
    /// in that order, up to the last one the request has (empty when it has none:
    /// nothing allocated); read them through ``header(at:)``.
    let headerValues: [String?]
    let headerNames: [String]
    /// Where the query starts in ``target`` (its `?`), or its end: found once, not by
    /// ``path`` and ``query`` each.
    private let questionMark: Int

    init(method: String, target: [UInt8], body: [UInt8], headerNames: [String], headerValues: [String?]) {
        self.method = method
        self.target = target
        self.body = body
        self.headerNames = headerNames
        self.headerValues = headerValues
        questionMark = target.firstIndex(of: UInt8(ascii: "?")) ?? target.endIndex
    }

    /// The value of a header listed in the daemon's configuration (case-insensitive).
    public func header(_ name: String) -> String? {
        guard !headerValues.isEmpty else { return nil }
        for k in headerNames.indices where Self.equalsIgnoringASCIICase(headerNames[k], name) { return header(at: k) }
        return nil
    }

    /// The value of the header at `index` in ``HTTPDaemon/Configuration/requestHeaders``:
    /// what ``header(_:)`` finds, without comparing names.
    public func header(at index: Int) -> String? {
        index < headerValues.count ? headerValues[index] : nil
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
    public var path: ArraySlice<UInt8> { target[..<questionMark] }

    /// The query part of the target, after `?` (empty when none).
    public var query: ArraySlice<UInt8> {
        questionMark < target.endIndex ? target[(questionMark + 1)...] : []
    }
}
