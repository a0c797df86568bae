import MicroHTTPD

/// The web origins allowed to call the read-only endpoints from a browser (`serve
/// --cors-origin`, docs/http-api.md): `GET`/`HEAD` of `/v1/resolve`, `/v1/manifest`,
/// `/v1/events` and `/v1/routes`. Their answers to an allowed `Origin` carry
/// `Access-Control-Allow-Origin` and expose the headers a poller reads; a preflight
/// (`OPTIONS`) is answered 204 with the request headers a poll sends. The writing
/// endpoints (`POST /v1/resolve`, `/v1/validate`) stay same-origin: their JSON bodies need
/// a preflight, which is never granted for them.
package struct CrossOrigin: Sendable, Equatable {
    /// Origins as browsers send them (`https://app.example.com`), or nil for any (`*`).
    package let origins: Set<String>?

    /// Parses `--cors-origin` values: `*`, or `scheme://host[:port]` without a path.
    package init(parsing values: [String]) throws(InvalidOrigin) {
        var origins: Set<String> = []
        for value in values {
            if value == "*" {
                self.origins = nil
                return
            }
            guard let origin = Self.serialized(value) else { throw InvalidOrigin(text: value) }
            origins.insert(origin)
        }
        self.origins = origins
    }

    package struct InvalidOrigin: Error, Sendable, Equatable, CustomStringConvertible {
        package let text: String
        package var description: String {
            "'\(text)' is not an origin: write a scheme, a host and an optional port, with no path (https://app.example.com, http://localhost:3000), or *"
        }
    }

    /// An origin as a browser serializes it (RFC 6454 6.2): scheme and host lowercased, no
    /// trailing slash; nil when `text` is not one.
    static func serialized(_ text: String) -> String? {
        guard let separator = text.range(of: "://") else { return nil }
        let scheme = text[..<separator.lowerBound], authority = text[separator.upperBound...]
        guard !scheme.isEmpty, scheme.utf8.allSatisfy({ ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x7A) || $0 == 0x2B || $0 == 0x2D || $0 == 0x2E }),
              !authority.isEmpty,
              authority.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: "?")
                  && $0 != UInt8(ascii: "#") && $0 != UInt8(ascii: "@") && $0 != UInt8(ascii: ",") })
        else { return nil }
        return scheme.lowercased() + "://" + authority.lowercased()
    }

    /// The request headers a poll or a stream sends that a preflight must allow.
    static let allowedHeaders = "If-None-Match, If-Modified-Since, Prefer, Last-Event-ID"
    /// The answer headers a poller reads (beyond the CORS-safelisted ones).
    static let exposedHeaders = "ETag, Preference-Applied, X-Manifest-Version, Retry-After"
    /// How long a browser may keep a preflight's answer (Chromium keeps at most 2 hours).
    static let maxAge = "7200"

    /// Whether the endpoint answers cross-origin reads.
    static func serves(_ endpoint: Metrics.Endpoint) -> Bool {
        switch endpoint {
        case .resolve, .manifest, .events, .routes: true
        default: false
        }
    }

    /// The value of `Access-Control-Allow-Origin` for a request from `origin`, nil when
    /// the origin is not allowed.
    func allowOrigin(_ origin: String?) -> String? {
        guard let origins else { return "*" }
        guard let origin, origins.contains(origin) else { return nil }
        return origin
    }

    /// The headers added to the answer of a `GET` or `HEAD` of an endpoint that
    /// ``serves(_:)`` cross-origin reads. With named origins, `Vary: Origin` goes on every
    /// answer, so that a shared cache (a CDN) keeps one answer per origin.
    func headers(origin: String?) -> [(String, String)] {
        var headers: [(String, String)] = []
        if let allowed = allowOrigin(origin), origin != nil {
            headers.append(("Access-Control-Allow-Origin", allowed))
            headers.append(("Access-Control-Expose-Headers", Self.exposedHeaders))
        }
        if origins != nil { headers.append(("Vary", "Origin")) }
        return headers
    }

    /// The answer to a preflight (`OPTIONS` with `Origin` and
    /// `Access-Control-Request-Method`) for an endpoint that serves cross-origin reads; nil
    /// when it is not one this policy grants (then answered as any `OPTIONS` is).
    func preflight(origin: String?, method: String?) -> HTTPResponse? {
        guard let origin, let method, method == "GET" || method == "HEAD", let allowed = allowOrigin(origin) else { return nil }
        var headers: [(String, String)] = [
            ("Access-Control-Allow-Origin", allowed),
            ("Access-Control-Allow-Methods", "GET, HEAD"),
            ("Access-Control-Allow-Headers", Self.allowedHeaders),
            ("Access-Control-Max-Age", Self.maxAge),
        ]
        if origins != nil { headers.append(("Vary", "Origin")) }
        return HTTPResponse(status: 204, headers: headers)
    }
}
