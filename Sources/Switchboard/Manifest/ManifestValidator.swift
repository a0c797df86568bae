import RouteMatching

/// Checks that need the compiled tries: duplicate names, ambiguous routes, duplicates
/// and routes that can never win, redirect targets and cycles.
struct ManifestValidator {
    let manifest: Manifest
    let general: RouteTrie
    let byHost: [String: RouteTrie]
    private var diagnostics: [ManifestDiagnostic] = []
    private var reportedPairs = Set<String>()

    init(manifest: Manifest, general: RouteTrie, byHost: [String: RouteTrie]) {
        self.manifest = manifest
        self.general = general
        self.byHost = byHost
    }

    mutating func validate() -> [ManifestDiagnostic] {
        checkNames()
        for trie in [general] + byHost.keys.sorted().compactMap({ byHost[$0] }) {
            for group in trie.shapeGroups { checkShapeGroup(group, trie) }
        }
        checkRedirects()
        return diagnostics
    }

    func pointer(_ candidate: RouteCandidate) -> String {
        let route = manifest.routes[candidate.route]
        return "/routes/\(route.index)/" + (route.patternsAsList ? "patterns/\(candidate.patternIndex)" : "pattern")
    }

    func label(_ candidate: RouteCandidate) -> String {
        "\"\(candidate.name)\" (\(manifest.routes[candidate.route].patterns[candidate.patternIndex].text))"
    }

    private mutating func checkNames() {
        var first: [String: Int] = [:]
        for route in manifest.routes {
            if let earlier = first[route.name] {
                diagnostics.append(ManifestDiagnostic(code: "duplicate-name", pointer: "/routes/\(route.index)/name",
                    message: "route name \"\(route.name)\" is already used by /routes/\(earlier); names must be unique"))
            } else {
                first[route.name] = route.index
            }
        }
    }

    // MARK: - Same shape

    /// Params a candidate needs from the query: declared, not bound by its path.
    private func queryDeclarations(_ c: RouteCandidate) -> [ParamDeclaration] {
        let bound = Set(c.segments.compactMap { segment -> String? in
            switch segment {
            case .literal: return nil
            case .param(let name, _), .wildcard(let name, _): return name
            }
        })
        return manifest.routes[c.route].params.filter { !bound.contains($0.name) }
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

    private mutating func checkShapeGroup(_ group: [Int], _ trie: RouteTrie) {
        for i in group.indices {
            for j in group.indices where j > i {
                let a = trie.candidates[group[i]], b = trie.candidates[group[j]]
                if a.route == b.route && a.patternIndex == b.patternIndex { continue }
                guard overlaps(a, b) else { continue }
                let samePriority = a.priority == b.priority
                let identical = covers(a, b) && covers(b, a)
                if a.route == b.route {
                    if identical {
                        report(b, code: "duplicate", "route \(label(b)) lists the same pattern twice; remove one alias")
                    }
                } else if samePriority && identical {
                    report(b, code: "duplicate", "routes \(label(a)) and \(label(b)) have the same pattern and priority: \"\(b.name)\" is a duplicate that can never be reached; remove one or give them different params")
                } else if samePriority {
                    report(b, code: "ambiguous", "routes \(label(a)) and \(label(b)) can both match the same URL with the same shape and priority \(a.priority); give one a higher \"priority\" or make their param types disjoint")
                } else if covers(a, b) {
                    report(b, code: "never-wins", "route \(label(b)) can never win: \(label(a)) has priority \(a.priority) > \(b.priority) and matches every URL it matches")
                }
            }
        }
    }

    private mutating func report(_ candidate: RouteCandidate, code: String, _ message: String) {
        guard reportedPairs.insert(code + "\u{0}" + message).inserted else { return }
        diagnostics.append(ManifestDiagnostic(code: code, pointer: pointer(candidate), message: message))
    }

    // MARK: - Redirects

    /// Routes a redirect route's target can lead to, in precedence order, up to the
    /// first one that certainly matches.
    private func targets(of index: Int) -> [Int] {
        let route = manifest.routes[index]
        guard let redirect = route.redirect else { return [] }
        let tries = (route.hosts ?? []).compactMap { byHost[$0] } + [general]
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
        for (i, route) in manifest.routes.enumerated() where route.redirect != nil {
            let found = targets(of: i)
            if found.isEmpty {
                diagnostics.append(ManifestDiagnostic(code: "redirect-target", pointer: "/routes/\(route.index)/redirect",
                    message: "redirect \"\(route.redirect!.text)\" matches no route of the manifest"))
            }
            edges[i] = found.filter { manifest.routes[$0].redirect != nil }
        }
        // Depth-first search for cycles among redirect routes.
        var state: [Int: Int] = [:]  // 1 visiting, 2 done
        var reported = Set<Int>()
        func visit(_ node: Int, _ path: [Int], _ diagnostics: inout [ManifestDiagnostic]) {
            state[node] = 1
            for next in edges[node] ?? [] {
                if state[next] == 1 {
                    let cycle = Array(path[(path.firstIndex(of: next) ?? 0)...]) + [next]
                    if reported.insert(next).inserted {
                        let names = cycle.map { "\"\(manifest.routes[$0].name)\"" }.joined(separator: " -> ")
                        diagnostics.append(ManifestDiagnostic(code: "redirect-cycle", pointer: "/routes/\(manifest.routes[next].index)/redirect",
                            message: "redirects form a cycle: \(names)"))
                    }
                } else if state[next] == nil {
                    visit(next, path + [next], &diagnostics)
                }
            }
            state[node] = 2
        }
        for node in edges.keys.sorted() where state[node] == nil {
            visit(node, [node], &diagnostics)
        }
    }
}
