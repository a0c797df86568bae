import RouteMatching
import MicroHTTPD
import Switchboard
import SwitchboardTooling

extension SwitchboardAPI {
    /// Most cases in one `POST /v1/validate`.
    static let maxValidateCases = 10_000

    /// `GET /v1/routes`: the table in precedence order, one entry per expansion, built
    /// once per manifest.
    func routes(_ request: HTTPRequest) -> HTTPResponse {
        let served = store.current
        guard let prepared = served.routes(gzip: Self.acceptsGzip(request.headerBytes(.acceptEncoding))) else {
            return HTTPResponse(status: 200, headers: Self.jsonHeaders, body: served.compiled.tableJSON)
        }
        return HTTPResponse(status: 200, prepared: prepared)
    }

    /// `POST /v1/validate`: a cases text in, what `switchboard validate` reports out:
    /// every case with its outcome and explanation, totals, and route coverage.
    func validate(_ request: HTTPRequest) -> (HTTPResponse, OutcomeCounts) {
        if let refused = Self.unsupportedMediaType(request, expected: "text/plain") { return (refused, .none) }
        guard !request.body.isEmpty, let text = UTF8Validation.string(request.body[...]) else {
            return (Problem.badRequest("the body must be a cases text in UTF-8: one `URL -> Destination` a line").response, .none)
        }
        let cases: [ValidationCase]
        do {
            cases = try ValidationCase.parse(text)
        } catch {
            return (Problem.badRequest("line \(error.line): \(error.message)", [.init("line", .integer(Int64(error.line)))]).response,
                    .none)
        }
        guard cases.count <= Self.maxValidateCases else {
            return (Problem(status: 413, title: "Content Too Large",
                            detail: "\(cases.count) cases; at most \(Self.maxValidateCases) in one request").response, .none)
        }
        let store = self.store
        return offload(request, .validate) { _ in Self.report(cases, store.current.compiled) }
    }

    /// What `switchboard validate` reports of `cases` against `compiled`, as JSON.
    private static func report(_ cases: [ValidationCase], _ compiled: CompiledManifest) -> (HTTPResponse, OutcomeCounts) {
        var outcomes = OutcomeCounts.none
        let results = cases.compactMap { c -> ResultSummary? in
            let result = compiled.resolve(c.url, context: c.context ?? .empty, explain: true)
            outcomes.count(result.status)
            return (try? JSONParser.parse(compiled.resultJSON(result))).flatMap(ResultSummary.init(json:))
        }
        let report = ValidationReport(source: "request", entries: zip(cases, results).map { .init(testCase: $0, result: $1) })
        var body = report.json(coverage: RouteCoverage(manifest: compiled.manifest, results: results))
        if case .object(var members) = body {
            members.append(.init("manifest", .object([.init("version", .integer(compiled.manifest.version)), .init("etag", .string(compiled.etag))])))
            body = .object(members)
        }
        return (HTTPResponse(status: 200, headers: Self.jsonHeaders, body: body.serialized()), outcomes)
    }
}
