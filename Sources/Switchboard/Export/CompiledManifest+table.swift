import RouteMatching

extension CompiledManifest {
    /// One expansion of one route, as precedence meets it.
    public struct TableEntry: Sendable {
        /// The host whose restricted routes this comes from, or nil for all hosts.
        public let host: String?
        public let route: Route
        /// The expansion's segments, for display and export.
        public let segments: [SegmentMatcher]
        /// The pattern (or alias) as written.
        public let pattern: String

        /// The expansion written back as a path pattern: `/artist/:id/:tab`.
        public var path: String {
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

    /// The route table in the order precedence tries it: each host's restricted routes
    /// (hosts sorted), then the routes for all hosts.
    public var table: [TableEntry] {
        var all: [TableEntry] = []
        for (host, trie) in byHost.sorted(by: { $0.key < $1.key }) {
            all += entries(of: trie, host: host)
        }
        return all + entries(of: general, host: nil)
    }

    /// The entries that apply to URLs on `host` (its restricted routes first), in order.
    public func table(forHost host: String) -> [TableEntry] {
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
