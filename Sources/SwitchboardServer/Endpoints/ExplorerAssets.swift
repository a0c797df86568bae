import Gzip
import MicroHTTPD
import Switchboard

/// The route explorer (`GET /`, `/ui/...`): its page, style and script, embedded from
/// `Explorer/` at build time and prepared once, plain and gzipped. The page renders the
/// API's answers; it reads nothing the API does not already make public.
final class ExplorerAssets: Sendable {
    struct Asset: Sendable {
        let plain: PreparedResponse
        let gzip: PreparedResponse
        let notModified: PreparedResponse
        let etag: String
    }

    /// No inline script or style, nothing from elsewhere, not framed, not sniffed.
    static let securityHeaders = [
        ("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"),
        ("X-Content-Type-Options", "nosniff"),
        ("Referrer-Policy", "no-referrer"),
        ("Cache-Control", "no-cache"),
        ("Vary", "Accept-Encoding"),
    ]

    /// Path -> asset.
    let assets: [String: Asset]

    init?() {
        var assets: [String: Asset] = [:]
        for (path, type, bytes) in [
            ("/", "text/html; charset=utf-8", PackageResources.index_html),
            ("/ui/explorer.css", "text/css; charset=utf-8", PackageResources.explorer_css),
            ("/ui/explorer.js", "text/javascript; charset=utf-8", PackageResources.explorer_js),
        ] {
            let etag = "\"sha256-\(SHA256.hex(bytes))\""
            let headers = [("Content-Type", type), ("ETag", etag)] + Self.securityHeaders
            guard let compressed = Gzip.compress(bytes),
                  let plain = PreparedResponse(body: bytes, headers: headers),
                  let gzip = PreparedResponse(body: compressed, headers: headers + [("Content-Encoding", "gzip")]),
                  let notModified = PreparedResponse(body: [], headers: [("ETag", etag)] + Self.securityHeaders)
            else { return nil }
            assets[path] = Asset(plain: plain, gzip: gzip, notModified: notModified, etag: etag)
        }
        self.assets = assets
    }

    /// The explorer's path for a request path: `/` or under `/ui/`; nil for the API's.
    static func path(_ path: ArraySlice<UInt8>) -> String? {
        if path.count == 1 && path.first == UInt8(ascii: "/") { return "/" }
        guard path.starts(with: "/ui/".utf8) else { return nil }
        return String(decoding: path, as: UTF8.self)
    }

    /// The asset at `path` for `request`: 304 when its ETag still holds, gzip when accepted.
    func response(_ path: String, _ request: HTTPRequest) -> HTTPResponse? {
        guard let asset = assets[path] else { return nil }
        if let ifNoneMatch = request.headerBytes(.ifNoneMatch), SwitchboardAPI.matches(ifNoneMatch, asset.etag) {
            return HTTPResponse(status: 304, prepared: asset.notModified)
        }
        return HTTPResponse(status: 200, prepared: SwitchboardAPI.acceptsGzip(request.headerBytes(.acceptEncoding)) ? asset.gzip : asset.plain)
    }
}
