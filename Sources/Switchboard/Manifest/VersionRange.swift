/// A set of app versions: comparators separated by spaces that must all hold
/// (`>=7.2.0 <8.0.0`), or a route's `since` (inclusive) / `until` (exclusive).
package struct VersionRange: Sendable, Hashable, CustomStringConvertible {
    package enum Operator: String, Sendable, Hashable {
        case greaterOrEqual = ">=", lessOrEqual = "<=", greater = ">", less = "<", equal = "="
    }

    package struct Comparator: Sendable, Hashable {
        package let op: Operator
        package let version: SemanticVersion

        func holds(for v: SemanticVersion) -> Bool {
            switch op {
            case .greaterOrEqual: return v >= version
            case .lessOrEqual: return v <= version
            case .greater: return v > version
            case .less: return v < version
            case .equal: return v == version
            }
        }
    }

    package let comparators: [Comparator]

    package init(comparators: [Comparator]) { self.comparators = comparators }

    /// Parses `>=7.2.0 <8.0.0`; nil when a comparator is malformed.
    package init?(parsing text: String) {
        var comparators: [Comparator] = []
        for token in text.split(separator: " ") {
            var rest = Substring(token)
            var op = Operator.equal
            for candidate in [Operator.greaterOrEqual, .lessOrEqual, .greater, .less, .equal] where rest.hasPrefix(candidate.rawValue) {
                op = candidate
                rest = rest.dropFirst(candidate.rawValue.count)
                break
            }
            guard let version = SemanticVersion(String(rest)) else { return nil }
            comparators.append(Comparator(op: op, version: version))
        }
        guard !comparators.isEmpty else { return nil }
        self.comparators = comparators
    }

    /// The range `since <= v < until`.
    package init(since: SemanticVersion?, until: SemanticVersion?) {
        comparators = (since.map { [Comparator(op: .greaterOrEqual, version: $0)] } ?? [])
            + (until.map { [Comparator(op: .less, version: $0)] } ?? [])
    }

    package func contains(_ version: SemanticVersion) -> Bool {
        comparators.allSatisfy { $0.holds(for: version) }
    }

    /// The first comparator that `version` fails, for explanations.
    package func firstFailure(for version: SemanticVersion) -> Comparator? {
        comparators.first { !$0.holds(for: version) }
    }

    /// Whether no version at all satisfies every comparator.
    package var isEmpty: Bool {
        var low: (SemanticVersion, inclusive: Bool)? = nil
        var high: (SemanticVersion, inclusive: Bool)? = nil
        func raise(_ v: SemanticVersion, _ inclusive: Bool) {
            if let l = low, l.0 > v || (l.0 == v && !l.inclusive) { return }
            low = (v, inclusive)
        }
        func lower(_ v: SemanticVersion, _ inclusive: Bool) {
            if let h = high, h.0 < v || (h.0 == v && !h.inclusive) { return }
            high = (v, inclusive)
        }
        for c in comparators {
            switch c.op {
            case .greaterOrEqual: raise(c.version, true)
            case .greater: raise(c.version, false)
            case .lessOrEqual: lower(c.version, true)
            case .less: lower(c.version, false)
            case .equal: raise(c.version, true); lower(c.version, true)
            }
        }
        guard let low, let high else { return false }
        if low.0 > high.0 { return true }
        if low.0 == high.0 { return !(low.inclusive && high.inclusive) }
        return false
    }

    /// Whether every version in `other` is also in `self` (only provable for simple
    /// bounds; false when unsure).
    func covers(_ other: VersionRange) -> Bool {
        if comparators.isEmpty { return true }
        return comparators.allSatisfy { mine in other.comparators.contains { $0 == mine } }
    }

    package var description: String {
        comparators.map { "\($0.op.rawValue)\($0.version)" }.joined(separator: " ")
    }
}
