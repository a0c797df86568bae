/// The syntax tree of a `regex` param's pattern.
indirect enum RegexNode: Sendable, Equatable {
    case empty
    case scalar(Unicode.Scalar)
    case any
    case set(ScalarSet)
    case concat([RegexNode])
    case alternation([RegexNode])
    /// `max == nil` is unbounded.
    case repetition(RegexNode, min: Int, max: Int?)
    case startAnchor
    case endAnchor

    /// Whether the node can match the empty string.
    var isNullable: Bool {
        switch self {
        case .empty, .startAnchor, .endAnchor: return true
        case .scalar, .any, .set: return false
        case .concat(let nodes): return nodes.allSatisfy(\.isNullable)
        case .alternation(let nodes): return nodes.contains(where: \.isNullable)
        case .repetition(let node, let min, _): return min == 0 || node.isNullable
        }
    }

    /// Whether the node holds a repetition that can match more than once.
    var hasRepeatingQuantifier: Bool {
        switch self {
        case .empty, .scalar, .any, .set, .startAnchor, .endAnchor: return false
        case .concat(let nodes), .alternation(let nodes): return nodes.contains(where: \.hasRepeatingQuantifier)
        case .repetition(let node, _, let max): return (max ?? 2) > 1 || node.hasRepeatingQuantifier
        }
    }

    /// The scalars that can start a match (over-approximated).
    var firstSet: ScalarSet {
        switch self {
        case .empty, .startAnchor, .endAnchor: return ScalarSet(ranges: [], negated: false)
        case .scalar(let s): return ScalarSet(ranges: [s.value...s.value], negated: false)
        case .any: return ScalarSet.all
        case .set(let set): return set
        case .concat(let nodes):
            var result = ScalarSet(ranges: [], negated: false)
            for node in nodes {
                result = result.union(node.firstSet)
                if !node.isNullable { break }
            }
            return result
        case .alternation(let nodes):
            return nodes.reduce(ScalarSet(ranges: [], negated: false)) { $0.union($1.firstSet) }
        case .repetition(let node, _, _): return node.firstSet
        }
    }
}

/// A set of Unicode scalars as ranges, possibly negated.
struct ScalarSet: Sendable, Equatable {
    var ranges: [ClosedRange<UInt32>]
    var negated: Bool

    static let all = ScalarSet(ranges: [], negated: true)
    static let digits = ScalarSet(ranges: [0x30...0x39], negated: false)
    static let word = ScalarSet(ranges: [0x30...0x39, 0x41...0x5A, 0x5F...0x5F, 0x61...0x7A], negated: false)
    static let space = ScalarSet(ranges: [0x09...0x0D, 0x20...0x20], negated: false)

    func contains(_ value: UInt32) -> Bool {
        var inside = false
        for r in ranges where r.contains(value) { inside = true; break }
        return inside != negated
    }

    /// The positive ranges this set covers (a negated set becomes its complement).
    var positiveRanges: [ClosedRange<UInt32>] {
        guard negated else { return ranges }
        var result: [ClosedRange<UInt32>] = []
        var next: UInt32 = 0
        for r in ranges.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if r.lowerBound > next { result.append(next...(r.lowerBound - 1)) }
            next = max(next, r.upperBound &+ 1)
            if r.upperBound == UInt32.max { return result }
        }
        if next <= 0x10FFFF { result.append(next...0x10FFFF) }
        return result
    }

    func union(_ other: ScalarSet) -> ScalarSet {
        ScalarSet(ranges: positiveRanges + other.positiveRanges, negated: false)
    }

    func intersects(_ other: ScalarSet) -> Bool {
        let a = positiveRanges, b = other.positiveRanges
        for x in a { for y in b where x.overlaps(y) { return true } }
        return false
    }
}
