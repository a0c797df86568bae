import MicroHTTPD
import RouteMatching
import Switchboard

extension SwitchboardAPI {
    /// `GET`/`HEAD /v1/manifest[?format=echo]`: conditional, gzip when accepted, held
    /// with `Prefer: wait=N` while `If-None-Match` names the manifest in service.
    func manifest(_ request: HTTPRequest) -> HTTPResponse {
        let served = store.current
        let echo: Bool
        do {
            // A poll has no query: nothing to read.
            let query = request.query
            let format = query.isEmpty ? [] : try QueryString(query).values("format")
            switch format.last.map({ String(decoding: $0, as: UTF8.self) }) {
            case nil, "canonical"?: echo = false
            case "echo"?: echo = true
            case let other?: return Problem.badRequest("unknown format \"\(other)\"; use echo, or leave it out").response
            }
        } catch {
            return Problem.badRequest("malformed query string: invalid percent-encoding").response
        }
        let etag = echo ? served.echoETag : served.compiled.etag
        let gzip = Self.acceptsGzip(request.headerBytes(.acceptEncoding))
        if let ifNoneMatch = request.headerBytes(.ifNoneMatch) {
            if Self.matches(ifNoneMatch, etag) {
                // SPEC §6: a blocking poll, held until another manifest is in service.
                if let wait = LiveUpdates.preferredWait(request.header(.prefer)) {
                    let metrics = self.metrics, method = request.methodKind
                    return store.live.hold(seen: served, echo: echo, gzip: gzip, wait: wait) { status in
                        metrics.record(endpoint: .manifest, method: method, status: status, nanoseconds: nil)
                    }
                }
                return HTTPResponse(status: 304, prepared: echo ? served.echoNotModified : served.manifestNotModified)
            }
        } else if let since = request.header(.ifModifiedSince), let lastModified = served.compiled.manifest.updatedAtEpoch,
                  let date = HTTPDate.parse(since), lastModified <= date {
            return HTTPResponse(status: 304, prepared: echo ? served.echoNotModified : served.manifestNotModified)
        }
        return HTTPResponse(status: 200, prepared: served.manifestBody(echo: echo, gzip: gzip))
    }

    /// RFC 9110 If-None-Match: `*`, or a list of entity tags compared weakly.
    static func matches(_ header: String, _ etag: String) -> Bool {
        matches(header.utf8.span, etag)
    }

    /// The same on the header's bytes, as the request has them.
    static func matches(_ header: ArraySlice<UInt8>, _ etag: String) -> Bool {
        matches(header.span, etag)
    }

    private static func matches(_ h: Span<UInt8>, _ etag: String) -> Bool {
        // On bytes, by index (the String.UTF8View slices this used cost ~9,000
        // instructions per poll): split at commas, trim spaces, drop a W/ prefix, compare.
        let e = etag.utf8.span
        // What pollers send: the ETag they were given, as it was.
        if h.count == e.count, Self.equal(h, 0..<h.count, e) { return true }
        let wanted = Self.hasWeakPrefix(e, 0..<e.count) ? 2 : 0
        var start = 0
        while start < h.count {
            let end = Self.next(UInt8(ascii: ","), in: h, from: start, to: h.count)
            var tag = Self.trimmed(h, start..<end)
            if Self.equalsIgnoringCase(h, tag, "*") { return true }
            if Self.hasWeakPrefix(h, tag) { tag = (tag.lowerBound + 2)..<tag.upperBound }
            if tag.count == e.count - wanted, Self.equal(h, tag, e, from: wanted) { return true }
            start = end + 1
        }
        return false
    }

    /// Whether Accept-Encoding allows gzip (`gzip`, `x-gzip` or `*` with q > 0).
    static func acceptsGzip(_ header: String) -> Bool {
        acceptsGzip(header.utf8.span)
    }

    /// The same on the header's bytes, as the request has them.
    static func acceptsGzip(_ header: ArraySlice<UInt8>?) -> Bool {
        guard let header else { return false }
        return acceptsGzip(header.span)
    }

    private static func acceptsGzip(_ h: Span<UInt8>) -> Bool {
        // On bytes, as `matches` (split, trim and lowercase on Substrings cost ~13,000
        // instructions per manifest fetch).
        var star = false
        var start = 0
        while start < h.count {
            let end = Self.next(UInt8(ascii: ","), in: h, from: start, to: h.count)
            let codingEnd = Self.next(UInt8(ascii: ";"), in: h, from: start, to: end)
            let coding = Self.trimmed(h, start..<codingEnd)
            var q = 1.0
            var p = codingEnd
            while p < end {
                let parameterEnd = Self.next(UInt8(ascii: ";"), in: h, from: p + 1, to: end)
                let parameter = Self.trimmed(h, (p + 1)..<parameterEnd)
                if parameter.count >= 2, ASCII.lowercased(h[parameter.lowerBound]) == UInt8(ascii: "q"), h[parameter.lowerBound + 1] == UInt8(ascii: "=") {
                    var text = ""
                    for i in (parameter.lowerBound + 2)..<parameter.upperBound { text.unicodeScalars.append(Unicode.Scalar(h[i])) }
                    if let value = Double(text) { q = value }
                }
                p = parameterEnd
            }
            if Self.equalsIgnoringCase(h, coding, "gzip") || Self.equalsIgnoringCase(h, coding, "x-gzip") { return q > 0 }
            if Self.equalsIgnoringCase(h, coding, "*") { star = q > 0 }
            start = end + 1
        }
        return star
    }

    /// Whether `h[range]` equals `e` from `offset` on (`range.count` bytes of it).
    private static func equal(_ h: Span<UInt8>, _ range: Range<Int>, _ e: Span<UInt8>, from offset: Int = 0) -> Bool {
        equal(h.extracting(range), e.extracting(offset..<(offset + range.count)))
    }

    /// Whether two byte spans are equal. Every byte is compared, with no early exit: a
    /// loop the compiler vectorizes (an ETag is 73 bytes, compared on every poll).
    static func equal(_ a: Span<UInt8>, _ b: Span<UInt8>) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for k in 0..<a.count { difference |= a[k] ^ b[k] }
        return difference == 0
    }

    /// The index of the first `byte` in `h[from..<to]`, or `to`.
    private static func next(_ byte: UInt8, in h: Span<UInt8>, from: Int, to: Int) -> Int {
        var i = from
        while i < to, h[i] != byte { i += 1 }
        return i
    }

    /// `range` without leading and trailing spaces and tabs.
    private static func trimmed(_ h: Span<UInt8>, _ range: Range<Int>) -> Range<Int> {
        var lo = range.lowerBound, hi = range.upperBound
        while lo < hi, h[lo] == UInt8(ascii: " ") || h[lo] == UInt8(ascii: "\t") { lo += 1 }
        while hi > lo, h[hi - 1] == UInt8(ascii: " ") || h[hi - 1] == UInt8(ascii: "\t") { hi -= 1 }
        return lo..<hi
    }

    /// Whether `h[range]` spells the lowercase ASCII `word`, ignoring ASCII case.
    private static func equalsIgnoringCase(_ h: Span<UInt8>, _ range: Range<Int>, _ word: StaticString) -> Bool {
        guard range.count == word.utf8CodeUnitCount else { return false }
        return word.withUTF8Buffer { w in
            for k in 0..<w.count {
                guard ASCII.lowercased(h[range.lowerBound + k]) == w[k] else { return false }
            }
            return true
        }
    }

    private static func hasWeakPrefix(_ h: Span<UInt8>, _ range: Range<Int>) -> Bool {
        range.count >= 2 && h[range.lowerBound] == UInt8(ascii: "W") && h[range.lowerBound + 1] == UInt8(ascii: "/")
    }
}
