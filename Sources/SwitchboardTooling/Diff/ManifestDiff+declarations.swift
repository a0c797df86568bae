import Switchboard
extension ManifestDiff {
    /// Top-level fields compared (version and updatedAt change with every release).
    static let topLevelFields = ["hosts", "schemes", "fallback", "caseSensitive", "features", "messages"]

    static func declarations(_ old: Manifest, _ new: Manifest) -> [DeclarationChange] {
        var changes: [DeclarationChange] = []
        let a = canonical(old), b = canonical(new)
        for field in topLevelFields {
            fieldChanges(a[field], b[field], path: field, route: nil, into: &changes)
        }
        let oldByName = Dictionary(old.routes.map { ($0.name, $0) }, uniquingKeysWith: { x, _ in x })
        let newByName = Dictionary(new.routes.map { ($0.name, $0) }, uniquingKeysWith: { x, _ in x })
        var removed = old.routes.filter { newByName[$0.name] == nil }
        var added: [Route] = []
        for route in new.routes {
            guard let before = oldByName[route.name] else { added.append(route); continue }
            fieldChanges(route: before, route, into: &changes)
        }
        // Renamed: a removed and an added route with the same patterns.
        for route in added {
            let patterns = route.patterns.map(\.text)
            if let k = removed.firstIndex(where: { $0.patterns.map(\.text) == patterns }) {
                let before = removed.remove(at: k)
                changes.append(DeclarationChange(kind: .renamed, route: before.name, newName: route.name, field: nil, old: nil, new: nil,
                                                 oldIndex: before.index, newIndex: route.index))
                fieldChanges(route: before, route, into: &changes)
            } else {
                changes.append(DeclarationChange(kind: .added, route: route.name, newName: nil, field: nil, old: nil,
                                                 new: patternsJSON(route), oldIndex: nil, newIndex: route.index))
            }
        }
        for route in removed {
            changes.append(DeclarationChange(kind: .removed, route: route.name, newName: nil, field: nil, old: patternsJSON(route),
                                             new: nil, oldIndex: route.index, newIndex: nil))
        }
        return changes
    }

    private static func patternsJSON(_ route: Route) -> JSONValue { .array(route.patterns.map { .string($0.text) }) }

    /// The manifest's canonical document (decoded, defaults filled in).
    private static func canonical(_ manifest: Manifest) -> JSONValue {
        (try? JSONParser.parse(manifest.canonicalBytes)) ?? .null
    }

    /// A route's canonical object, `pattern` and `patterns` both as `patterns`.
    private static func canonical(_ route: Route) -> [JSONValue.Member] {
        var w = JSONWriter(capacity: 512)
        route.writeCanonical(to: &w)
        let members = (try? JSONParser.parse(w.bytes))?.objectMembers ?? []
        return members.filter { $0.key != "name" && $0.key != "pattern" && $0.key != "patterns" }
            + [.init("patterns", patternsJSON(route))]
    }

    private static func fieldChanges(route old: Route, _ new: Route, into changes: inout [DeclarationChange]) {
        let a = JSONValue.object(canonical(old)), b = JSONValue.object(canonical(new))
        var keys: [String] = []
        for member in (a.objectMembers ?? []) + (b.objectMembers ?? []) where !keys.contains(member.key) { keys.append(member.key) }
        for key in keys.sorted() {
            fieldChanges(a[key], b[key], path: key, route: (old, new), into: &changes)
        }
    }

    /// Compares two values of a field, going into objects member by member so that a
    /// change reads `params.id.type`; arrays and scalars are compared whole.
    private static func fieldChanges(_ a: JSONValue?, _ b: JSONValue?, path: String, route: (Route, Route)?,
                                     into changes: inout [DeclarationChange]) {
        guard a != b else { return }
        if let x = a?.objectMembers, let y = b?.objectMembers {
            var keys: [String] = []
            for member in x + y where !keys.contains(member.key) { keys.append(member.key) }
            for key in keys.sorted() { fieldChanges(a?[key], b?[key], path: "\(path).\(key)", route: route, into: &changes) }
            return
        }
        changes.append(DeclarationChange(kind: .changed, route: route?.0.name, newName: nil, field: path, old: a, new: b,
                                         oldIndex: route?.0.index, newIndex: route?.1.index))
    }
}
