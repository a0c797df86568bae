import RouteMatching

// The checks of routes of one shape (the same segments, compared pairwise in precedence
// order): duplicates, ambiguity, and routes that never win; each pair of patterns is
// reported once, within a budget of comparisons.
extension ManifestValidator {

    /// Params a candidate needs from the query: declared, not bound by its path.
    func queryDeclarations(_ c: RouteCandidate) -> [ParamDeclaration] {
        // A scan of the few segments per declaration: no set built for the many routes
        // that declare nothing.
        manifest.routes[c.route].params.filter { !c.binds($0.name) }
    }

    func types(_ c: RouteCandidate) -> [ParamType?] {
        c.segments.map { segment in
            switch segment {
            case .literal: return nil
            case .param(_, let t), .wildcard(_, let t): return t
            }
        }
    }

    func overlaps(_ a: RouteCandidate, _ b: RouteCandidate) -> Bool {
        for (x, y) in zip(types(a), types(b)) {
            if let x, let y, x.isDisjoint(from: y) { return false }
        }
        return true
    }

    /// Whether `hi` accepts every URL `lo` accepts (so `lo`, tried after it, never wins).
    func covers(_ hi: RouteCandidate, _ lo: RouteCandidate) -> Bool {
        for (x, y) in zip(types(hi), types(lo)) {
            if let x, let y, !x.covers(y) { return false }
        }
        let hiRoute = manifest.routes[hi.route], loRoute = manifest.routes[lo.route]
        guard hiRoute.versionRange.covers(loRoute.versionRange) else { return false }
        let loQuery = queryDeclarations(lo)
        for declaration in queryDeclarations(hi) where declaration.type != .string || declaration.required {
            guard let other = loQuery.first(where: { $0.name == declaration.name }),
                  declaration.type.covers(other.type), !declaration.required || other.required else { return false }
        }
        return true
    }

    /// What the checks of one shape compare: candidates alike in all of it are alike to
    /// every check (each covers the other), so a group is compared kind by kind, not
    /// candidate by candidate. Ten routes of one pattern with 8 optional groups are 2,560
    /// candidates but 9 kinds in 9 groups.
    struct Likeness: Hashable {
        let priority: Int
        let types: [ParamType?]
        let range: VersionRange
        let query: [Query]
        struct Query: Hashable {
            let name: String, type: ParamType, required: Bool
        }
    }

    /// The candidates of one likeness in a group: positions in the group, ascending.
    struct Kind {
        let first: RouteCandidate
        var positions: [Int]
    }

    /// Comparisons of kinds one manifest may cost (a pair of kinds, or a candidate against a
    /// kind): past it the shape checks stop with a warning, so that no manifest under the
    /// size limit takes more than seconds to check. Real tables use a few thousand.
    static let comparisonBudget = 20_000_000

    mutating func checkShapeGroup(_ group: [Int], _ trie: RouteTrie) {
        let members = group.map { trie.candidates[$0] }
        var kindOf: [Likeness: Int] = [:]
        var kinds: [Kind] = []
        var kindAt = [Int](repeating: 0, count: members.count)
        for (position, c) in members.enumerated() {
            let likeness = Likeness(priority: c.priority, types: types(c), range: manifest.routes[c.route].versionRange,
                                    query: queryDeclarations(c).map { .init(name: $0.name, type: $0.type, required: $0.required) })
            if let k = kindOf[likeness] {
                kinds[k].positions.append(position)
                kindAt[position] = k
            } else {
                kindOf[likeness] = kinds.count
                kindAt[position] = kinds.count
                kinds.append(Kind(first: c, positions: [position]))
            }
        }
        guard spend(kinds.count * kinds.count + members.count * kinds.count, members) else { return }
        var memo: [Int: (covers: Bool, overlaps: Bool)] = [:]
        func compare(_ hi: Int, _ lo: Int) -> (covers: Bool, overlaps: Bool) {
            if hi == lo { return (true, true) }
            if let known = memo[hi * kinds.count + lo] { return known }
            let result = (covers(kinds[hi].first, kinds[lo].first), overlaps(kinds[hi].first, kinds[lo].first))
            memo[hi * kinds.count + lo] = result
            return result
        }

        // Shadowing. Higher priorities come first in a group, and a route's candidates
        // (and within it a pattern's) stand together, in expansion order.
        let taker: [Int?] = kinds.indices.map { lo in
            kinds.indices.first { hi in kinds[hi].first.priority > kinds[lo].first.priority && compare(hi, lo).covers }
        }
        var patternStart = 0, routeStart = 0
        var kindsOfPattern: [Int] = []  // kinds met so far in the current pattern
        for (position, b) in members.enumerated() {
            if position > 0 {
                let previous = members[position - 1]
                if previous.route != b.route { routeStart = position }
                if previous.route != b.route || previous.patternIndex != b.patternIndex {
                    patternStart = position
                    kindsOfPattern.removeAll(keepingCapacity: true)
                }
            }
            let kind = kindAt[position]
            let key = PatternKey(route: b.route, pattern: b.patternIndex)
            if let hi = taker[kind] {
                let a = kinds[hi].first
                let by = "\(label(a)) has priority \(a.priority) > \(b.priority) and matches every URL it matches"
                shadowing[key, default: (0, "")].shadowed += 1
                shadowing[key]?.by = by
            } else if kindsOfPattern.contains(where: { compare($0, kind).covers }) {
                shadowing[key, default: (0, "")].shadowed += 1
            }
            if !kindsOfPattern.contains(kind) { kindsOfPattern.append(kind) }

            // Conflicts with the candidates of the same priority tried before it: counted
            // per kind by where they stand, reported once per pattern and code with the
            // earliest pair as the example.
            for (k, other) in kinds.enumerated() where other.first.priority == b.priority {
                let (hiCovers, overlapping) = compare(k, kind)
                guard overlapping else { continue }
                let beforeRoute = other.positions.lowerBound(routeStart)
                let identical = hiCovers && compare(kind, k).covers
                if beforeRoute > 0 {
                    conflict(identical ? .duplicate : .ambiguous, members[other.positions[0]], b, pairs: beforeRoute,
                             at: (other.positions[0], position))
                }
                let aliases = other.positions.lowerBound(patternStart) - beforeRoute
                if aliases > 0 && identical {
                    conflict(.duplicate, members[other.positions[beforeRoute]], b, pairs: aliases,
                             at: (other.positions[beforeRoute], position))
                }
            }
        }
    }

    struct ConflictKey: Hashable {
        let code: DiagnosticCode
        let pattern: PatternKey
        /// With another pattern of the same route (a duplicate alias), or with other routes.
        let alias: Bool
    }

    /// The pairs of candidates in conflict for one pattern and kind of conflict: how many,
    /// and the earliest as the example.
    struct Conflict {
        let code: DiagnosticCode
        var pairs: Int
        var a: RouteCandidate, b: RouteCandidate
        /// The example's group and its positions there.
        var group: Int, at: (Int, Int)
    }

    mutating func conflict(_ code: DiagnosticCode, _ a: RouteCandidate, _ b: RouteCandidate, pairs: Int, at: (Int, Int)) {
        let key = ConflictKey(code: code, pattern: PatternKey(route: b.route, pattern: b.patternIndex), alias: a.route == b.route)
        if let index = conflictIndex[key] {
            conflicts[index].pairs += pairs
            if conflicts[index].group == groupsChecked && at < conflicts[index].at {
                (conflicts[index].a, conflicts[index].b, conflicts[index].at) = (a, b, at)
            }
        } else {
            conflictIndex[key] = conflicts.count
            conflicts.append(Conflict(code: code, pairs: pairs, a: a, b: b, group: groupsChecked, at: at))
        }
    }

    /// Each conflict as one diagnostic, its example pair and how many more pairs there were:
    /// the first ``ManifestDiagnostic/maxListed`` in the file's order, the others counted
    /// in ``unlisted``.
    mutating func conflictDiagnostics() -> [ManifestDiagnostic] {
        let order = conflicts.indices.sorted {
            let a = conflicts[$0].b, b = conflicts[$1].b
            return (manifest.routes[a.route].index, a.patternIndex, $0) < (manifest.routes[b.route].index, b.patternIndex, $1)
        }
        unlisted = max(0, order.count - ManifestDiagnostic.maxListed)
        return order.prefix(ManifestDiagnostic.maxListed).map { conflicts[$0] }.map { c in
            var message: String
            if c.a.route == c.b.route {
                message = "route \(label(c.b)) lists the same pattern twice; remove one alias"
            } else if c.code == .duplicate {
                message = "routes \(label(c.a)) and \(label(c.b)) have the same pattern and priority: \"\(c.b.name)\" is a duplicate that can never be reached; remove one or give them different params"
            } else {
                message = "routes \(label(c.a)) and \(label(c.b)) can both match the same URL with the same shape and priority \(c.a.priority); give one a higher \"priority\" or make their param types disjoint"
            }
            if c.pairs > 1 {
                message += " (\(c.pairs - 1) more pair\(c.pairs == 2 ? "" : "s") of expansions conflict the same way)"
            }
            return ManifestDiagnostic(code: c.code, pointer: pointer(c.b), message: message)
        }
    }

    /// Takes `cost` comparisons from the budget, or says once that the shape checks stop here.
    mutating func spend(_ cost: Int, _ members: [RouteCandidate]) -> Bool {
        guard !budgetSpent else { return false }
        comparisons += cost
        guard comparisons > Self.comparisonBudget else { return true }
        budgetSpent = true
        diagnostics.append(ManifestDiagnostic(.warning, code: .checksIncomplete, pointer: pointer(members[0]),
            message: "the checks for duplicates, ambiguity and never-wins stopped at the \(members.count) candidates of \(label(members[0]))'s shape: "
                + "checking them would pass \(Self.comparisonBudget) comparisons; routes of this shape and those after it are not checked"))
        return false
    }
}

extension Array where Element == Int {
    /// How many elements of this ascending array are less than `value`.
    fileprivate func lowerBound(_ value: Int) -> Int {
        var low = 0, high = count
        while low < high {
            let mid = (low + high) / 2
            if self[mid] < value { low = mid + 1 } else { high = mid }
        }
        return low
    }
}
