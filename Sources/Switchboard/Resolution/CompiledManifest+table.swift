import RouteMatching

extension CompiledManifest {
    /// One expansion of one route, as precedence meets it.
    package struct TableEntry: Sendable {
        /// The host whose restricted routes this comes from, or nil for all hosts.
        package let host: String?
        package let route: Route
        /// The expansion's segments, for display and export.
        package let segments: [SegmentMatcher]
        /// The pattern (or alias) as written.
        package let pattern: String

        /// What else decides the route: redirect, alias, priority, since/until, variants,
        /// typed params, no universal link.
        package var notes: [String] {
            var notes: [String] = []
            if let redirect = route.redirect { notes.append("redirect \(redirect.text)") }
            if pattern != path && route.patterns.count == 1 { notes.append("from \(pattern)") }
            if route.patterns.count > 1 { notes.append("alias \(pattern)") }
            if route.priority != 0 { notes.append("priority \(route.priority)") }
            if let since = route.since { notes.append("since \(since)") }
            if let until = route.until { notes.append("until \(until)") }
            for variant in route.variants { notes.append("variant " + variant.summary) }
            if !route.universalLink { notes.append("no universal link") }
            for param in route.params where param.type != .string { notes.append(":\(param.name) \(param.type)") }
            return notes
        }

        /// The expansion written back as a path pattern: `/artist/:id/:tab`.
        package var path: String { Self.path(of: segments) }

        /// An expansion's segments written back as a path pattern.
        static func path(of segments: [SegmentMatcher]) -> String {
            if segments.isEmpty { return "/" }
            return segments.map { segment -> String in
                switch segment {
                case .literal(let key): return "/" + key
                case .param(let name, _): return "/:" + name
                case .wildcard(let name, _): return name == "*" ? "/*" : "/*" + name
                }
            }.joined()
        }
    }

    /// The table as `GET /v1/routes` sends it: what `switchboard routes` prints, one
    /// object per expansion, in precedence order.
    package var tableJSON: [UInt8] {
        let rows = table.enumerated().map { i, entry -> JSONValue in
            let route = entry.route
            return .object([
                .init("order", .integer(Int64(i + 1))),
                .init("host", entry.host.map(JSONValue.string) ?? .null),
                .init("path", .string(entry.path)),
                .init("route", .string(route.name)),
                .init("index", .integer(Int64(route.index))),
                .init("pattern", .string(entry.pattern)),
                .init("destination", route.redirect == nil ? route.destination.map(JSONValue.string) ?? .null : .null),
                .init("presentation", route.redirect == nil ? .string(route.presentation.style.rawValue) : .null),
                .init("redirect", route.redirect.map { .string($0.text) } ?? .null),
                .init("notes", .array(entry.notes.map(JSONValue.string))),
            ])
        }
        return JSONValue.object([
            .init("manifest", .object([.init("version", .integer(manifest.version)), .init("etag", .string(etag))])),
            .init("routes", .array(rows)),
        ]).serialized()
    }

    /// The route table in the order precedence tries it: each host's restricted routes
    /// (hosts sorted), then the routes for all hosts.
    package var table: [TableEntry] {
        var all: [TableEntry] = []
        for (host, trie) in byHost.sorted(by: { $0.key < $1.key }) {
            all += entries(of: trie, host: host)
        }
        return all + entries(of: general, host: nil)
    }

    /// The entries that apply to URLs on `host` (its restricted routes first), in order.
    package func table(forHost host: String) -> [TableEntry] {
        (byHost[host].map { entries(of: $0, host: host) } ?? []) + entries(of: general, host: nil)
    }

    private func entries(of trie: RouteTrie, host: String?) -> [TableEntry] {
        trie.candidatesInPrecedenceOrder.map { index in
            let candidate = trie.candidates[index]
            let route = manifest.routes[candidate.route]
            return TableEntry(host: host, route: route, segments: candidate.segments, pattern: route.patterns[candidate.patternIndex].text)
        }
    }
}

extension Variant {
    /// `[platform=ios, appVersion <7.0.0 -> ArtistLegacy modal]`
    package var summary: String {
        var when: [String] = []
        if let p = platforms { when.append("platform=\(p.joined(separator: "|"))") }
        if let i = idioms { when.append("idiom=\(i.joined(separator: "|"))") }
        if let a = appVersion { when.append("appVersion \(a)") }
        var then: [String] = []
        if let d = destination { then.append(d) }
        if let p = presentation { then.append(p.style.rawValue) }
        return "[\(when.joined(separator: ", ")) -> \(then.joined(separator: " "))]"
    }
}
