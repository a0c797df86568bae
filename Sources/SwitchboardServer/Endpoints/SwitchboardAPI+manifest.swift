import MicroHTTPD
import RouteMatching
import ServerSystem
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
                // docs/http-api.md: a blocking poll, held until another manifest is in service.
                if let preferred = LivePolling.preferredWait(request.header(.prefer)) {
                    let wait = min(preferred, maxWait)
                    let metrics = self.metrics, method = request.methodKind, began = request.began
                    let line = accessLog.map { AccessLine($0, request) }
                    if let held = store.live.hold(seen: served, echo: echo, gzip: gzip, wait: wait, client: request.client.block,
                                                  answered: { status in
                        metrics.record(endpoint: .manifest, method: method, status: status, nanoseconds: nil)
                        line?.log(status: status, nanoseconds: monotonicNanoseconds() &- began)
                    }) {
                        return held
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
        // On bytes, by index, never through String.UTF8View slices (every poll runs this):
        // split at commas, trim spaces, drop a W/ prefix, compare.
        let e = etag.utf8.span
        // What pollers send: the ETag they were given, as it was.
        if ASCII.equal(h, e) { return true }
        let wanted = Self.hasWeakPrefix(e, 0..<e.count) ? 2 : 0
        var start = 0
        while start < h.count {
            let end = Self.next(UInt8(ascii: ","), in: h, from: start, to: h.count)
            var tag = Self.trimmed(h, start..<end)
            if ASCII.equalsIgnoringCase(h.extracting(tag), "*") { return true }
            if Self.hasWeakPrefix(h, tag) { tag = (tag.lowerBound + 2)..<tag.upperBound }
            if ASCII.equal(h.extracting(tag), e.extracting(wanted...)) { return true }
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
        // On bytes, as `matches`: no Substring is split, trimmed or lowercased per fetch.
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
            let name = h.extracting(coding)
            if ASCII.equalsIgnoringCase(name, "gzip") || ASCII.equalsIgnoringCase(name, "x-gzip") { return q > 0 }
            if ASCII.equalsIgnoringCase(name, "*") { star = q > 0 }
            start = end + 1
        }
        return star
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

    private static func hasWeakPrefix(_ h: Span<UInt8>, _ range: Range<Int>) -> Bool {
        range.count >= 2 && h[range.lowerBound] == UInt8(ascii: "W") && h[range.lowerBound + 1] == UInt8(ascii: "/")
    }
}
