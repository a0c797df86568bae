/// A parsed route pattern: `/artist/:id(/:tab)`, `/*rest`.
///
/// Optional groups in parentheses may follow one another (a run of them expands like
/// JLRoutes: `/a(/b)(/c)` is `/a/b/c`, `/a/b`, `/a`) but may not nest. Each expansion
/// is its own candidate in the trie.
///
/// ```swift
/// let pattern = try RoutePattern(parsing: "/artist/:id(/:tab)")
/// pattern.expansions // [[artist, :id, :tab], [artist, :id]]
/// ```
public struct RoutePattern: Sendable, Hashable, CustomStringConvertible {
    /// At most this many optional groups in one pattern.
    public static let maxOptionalGroups = 8
    /// At most this many bytes in one pattern.
    public static let maxLength = 2048

    /// A part of a pattern: a required segment or an optional group of segments.
    public enum Part: Sendable, Hashable {
        case segment(PatternSegment)
        case optional([PatternSegment])
    }

    /// The pattern as written.
    public let text: String
    public let parts: [Part]

    public var description: String { text }

    /// Every param name in the pattern, in order.
    public var paramNames: [String] {
        parts.flatMap { part -> [String] in
            switch part {
            case .segment(let s): return s.paramName.map { [$0] } ?? []
            case .optional(let group): return group.compactMap(\.paramName)
            }
        }
    }

    /// Names of params that appear only inside optional groups.
    public var optionalParamNames: Set<String> {
        var names = Set<String>()
        for case .optional(let group) in parts { names.formUnion(group.compactMap(\.paramName)) }
        return names
    }

    /// Every concrete segment list this pattern matches, longest first within a run of
    /// adjacent groups. Computed once, when parsed: redirects read it per request.
    public let expansions: [[PatternSegment]]

    static func expansions(of parts: [Part]) -> [[PatternSegment]] {
        var results: [[PatternSegment]] = [[]]
        var index = 0
        while index < parts.count {
            switch parts[index] {
            case .segment(let s):
                for k in results.indices { results[k].append(s) }
                index += 1
            case .optional:
                var run: [[PatternSegment]] = []
                while index < parts.count, case .optional(let group) = parts[index] {
                    run.append(group)
                    index += 1
                }
                var next: [[PatternSegment]] = []
                for prefix in results {
                    for taken in stride(from: run.count, through: 0, by: -1) {
                        next.append(prefix + run[..<taken].flatMap { $0 })
                    }
                }
                results = next
            }
        }
        return results
    }
}
