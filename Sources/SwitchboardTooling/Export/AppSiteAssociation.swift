import Switchboard
import RouteMatching

/// apple-app-site-association documents generated from the manifest, and checked
/// against it.
package enum AppSiteAssociation {
    package struct Component: Sendable, Equatable {
        package let path: String
        /// Query items the route requires (`"?": {"q": "?*"}`: present, not empty).
        package let query: [String]
        package let exclude: Bool
        package let comment: String
    }

    /// The components for URLs on `host`, in precedence order: params and wildcards as
    /// `*`, optional groups expanded, `universalLink: false` routes as `exclude` entries
    /// placed where precedence puts them (before what would otherwise match them).
    /// Each path appears once.
    package static func components(_ compiled: CompiledManifest, host: String) -> [Component] {
        var seen = Set<String>()
        var out: [Component] = []
        for entry in compiled.table(forHost: host) {
            let bound = Set(entry.segments.compactMap { segment -> String? in
                switch segment {
                case .literal: return nil
                case .param(let name, _), .wildcard(let name, _): return name
                }
            })
            let query = entry.route.params.filter { $0.required && $0.defaultValue == nil && !bound.contains($0.name) }.map(\.name)
            for path in paths(entry.segments) where seen.insert(path + "?" + query.joined(separator: "&")).inserted {
                out.append(Component(path: path, query: query, exclude: !entry.route.universalLink, comment: entry.route.name))
            }
        }
        return out
    }

    /// AASA paths for an expansion; a trailing wildcard also covers the path without it.
    static func paths(_ segments: [SegmentMatcher]) -> [String] {
        var path = ""
        for segment in segments {
            switch segment {
            case .literal(let key): path += "/" + key
            case .param: path += "/*"
            case .wildcard:
                return [path.isEmpty ? "/*" : path + "/*"] + (path.isEmpty ? [] : [path])
            }
        }
        return [path.isEmpty ? "/" : path]
    }

    /// `{"applinks": {"details": [{"appIDs": [...], "components": [...]}]}}`.
    package static func document(appID: String, components: [Component]) -> JSONValue {
        document(appIDs: [appID], components: components)
    }

    /// The same for every app ID of the manifest's `apps`.
    package static func document(appIDs: [String], components: [Component]) -> JSONValue {
        .object([.init("applinks", .object([.init("details", .array([.object([
            .init("appIDs", .array(appIDs.map { .string($0) })),
            .init("components", .array(components.map { c in
                var m: [JSONValue.Member] = [.init("/", .string(c.path))]
                if !c.query.isEmpty { m.append(.init("?", .object(c.query.map { .init($0, .string("?*")) }))) }
                if c.exclude { m.append(.init("exclude", .bool(true))) }
                m.append(.init("comment", .string(c.comment)))
                return .object(m)
            })),
        ])]))]))])
    }

    /// A rule read back from an AASA file: a `/` pattern and whether it excludes.
    package struct Rule: Sendable, Equatable {
        package let pattern: String
        package let exclude: Bool
    }

    /// The rules of an AASA document (`components`, or the older `paths` with `NOT `).
    package static func rules(_ document: JSONValue) -> [Rule]? {
        guard let details = document["applinks"]?["details"]?.arrayValue else { return nil }
        var rules: [Rule] = []
        for detail in details {
            if let components = detail["components"]?.arrayValue {
                for c in components {
                    guard let path = c["/"]?.stringValue else { continue }
                    rules.append(Rule(pattern: path, exclude: c["exclude"] == .bool(true)))
                }
            } else if let paths = detail["paths"]?.arrayValue {
                for p in paths.compactMap(\.stringValue) {
                    rules.append(p.hasPrefix("NOT ") ? Rule(pattern: String(p.dropFirst(4)), exclude: true) : Rule(pattern: p, exclude: false))
                }
            }
        }
        return rules
    }

    /// Whether the rules send `path` to the app: the first rule that matches decides.
    package static func opensApp(_ rules: [Rule], _ path: String) -> Bool {
        for rule in rules where glob(Array(rule.pattern.unicodeScalars), Array(path.unicodeScalars)) {
            return !rule.exclude
        }
        return false
    }

    /// AASA wildcards: `*` any run of characters (also empty), `?` one character.
    static func glob(_ p: [Unicode.Scalar], _ s: [Unicode.Scalar]) -> Bool {
        var pi = 0, si = 0, star = -1, mark = 0
        while si < s.count {
            if pi < p.count && (p[pi] == "?" || p[pi] == s[si]) {
                pi += 1; si += 1
            } else if pi < p.count && p[pi] == "*" {
                star = pi; mark = si; pi += 1
            } else if star >= 0 {
                pi = star + 1; mark += 1; si = mark
            } else {
                return false
            }
        }
        while pi < p.count && p[pi] == "*" { pi += 1 }
        return pi == p.count
    }

    /// A concrete path that an expansion matches, for checks: params get a value of
    /// their type.
    package static func samplePath(_ segments: [SegmentMatcher]) -> String {
        if segments.isEmpty { return "/" }
        return segments.map { segment -> String in
            switch segment {
            case .literal(let key): return "/" + key
            case .param(_, let type), .wildcard(_, let type): return "/" + sampleValue(type)
            }
        }.joined()
    }

    static func sampleValue(_ type: ParamType) -> String {
        switch type {
        case .int: return "1"
        case .uuid: return "123e4567-e89b-12d3-a456-426614174000"
        case .enumeration(let values): return values.first ?? "x1"
        default: return "x1"
        }
    }

    /// Problems between an AASA file and the manifest for `host`: routes the file does
    /// not send to the app (or sends while the manifest excludes them), and patterns of
    /// the file that open the app on paths no route matches (judged on a sample path:
    /// `*` read as `x1`).
    package static func check(_ rules: [Rule], _ compiled: CompiledManifest, host: String) -> [String] {
        var problems: [String] = []
        for entry in compiled.table(forHost: host) {
            let sample = samplePath(entry.segments)
            let opens = opensApp(rules, sample)
            if entry.route.universalLink && !opens {
                problems.append("route \(entry.route.name) (\(entry.path)) is not covered: \(sample) does not open the app")
            } else if !entry.route.universalLink && opens {
                problems.append("route \(entry.route.name) (\(entry.path)) has universalLink false but \(sample) opens the app")
            }
        }
        // A pattern this manifest would generate is a route's own; others are tried with
        // a sample path.
        let generated = Set(components(compiled, host: host).filter { !$0.exclude && $0.query.isEmpty }.map(\.path))
        for rule in rules where !rule.exclude && !generated.contains(rule.pattern) {
            let sample = String(rule.pattern.map { $0 == "*" ? "x1" : ($0 == "?" ? "x" : String($0)) }.joined())
            let result = compiled.resolve("https://\(host)" + (sample.hasPrefix("/") ? sample : "/" + sample))
            if result.status != .matched {
                problems.append("\(rule.pattern) opens the app on paths no route matches (\(sample) gives \(result.status.rawValue))")
            }
        }
        return problems
    }
}
