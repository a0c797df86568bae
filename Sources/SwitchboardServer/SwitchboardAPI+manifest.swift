import MicroHTTPD
import Switchboard

extension SwitchboardAPI {
    /// `GET`/`HEAD /v1/manifest[?format=echo]`: conditional, gzip when accepted.
    func manifest(_ request: HTTPRequest) -> HTTPResponse {
        let served = store.current
        let echo: Bool
        do {
            let format = try QueryString(request.query).values("format")
            switch format.last.map({ String(decoding: $0, as: UTF8.self) }) {
            case nil, "canonical"?: echo = false
            case "echo"?: echo = true
            case let other?: return Problem.badRequest("unknown format \"\(other)\"; use echo, or leave it out").response
            }
        } catch {
            return Problem.badRequest("malformed query string: invalid percent-encoding").response
        }
        let etag = echo ? served.echoETag : served.compiled.etag
        if let ifNoneMatch = request.header("If-None-Match") {
            if Self.matches(ifNoneMatch, etag) { return HTTPResponse(status: 304, prepared: echo ? served.echoNotModified : served.manifestNotModified) }
        } else if let since = request.header("If-Modified-Since"), let lastModified = served.compiled.manifest.updatedAtEpoch,
                  let date = HTTPDate.parse(since), lastModified <= date {
            return HTTPResponse(status: 304, prepared: echo ? served.echoNotModified : served.manifestNotModified)
        }
        let gzip = Self.acceptsGzip(request.header("Accept-Encoding"))
        switch (echo, gzip) {
        case (false, false): return HTTPResponse(status: 200, prepared: served.manifestPlain)
        case (false, true): return HTTPResponse(status: 200, prepared: served.manifestGzip)
        case (true, false): return HTTPResponse(status: 200, prepared: served.echoPlain)
        case (true, true): return HTTPResponse(status: 200, prepared: served.echoGzip)
        }
    }

    /// RFC 9110 If-None-Match: `*`, or a list of entity tags compared weakly.
    static func matches(_ header: String, _ etag: String) -> Bool {
        // What pollers send: the ETag they were given, as it was (a memcmp).
        if header == etag { return true }
        // On bytes, by index (the String.UTF8View slices this used cost ~9,000
        // instructions per poll): split at commas, trim spaces, drop a W/ prefix, compare.
        let h = header.utf8.span
        let e = etag.utf8.span
        let wanted = Self.hasWeakPrefix(e, 0, e.count) ? 2 : 0
        var start = 0
        while start < h.count {
            var end = start
            while end < h.count, h[end] != UInt8(ascii: ",") { end += 1 }
            var lo = start, hi = end
            while lo < hi, h[lo] == UInt8(ascii: " ") || h[lo] == UInt8(ascii: "\t") { lo += 1 }
            while hi > lo, h[hi - 1] == UInt8(ascii: " ") || h[hi - 1] == UInt8(ascii: "\t") { hi -= 1 }
            if hi - lo == 1, h[lo] == UInt8(ascii: "*") { return true }
            if Self.hasWeakPrefix(h, lo, hi) { lo += 2 }
            if hi - lo == e.count - wanted {
                var k = 0
                while k < hi - lo, h[lo + k] == e[wanted + k] { k += 1 }
                if k == hi - lo { return true }
            }
            start = end + 1
        }
        return false
    }

    private static func hasWeakPrefix(_ bytes: Span<UInt8>, _ lo: Int, _ hi: Int) -> Bool {
        hi - lo >= 2 && bytes[lo] == UInt8(ascii: "W") && bytes[lo + 1] == UInt8(ascii: "/")
    }

    /// Whether Accept-Encoding allows gzip (`gzip`, `x-gzip` or `*` with q > 0).
    static func acceptsGzip(_ header: String?) -> Bool {
        guard let header else { return false }
        var star = false
        for item in header.split(separator: ",") {
            let parts = item.split(separator: ";")
            guard let coding = parts.first?.trimmingSpaces.lowercased() else { continue }
            var q = 1.0
            for parameter in parts.dropFirst() {
                let p = parameter.trimmingSpaces
                if p.lowercased().hasPrefix("q="), let value = Double(p.dropFirst(2)) { q = value }
            }
            if coding == "gzip" || coding == "x-gzip" { return q > 0 }
            if coding == "*" { star = q > 0 }
        }
        return star
    }
}

extension Substring {
    var trimmingSpaces: Substring {
        var s = self
        while s.first == " " || s.first == "\t" { s = s.dropFirst() }
        while s.last == " " || s.last == "\t" { s = s.dropLast() }
        return s
    }
}
