import RouteMatching

extension CompiledManifest {
    /// The target (destination and presentation) and params of a matched route.
    func buildMatch(url: [UInt8], route: Route, candidate: RouteCandidate, segments: SegmentBuffer,
                    query: [(key: String, value: String)], context: ResolveContext) -> (ResultTarget, [JSONValue.Member]) {
        var params: [JSONValue.Member] = []
        params.reserveCapacity(candidate.segments.count + route.params.count + query.count + route.inject.count + 1)
        // 1. Path params in pattern order.
        for (depth, matcher) in candidate.segments.enumerated() {
            switch matcher {
            case .literal: continue
            case .param(let name, let type): params.append(.init(name, Self.convert(segments.string(depth), type)))
            case .wildcard(let name, let type): params.append(.init(name, Self.convert(segments.tailString(depth), type)))
            }
        }
        // 2. Declared query params and defaults, in declaration order.
        for declaration in route.params where !candidate.binds(declaration.name) {
            if let value = Self.queryValue(declaration.name, query, declaration.type) {
                params.append(.init(declaration.name, value))
            } else if let value = declaration.defaultValue {
                params.append(.init(declaration.name, Self.convertDefault(value, declaration.type)))
            }
        }
        // 3. Other query params in order of appearance; a repeated key gives an array.
        for (i, item) in query.enumerated() {
            if params.contains(where: { $0.key == item.key }) || route.declaration(item.key) != nil { continue }
            if query[..<i].contains(where: { $0.key == item.key }) { continue }
            params.append(.init(item.key, Self.queryValue(item.key, query[i...], .string)!))
        }
        // 4. Injected params override; copies read the values from before injection.
        let matched = params
        for (key, value) in route.inject {
            let resolved: JSONValue?
            switch value {
            case .constant(let v): resolved = v
            case .param(let source): resolved = matched.first { $0.key == source }?.value
            }
            guard let resolved else { continue }
            if let existing = params.firstIndex(where: { $0.key == key }) { params.remove(at: existing) }
            params.append(.init(key, resolved))
        }
        let slot = route.variants.firstIndex { $0.applies(to: context) }.map { $0 + 1 } ?? 0
        let target = targets.target(route, pattern: candidate.patternIndex, slot: slot)
        // 5. A web presentation carries the URL as given, unless the route binds or
        // injects `url` itself; a `url` query param never overrides it.
        if target.presentation.style == .web && !candidate.binds("url") && !route.inject.contains(where: { $0.key == "url" }) {
            if let existing = params.firstIndex(where: { $0.key == "url" }) { params.remove(at: existing) }
            params.append(.init("url", .string(String(decoding: url, as: UTF8.self))))
        }
        return (target, params)
    }

    /// The converted value(s) of query key `name`: one value, or an array when repeated.
    static func queryValue(_ name: String, _ query: some Collection<(key: String, value: String)>, _ type: ParamType) -> JSONValue? {
        var first: JSONValue? = nil
        var all: [JSONValue]? = nil
        for item in query where item.key == name {
            let value = convert(item.value, type)
            if first == nil {
                first = value
            } else {
                if all == nil { all = [first!] }
                all!.append(value)
            }
        }
        return all.map { .array($0) } ?? first
    }

    /// A typed value as returned: `int` as a number, `uuid` lowercased.
    static func convert(_ value: String, _ type: ParamType) -> JSONValue {
        switch type {
        case .int: return ParamType.intValue(value).map { .integer($0) } ?? .string(value)
        case .uuid: return .string(value.lowercased())
        default: return .string(value)
        }
    }

    static func convertDefault(_ value: JSONValue, _ type: ParamType) -> JSONValue {
        if case .string(let s) = value { return convert(s, type) }
        return value
    }
}
