/// The manifest as clients consume it (SPEC §3 `GET /v1/manifest`): validated, with
/// defaults filled in; serialized compact with sorted keys, it is the ETag's input.
extension Manifest {
    public var canonicalJSON: JSONValue {
        var top: [JSONValue.Member] = [
            .init("version", .integer(version)),
            .init("hosts", .array(hosts.map { .string($0) })),
            .init("schemes", .array(schemes.map { .string($0) })),
            .init("caseSensitive", .bool(caseSensitive)),
            .init("fallback", .object([.init("destination", .string(fallback.destination)),
                                       .init("presentation", fallback.presentation.json)])),
            .init("routes", .array(routes.map(\.canonicalJSON))),
        ]
        if let updatedAt { top.append(.init("updatedAt", .string(updatedAt))) }
        if let features { top.append(.init("features", features)) }
        if let messages { top.append(.init("messages", messages)) }
        return .object(top)
    }

    /// Compact JSON with keys sorted by their UTF-8 bytes.
    public var canonicalBytes: [UInt8] { canonicalJSON.serialized(sortedKeys: true) }
}

extension Route {
    var canonicalJSON: JSONValue {
        var m: [JSONValue.Member] = [.init("name", .string(name))]
        if patternsAsList {
            m.append(.init("patterns", .array(patterns.map { .string($0.text) })))
        } else {
            m.append(.init("pattern", .string(patterns[0].text)))
        }
        if let hostsAsWritten { m.append(.init("hosts", .array(hostsAsWritten.map { .string($0) }))) }
        if let redirect {
            m.append(.init("redirect", .string(redirect.text)))
        } else {
            if let destination { m.append(.init("destination", .string(destination))) }
            m.append(.init("presentation", presentation.json))
        }
        if !params.isEmpty {
            m.append(.init("params", .object(params.map { .init($0.name, $0.canonicalJSON) })))
        }
        if !inject.isEmpty {
            m.append(.init("inject", .object(inject.map { entry in
                switch entry.value {
                case .constant(let v): return .init(entry.key, v)
                case .param(let p): return .init(entry.key, .object([.init("param", .string(p))]))
                }
            })))
        }
        if !variants.isEmpty { m.append(.init("variants", .array(variants.map(\.canonicalJSON)))) }
        if let sinceText { m.append(.init("since", .string(sinceText))) }
        if let untilText { m.append(.init("until", .string(untilText))) }
        m.append(.init("priority", .integer(Int64(priority))))
        m.append(.init("universalLink", .bool(universalLink)))
        return .object(m)
    }
}

extension ParamDeclaration {
    var canonicalJSON: JSONValue {
        var m: [JSONValue.Member] = [.init("type", .string(type.name)), .init("required", .bool(required))]
        switch type {
        case .enumeration(let values): m.append(.init("values", .array(values.map { .string($0) })))
        case .regex(let r): m.append(.init("pattern", .string(r.pattern)))
        default: break
        }
        if let defaultValue { m.append(.init("default", defaultValue)) }
        return .object(m)
    }
}

extension Variant {
    var canonicalJSON: JSONValue {
        var when: [JSONValue.Member] = []
        if let platforms { when.append(.init("platform", .array(platforms.map { .string($0) }))) }
        if let idioms { when.append(.init("idiom", .array(idioms.map { .string($0) }))) }
        if let appVersion { when.append(.init("appVersion", .string(appVersion.description))) }
        var m: [JSONValue.Member] = [.init("when", .object(when))]
        if let destination { m.append(.init("destination", .string(destination))) }
        if let presentation { m.append(.init("presentation", presentation.json)) }
        return .object(m)
    }
}
