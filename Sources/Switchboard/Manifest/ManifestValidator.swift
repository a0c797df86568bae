import RouteMatching

/// Checks that need the compiled tries: duplicate names, ambiguous routes, duplicates
/// and routes that can never win, redirect targets and cycles.
struct ManifestValidator {
    let manifest: Manifest
    let general: RouteTrie
    let byHost: [String: RouteTrie]
    /// The manifest's host keys, in the order listed.
    let hostKeys: [String]
    private var diagnostics: [ManifestDiagnostic] = []
    private var conflicts: [Conflict] = []
    private var conflictIndex: [ConflictKey: Int] = [:]
    /// Shape groups checked so far: a conflict's example comes from the first group it is found in.
    private var groupsChecked = 0
    private var comparisons = 0
    /// Conflicts found past ``ManifestDiagnostic/maxListed``, counted and not listed (all errors).
    private(set) var unlisted = 0
    private var budgetSpent = false
    /// Per pattern (route, alias): how many of the candidates it compiled to another
    /// candidate always takes the URLs of, and what took them. A pattern never wins only
    /// when all of its expansions, on every host, are shadowed.
    private var shadowing: [PatternKey: (shadowed: Int, by: String)] = [:]

    struct PatternKey: Hashable, Comparable {
        let route: Int
        let pattern: Int
        static func < (a: Self, b: Self) -> Bool { (a.route, a.pattern) < (b.route, b.pattern) }
    }

    init(manifest: Manifest, general: RouteTrie, byHost: [String: RouteTrie], hostKeys: [String]) {
        self.manifest = manifest
        self.general = general
        self.byHost = byHost
        self.hostKeys = hostKeys
    }

    mutating func validate() -> [ManifestDiagnostic] {
        checkNames()
        for trie in [general] + byHost.keys.sorted().compactMap({ byHost[$0] }) {
            for group in trie.shapeGroups {
                checkShapeGroup(group, trie)
                groupsChecked += 1
            }
        }
        diagnostics += conflictDiagnostics()
        for (key, count) in shadowing.sorted(by: { $0.key < $1.key }) {
            let route = manifest.routes[key.route]
            let expansions = route.patterns[key.pattern].expansions.count
            // Its candidates: each expansion, once per host it is restricted to.
            guard count.shadowed == expansions * (route.hosts?.count ?? 1) else { continue }
            let pattern = "/routes/\(route.index)/" + (route.patternsAsList ? "patterns/\(key.pattern)" : "pattern")
            diagnostics.append(ManifestDiagnostic(code: .neverWins, pointer: pattern,
                message: "route \"\(route.name)\" (\(route.patterns[key.pattern].text)) can never win: "
                    + (expansions > 1 ? "each of its \(expansions) expansions is taken by a route tried before it: " : "")
                    + count.by))
        }
        checkRedirects()
        return diagnostics
    }

    func pointer(_ candidate: RouteCandidate) -> String {
        let route = manifest.routes[candidate.route]
        return "/routes/\(route.index)/" + (route.patternsAsList ? "patterns/\(candidate.patternIndex)" : "pattern")
    }

    /// `"name" (pattern)`, and for a pattern with optional groups the expansion meant
    /// and the groups that produced it.
    func label(_ candidate: RouteCandidate) -> String {
        let pattern = manifest.routes[candidate.route].patterns[candidate.patternIndex]
        let groups = pattern.optionalGroupCount
        guard groups > 0 else { return "\"\(candidate.name)\" (\(pattern.text))" }
        let kept = pattern.keptGroups[candidate.expansion]
        let dropped = (0..<groups).filter { !kept.contains($0) }
        let which = [kept.isEmpty ? nil : "keeping group \(kept.map { "\($0 + 1)" }.joined(separator: ", "))",
                     dropped.isEmpty ? nil : "dropping group \(dropped.map { "\($0 + 1)" }.joined(separator: ", "))"]
            .compactMap { $0 }.joined(separator: ", ")
        return "\"\(candidate.name)\" (\(pattern.text) as \(RoutePattern.text(of: pattern.expansions[candidate.expansion])), \(which))"
    }

    private mutating func checkNames() {
        var first: [String: Int] = [:]
        first.reserveCapacity(manifest.routes.count)
        for route in manifest.routes {
            // One hash per name: a duplicate (rare) puts the first one back.
            if let earlier = first.updateValue(route.index, forKey: route.name) {
                first[route.name] = earlier
                diagnostics.append(ManifestDiagnostic(code: .duplicateName, pointer: "/routes/\(route.index)/name",
                    message: "route name \"\(route.name)\" is already used by /routes/\(earlier); names must be unique"))
            }
        }
    }

    // MARK: - Same shape

    /// Params a candidate needs from the query: declared, not bound by its path.
    private func queryDeclarations(_ c: RouteCandidate) -> [ParamDeclaration] {
        // A scan of the few segments per declaration: no set built for the many routes
        // that declare nothing.
        manifest.routes[c.route].params.filter { !c.binds($0.name) }
    }

    private func types(_ c: RouteCandidate) -> [ParamType?] {
        c.segments.map { segment in
            switch segment {
            case .literal: return nil
            case .param(_, let t), .wildcard(_, let t): return t
            }
        }
    }

    private func overlaps(_ a: RouteCandidate, _ b: RouteCandidate) -> Bool {
        for (x, y) in zip(types(a), types(b)) {
            if let x, let y, x.isDisjoint(from: y) { return false }
        }
        return true
    }

    /// Whether `hi` accepts every URL `lo` accepts (so `lo`, tried after it, never wins).
    private func covers(_ hi: RouteCandidate, _ lo: RouteCandidate) -> Bool {
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
    private struct Likeness: Hashable {
        let priority: Int
        let types: [ParamType?]
        let range: VersionRange
        let query: [Query]
        struct Query: Hashable {
            let name: String, type: ParamType, required: Bool
        }
    }

    /// The candidates of one likeness in a group: positions in the group, ascending.
    private struct Kind {
        let first: RouteCandidate
        var positions: [Int]
    }

    /// Comparisons of kinds one manifest may cost (a pair of kinds, or a candidate against a
    /// kind): past it the shape checks stop with a warning, so that no manifest under the
    /// size limit takes more than seconds to check. Real tables use a few thousand.
    static let comparisonBudget = 20_000_000

    private mutating func checkShapeGroup(_ group: [Int], _ trie: RouteTrie) {
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

    private struct ConflictKey: Hashable {
        let code: DiagnosticCode
        let pattern: PatternKey
        /// With another pattern of the same route (a duplicate alias), or with other routes.
        let alias: Bool
    }

    /// The pairs of candidates in conflict for one pattern and kind of conflict: how many,
    /// and the earliest as the example.
    private struct Conflict {
        let code: DiagnosticCode
        var pairs: Int
        var a: RouteCandidate, b: RouteCandidate
        /// The example's group and its positions there.
        var group: Int, at: (Int, Int)
    }

    private mutating func conflict(_ code: DiagnosticCode, _ a: RouteCandidate, _ b: RouteCandidate, pairs: Int, at: (Int, Int)) {
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
    private mutating func conflictDiagnostics() -> [ManifestDiagnostic] {
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
    private mutating func spend(_ cost: Int, _ members: [RouteCandidate]) -> Bool {
        guard !budgetSpent else { return false }
        comparisons += cost
        guard comparisons > Self.comparisonBudget else { return true }
        budgetSpent = true
        diagnostics.append(ManifestDiagnostic(.warning, code: .checksIncomplete, pointer: pointer(members[0]),
            message: "the checks for duplicates, ambiguity and never-wins stopped at the \(members.count) candidates of \(label(members[0]))'s shape: "
                + "checking them would pass \(Self.comparisonBudget) comparisons; routes of this shape and those after it are not checked"))
        return false
    }

    // MARK: - Redirects

    /// Routes a redirect route's target can lead to for URLs on `host` (nil: paths and
    /// app schemes, which have none), in precedence order, up to the first one that
    /// certainly matches.
    private func targets(of index: Int, on host: String?) -> [Int] {
        let route = manifest.routes[index]
        guard let redirect = route.redirect else { return [] }
        let tries = (host.flatMap { byHost[$0] }.map { [$0] } ?? []) + [general]
        var result: [Int] = []
        for expansion in redirect.expansions {
            for trie in tries {
                var done = false
                for (candidate, certain) in trie.possibleMatches(expansion) {
                    let target = trie.candidates[candidate].route
                    if !result.contains(target) { result.append(target) }
                    let gated = manifest.routes[target].since != nil || manifest.routes[target].until != nil
                        || queryDeclarations(trie.candidates[candidate]).contains(where: \.required)
                    if certain && !gated { done = true; break }
                }
                if done { break }
            }
        }
        return result
    }

    private mutating func checkRedirects() {
        var edges: [Int: [Int]] = [:]
        var found: [Int: [Int]] = [:]
        for (i, route) in manifest.routes.enumerated() where route.redirect != nil {
            // Where the redirect applies: its hosts, or every host and URLs with none. A
            // host without routes of its own searches only the general routes, as URLs
            // without a host do: searched once for all of them.
            var reached: [Int] = []
            var stranded: [String?] = []
            let general = route.hosts == nil ? targets(of: i, on: nil) : nil
            if let general {
                if general.isEmpty { stranded.append(nil) }
                reached = general
            }
            for host in route.hosts ?? hostKeys {
                let here = byHost[host] == nil ? (general ?? targets(of: i, on: host)) : targets(of: i, on: host)
                if here.isEmpty { stranded.append(host) }
                for target in here where !reached.contains(target) { reached.append(target) }
            }
            found[i] = reached
            let pointer = "/routes/\(route.index)/redirect"
            if reached.isEmpty {
                diagnostics.append(ManifestDiagnostic(code: .redirectTarget, pointer: pointer,
                    message: "redirect \"\(route.redirect!.text)\" matches no route of the manifest"))
            } else if !stranded.isEmpty {
                // The target exists, restricted to some hosts: elsewhere the redirect ends
                // at the fallback. Worth knowing, not a reason to refuse the manifest.
                let names = stranded.map { $0 ?? "URLs without a host (paths and app schemes)" }
                diagnostics.append(ManifestDiagnostic(.warning, code: .redirectTargetHosts, pointer: pointer,
                    message: "redirect \"\(route.redirect!.text)\" lands on a route restricted to other hosts; on \(names.joined(separator: ", ")) it ends at the fallback"))
            }
            edges[i] = reached.filter { manifest.routes[$0].redirect != nil }
        }
        // The graph over-approximates what follows a redirect: a route that is on no cycle
        // of it and starts no path longer than the hop limit needs no URL followed, as in
        // most manifests. The others are followed URL by URL (``RedirectChains``).
        var depth: [Int: Int] = [:]  // hops a chain from the route may take, at most; -1 while visited
        // Depth first without recursion: a chain of 50,000 redirects is 50,000 levels deep.
        func longest(_ root: Int) -> Int {
            if let known = depth[root] { return known < 0 ? .max : known }
            depth[root] = -1
            var stack: [(node: Int, next: Int, most: Int)] = [(root, 0, 1)]
            var returned: Int?
            while let top = stack.last {
                var most = top.most
                if let child = returned {
                    most = child == .max ? .max : max(most, child + 1)
                    stack[stack.count - 1].most = most
                    returned = nil
                }
                let out = edges[top.node] ?? []
                if most == .max || top.next == out.count {
                    depth[top.node] = most
                    stack.removeLast()
                    returned = most
                    continue
                }
                let child = out[top.next]
                stack[stack.count - 1].next += 1
                if let seen = depth[child] {
                    returned = seen < 0 ? .max : seen
                } else {
                    depth[child] = -1
                    stack.append((child, 0, 1))
                }
            }
            return returned ?? 1
        }
        let starts = edges.keys.sorted().filter { longest($0) > CompiledManifest.maxRedirects }
        guard !starts.isEmpty else { return }
        var involved: [Int] = [], seen = Set<Int>()
        for start in starts { for target in found[start] ?? [] where seen.insert(target).inserted { involved.append(target) } }
        let gated = manifest.routes.contains { $0.since != nil || $0.until != nil || !$0.queryChecks.isEmpty }
        let worlds = (gated ? [true, false] : [true]).map {
            RedirectStepper(manifest: manifest, general: general, byHost: byHost, gatesOpen: $0)
        }
        let chains = RedirectChains(manifest: manifest, worlds: worlds, hostKeys: hostKeys.filter { byHost[$0] != nil },
                                    redirects: starts.count)
        diagnostics += chains.check(starts: starts, involved: involved)
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
