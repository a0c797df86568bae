/// A pattern segment compiled with its param type: what the trie stores per depth.
package enum SegmentMatcher: Sendable, Hashable {
    /// A literal; `key` is lowercased when literals compare case-insensitively.
    case literal(key: String)
    case param(name: String, type: ParamType)
    case wildcard(name: String, type: ParamType)

    /// Whether this is the param or wildcard called `name`.
    @inline(__always)
    func binds(_ name: String) -> Bool {
        switch self {
        case .literal: return false
        case .param(let bound, _), .wildcard(let bound, _): return bound == name
        }
    }

    /// The param's or wildcard's name and type; nil for a literal.
    package var param: (name: String, type: ParamType)? {
        switch self {
        case .literal: return nil
        case .param(let name, let type), .wildcard(let name, let type): return (name, type)
        }
    }

    /// The precedence rank of the segment kind: lower wins (docs/manifest.md "Precedence").
    package var rank: Int {
        switch self {
        case .literal: return 0
        case .param(_, let type): return type.isTyped ? 1 : 2
        case .wildcard: return 3
        }
    }
}
