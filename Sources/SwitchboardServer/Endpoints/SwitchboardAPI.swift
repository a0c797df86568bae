import Logging
import MicroHTTPD
import Synchronization
import RouteMatching
import Switchboard
import ServerSystem
import SystemSupport

/// The HTTP API of docs/http-api.md: routes each request to its endpoint, answers from the
/// manifest in service, and counts it.
final class SwitchboardAPI: HTTPHandler {
    /// Request headers the endpoints read, each read by its place in ``requestHeaders``
    /// (no name compared per request).
    enum RequestHeader: Int, CaseIterable {
        case ifNoneMatch, ifModifiedSince, acceptEncoding, prefer, lastEventID, contentType, host, forwardedHost
        /// Read only when cross-origin reads are allowed (``CrossOrigin``): last, so that
        /// the others keep their places without them.
        case origin, accessControlRequestMethod

        var name: String {
            switch self {
            case .ifNoneMatch: "If-None-Match"
            case .ifModifiedSince: "If-Modified-Since"
            case .acceptEncoding: "Accept-Encoding"
            case .prefer: "Prefer"
            case .lastEventID: "Last-Event-ID"
            case .contentType: "Content-Type"
            case .host: "Host"
            case .forwardedHost: "X-Forwarded-Host"
            case .origin: "Origin"
            case .accessControlRequestMethod: "Access-Control-Request-Method"
            }
        }
    }

    /// The names the daemon copies into each request, in ``RequestHeader`` order: the
    /// CORS ones only when a server answers cross-origin reads, so a server that does not
    /// compares no more names per header field.
    static func requestHeaders(crossOrigin: Bool) -> [String] {
        RequestHeader.allCases.filter { crossOrigin || $0.rawValue < RequestHeader.origin.rawValue }.map(\.name)
    }

    let store: ManifestStore
    let metrics: Metrics
    /// Set when requests are logged.
    let accessLog: Logger?
    /// The route explorer's files; nil with `serve --no-ui`.
    let explorer: ExplorerAssets?
    /// Batches, `explain=near`, `explain=1` of a long URL and validation: bounded, and run
    /// off the daemon's threads.
    let expensive: ExpensiveWork
    /// The origins whose pages may read the API (`serve --cors-origin`); nil: none.
    let crossOrigin: CrossOrigin?
    /// The longest wait a held poll is granted (``RequestLimits/maxWaitSeconds``).
    let maxWait: Int
    /// Set when a drain starts (SIGTERM): `/readyz` answers 503 from then on.
    let draining = Atomic<Bool>(false)

    init(store: ManifestStore, metrics: Metrics, accessLog: Logger? = nil, explorer: ExplorerAssets? = nil,
         limits: RequestLimits = RequestLimits(), crossOrigin: CrossOrigin? = nil) {
        self.store = store
        self.metrics = metrics
        self.accessLog = accessLog
        self.explorer = explorer
        self.crossOrigin = crossOrigin
        self.maxWait = limits.maxWaitSeconds
        self.expensive = ExpensiveWork(limits: limits) { refusal in
            switch refusal {
            case .client: metrics.recordShareRefusal(.clientExpensive)
            case .server: metrics.recordShareRefusal(.serverExpensive)
            case .gaveWay: metrics.recordShareRefusal(.largestExpensive)
            }
        }
    }

    /// Runs `work` with ``ExpensiveWork``, counted and logged when its answer goes out.
    func offload(_ request: HTTPRequest, _ metric: Metrics.Endpoint,
                 _ work: @escaping @Sendable (ExpensiveWork.Job) -> (HTTPResponse, OutcomeCounts)) -> (HTTPResponse, OutcomeCounts) {
        let metrics = self.metrics
        let method = request.methodKind, began = request.began
        let line = accessLog.map { AccessLine($0, request) }
        return expensive.run(client: request.client.block, work) { response, outcomes in
            let nanoseconds = monotonicNanoseconds() &- began
            metrics.record(endpoint: metric, method: method, status: response.status, nanoseconds: nanoseconds, outcomes: outcomes)
            line?.log(status: response.status, nanoseconds: nanoseconds)
        }
    }

    /// What the access log says of a request, kept for an answer sent later (a held poll,
    /// an expensive request): its method, target, client and proxy.
    struct AccessLine: Sendable {
        let log: Logger
        let method: String
        let target: String
        let client: IPAddress
        let proxy: IPAddress?

        init(_ log: Logger, _ request: HTTPRequest) {
            self.log = log
            method = request.method
            target = String(decoding: request.target, as: UTF8.self)
            client = request.client
            proxy = request.proxy
        }

        /// One line: `client` is whom the request counts for; `proxy`, the trusted peer it
        /// came through, when that is another address.
        func log(status: Int, nanoseconds: UInt64) {
            var metadata: Logger.Metadata = [
                "method": "\(method)", "target": "\(target)", "status": "\(status)", "duration_us": "\(nanoseconds / 1000)",
                "client": "\(client)",
            ]
            if let proxy, proxy != client { metadata["proxy"] = "\(proxy)" }
            log.info("request", metadata: metadata)
        }
    }

    /// RFC 9110 8.3: a POST body whose media type is not `expected` (parameters such as
    /// `charset` aside) gets 415. A JSON body sent as JSON is also what keeps a web page
    /// from posting it cross-site without the CORS preflight this API never answers.
    static func unsupportedMediaType(_ request: HTTPRequest, expected: String) -> HTTPResponse? {
        let declared = request.header(.contentType) ?? ""
        let type = declared.split(separator: ";", maxSplits: 1).first.map { HeaderParameters.trimmed($0).lowercased() } ?? ""
        guard type != expected else { return nil }
        var problem = Problem(status: 415, title: "Unsupported Media Type",
                              detail: "the body must be sent as Content-Type: \(expected)" + (declared.isEmpty ? "" : ", not \(declared)"))
        problem.headers = [("Accept-Post", expected)]
        return problem.response
    }

    /// An endpoint: its path, the methods it allows, and its handler.
    struct Endpoint: Sendable {
        let metric: Metrics.Endpoint
        /// The methods it allows, a bit each by raw value: tested per request without
        /// comparing Strings.
        private let allowed: UInt8
        let handle: @Sendable (SwitchboardAPI, HTTPRequest, inout ScratchBuffers) -> (HTTPResponse, OutcomeCounts)

        init(metric: Metrics.Endpoint, methods: [HTTPMethod],
             handle: @escaping @Sendable (SwitchboardAPI, HTTPRequest, inout ScratchBuffers) -> (HTTPResponse, OutcomeCounts)) {
            self.metric = metric
            self.allowed = methods.reduce(0) { $0 | 1 << $1.rawValue }
            self.handle = handle
        }

        func allows(_ method: HTTPMethod) -> Bool { allowed & 1 << method.rawValue != 0 }

        /// The methods it allows, for an `Allow` header.
        var methods: [String] { HTTPMethod.allCases.filter(allows).compactMap(\.name) }
    }

    static let endpoints: [(path: [UInt8], endpoint: Endpoint)] = [
        (Array("/v1/resolve".utf8), Endpoint(metric: .resolve, methods: [.get, .head, .post]) { api, request, scratch in
            request.methodKind == .post ? api.resolveBatch(request) : api.resolveOne(request, scratch: &scratch)
        }),
        (Array("/v1/manifest".utf8), Endpoint(metric: .manifest, methods: [.get, .head]) { api, request, _ in
            (api.manifest(request), .none)
        }),
        (Array("/v1/events".utf8), Endpoint(metric: .events, methods: [.get]) { api, request, _ in
            (api.store.live.subscribe(lastEventID: request.header(.lastEventID), client: request.client.block), .none)
        }),
        (Array("/healthz".utf8), Endpoint(metric: .healthz, methods: [.get, .head]) { _, _, _ in
            (HTTPResponse(status: 200, headers: [("Content-Type", "application/json")], body: Array(#"{"status":"ok"}"#.utf8)), .none)
        }),
        (Array("/readyz".utf8), Endpoint(metric: .readyz, methods: [.get, .head]) { api, _, _ in
            (api.readiness(), .none)
        }),
        (Array("/openapi.json".utf8), Endpoint(metric: .openapi, methods: [.get, .head]) { _, _, _ in
            (HTTPResponse(status: 200, headers: [("Content-Type", "application/json")], body: OpenAPIDocument.bytes), .none)
        }),
        (Array("/v1/routes".utf8), Endpoint(metric: .routes, methods: [.get, .head]) { api, request, _ in
            (api.routes(request), .none)
        }),
        (Array("/v1/validate".utf8), Endpoint(metric: .validate, methods: [.post]) { api, request, _ in
            api.validate(request)
        }),
        (Array("/.well-known/apple-app-site-association".utf8), Endpoint(metric: .appleAppSiteAssociation, methods: [.get, .head]) { api, request, _ in
            (api.associationFile(request, apple: true), .none)
        }),
        (Array("/apple-app-site-association".utf8), Endpoint(metric: .appleAppSiteAssociation, methods: [.get, .head]) { api, request, _ in
            (api.associationFile(request, apple: true), .none)
        }),
        (Array("/.well-known/assetlinks.json".utf8), Endpoint(metric: .assetLinks, methods: [.get, .head]) { api, request, _ in
            (api.associationFile(request, apple: false), .none)
        }),
        (Array("/metrics".utf8), Endpoint(metric: .metrics, methods: [.get, .head]) { api, _, _ in
            (HTTPResponse(status: 200, headers: [("Content-Type", "text/plain; version=0.0.4; charset=utf-8")],
                          body: Array(api.metrics.render(store: api.store.live.service, live: api.store.live.figures).utf8)), .none)
        }),
    ]

    /// The index in ``endpoints`` of the endpoint at `path`. An index, read in place by the
    /// caller: an entry returned or bound is a copy (a retain and release of its methods
    /// and its closure), as `first(where:)` copied each entry it passed.
    static func endpoint(at path: ArraySlice<UInt8>) -> Int? {
        for i in endpoints.indices {
            let candidate = endpoints[i].path
            // The count first: most entries are passed over without making two spans.
            if candidate.count == path.count && ASCII.equal(candidate.span, path.span) { return i }
        }
        return nil
    }

    func handle(_ request: HTTPRequest) -> HTTPResponse {
        var scratch = ScratchBuffers()
        return handle(request, scratch: &scratch)
    }

    func handle(_ request: HTTPRequest, scratch: inout ScratchBuffers) -> HTTPResponse {
        // Timed from the request line (`request.began`: the clock is not read again here),
        // in integer nanoseconds: Duration's components cost a 128-bit division each.
        let path = request.path
        var metric = Metrics.Endpoint.other
        var outcomes = OutcomeCounts.none
        var response: HTTPResponse
        if let i = Self.endpoint(at: path) {
            metric = Self.endpoints[i].endpoint.metric
            if Self.endpoints[i].endpoint.allows(request.methodKind) {
                (response, outcomes) = Self.endpoints[i].endpoint.handle(self, request, &scratch)
                if let crossOrigin, CrossOrigin.serves(metric), request.methodKind != .post {
                    response.headers += crossOrigin.headers(origin: request.header(.origin))
                }
            } else if let crossOrigin, request.method == "OPTIONS", CrossOrigin.serves(metric),
                      let preflight = crossOrigin.preflight(origin: request.header(.origin),
                                                            method: request.header(.accessControlRequestMethod)) {
                response = preflight
            } else {
                let allowed = Self.endpoints[i].endpoint.methods.joined(separator: ", ")
                var problem = Problem(status: 405, title: "Method Not Allowed", detail: "\(request.method) is not allowed here; use \(allowed)")
                problem.headers = [("Allow", allowed)]
                response = problem.response
            }
        } else if let explorer, let asset = ExplorerAssets.path(path) {
            metric = .explorer
            if request.methodKind == .get || request.methodKind == .head, let answer = explorer.response(asset, request) {
                response = answer
            } else if explorer.assets[asset] != nil {
                var problem = Problem(status: 405, title: "Method Not Allowed", detail: "\(request.method) is not allowed here; use GET, HEAD")
                problem.headers = [("Allow", "GET, HEAD")]
                response = problem.response
            } else {
                response = Problem(status: 404, title: "Not Found", detail: "no explorer file at \(asset)").response
            }
        } else {
            response = Problem(status: 404, title: "Not Found",
                               detail: "no endpoint at \(String(decoding: path, as: UTF8.self))").response
        }
        if request.proxy != nil { metrics.recordForwarded() }
        // A held poll is counted when it is answered.
        if case .held = response.body { return response }
        let nanoseconds = monotonicNanoseconds() &- request.began
        metrics.record(endpoint: metric, method: request.methodKind, status: response.status, nanoseconds: nanoseconds, outcomes: outcomes)
        if let accessLog { AccessLine(accessLog, request).log(status: response.status, nanoseconds: nanoseconds) }
        return response
    }

    func readiness() -> HTTPResponse {
        let snapshot = store.live.service
        let served = snapshot.current
        let draining = self.draining.load(ordering: .relaxed)
        let body = JSONValue.object([
            .init("status", .string(draining ? "draining" : "ready")),
            .init("version", .integer(served.compiled.manifest.version)),
            .init("etag", .string(served.compiled.etag)),
            .init("loadedAt", .string(HTTPDate.rfc3339(served.loadedAt))),
            .init("routes", .integer(Int64(served.compiled.manifest.routes.count))),
            .init("reloads", .integer(Int64(snapshot.reloads))),
            .init("reloadFailures", .integer(Int64(snapshot.reloadFailures))),
            .init("lastReloadError", snapshot.lastReloadError.map { .string($0) } ?? .null),
        ])
        return HTTPResponse(status: draining ? 503 : 200, headers: [("Content-Type", "application/json")], body: body.serialized())
    }
}

extension HTTPRequest {
    /// The value of one of the headers the API reads.
    func header(_ header: SwitchboardAPI.RequestHeader) -> String? { self.header(at: header.rawValue) }

    /// Its bytes, for the checks every poll makes (If-None-Match, Accept-Encoding).
    func headerBytes(_ header: SwitchboardAPI.RequestHeader) -> ArraySlice<UInt8>? { headerBytes(at: header.rawValue) }
}
