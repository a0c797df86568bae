import RouteMatching

/// Follows redirects one hop at a time, as resolution does (``CompiledManifest/resolve(_:context:explain:)``),
/// on the tries a manifest compiles to, before it is known to be valid.
///
/// Routes that a context or a query can refuse (`since`, `until`, declared query params
/// that refuse a candidate) are taken in one of two worlds: `gatesOpen`, where the
/// context and query satisfy every route, or not, where each such route refuses. The
/// load-time checks look at both.
package struct RedirectStepper {
    let manifest: Manifest
    let general: RouteTrie
    let byHost: [String: RouteTrie]
    let gatesOpen: Bool

    package init(manifest: Manifest, general: RouteTrie, byHost: [String: RouteTrie], gatesOpen: Bool) {
        self.manifest = manifest
        self.general = general
        self.byHost = byHost
        self.gatesOpen = gatesOpen
    }

    /// The stepper of a decoded manifest (whose tries are compiled for it).
    package init(manifest: Manifest, gatesOpen: Bool) {
        let (general, byHost) = CompiledManifest.compile(manifest)
        self.init(manifest: manifest, general: general, byHost: byHost, gatesOpen: gatesOpen)
    }

    package enum Step {
        /// The URL ends here: at a route that is not a redirect, or at the fallback (nil).
        case end(route: Int?)
        /// `route`, a redirect, takes the URL to `path`.
        case redirect(route: Int, to: SegmentBuffer)
    }

    package func step(host: String?, _ path: SegmentBuffer) -> Step {
        func search(_ trie: RouteTrie) -> RouteCandidate? {
            trie.match(path) { index, failure in
                guard failure == nil else { return false }
                return gatesOpen || !isGated(manifest.routes[trie.candidates[index].route])
            }.map { trie.candidates[$0] }
        }
        let restricted = host.flatMap { byHost[$0] }
        guard let candidate = restricted.flatMap(search) ?? search(general) else { return .end(route: nil) }
        guard let redirect = manifest.routes[candidate.route].redirect else { return .end(route: candidate.route) }
        return .redirect(route: candidate.route, to: CompiledManifest.substitute(redirect, candidate, path))
    }

    /// Whether a context or a query can refuse the route whatever its path matched.
    private func isGated(_ route: Route) -> Bool {
        route.since != nil || route.until != nil || !route.queryChecks.isEmpty
    }
}

/// The redirect checks that follow URLs (docs/manifest.md `redirect`): `redirect-cycle` when some
/// URL's redirects never end, `redirect-chain` when some URL's end after more hops than
/// resolution follows.
///
/// A chain never ends when it comes back to a URL already visited, or when it runs on
/// past a bound far beyond any chain that shortens its URL as it goes (then the same
/// redirects apply again and again to URLs at least as long). Which URLs are followed: the
/// instances of each redirect route that the over-approximate graph of
/// ``ManifestValidator`` puts on a cycle or on a path longer than the hop limit. Their
/// params take every value that tells routes apart: each literal of the routes involved,
/// each `enum` value, and one value of each type's own (an `int`, a `uuid`, a slug, a
/// string that is no slug, a value of each regex where a short one is found); their
/// wildcards take up to two such segments, and nine repeats of one (or five of two
/// consecutive literals) to find chains that shorten a URL a hop at a time.
struct RedirectChains {
    let manifest: Manifest
    let worlds: [RedirectStepper]
    /// Hosts with routes of their own; other hosts search the general routes only, as
    /// URLs without a host do.
    let hostKeys: [String]
    /// Redirect routes the chains may pass through: how long a chain that ends may be.
    let redirects: Int

    /// Instances tried per expansion of a redirect route's pattern, shortest first.
    static let maxInstances = 4096
    /// Values a param takes, at most.
    static let maxValues = 48

    /// Values of each type that no literal is: `int`, `uuid`, slug, string.
    static let typeSamples = ["7", "0f8fad5b-d9cb-469f-a165-70867728950e", "zq", "z~q"]
    /// Tried on each regex param until one is accepted: a regex needs a value of its own.
    static let regexSamples = ["1", "12", "123", "1234", "a", "ab", "abc", "A", "a1", "a-b", "a_b", "2026-01-01", "x.y"]

    /// Steps (a URL matched, and its redirect substituted when it has one) taken in all,
    /// at most: a load stays within a fraction of a second whatever the manifest (a
    /// hostile one could ask for millions). Past it the URLs not followed are left to
    /// resolution's hop limit, and a warning says so.
    static let maxSteps = 200_000

    struct Finding {
        var diagnostics: [ManifestDiagnostic] = []
        var reportedLoops = Set<[Int]>()
        var reportedChains = Set<Int>()
        var steps = 0
        var exhausted: Bool { steps >= RedirectChains.maxSteps }
    }

    /// Checks the chains that start at each route of `starts`, whose redirects, as far as
    /// shapes tell, may reach each other or the routes of `involved`.
    func check(starts: [Int], involved: [Int]) -> [ManifestDiagnostic] {
        let vocabulary = values(of: starts + involved)
        var finding = Finding()
        search: for start in starts {
            let route = manifest.routes[start]
            let hosts: [String?] = route.hosts ?? ([nil] + hostKeys)
            for pattern in route.patterns {
                for expansion in pattern.expansions {
                    if finding.exhausted { break search }
                    for path in instances(of: expansion, in: route, vocabulary: vocabulary) {
                        for host in hosts {
                            for world in worlds {
                                if finding.exhausted { break search }
                                follow(path, host: host, from: start, world, &finding)
                            }
                        }
                    }
                }
            }
        }
        if finding.exhausted, let first = starts.first {
            finding.diagnostics.append(ManifestDiagnostic(.warning, code: .redirectChain,
                pointer: "/routes/\(manifest.routes[first].index)/redirect",
                message: "the redirects of \(starts.count) routes may lead to each other; \(Self.maxSteps) steps of their URLs were followed and the rest were not: a URL whose redirects do not end there ends at the fallback after \(CompiledManifest.maxRedirects) hops"))
        }
        return finding.diagnostics
    }

    /// Every literal of these routes' patterns and redirects, their enum values, and a
    /// value of each type no literal is.
    private func values(of routes: [Int]) -> [String] {
        // Only the first `maxValues` are kept, so nothing is added past them.
        var seen = Set<String>(), out: [String] = []
        func add(_ value: String) {
            if out.count < Self.maxValues, !value.isEmpty, seen.insert(value).inserted { out.append(value) }
        }
        var regexes: [SafeRegex] = []
        for index in routes {
            let route = manifest.routes[index]
            for pattern in route.patterns + (route.redirect.map { [$0] } ?? []) {
                for expansion in pattern.expansions {
                    for case .literal(let text) in expansion { add(text) }
                }
            }
            for declaration in route.params {
                switch declaration.type {
                case .enumeration(let values): values.forEach(add)
                case .regex(let regex): regexes.append(regex)
                default: break
                }
            }
        }
        Self.typeSamples.forEach(add)
        for regex in regexes where out.count < Self.maxValues && !out.contains(where: { ParamType.regex(regex).accepts($0) }) {
            if let sample = Self.regexSamples.first(where: { ParamType.regex(regex).accepts($0) }) { add(sample) }
        }
        return Array(out.prefix(Self.maxValues))
    }

    /// Paths of the expansion's shape: its params take each value their type accepts,
    /// its wildcard zero to two values, then the long repeats.
    private func instances(of expansion: [PatternSegment], in route: Route, vocabulary: [String]) -> [SegmentBuffer] {
        var choices: [[String]] = []
        var wildcard = false
        for segment in expansion {
            switch segment {
            case .literal(let text): choices.append([text])
            case .param(let name):
                let type = route.declaration(name)?.type ?? .string
                let accepted = vocabulary.filter { type.accepts($0) }
                if accepted.isEmpty { return [] }
                choices.append(accepted)
            case .wildcard: wildcard = true
            }
        }
        var tails: [[String]] = [[]]
        if wildcard {
            tails += vocabulary.map { [$0] }
            for a in vocabulary { for b in vocabulary { tails.append([a, b]) } }
        }
        var out: [SegmentBuffer] = []
        // An odometer over the choices, for each tail in turn (shortest first).
        outer: for tail in tails {
            var digits = [Int](repeating: 0, count: choices.count)
            while true {
                out.append(SegmentBuffer(zip(choices, digits).map { $0[$1] } + tail))
                if out.count >= Self.maxInstances { break outer }
                var k = choices.count - 1
                while k >= 0 {
                    digits[k] += 1
                    if digits[k] < choices[k].count { break }
                    digits[k] = 0
                    k -= 1
                }
                if k < 0 { break }
            }
        }
        if wildcard {
            // Chains that take a segment off each hop: one instance, its tail repeated.
            let head = choices.map { $0[0] }
            var repeats = vocabulary.map { [String](repeating: $0, count: CompiledManifest.maxRedirects + 1) }
            let literals = expansion.compactMap { if case .literal(let text) = $0 { return text } else { return nil } }
            for (a, b) in zip(literals, literals.dropFirst()) {
                repeats.append(Array([[String]](repeating: [a, b], count: CompiledManifest.maxRedirects / 2 + 1).joined()))
            }
            out += repeats.map { SegmentBuffer(head + $0) }
        }
        return out
    }

    /// Follows one URL's redirects until they end, come back to a URL, or pass the bound.
    private func follow(_ start: SegmentBuffer, host: String?, from origin: Int, _ world: RedirectStepper,
                        _ finding: inout Finding) {
        var path = start
        // Only a chain that redirects needs a record of where it has been.
        var visited: [[String]: Int] = [:]
        var chain: [(route: Int, path: SegmentBuffer)] = []
        let bound = Self.bound(segments: start.count, redirects: redirects)
        while true {
            finding.steps += 1
            guard case .redirect(let route, let next) = world.step(host: host, path) else {
                if chain.count > CompiledManifest.maxRedirects && finding.reportedChains.insert(origin).inserted {
                    finding.diagnostics.append(ManifestDiagnostic(.warning, code: .redirectChain,
                        pointer: "/routes/\(manifest.routes[origin].index)/redirect",
                        message: "redirects from \(Self.display(start, host)) take \(chain.count) hops, more than the \(CompiledManifest.maxRedirects) a resolution follows: such a URL ends at the fallback"))
                }
                return
            }
            if visited.isEmpty { visited[path.strings] = 0 }
            chain.append((route, path))
            path = next
            if finding.exhausted { return }
            if let first = visited[path.strings] {
                report(loop: Array(chain[first...]), shown: chain[first...].map(\.path) + [path], host: host, repeated: true, &finding)
                return
            }
            if chain.count > bound {
                // The redirect applied last, back to where it applied before: the loop
                // that runs on with URLs at least as long.
                let last = chain.count - 1
                guard let previous = chain[..<last].lastIndex(where: { $0.route == chain[last].route }) else {
                    // Past the bound with no redirect applied twice: more distinct redirects
                    // in a row than the bound, which a resolution stops following long before.
                    if finding.reportedChains.insert(origin).inserted {
                        finding.diagnostics.append(ManifestDiagnostic(.warning, code: .redirectChain,
                            pointer: "/routes/\(manifest.routes[origin].index)/redirect",
                            message: "redirects from \(Self.display(start, host)) take more than \(bound) hops, more than the \(CompiledManifest.maxRedirects) a resolution follows: such a URL ends at the fallback"))
                    }
                    return
                }
                // Named by the loop; shown from the URL it started at, three hops of it.
                let shown = chain.prefix(3).map(\.path) + [chain.count > 3 ? chain[3].path : path]
                report(loop: Array(chain[previous..<last]), shown: shown, host: host, repeated: false, &finding)
                return
            }
            visited[path.strings] = chain.count
        }
    }

    /// Hops after which a chain from a URL of `segments` segments is taken to never end:
    /// a chain that ends takes a segment off at least every few hops, and no manifest
    /// here has more redirects in a row than it has routes.
    static func bound(segments: Int, redirects: Int) -> Int {
        min(4 * (segments + 2) + 2 * redirects, 256)
    }

    private func report(loop: [(route: Int, path: SegmentBuffer)], shown: [SegmentBuffer], host: String?, repeated: Bool,
                        _ finding: inout Finding) {
        // The loop told from its route listed first, so that each is reported once.
        let first = loop.indices.min { manifest.routes[loop[$0].route].index < manifest.routes[loop[$1].route].index } ?? 0
        let rotated = Array(loop[first...] + loop[..<first])
        guard finding.reportedLoops.insert(rotated.map(\.route)).inserted else { return }
        let names = (rotated + [rotated[0]]).map { "\"\(manifest.routes[$0.route].name)\"" }.joined(separator: " -> ")
        let paths = shown.map { Self.display($0, host) }
        let message = repeated
            ? "redirects form a cycle: \(names): \(paths.joined(separator: " -> ")) comes back to a URL it visited"
            : "redirects never end: \(names) applies again to a URL at least as long: \(paths.joined(separator: " -> ")) -> ..."
        finding.diagnostics.append(ManifestDiagnostic(code: .redirectCycle,
            pointer: "/routes/\(manifest.routes[rotated[0].route].index)/redirect", message: message))
    }

    static func display(_ path: SegmentBuffer, _ host: String?) -> String {
        (host.map { "//" + $0 } ?? "") + InternalURL(host: nil, segmentBuffer: path).path
    }
}
