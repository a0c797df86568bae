import RouteMatching

/// Checks that need the compiled tries: duplicate names, ambiguous routes, duplicates
/// and routes that can never win, redirect targets and cycles.
struct ManifestValidator {
    let manifest: Manifest
    let general: RouteTrie
    let byHost: [String: RouteTrie]
    /// The manifest's host keys, in the order listed.
    let hostKeys: [String]
    var diagnostics: [ManifestDiagnostic] = []
    var conflicts: [Conflict] = []
    var conflictIndex: [ConflictKey: Int] = [:]
    /// Shape groups checked so far: a conflict's example comes from the first group it is found in.
    var groupsChecked = 0
    var comparisons = 0
    /// Conflicts found past ``ManifestDiagnostic/maxListed``, counted and not listed (all errors).
    var unlisted = 0
    var budgetSpent = false
    /// Per pattern (route, alias): how many of the candidates it compiled to another
    /// candidate always takes the URLs of, and what took them. A pattern never wins only
    /// when all of its expansions, on every host, are shadowed.
    var shadowing: [PatternKey: (shadowed: Int, by: String)] = [:]

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
