/// One candidate in the trie: one expansion of one pattern of one route.
///
/// A `final class` of constants: the request path reads candidates by index many
/// times, and a shared reference costs one retain instead of one per field.
package final class RouteCandidate: Sendable {
    // Declared in the order a match reads them: the fields a resolution uses share the
    // object header's cache line.
    /// The route's index in the manifest.
    package let route: Int
    package let segments: [SegmentMatcher]
    /// Which of the route's patterns (aliases) this expansion comes from.
    package let patternIndex: Int
    /// Higher first among candidates of the same shape.
    package let priority: Int
    /// The route's name: the tie-break between routes, so order never depends on the file.
    package let name: String
    /// Which expansion of the pattern this is (``RoutePattern/expansions``): the last
    /// tie-break, so of two expansions of one pattern with the same shape the one keeping
    /// the earlier optional groups wins.
    package let expansion: Int
    /// The depths of its path's params and wildcards with a type other than `string`, a
    /// bit each (depths from 63 on share bit 63): one without can fail no type, and one
    /// whose typed params the trie's search has already checked fails none
    /// (``RouteTrie/typeFailure(_:_:verified:)``).
    let typedDepths: UInt64

    package init(route: Int, patternIndex: Int, expansion: Int = 0, segments: [SegmentMatcher], priority: Int, name: String) {
        self.route = route
        self.patternIndex = patternIndex
        self.segments = segments
        self.priority = priority
        self.name = name
        self.expansion = expansion
        var typedDepths: UInt64 = 0
        for (depth, matcher) in segments.enumerated() {
            switch matcher {
            case .literal: continue
            case .param(_, let type), .wildcard(_, let type): if type.isTyped { typedDepths |= 1 << UInt64(min(depth, 63)) }
            }
        }
        self.typedDepths = typedDepths
    }

    /// Whether its path binds a param called `name`. (Read from `segments`, which a
    /// result reads anyway: a list of the bound names apart was one more cache miss per
    /// match on a large table.)
    package func binds(_ name: String) -> Bool {
        segments.contains { $0.binds(name) }
    }

    /// Where its path binds `name`: the param's depth (where a wildcard starts), its
    /// type, and whether it is the wildcard; nil when it binds no such param.
    package func binding(_ name: String) -> (depth: Int, type: ParamType, wildcard: Bool)? {
        guard let depth = segments.firstIndex(where: { $0.binds(name) }) else { return nil }
        switch segments[depth] {
        case .literal: return nil
        case .param(_, let type): return (depth, type, false)
        case .wildcard(_, let type): return (depth, type, true)
        }
    }

    /// Whether `self` is tried before `other` among candidates of the same shape.
    func precedes(_ other: RouteCandidate) -> Bool {
        if priority != other.priority { return priority > other.priority }
        if name != other.name { return name < other.name }
        if patternIndex != other.patternIndex { return patternIndex < other.patternIndex }
        return expansion < other.expansion
    }
}
