import RouteMatching

/// What a matched result's params are made of: the route and candidate that matched,
/// the path segments it matched and the URL's query. A resolution keeps these instead
/// of the params themselves: its result JSON writes each value straight from the URL's
/// bytes, and ``Resolution/params`` builds them as values only when asked for.
///
/// A struct held in the resolution: as a class it was an allocation a match, and a
/// release and deallocation when the resolution went. (Written through optional
/// chaining, it is still copied once, a retain and release a field: an Optional's
/// payload cannot be lent from a borrowed resolution. Held non-optional, with
/// optional route and candidate, it was copied all the same and its loop cost more.)
struct MatchedParams: Sendable {
    let route: Route
    let candidate: RouteCandidate
    let segments: SegmentBuffer
    let query: [(key: String, value: String)]
    /// Whether a web presentation adds the URL as given as `url` (docs/manifest.md, rule 5).
    let webURL: Bool
    /// Whether the segments' bytes need no JSON escaping: those of a plain URL
    /// (``URLScope/classify(_:plain:)``) that no redirect rewrote.
    let plainSegments: Bool

    init(route: Route, candidate: RouteCandidate, segments: SegmentBuffer, query: [(key: String, value: String)], webURL: Bool,
         plainSegments: Bool = false) {
        self.route = route
        self.candidate = candidate
        self.segments = segments
        self.query = query
        self.webURL = webURL
        self.plainSegments = plainSegments
    }

    /// Where a param's value comes from; converted by the param's type when read.
    enum Source {
        case segment(Int)
        /// The segments from this depth on, as a wildcard binds them.
        case tail(Int)
        /// Every value of this query key: one value, or an array when repeated.
        case query(String)
        /// A default or an injected constant.
        case value(JSONValue)
        /// The URL as given.
        case url
    }

    /// Calls `body` with each param in the contract's order: path params in pattern order,
    /// declared query params and defaults in declaration order, other query params in
    /// order of appearance, injected params (which take the place of a param of the same
    /// name), and the web presentation's `url` (likewise). `body` is given these params
    /// to read the values from: a closure that captured them copied them (a retain and
    /// release of each of their five references) where a parameter borrows them.
    func forEach(_ body: (_ params: borrowing MatchedParams, _ key: String, _ source: Source, _ type: ParamType) -> Void) {
        // 1. Path params in pattern order.
        let matchers = candidate.segments
        for depth in matchers.indices {
            switch matchers[depth] {
            case .literal: continue
            case .param(let name, let type): if !isOverridden(name) { body(self, name, .segment(depth), type) }
            case .wildcard(let name, let type): if !isOverridden(name) { body(self, name, .tail(depth), type) }
            }
        }
        // 2. Declared query params and defaults, in declaration order: those the path
        // may leave to the query (``Route/queryDeclarations``). (By index: a
        // declaration is read in place, not copied.)
        let declarations = route.params
        for i in route.queryDeclarations where !candidate.binds(declarations[i].name) && !isOverridden(declarations[i].name) {
            if let source = Self.source(of: declarations[i], query) { body(self, declarations[i].name, source, declarations[i].type) }
        }
        // 3. Other query params in order of appearance; a repeated key gives an array.
        for (i, item) in query.enumerated() {
            if candidate.binds(item.key) || route.declares(item.key) || isOverridden(item.key) { continue }
            if query[..<i].contains(where: { $0.key == item.key }) { continue }
            body(self, item.key, .query(item.key), .string)
        }
        // 4. Injected params; copies read the values from before injection.
        for (key, value) in route.inject {
            switch value {
            case .constant(let v): body(self, key, .value(v), .string)
            case .param(let name): if let (source, type) = matchedSource(name) { body(self, key, source, type) }
            }
        }
        // 5. A web presentation carries the URL as given.
        if webURL { body(self, "url", .url, .string) }
    }

    /// Whether a param called `name` gives way to an injected one or to the web `url`,
    /// which are added last in its place.
    private func isOverridden(_ name: String) -> Bool {
        if webURL && name == "url" { return true }
        for (key, value) in route.inject where key == name {
            switch value {
            case .constant: return true
            case .param(let source): return matchedSource(source) != nil
            }
        }
        return false
    }

    /// Where the value of the path, declared or query param `name` comes from (what an
    /// injected copy reads); nil when the URL has no such param.
    private func matchedSource(_ name: String) -> (Source, ParamType)? {
        if let bound = candidate.binding(name) {
            return (bound.wildcard ? .tail(bound.depth) : .segment(bound.depth), bound.type)
        }
        if let declaration = route.declaration(name) {
            return Self.source(of: declaration, query).map { ($0, declaration.type) }
        }
        return query.contains { $0.key == name } ? (.query(name), .string) : nil
    }

    /// A declared param's query values, or its default.
    private static func source(of declaration: ParamDeclaration, _ query: [(key: String, value: String)]) -> Source? {
        if query.contains(where: { $0.key == declaration.name }) { return .query(declaration.name) }
        return declaration.defaultValue.map { .value($0) }
    }

    // MARK: - Reading values

    /// The value of `source` as returned: `int` as a number, `uuid` lowercased.
    func value(_ source: Source, _ type: ParamType, url: [UInt8]) -> JSONValue {
        switch source {
        case .segment(let depth): return Self.convert(segments.string(depth), type)
        case .tail(let depth): return Self.convert(segments.tailString(depth), type)
        case .query(let name):
            var first: JSONValue? = nil
            var all: [JSONValue]? = nil
            for item in query where item.key == name {
                let value = Self.convert(item.value, type)
                if first == nil {
                    first = value
                } else {
                    if all == nil { all = [first!] }
                    all!.append(value)
                }
            }
            return all.map { .array($0) } ?? first ?? .null
        case .value(let value):
            if case .string(let s) = value { return Self.convert(s, type) }
            return value
        case .url: return .string(String(decoding: url, as: UTF8.self))
        }
    }

    /// Writes the params as the members of a JSON object (without its braces), in the
    /// order a JavaScript object holds them: keys that are array indices (a query param
    /// `?2=x`) first, by value, then the rest in the contract's order. Only a route that declares or
    /// injects such a name, or a URL whose query has one, can have any.
    func write(url: [UInt8], into w: inout JSONWriter) {
        var first = true
        let numbered = route.namesArrayIndex || query.contains { item in
            item.key.utf8.first.map { $0 &- UInt8(ascii: "0") < 10 } == true && JSONWriter.isArrayIndex(item.key)
        }
        if numbered {
            var indexed: [(key: String, source: Source, type: ParamType)] = []
            forEach { _, key, source, type in
                if JSONWriter.isArrayIndex(key) { indexed.append((key, source, type)) }
            }
            for param in indexed.sorted(by: { UInt64($0.key)! < UInt64($1.key)! }) {
                if !first { w.byte(UInt8(ascii: ",")) }
                first = false
                w.string(param.key)
                w.byte(UInt8(ascii: ":"))
                write(param.source, param.type, url: url, into: &w)
            }
        }
        forEach { params, key, source, type in
            if numbered && JSONWriter.isArrayIndex(key) { return }
            if !first { w.byte(UInt8(ascii: ",")) }
            first = false
            w.string(key)
            w.byte(UInt8(ascii: ":"))
            params.write(source, type, url: url, into: &w)
        }
    }

    /// Writes the value of `source` as ``value(_:_:url:)`` gives it, from the bytes it
    /// is read from.
    func write(_ source: Source, _ type: ParamType, url: [UInt8], into w: inout JSONWriter) {
        switch source {
        case .segment(let depth): Self.write(segments.bytes[segments.range(depth)], type, plain: plainSegments, into: &w)
        case .tail(let depth): Self.write(segments.bytes[segments.tail(depth)], type, plain: plainSegments, into: &w)
        case .query, .value: w.write(value(source, type, url: url))
        case .url: w.string(validUTF8: url)
        }
    }

    /// Writes a segment's UTF-8 value of `type` as ``convert(_:_:)`` gives it, without
    /// making a String.
    private static func write(_ text: ArraySlice<UInt8>, _ type: ParamType, plain: Bool, into w: inout JSONWriter) {
        switch type {
        case .int:
            if let n = ParamType.intValue(text) { return w.integer(n) }
        case .uuid:
            // A uuid that matched is ASCII: lowercased byte by byte.
            guard plain || text.allSatisfy({ $0 < 0x80 }) else { return w.string(String(decoding: text, as: UTF8.self).lowercased()) }
            return w.string(validUTF8: text, lowercasingASCII: true, plain: plain)
        default:
            break
        }
        w.string(validUTF8: text, plain: plain)
    }

    /// A typed value as returned: `int` as a number, `uuid` lowercased.
    static func convert(_ value: String, _ type: ParamType) -> JSONValue {
        switch type {
        case .int: return ParamType.intValue(value).map { .integer($0) } ?? .string(value)
        case .uuid: return .string(value.lowercased())
        default: return .string(value)
        }
    }
}
