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
        // On bytes: split at commas, trim spaces, drop a W/ prefix, compare.
        let wanted = etag.utf8.starts(with: "W/".utf8) ? etag.utf8.dropFirst(2) : etag.utf8[...]
        let bytes = header.utf8
        var start = bytes.startIndex
        while start < bytes.endIndex {
            let end = bytes[start...].firstIndex(of: UInt8(ascii: ",")) ?? bytes.endIndex
            var tag = bytes[start..<end]
            while let first = tag.first, first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") { tag = tag.dropFirst() }
            while let last = tag.last, last == UInt8(ascii: " ") || last == UInt8(ascii: "\t") { tag = tag.dropLast() }
            if tag.elementsEqual("*".utf8) { return true }
            if tag.starts(with: "W/".utf8) { tag = tag.dropFirst(2) }
            if tag.elementsEqual(wanted) { return true }
            start = end == bytes.endIndex ? end : bytes.index(after: end)
        }
        return false
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
