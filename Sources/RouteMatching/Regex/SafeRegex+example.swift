extension SafeRegex {
    /// A value the regex accepts, built from its syntax tree (the first alternative, the
    /// fewest repetitions that still give a non-empty value, a letter or digit where a
    /// class allows one); nil when what was built does not match (anchors in the middle).
    /// For generated test URLs: `switchboard cases` and `diff`.
    package var example: String? {
        guard let node = try? RegexParser.parse(pattern) else { return nil }
        var out = String.UnicodeScalarView()
        Self.build(node, into: &out)
        let value = String(out)
        return matches(value) ? value : nil
    }

    /// A short value the regex refuses, nil when it accepts every candidate tried.
    package var counterexample: String? {
        ["zz-no-match", "0", "a", "~", "Z9_", "-", "00000000000000000000"].first { !matches($0) }
    }

    private static func build(_ node: RegexNode, into out: inout String.UnicodeScalarView) {
        switch node {
        case .empty, .startAnchor, .endAnchor: return
        case .scalar(let s): out.append(s)
        case .any: out.append("a")
        case .set(let set): if let s = representative(set) { out.append(s) }
        case .concat(let nodes): for n in nodes { build(n, into: &out) }
        case .alternation(let nodes):
            // The first alternative that yields something.
            for n in nodes {
                var attempt = String.UnicodeScalarView()
                build(n, into: &attempt)
                if !attempt.isEmpty || n == nodes.last { out.append(contentsOf: attempt); return }
            }
        case .repetition(let n, let min, let max):
            let count = Swift.min(Swift.max(min, 1), max ?? Int.max, 64)
            for _ in 0..<count { build(n, into: &out) }
        }
    }

    /// A readable scalar of the set: a lowercase letter, a digit, an uppercase letter,
    /// `-` or `_` when it holds one, else its first printable scalar.
    private static func representative(_ set: ScalarSet) -> Unicode.Scalar? {
        for preferred in ["a", "0", "A", "-", "_", "x"] as [Unicode.Scalar] where set.contains(preferred.value) { return preferred }
        for range in set.positiveRanges {
            for value in range.lowerBound...min(range.upperBound, range.lowerBound + 256) where value > 0x20 && value != 0x7F {
                if let s = Unicode.Scalar(value) { return s }
            }
        }
        return nil
    }
}
