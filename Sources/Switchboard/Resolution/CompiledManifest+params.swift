import RouteMatching

extension CompiledManifest {
    /// Fills destination, params and presentation of a matched route.
    func buildMatch(_ result: inout Resolution, route: Route, candidate: RouteCandidate, segments: [String],
                    query: [(key: String, value: String)], context: ResolveContext) {
        var params: [JSONValue.Member] = []
        params.reserveCapacity(segments.count + query.count + route.inject.count + 1)
        // 1. Path params in pattern order.
        for (depth, matcher) in candidate.segments.enumerated() {
            switch matcher {
            case .literal: continue
            case .param(let name, let type): params.append(.init(name, Self.convert(segments[depth], type)))
            case .wildcard(let name, let type):
                params.append(.init(name, Self.convert(segments[depth...].joined(separator: "/"), type)))
            }
        }
        // 2. Declared query params and defaults, in declaration order.
        for declaration in route.params where !Self.binds(candidate, declaration.name) {
            let values = query.filter { $0.key == declaration.name }.map { Self.convert($0.value, declaration.type) }
            if values.count == 1 {
                params.append(.init(declaration.name, values[0]))
            } else if values.count > 1 {
                params.append(.init(declaration.name, .array(values)))
            } else if let value = declaration.defaultValue {
                params.append(.init(declaration.name, Self.convertDefault(value, declaration.type)))
            }
        }
        // 3. Other query params in order of appearance; a repeated key gives an array.
        if !query.isEmpty {
            for (i, item) in query.enumerated() {
                if params.contains(where: { $0.key == item.key }) { continue }
                if route.declaration(item.key) != nil { continue }
                if query[..<i].contains(where: { $0.key == item.key }) { continue }
                let all = query[i...].filter { $0.key == item.key }
                params.append(.init(item.key, all.count == 1 ? .string(item.value) : .array(all.map { .string($0.value) })))
            }
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
            params.removeAll { $0.key == key }
            params.append(.init(key, resolved))
        }
        var destination = route.destination
        var presentation = route.presentation
        if let variant = route.variants.first(where: { $0.applies(to: context) }) {
            destination = variant.destination ?? destination
            presentation = variant.presentation ?? presentation
        }
        // 5. A web presentation carries the URL as given, unless the route binds or
        // injects `url` itself; a `url` query param never overrides it.
        if presentation.style == .web && !Self.binds(candidate, "url") && !route.inject.contains(where: { $0.key == "url" }) {
            params.removeAll { $0.key == "url" }
            params.append(.init("url", .string(result.url)))
        }
        result.destination = destination
        result.presentation = presentation
        result.params = params
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
