import Switchboard
import RouteMatching

/// How a report shows a link that no route took: grouped by shape, ids and typed values
/// shown as their type (`/viewing-room/:slug/works`, `/orders/:int`), and, unless asked
/// for, no query value or fragment (`/search?q=…`): links carry tokens and personal data.
struct TrafficShape {
    /// The manifest's literal segments, lowercased: a segment that is one of them is kept
    /// as written, whatever its position.
    let literals: Set<String>
    let showQuery: Bool
    /// The app's own hosts (as ``hostKey(_:)`` writes them) and schemes: a link on any of
    /// them has the shape of its path alone, so that `https://www.artsy.net/x`,
    /// `https://artsy.net./x`, `artsy://x` and `/x` are one shape.
    let ownHosts: Set<String>
    let ownSchemes: Set<String>

    init(_ manifest: Manifest, showQuery: Bool) {
        var literals: Set<String> = []
        for route in manifest.routes {
            for pattern in route.patterns {
                for expansion in pattern.expansions {
                    for case .literal(let text) in expansion { literals.insert(text.lowercased()) }
                }
            }
        }
        self.literals = literals
        self.showQuery = showQuery
        ownHosts = Set(manifest.hosts.map(Self.hostKey))
        ownSchemes = Set(manifest.schemes.map { $0.lowercased() })
    }

    /// A host as shapes compare it: lowercase, without a port, trailing dots or `www.`.
    static func hostKey(_ host: String) -> String {
        var h = Substring(host.lowercased())
        if !h.hasPrefix("["), let colon = h.lastIndex(of: ":") { h = h[..<colon] }
        while h.hasSuffix(".") { h = h.dropLast() }
        if h.hasPrefix("www.") { h = h.dropFirst(4) }
        return String(h)
    }

    /// `prefix` (from ``split(_:)``) when it names another host or scheme than the app's, else "".
    func foreignPrefix(_ prefix: String) -> String {
        if prefix.hasSuffix(":") { return ownSchemes.contains(String(prefix.dropLast())) ? "" : prefix }
        guard let end = prefix.range(of: "://") else { return prefix }
        return ownHosts.contains(Self.hostKey(String(prefix[end.upperBound...]))) ? "" : prefix
    }

    /// The shape of `url`: its path (with its host or scheme when they are not the app's),
    /// each segment after the first that is not a literal of the manifest written as its type.
    func shape(of url: String) -> String {
        let (whole, path, _) = Self.split(url)
        let prefix = foreignPrefix(whole)
        var out = prefix
        let segments = path.split(separator: "/", omittingEmptySubsequences: true)
        for (i, segment) in segments.enumerated() {
            out += "/"
            let bytes = Array(segment.utf8)
            if ParamType.int.accepts(bytes[...]) { out += ":int" }
            else if ParamType.uuid.accepts(bytes[...]) { out += ":uuid" }
            else if bytes.count >= 16 && bytes.allSatisfy({ PercentDecoding.hexValue($0) != nil }) { out += ":hex" }
            else if literals.contains(segment.lowercased()) || (i == 0 && bytes.count <= 40) { out += Self.printable(String(segment)) }
            else if ParamType.slug.accepts(bytes[...]) { out += ":slug" }
            else { out += ":string" }
        }
        return out.isEmpty || out == prefix ? out + "/" : out
    }

    /// `url` as a report may show it: query values and the fragment left out unless
    /// `showQuery` (`/search?q=…&page=…`), control characters and spaces escaped, at
    /// most 300 bytes.
    func example(_ url: String) -> String {
        var shown = url
        if !showQuery {
            let (prefix, path, query) = Self.split(url)
            shown = prefix + Self.masked(path)
            if let query {
                let keys = query.split(separator: "&", omittingEmptySubsequences: true).map { item in
                    String(item.prefix { $0 != "=" }) + (item.contains("=") ? "=…" : "")
                }
                shown += "?" + keys.joined(separator: "&")
            }
            if url.contains("#") { shown += "#…" }
        }
        shown = Self.printable(shown)
        if shown.utf8.count > 300 { shown = String(decoding: shown.utf8.prefix(300), as: UTF8.self) + "…" }
        return shown
    }

    /// `path` with each segment that may identify a person or grant access shown as `…`:
    /// an email address, a token (a JWT, a long run of letters and digits), a long id (12
    /// digits or more, a UUID, 16 hex digits or more). What a route's shape needs stays.
    static func masked(_ path: Substring) -> String {
        guard !path.isEmpty else { return "" }
        return path.split(separator: "/", omittingEmptySubsequences: false).map { segment -> String in
            let bytes = Array(segment.utf8)
            if bytes.isEmpty { return "" }
            let decoded = segment.removingPercentEncodingLossy
            if decoded.contains("@") && decoded.contains(".") { return "…" }
            if bytes.count >= 12 && bytes.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) { return "…" }
            if ParamType.uuid.accepts(bytes[...]) { return "…" }
            if bytes.count >= 16 && bytes.allSatisfy({ PercentDecoding.hexValue($0) != nil }) { return "…" }
            let parts = segment.split(separator: ".", omittingEmptySubsequences: false)
            if parts.count == 3 && parts.allSatisfy({ $0.count >= 8 }) { return "…" }  // a JWT
            let letters = bytes.contains { ($0 | 0x20) >= UInt8(ascii: "a") && ($0 | 0x20) <= UInt8(ascii: "z") }
            let digits = bytes.contains { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
            if bytes.count >= 24 && letters && digits && !bytes.contains(UInt8(ascii: "-")) { return "…" }
            return String(segment)
        }.joined(separator: "/")
    }

    /// The parts a shape reads: `scheme://host` of an http(s) URL (lowercased), the path
    /// (an app scheme's whole rest), and the query, without the fragment.
    static func split(_ url: String) -> (prefix: String, path: Substring, query: Substring?) {
        let noFragment = url.prefix { $0 != "#" }
        let beforeQuery = noFragment.prefix { $0 != "?" }
        let query = beforeQuery.endIndex < noFragment.endIndex ? noFragment[noFragment.index(after: beforeQuery.endIndex)...] : nil
        var path = beforeQuery
        var prefix = ""
        if let colon = path.firstIndex(of: ":"), !path[..<colon].contains("/") {
            let scheme = path[..<colon].lowercased()
            var rest = path[path.index(after: colon)...]
            if scheme == "http" || scheme == "https", rest.hasPrefix("//") {
                rest = rest.dropFirst(2)
                let host = rest.prefix { $0 != "/" }
                prefix = scheme + "://" + host.lowercased()
                path = rest[host.endIndex...]
            } else {
                prefix = scheme + ":"
                path = rest
            }
        }
        return (prefix, path, query)
    }

    /// Control characters, spaces and backslashes as `%XX`: what a terminal or a table
    /// shows of a hostile line is text.
    static func printable(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F || $0 == "\\" || (0x80...0x9F).contains($0.value) || $0 == "|" || $0 == "<" || $0 == "`" }) else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            if scalar.value <= 0x20 || scalar.value == 0x7F || scalar == "\\" || scalar == "|" || scalar == "<" || scalar == "`" || (0x80...0x9F).contains(scalar.value) {
                for byte in String(scalar).utf8 { out += "%" + String(byte, radix: 16, uppercase: true).leftPadded(2) }
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}

private extension Substring {
    /// The segment percent-decoded where it decodes, as it is where it does not.
    var removingPercentEncodingLossy: String {
        let bytes = Array(utf8)
        return PercentDecoding.decode(bytes, 0..<bytes.count, plusAsSpace: false) ?? String(self)
    }
}

private extension String {
    func leftPadded(_ width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
