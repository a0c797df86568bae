/// Which URLs belong to the app: its hosts and its own schemes. Classifies and
/// normalizes URL bytes per docs/manifest.md, without Foundation's `URL` (which disagrees with
/// browsers about hosts and decodes `%2F` in paths).
///
/// ```swift
/// let scope = URLScope(hosts: ["artsy.net"], schemes: ["artsy"])
/// scope.classify("https://www.artsy.net/artist/a%2Fb")
/// // .internal(InternalURL(host: "artsy.net", segments: ["artist", "a/b"]))
/// ```
package struct URLScope: Sendable {
    /// Inputs longer than this many bytes are rejected.
    package static let maxLength = 8192
    /// Schemes that are never followed, nor listed as app schemes.
    package static let unsafeSchemes: Set<String> = ["javascript", "data", "vbscript", "file"]

    /// Normalized host keys (see ``HostName``).
    package let hosts: Set<String>
    /// Lowercased app schemes.
    package let schemes: Set<String>

    /// The hosts as a list, with their UTF-8, when there are few (most manifests list two
    /// to five): comparing a handful of short strings costs less than hashing one.
    private let fewHosts: [(key: String, utf8: [UInt8])]?
    /// The app schemes' UTF-8 likewise, when there are few.
    private let fewSchemes: [[UInt8]]?
    /// The UTF-8 of ``unsafeSchemes``.
    private static let unsafeSchemeBytes = unsafeSchemes.map { Array($0.utf8) }

    package init(hosts: Set<String>, schemes: Set<String>) {
        self.hosts = hosts
        self.schemes = Set(schemes.map { $0.lowercased() })
        self.fewHosts = hosts.count <= 8 ? hosts.map { ($0, Array($0.utf8)) } : nil
        self.fewSchemes = schemes.count <= 8 ? self.schemes.map { Array($0.utf8) } : nil
    }

    /// Whether a URL's scheme, as written, is one of `listed` (lowercase) once lowercased:
    /// a scheme is ASCII (``schemeEnd(_:)``), so byte by byte, no String made.
    private static func lowercased(_ scheme: ArraySlice<UInt8>, isIn listed: [[UInt8]]) -> Bool {
        let bytes = scheme.span
        for word in listed where word.count == bytes.count {
            let same = word.withSpan { w in
                for i in 0..<w.count where ASCII.lowercased(bytes[i]) != w[i] { return false }
                return true
            }
            if same { return true }
        }
        return false
    }

    /// Whether `key` (a normalized host key) is one of the app's hosts.
    @inline(__always)
    func isAppHost(_ key: String) -> Bool {
        if let fewHosts { return fewHosts.contains { $0.key == key } }
        return hosts.contains(key)
    }

    /// What a host without a port is to the app, decided on its bytes when it is written
    /// the common way: lowercase ASCII letters, digits, `-` and `.`. Such a host's key is
    /// its bytes without trailing dots and one leading `www.` (what ``HostName/key``
    /// makes of it), so it is compared with the few hosts as it stands: no
    /// normalization, no String made. Nil when ``HostName/key`` must decide.
    private func plainHost(_ host: ArraySlice<UInt8>) -> ClassifiedHost? {
        guard let fewHosts else { return nil }
        for b in host {
            guard (b >= UInt8(ascii: "a") && b <= UInt8(ascii: "z")) || (b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9"))
                    || b == UInt8(ascii: "-") || b == UInt8(ascii: ".") else { return nil }
        }
        var name = host
        while name.last == UInt8(ascii: ".") { name.removeLast() }
        if name.isEmpty { return nil }
        if name.count > 4, name.starts(with: "www.".utf8) { name.removeFirst(4) }
        let bytes = name.span
        for listed in fewHosts where listed.utf8.count == bytes.count {
            let same = listed.utf8.withSpan { utf8 in
                for i in utf8.indices where utf8[i] != bytes[i] { return false }
                return true
            }
            if same { return .app(listed.key) }
        }
        return .other
    }

    private enum ClassifiedHost {
        /// One of the app's hosts, with its key.
        case app(String)
        case other
    }

    package func classify(_ input: String) -> ClassifiedURL {
        classify(Array(input.utf8))
    }

    package func classify(_ input: [UInt8]) -> ClassifiedURL {
        var plain = false
        return classify(input, plain: &plain)
    }

    /// ``classify(_:)``, also saying whether the input is `plain`: printable ASCII without
    /// `"`, `\` or `%`, so a JSON string of it is its bytes between quotes (what screening
    /// learns in passing; a result's writer then need not look again).
    package func classify(_ input: [UInt8], plain: inout Bool) -> ClassifiedURL {
        if let problem = Self.screen(input, plain: &plain) { return .rejected(problem) }
        if let colon = Self.schemeEnd(input) {
            // http and https, the common case, are recognized without building a String.
            let (isHTTP, isHTTPS) = input.withSpan { span in
                let scheme = span.extracting(..<colon)
                return (ASCII.equalsIgnoringCase(scheme, "http"), ASCII.equalsIgnoringCase(scheme, "https"))
            }
            if isHTTP || isHTTPS {
                guard Self.hasPrefix(input, "//", at: colon + 1) else { return .rejected(.missingHost) }
                return authority(input, from: colon + 3, defaultPorts: isHTTP ? Self.httpPorts : Self.httpsPorts, schemeRelative: false)
            }
            if Self.lowercased(input[..<colon], isIn: Self.unsafeSchemeBytes) { return .rejected(.unsafeScheme) }
            if let fewSchemes {
                guard Self.lowercased(input[..<colon], isIn: fewSchemes) else { return .external }
            } else {
                guard schemes.contains(String(decoding: input[..<colon].map(ASCII.lowercased), as: UTF8.self)) else { return .external }
            }
            var start = colon + 1
            while start < input.count, input[start] == UInt8(ascii: "/") { start += 1 }
            return Self.parseInternal(input, host: nil, pathStart: start)
        }
        if Self.hasPrefix(input, "//", at: 0) {
            return authority(input, from: 2, defaultPorts: Self.anyWebPorts, schemeRelative: true)
        }
        return Self.parseInternal(input, host: nil, pathStart: 0)
    }

    private func authority(_ input: [UInt8], from start: Int, defaultPorts: [Int], schemeRelative: Bool) -> ClassifiedURL {
        var end = start
        while end < input.count, !Self.isPathDelimiter(input[end]) { end += 1 }
        if end == start {
            if end < input.count, input[end] == UInt8(ascii: "/") { return .rejected(.ambiguousSlashes) }
            return schemeRelative ? Self.parseInternal(input, host: nil, pathStart: end) : .rejected(.missingHost)
        }
        let authority = input[start..<end]
        if authority.contains(UInt8(ascii: "@")) { return .rejected(.userinfo) }
        var host = authority
        var port: ArraySlice<UInt8>? = nil
        let portSearchStart = authority.first == UInt8(ascii: "[")
            ? (authority.firstIndex(of: UInt8(ascii: "]")) ?? authority.endIndex) : authority.startIndex
        if let colon = authority[portSearchStart...].firstIndex(of: UInt8(ascii: ":")) {
            host = input[start..<colon]
            port = input[(colon + 1)..<end]
        }
        if port == nil, let plain = plainHost(host) {
            guard case .app(let key) = plain else { return .external }
            return Self.parseInternal(input, host: key, pathStart: end)
        }
        switch HostName.key(host: host, port: port, defaultPorts: defaultPorts) {
        case .failure(let reason): return .rejected(reason)
        case .success(let key):
            guard isAppHost(key) else { return .external }
            return Self.parseInternal(input, host: key, pathStart: end)
        }
    }

    // MARK: - Screening and parsing helpers

    /// Checks every input before classification: length, control characters (C0, DEL,
    /// C1), whitespace, backslashes, malformed `%XX`, raw bytes that are not UTF-8.
    static func screen(_ input: [UInt8], plain: inout Bool) -> URLRejection? {
        if input.count > maxLength { return .tooLong }
        // Most URLs hold none of the bytes looked at below: a branch-free pass (which
        // the compiler vectorizes) says so before the byte-by-byte one. (`"` is passed
        // by that one; it is looked for here so that `plain` means JSON-safe too.)
        var suspect: UInt8 = 0
        for b in input {
            suspect |= (b <= 0x20 ? 1 : 0) | (b >= 0x7F ? 1 : 0) | (b == UInt8(ascii: "\\") ? 1 : 0) | (b == UInt8(ascii: "%") ? 1 : 0)
                | (b == UInt8(ascii: "\"") ? 1 : 0)
        }
        plain = suspect == 0
        if suspect == 0 { return nil }
        var nonASCII = false
        var i = 0
        while i < input.count {
            let b = input[i]
            if b < 0x20 || b == 0x7F { return .controlCharacter }
            if b == 0x20 { return .whitespace }
            if b == UInt8(ascii: "\\") { return .backslash }
            if b == UInt8(ascii: "%") {
                guard i + 2 < input.count, PercentDecoding.hexValue(input[i + 1]) != nil,
                      PercentDecoding.hexValue(input[i + 2]) != nil else { return .invalidPercentEncoding }
            }
            if b >= 0x80 { nonASCII = true }
            i += 1
        }
        if nonASCII {
            guard let text = UTF8Validation.string(input[...]) else { return .invalidUTF8 }
            for scalar in text.unicodeScalars where !scalar.isASCII {
                if (0x80...0x9F).contains(scalar.value) { return .controlCharacter }
                if scalar.properties.isWhitespace || scalar.value == 0xFEFF || scalar.value == 0x200B { return .whitespace }
            }
        }
        return nil
    }

    /// The index of the `:` ending an RFC 3986 scheme, if the input starts with one.
    package static func schemeEnd(_ input: [UInt8]) -> Int? {
        guard let first = input.first, isAlpha(first) else { return nil }
        for i in 1..<input.count {
            let b = input[i]
            if b == UInt8(ascii: ":") { return i }
            guard isAlpha(b) || (b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9"))
                    || b == UInt8(ascii: "+") || b == UInt8(ascii: "-") || b == UInt8(ascii: ".") else { return nil }
        }
        return nil
    }

    /// Splits what follows the authority (or the whole relative reference) into
    /// normalized segments, query items and fragment.
    static func parseInternal(_ input: [UInt8], host: String?, pathStart: Int) -> ClassifiedURL {
        input.withSpan { parseInternal(input, $0, host: host, pathStart: pathStart) }
    }

    private static func parseInternal(_ input: [UInt8], _ span: Span<UInt8>, host: String?, pathStart: Int) -> ClassifiedURL {
        let pathEnd = ASCII.firstIndex(of: UInt8(ascii: "?"), or: UInt8(ascii: "#"), in: span, from: pathStart)
        var queryRange: Range<Int>? = nil
        var fragmentRange: Range<Int>? = nil
        if pathEnd < input.count {
            if input[pathEnd] == UInt8(ascii: "?") {
                let hash = ASCII.firstIndex(of: UInt8(ascii: "#"), or: UInt8(ascii: "#"), in: span, from: pathEnd + 1)
                queryRange = (pathEnd + 1)..<hash
                if hash < input.count { fragmentRange = (hash + 1)..<input.count }
            } else {
                fragmentRange = (pathEnd + 1)..<input.count
            }
        }
        guard let segments = normalizedSegments(input, pathStart..<pathEnd) else { return .rejected(.invalidUTF8) }
        var query: [(key: String, value: String)] = []
        if let queryRange {
            // Items split at `&`, the key at the first `=`: found eight bytes a step.
            let end = queryRange.upperBound
            var itemStart = queryRange.lowerBound
            while itemStart <= end {
                // The key ends at the item's first `=`, or with the item when it has none.
                let keyEnd = Swift.min(ASCII.firstIndex(of: UInt8(ascii: "&"), or: UInt8(ascii: "="), in: span, from: itemStart), end)
                let hasValue = keyEnd < end && span[keyEnd] == UInt8(ascii: "=")
                let itemEnd = hasValue ? Swift.min(ASCII.firstIndex(of: UInt8(ascii: "&"), or: UInt8(ascii: "&"), in: span, from: keyEnd + 1), end) : keyEnd
                if keyEnd > itemStart {
                    guard let key = PercentDecoding.decode(input, itemStart..<keyEnd, plusAsSpace: true),
                          let value = PercentDecoding.decode(input, hasValue ? (keyEnd + 1)..<itemEnd : itemEnd..<itemEnd, plusAsSpace: true)
                    else { return .rejected(.invalidUTF8) }
                    query.append((key, value))
                }
                itemStart = itemEnd + 1
            }
        }
        var fragment: [UInt8]? = nil
        if let fragmentRange {
            guard let decoded = PercentDecoding.decodeBytes(input, fragmentRange, plusAsSpace: false) else { return .rejected(.invalidUTF8) }
            fragment = decoded
        }
        return .internal(InternalURL(host: host, segmentBuffer: segments, query: query, fragmentBytes: fragment))
    }

    static let httpPorts = [80], httpsPorts = [443], anyWebPorts = [80, 443]

    @inline(__always) package static func isAlpha(_ b: UInt8) -> Bool {
        (b >= UInt8(ascii: "a") && b <= UInt8(ascii: "z")) || (b >= UInt8(ascii: "A") && b <= UInt8(ascii: "Z"))
    }

    @inline(__always) static func isPathDelimiter(_ b: UInt8) -> Bool {
        b == UInt8(ascii: "/") || b == UInt8(ascii: "?") || b == UInt8(ascii: "#")
    }

    static func hasPrefix(_ input: [UInt8], _ prefix: StaticString, at index: Int) -> Bool {
        let count = prefix.utf8CodeUnitCount
        guard index + count <= input.count else { return false }
        return prefix.withUTF8Buffer { buffer in
            for k in 0..<count where input[index + k] != buffer[k] { return false }
            return true
        }
    }
}
