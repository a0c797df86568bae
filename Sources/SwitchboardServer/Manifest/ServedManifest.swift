import Gzip
import MicroHTTPD
import Switchboard
import SwitchboardTooling
import SystemSupport

/// A manifest in service, with everything a request needs prepared once: the
/// canonical body plain and gzipped, the echo format, and their headers.
final class ServedManifest: Sendable {
    let compiled: CompiledManifest
    /// The bytes of the file it was loaded from, to tell a real change from a touch.
    let sourceBytes: [UInt8]
    /// Seconds since 1970 when it was put in service.
    let loadedAt: Int64
    let lastModified: String?
    let manifestPlain: PreparedResponse
    let manifestGzip: PreparedResponse
    let echoPlain: PreparedResponse
    let echoGzip: PreparedResponse
    let echoETag: String
    /// 304 answers, shared like the bodies: no per-request allocation.
    let manifestNotModified: PreparedResponse
    let echoNotModified: PreparedResponse
    /// `GET /v1/routes`, plain and gzipped: built on first request (large for a large
    /// table, which neither a load nor every request should pay), then shared.
    private let routesTable = Locked<(plain: PreparedResponse, gzip: PreparedResponse)?>(nil)
    /// Held polls' answers, which carry `Preference-Applied: wait=N`: made on first use
    /// for each N and kind (clients of one deployment send the same few N), then shared
    /// like the others, so waking 10,000 polls builds no response object.
    private let heldAnswers = Locked<[Int: PreparedResponse]>([:])
    /// Requests per route (`/metrics`), carried over from the manifest this one replaces.
    let routeHits: RouteHits
    /// The association files, prepared once per version: each host's
    /// `apple-app-site-association`, and the `assetlinks.json` every host shares.
    private let appleFiles: [String: AssociationFile]
    private let assetLinksFile: AssociationFile?

    /// An association file's answers: plain, gzipped, and its 304.
    struct AssociationFile: Sendable {
        let etag: String
        let plain: PreparedResponse
        let gzip: PreparedResponse
        let notModified: PreparedResponse

        /// `Cache-Control`: Apple's CDN and Android's verifier fetch the file again on their
        /// own schedule; an hour keeps an edge proxy from serving it much staler than that.
        init?(_ body: [UInt8]) {
            let etag = "\"sha256-\(SHA256.hex(body))\""
            let validators = [("ETag", etag), ("Cache-Control", "public, max-age=3600"), ("Vary", "Accept-Encoding")]
            let headers = [("Content-Type", "application/json")] + validators
            guard let compressed = Gzip.compress(body), let plain = PreparedResponse(body: body, headers: headers),
                  let gzip = PreparedResponse(body: compressed, headers: headers + [("Content-Encoding", "gzip")]),
                  let notModified = PreparedResponse(body: [], headers: validators) else { return nil }
            self.etag = etag
            self.plain = plain
            self.gzip = gzip
            self.notModified = notModified
        }
    }

    /// The `apple-app-site-association` (`apple`) or `assetlinks.json` of `host` (a host
    /// key the manifest lists); nil when the manifest names no app for that platform.
    func associationFile(apple: Bool, host: String) -> AssociationFile? { apple ? appleFiles[host] : assetLinksFile }

    init?(compiled: CompiledManifest, files: AssociationFiles.Made, sourceBytes: [UInt8], loadedAt: Int64,
          replacing previous: ServedManifest? = nil) {
        let m = compiled.manifest
        var appleFiles: [String: AssociationFile] = [:]
        for (host, body) in files.apple {
            guard let file = AssociationFile(body) else { return nil }
            appleFiles[host] = file
        }
        self.appleFiles = appleFiles
        if let body = files.assetLinks {
            guard let file = AssociationFile(body) else { return nil }
            assetLinksFile = file
        } else {
            assetLinksFile = nil
        }
        self.compiled = compiled
        self.routeHits = RouteHits(m, carrying: previous?.routeHits)
        self.sourceBytes = sourceBytes
        self.loadedAt = loadedAt
        self.lastModified = m.updatedAtEpoch.map(HTTPDate.format)
        let echo = Self.echoJSON(m).serialized()
        self.echoETag = "\"sha256-\(SHA256.hex(echo))\""
        func validators(_ etag: String) -> [(String, String)] {
            var h = [("ETag", etag), ("X-Manifest-Version", "\(m.version)"), ("Cache-Control", "public, max-age=60"),
                     ("Vary", "Accept-Encoding")]
            if let lastModified = m.updatedAtEpoch.map(HTTPDate.format) { h.append(("Last-Modified", lastModified)) }
            return h
        }
        func headers(_ etag: String) -> [(String, String)] { [("Content-Type", "application/json")] + validators(etag) }
        guard let canonicalGzip = Gzip.compress(compiled.canonicalBytes), let echoGzip = Gzip.compress(echo),
              let manifestPlain = PreparedResponse(body: compiled.canonicalBytes, headers: headers(compiled.etag)),
              let manifestGzip = PreparedResponse(body: canonicalGzip, headers: headers(compiled.etag) + [("Content-Encoding", "gzip")]),
              let echoPlain = PreparedResponse(body: echo, headers: headers(echoETag)),
              let echoGzipResponse = PreparedResponse(body: echoGzip, headers: headers(echoETag) + [("Content-Encoding", "gzip")]),
              let manifestNotModified = PreparedResponse(body: [], headers: validators(compiled.etag)),
              let echoNotModified = PreparedResponse(body: [], headers: validators(echoETag))
        else { return nil }
        self.manifestNotModified = manifestNotModified
        self.echoNotModified = echoNotModified
        self.manifestPlain = manifestPlain
        self.manifestGzip = manifestGzip
        self.echoPlain = echoPlain
        self.echoGzip = echoGzipResponse
    }

    /// The manifest's 200 response: canonical or Echo's shape, plain or gzipped.
    func manifestBody(echo: Bool, gzip: Bool) -> PreparedResponse {
        switch (echo, gzip) {
        case (false, false): return manifestPlain
        case (false, true): return manifestGzip
        case (true, false): return echoPlain
        case (true, true): return echoGzip
        }
    }

    /// The answer of a poll held with `wait` seconds: the 200 (`changed`) or the 304.
    func heldAnswer(changed: Bool, echo: Bool, gzip: Bool, wait: Int) -> HTTPResponse {
        let base = changed ? manifestBody(echo: echo, gzip: gzip) : (echo ? echoNotModified : manifestNotModified)
        let key = wait << 3 | (changed ? 4 : 0) | (echo ? 2 : 0) | (gzip && changed ? 1 : 0)
        let status = changed ? 200 : 304
        if let cached = heldAnswers.withLock({ $0[key] }) { return HTTPResponse(status: status, prepared: cached) }
        // `Connection: close`: libmicrohttpd 0.9.75 zeroes a kept-alive connection's 32 KiB
        // pool before its next request, which would leave each parked poller 32 KiB of
        // resident memory (against ~6 KiB on a fresh connection) and is most of the cost of
        // waking thousands at once. A poller reconnects once per wait instead.
        let applied = [("Preference-Applied", "wait=\(wait)"), ("Connection", "close")]
        guard let made = PreparedResponse(base, adding: applied) else {
            return HTTPResponse(status: status, prepared: base, headers: applied)
        }
        heldAnswers.withLock { $0[key] = made }
        return HTTPResponse(status: status, prepared: made)
    }

    /// The route table response; the first caller builds it outside the lock (a race
    /// builds it twice, harmlessly), later ones share it.
    func routes(gzip: Bool) -> PreparedResponse? {
        if let built = routesTable.withLock({ $0 }) { return gzip ? built.gzip : built.plain }
        let body = compiled.tableJSON
        let headers = [("Content-Type", "application/json"), ("Vary", "Accept-Encoding")]
        guard let compressed = Gzip.compress(body), let plain = PreparedResponse(body: body, headers: headers),
              let zipped = PreparedResponse(body: compressed, headers: headers + [("Content-Encoding", "gzip")]) else { return nil }
        routesTable.withLock { $0 = (plain, zipped) }
        return gzip ? zipped : plain
    }

    /// The shape Eigen's clients read: `{"id","name","created_at","updated_at",
    /// "features","messages","routes":[{"name","path"}]}`, one entry per pattern;
    /// `features` and `messages` as the manifest has them (Echo's arrays of
    /// `{"name","value"}` and `{"name","content"}`), `[]` when it has none.
    static func echoJSON(_ m: Manifest) -> JSONValue {
        let stamp: JSONValue = m.updatedAt.map { .string($0) } ?? .null
        return .object([
            .init("id", .integer(m.version)),
            .init("name", .string("switchboard")),
            .init("created_at", stamp),
            .init("updated_at", stamp),
            .init("features", m.features ?? .array([])),
            .init("messages", m.messages ?? .array([])),
            .init("routes", .array(m.routes.flatMap { route in
                route.patterns.map { .object([.init("name", .string(route.name)), .init("path", .string($0.text))]) }
            })),
        ])
    }
}
