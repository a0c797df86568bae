/// A parsed route pattern: `/artist/:id(/:tab)`, `/(app/):object/:id`, `/*rest`.
///
/// Optional groups in parentheses hold whole segments, written `(/seg...)` after a
/// segment or `(seg/...)` right after a `/`; they may stand anywhere and follow one
/// another but may not nest. A pattern with n groups stands for the 2^n patterns that
/// keep any subset of them, in order (as JLRoutes expands them); each expansion is its
/// own candidate in the trie.
///
/// ```swift
/// let pattern = try RoutePattern(parsing: "/path/:thing(/new)(/next/:other)")
/// pattern.expansions.map { "/" + $0.map(\.description).joined(separator: "/") }
/// // ["/path/:thing/new/next/:other", "/path/:thing/new", "/path/:thing/next/:other", "/path/:thing"]
/// ```
package struct RoutePattern: Sendable, Hashable, CustomStringConvertible {
    /// At most this many optional groups in one pattern.
    package static let maxOptionalGroups = 8
    /// At most this many bytes in one pattern.
    package static let maxLength = 2048

    /// A part of a pattern: a required segment or an optional group of segments.
    package enum Part: Sendable, Hashable {
        case segment(PatternSegment)
        case optional([PatternSegment])
    }

    /// The pattern as written.
    package let text: String
    package let parts: [Part]

    package var description: String { text }

    /// Every param name in the pattern, in order.
    package var paramNames: [String] {
        var names: [String] = []
        for part in parts {
            switch part {
            case .segment(let s): if let name = s.paramName { names.append(name) }
            case .optional(let group): for s in group { if let name = s.paramName { names.append(name) } }
            }
        }
        return names
    }

    /// Names of params outside optional groups, in order: bound by every expansion.
    package var requiredParamNames: [String] {
        var names: [String] = []
        for case .segment(let segment) in parts { if let name = segment.paramName { names.append(name) } }
        return names
    }

    /// The number of optional groups.
    package var optionalGroupCount: Int {
        parts.reduce(0) { count, part in
            if case .optional = part { return count + 1 }
            return count
        }
    }

    /// Every concrete segment list this pattern matches, one per subset of its optional
    /// groups. Computed once, when parsed: redirects read it per request.
    ///
    /// Ordered by the groups kept, compared as lists of group indices, a list before its
    /// own prefixes: `(/a)(/b)` gives `[a, b]`, `[a]`, `[b]`, `[]`. So among expansions of
    /// the same shape the one keeping the earlier groups comes first and wins (docs/manifest.md),
    /// and the first expansion whose params are all bound is the fullest such.
    package let expansions: [[PatternSegment]]

    /// The optional groups (0-based, in pattern order) kept by each of ``expansions``.
    package var keptGroups: [[Int]] { Self.subsets(of: optionalGroupCount) }

    /// The subsets of `0..<count` in expansion order.
    static func subsets(of count: Int) -> [[Int]] {
        var out: [[Int]] = []
        out.reserveCapacity(1 << count)
        func visit(_ kept: [Int], from next: Int) {
            for group in next..<count { visit(kept + [group], from: group + 1) }
            out.append(kept)
        }
        visit([], from: 0)
        return out
    }

    static func expansions(of parts: [Part]) -> [[PatternSegment]] {
        var groups: [[PatternSegment]] = []
        for case .optional(let group) in parts { groups.append(group) }
        return subsets(of: groups.count).map { kept in
            var segments: [PatternSegment] = []
            var group = 0
            for part in parts {
                switch part {
                case .segment(let s): segments.append(s)
                case .optional(let g):
                    if kept.contains(group) { segments += g }
                    group += 1
                }
            }
            return segments
        }
    }

    /// An expansion as a pattern without groups: `/path/:thing/next/:other`.
    package static func text(of expansion: [PatternSegment]) -> String {
        "/" + expansion.map(\.description).joined(separator: "/")
    }
}
