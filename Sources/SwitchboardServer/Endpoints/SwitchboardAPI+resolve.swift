import MicroHTTPD
import RouteMatching
import Switchboard

extension SwitchboardAPI {
    /// `GET /v1/resolve?url=...&platform=&idiom=&appVersion=&explain=`. The decoded URL
    /// and the answer are written into the connection's scratch arrays; the URL's is
    /// given back once the answer is written, the answer's by the daemon once
    /// libmicrohttpd has copied it.
    func resolveOne(_ request: HTTPRequest, scratch: inout ScratchBuffers) -> (HTTPResponse, OutcomeCounts) {
        var parameters: ResolveParameters
        do {
            parameters = try Self.parameters(request.query, decodingInto: scratch.take())
        } catch {
            return (error.response, .none)
        }
        // Every route compared with the URL (`near`), or an explanation whose cost grows with
        // a long URL (each route tried names what it compared): run where it holds up no one.
        if parameters.near || (parameters.explain && parameters.url.count > Self.inlineExplainedURLBytes) {
            let store = self.store, url = parameters.url, context = parameters.context, near = parameters.near
            return offload(request, .resolve) { _ in
                let served = store.current
                let compiled = served.compiled
                let result = near ? compiled.resolveExplainingNearMisses(bytes: url, context: context)
                    : compiled.resolve(bytes: url, context: context, explain: true)
                served.routeHits.count(result)
                var outcomes = OutcomeCounts.none
                outcomes.count(result.status)
                return (HTTPResponse(status: 200, headers: Self.jsonHeaders, body: compiled.resultJSON(result)), outcomes)
            }
        }
        let (body, status) = answer(parameters, into: scratch.take())
        scratch.give(parameters.takeURL())
        var outcomes = OutcomeCounts.none
        outcomes.count(status)
        return (HTTPResponse(status: 200, headers: Self.jsonHeaders, body: body), outcomes)
    }

    /// The longest URL whose explanation is made on the daemon's thread: an explanation
    /// costs in proportion to the URL, so past it an explained resolve is expensive work
    /// (docs/benchmarks.md has the figures).
    static let inlineExplainedURLBytes = 1024

    /// The result's JSON and status; the result, which shares the URL's array, is gone
    /// when this returns.
    private func answer(_ parameters: borrowing ResolveParameters, into buffer: consuming [UInt8]) -> ([UInt8], Resolution.Status) {
        let served = store.current
        let compiled = served.compiled
        let result = compiled.resolve(bytes: parameters.url, context: parameters.context, explain: parameters.explain)
        served.routeHits.count(result)
        return (compiled.resultJSON(result, into: buffer), result.status)
    }

    struct ResolveParameters {
        var url: [UInt8]
        var context: ResolveContext
        var explain: Bool
        /// `explain=near`: also the routes that almost matched.
        var near = false

        /// The URL's array, moved out.
        mutating func takeURL() -> [UInt8] {
            var taken: [UInt8] = []
            swap(&taken, &url)
            return taken
        }
    }

    /// The parameters of `GET /v1/resolve`, read in one pass over the query: `url`
    /// exactly once, `platform`, `idiom` and `appVersion` at most once, `explain` (the
    /// last one counts); other keys are ignored.
    static func parameters(_ raw: ArraySlice<UInt8>, decodingInto buffer: consuming [UInt8] = []) throws(Problem) -> ResolveParameters {
        let bytes = raw.span
        var spare = Optional(buffer)
        var decoded: [UInt8]? = nil
        var containsNUL = false
        var urls = 0
        var explain: Range<Int>? = nil
        var context = ResolveContext()
        var offset = 0
        while let key = try Self.readingQuery({ () throws(QueryString.Problem) in try QueryString.nextKey(in: bytes, from: &offset) }) {
            let parameter = key.isEncoded ? Self.parameter(Self.decoded(bytes.extracting(key.range)).span)
                                          : Self.parameter(bytes.extracting(key.range))
            // The first url is decoded as it is read: one pass over its bytes.
            if case .url = parameter, urls == 0 {
                urls = 1
                decoded = key.hasValue ? try Self.readingQuery { () throws(QueryString.Problem) in
                    try QueryString.decodeValue(in: bytes, from: &offset, into: spare.take() ?? [], containsNUL: &containsNUL)
                } : []
                continue
            }
            let value = try Self.readingQuery { () throws(QueryString.Problem) in try QueryString.value(of: key, in: bytes, from: &offset) }
            switch parameter {
            case .url:
                urls += 1
            case .explain:
                explain = value
            case .context(let field):
                try Self.set(field, QueryString.slice(raw, value), in: &context)
            case nil:
                break
            }
        }
        guard urls == 1, let decoded else {
            throw .badRequest(urls == 0 ? "the url parameter is required: /v1/resolve?url=..."
                                        : "give the url parameter once; POST /v1/resolve takes several")
        }
        guard !containsNUL else { throw .badRequest("the url parameter contains a NUL byte") }
        if let explain, Self.equals(bytes.extracting(explain), "near") {
            return ResolveParameters(url: decoded, context: consume context, explain: true, near: true)
        }
        return ResolveParameters(url: decoded, context: consume context, explain: try Self.flag(explain.map { QueryString.slice(raw, $0) }))
    }

    /// The parameters of `GET /v1/resolve` a query key can name.
    enum Parameter {
        case url, explain
        case context(ResolveContext.Field)
    }

    /// The parameter a (decoded) query key names, if any: compared as bytes, no String made.
    static func parameter(_ key: Span<UInt8>) -> Parameter? {
        if equals(key, "url") { return .url }
        if equals(key, "appVersion") { return .context(.appVersion) }
        if equals(key, "platform") { return .context(.platform) }
        if equals(key, "idiom") { return .context(.idiom) }
        if equals(key, "explain") { return .explain }
        return nil
    }

    /// An encoded key decoded (a malformed escape was refused when the item was read).
    static func decoded(_ key: Span<UInt8>) -> [UInt8] {
        var containsNUL = false
        return (try? QueryString.decode(key, containsNUL: &containsNUL)) ?? []
    }

    /// Sets a context field from its raw query value.
    static func set(_ field: ResolveContext.Field, _ raw: ArraySlice<UInt8>, in context: inout ResolveContext) throws(Problem) {
        // Every app sends appVersion: read from its bytes, no String made.
        let bytesWillDo = field == .appVersion && !isEncoded(raw)
        let text = bytesWillDo ? nil : text(raw)
        guard bytesWillDo || text != nil else { throw .badRequest("\(field.rawValue) is not UTF-8") }
        do throws(ResolveContext.FieldError) {
            if let text { try context.set(field, text) } else { try context.setAppVersion(utf8: raw) }
        } catch {
            throw .badRequest(error.description)
        }
    }

    /// What reading the query with `read` gives, a malformed escape answered as a problem.
    static func readingQuery<T>(_ read: () throws(QueryString.Problem) -> T) throws(Problem) -> T {
        do {
            return try read()
        } catch {
            throw .badRequest("malformed query string: invalid percent-encoding")
        }
    }

    /// Whether the bytes of a query key spell `word` (the count first: most keys are passed
    /// over without the closure).
    static func equals(_ key: Span<UInt8>, _ word: StaticString) -> Bool {
        key.count == word.utf8CodeUnitCount && word.withUTF8Buffer { ASCII.equal(key, $0.span) }
    }

    /// Whether a raw query value has anything to decode (`%XX` or `+`).
    static func isEncoded(_ raw: ArraySlice<UInt8>) -> Bool {
        raw.contains { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") }
    }

    /// A raw query value decoded, as text, or nil when it is not UTF-8.
    static func text(_ raw: ArraySlice<UInt8>) -> String? {
        // Most values (7.3.0, ios) have nothing to decode.
        if !isEncoded(raw) { return UTF8Validation.string(raw) }
        guard let value = try? QueryString.decode(raw) else { return nil }
        return UTF8Validation.string(value[...])
    }

    /// `POST /v1/resolve` with `{"urls": [...], "context": {...}, "explain": false|true|"near"}`.
    func resolveBatch(_ request: HTTPRequest) -> (HTTPResponse, OutcomeCounts) {
        if let refused = Self.unsupportedMediaType(request, expected: "application/json") { return (refused, .none) }
        let limits = expensive.limits
        let document: JSONValue
        do {
            document = try JSONParser.parse(request.body)
        } catch {
            return (Problem.badRequest("malformed JSON body: \(error.message) at byte \(error.offset)",
                                       [.init("offset", .integer(Int64(error.offset)))]).response, .none)
        }
        guard let members = document.objectMembers else {
            return (Self.pointerProblem("", "the body must be a JSON object: {\"urls\": [...]}"), .none)
        }
        for member in members where !["urls", "context", "explain", "probe"].contains(member.key) {
            return (Self.pointerProblem("/\(member.key)", "unknown field; use urls, context, explain and probe"), .none)
        }
        // A check (`switchboard validate --server`), not traffic: its resolutions are not
        // route hits, so a pre-deploy check leaves a dead route's counter at zero.
        var probe = false
        switch document["probe"] {
        case nil: break
        case .bool(let b)?: probe = b
        default: return (Self.pointerProblem("/probe", "expected true or false"), .none)
        }
        guard let items = document["urls"]?.arrayValue else {
            return (Self.pointerProblem("/urls", "\"urls\" is required: an array of URL strings"), .none)
        }
        guard items.count <= limits.batchURLs else {
            return (Problem(status: 413, title: "Content Too Large",
                            detail: "\(items.count) URLs; at most \(limits.batchURLs) in one request").response, .none)
        }
        var requests: [(url: String, context: ResolveContext)] = []
        requests.reserveCapacity(items.count)
        do throws(Problem) {
            var context = ResolveContext()
            if let value = document["context"] { context = try Self.context(value, "/context") }
            for (i, item) in items.enumerated() {
                requests.append(try Self.batchItem(item, "/urls/\(i)", context: context))
            }
        } catch {
            return (error.response, .none)
        }
        var explain = false, near = false
        switch document["explain"] {
        case nil: break
        case .bool(let b)?: explain = b
        case .string("near")?: (explain, near) = (true, true)
        default: return (Self.pointerProblem("/explain", "expected true, false or \"near\""), .none)
        }
        if explain && requests.count > limits.explainedBatchURLs {
            return (Problem(status: 413, title: "Content Too Large",
                            detail: "\(requests.count) URLs with explain; at most \(limits.explainedBatchURLs) in one request").response, .none)
        }
        let store = self.store
        return offload(request, .resolve) { [requests, explain, near, probe] job in
            let served = store.current
            let compiled = served.compiled
            var writer = JSONWriter(capacity: 64 + min(requests.count * 360, limits.batchResponseBytes))
            writer.raw("{\"results\":[")
            var outcomes = OutcomeCounts.none
            // Counted once the whole answer is made: a batch refused half-way counts nothing.
            var hits: [(route: Int?, redirects: RedirectHops)] = []
            if !probe { hits.reserveCapacity(requests.count) }
            for (i, request) in requests.enumerated() {
                // The client left: nobody reads the rest.
                if job.isCancelled { return (HTTPResponse(status: 503, body: []), .none) }
                if i > 0 { writer.byte(UInt8(ascii: ",")) }
                let result = near
                    ? compiled.resolveExplainingNearMisses(bytes: Array(request.url.utf8), context: request.context)
                    : compiled.resolve(request.url, context: request.context, explain: explain)
                outcomes.count(result.status)
                if !probe { hits.append((result.routeIndex, result.redirects)) }
                compiled.writeResult(result, into: &writer)
                if writer.bytes.count > limits.batchResponseBytes {
                    return (Problem(status: 413, title: "Content Too Large",
                                    detail: "the answer would be larger than \(limits.batchResponseBytes) bytes (at URL \(i) of \(requests.count)); send fewer URLs or leave out explain").response, .none)
                }
            }
            writer.raw("]}")
            for hit in hits { served.routeHits.count(route: hit.route, redirects: hit.redirects) }
            return (HTTPResponse(status: 200, headers: Self.jsonHeaders, body: writer.bytes), outcomes)
        }
    }

    /// One item of `urls`: a URL string, or `{"url": ..., "context": {...}}` whose
    /// context replaces the batch's.
    static func batchItem(_ item: JSONValue, _ pointer: String, context: ResolveContext) throws(Problem) -> (url: String, context: ResolveContext) {
        if let url = item.stringValue { return (url, context) }
        guard let members = item.objectMembers else {
            throw pointerError(pointer, "expected a URL string or {\"url\": ..., \"context\": {...}}")
        }
        for member in members where member.key != "url" && member.key != "context" {
            throw pointerError("\(pointer)/\(member.key)", "unknown field; use url and context")
        }
        guard let url = item["url"]?.stringValue else { throw pointerError("\(pointer)/url", "\"url\" is required: a string") }
        guard let own = item["context"] else { return (url, context) }
        return (url, try Self.context(own, "\(pointer)/context"))
    }

    /// A context object: `platform`, `idiom` and `appVersion`, each a string.
    static func context(_ value: JSONValue, _ pointer: String) throws(Problem) -> ResolveContext {
        guard let fields = value.objectMembers else { throw pointerError(pointer, "expected an object") }
        var context = ResolveContext()
        for field in fields {
            guard let text = field.value.stringValue else { throw pointerError("\(pointer)/\(field.key)", "expected a string") }
            do {
                try context.set(named: field.key, text)
            } catch {
                throw pointerError("\(pointer)/\(field.key)", error.description)
            }
        }
        return context
    }

    static func pointerError(_ pointer: String, _ detail: String) -> Problem {
        Problem.badRequest(pointer.isEmpty ? detail : "\(pointer): \(detail)", [.init("pointer", .string(pointer))])
    }

    static func pointerProblem(_ pointer: String, _ detail: String) -> HTTPResponse {
        pointerError(pointer, detail).response
    }

    /// Shared, so answering allocates no header list.
    static let jsonHeaders = [("Content-Type", "application/json")]

    /// A boolean query flag: absent, `0`, `false`, `no` or empty is false; `1`, `true`,
    /// `yes` is true.
    static func flag(_ raw: ArraySlice<UInt8>?) throws(Problem) -> Bool {
        guard let raw else { return false }
        guard let value = try? QueryString.decode(raw) else { throw .badRequest("explain takes 1 or 0") }
        switch String(decoding: value, as: UTF8.self).lowercased() {
        case "", "0", "false", "no": return false
        case "1", "true", "yes": return true
        default: throw .badRequest("explain takes 1 or 0")
        }
    }
}
