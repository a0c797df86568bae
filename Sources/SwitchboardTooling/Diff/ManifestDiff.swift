import Switchboard
import RouteMatching

/// What changed between two manifests: declarations by route name, and outcomes, by
/// resolving a corpus of URLs (``URLCorpus`` of both, plus the cases given) with both
/// in every context that matters to each URL.
///
/// ```swift
/// let diff = ManifestDiff(old: try CompiledManifest(json: a), new: try CompiledManifest(json: b))
/// for change in diff.outcomes where change.severity == .breaking { print(change) }
/// ```
package struct ManifestDiff: Sendable {
    /// A URL to replay, with where it came from.
    package struct Probe: Sendable {
        package let url: String
        /// What its fingerprint reads of it: the route and expansion it was made from, on
        /// whatever host or scheme and with whatever sample values (``URLCorpus/Item/pattern``).
        package let shape: String
        package let context: ResolveContext?
        package let source: OutcomeChange.Source

        package init(url: String, shape: String, context: ResolveContext? = nil, source: OutcomeChange.Source) {
            self.url = url
            self.shape = shape
            self.context = context
            self.source = source
        }
    }

    package let declarations: [DeclarationChange]
    /// Breaking first, then changed, then added; in corpus order within each.
    package let outcomes: [OutcomeChange]
    /// How many URLs were resolved, and how many resolutions that took in all.
    package let urlCount: Int
    package let resolutionCount: Int
    /// For each route of the old manifest that the new one does not have (by name), the
    /// new route next to where it stood (the nearest one before it that the new manifest
    /// has, else after it), where what is said of it is shown; absent when none is left.
    package let removedRouteAnchors: [Int: Int]
    /// The old manifest's patterns, by route index (what a removed route's findings name).
    package let oldPatterns: [Int: String]

    /// Compares `old` with `new`, replaying the generated corpus and `cases`.
    package init(old: CompiledManifest, new: CompiledManifest, cases: [Probe] = []) {
        declarations = Self.declarations(old.manifest, new.manifest)
        var probes: [Probe] = []
        var seen: Set<String> = []
        // The new manifest's URLs first; a change is shown on the route as it is now
        // (found by name), or on the old one when it is gone.
        let newIndex = Dictionary(new.manifest.routes.map { ($0.name, $0.index) }, uniquingKeysWith: { a, _ in a })
        for item in URLCorpus(new.manifest).items where seen.insert(item.url).inserted {
            probes.append(Probe(url: item.url, shape: item.pattern, source: .newRoute(item.route)))
        }
        for item in URLCorpus(old.manifest).items where seen.insert(item.url).inserted {
            let source = newIndex[old.manifest.routes[item.route].name].map(OutcomeChange.Source.newRoute) ?? .oldRoute(item.route)
            probes.append(Probe(url: item.url, shape: item.pattern, source: source))
        }
        // A case whose URL the corpus already replays in every context adds nothing but
        // a second listing.
        probes += cases.filter { $0.context != nil || !seen.contains($0.url) }
        var replay = Replay(old: old, new: new)
        var changes: [OutcomeChange] = []
        for probe in probes { changes += replay.compare(probe) }
        outcomes = ChangeSeverity.allCases.reversed().flatMap { s in changes.filter { $0.severity == s } }
        urlCount = probes.count
        resolutionCount = replay.resolutions
        var anchors: [Int: Int] = [:]
        let oldRoutes = old.manifest.routes
        for (i, route) in oldRoutes.enumerated() where newIndex[route.name] == nil {
            let before = oldRoutes[..<i].reversed().lazy.compactMap { newIndex[$0.name] }.first
            let after = oldRoutes[(i + 1)...].lazy.compactMap { newIndex[$0.name] }.first
            if let anchor = before ?? after { anchors[i] = anchor }
        }
        removedRouteAnchors = anchors
        oldPatterns = Dictionary(uniqueKeysWithValues: oldRoutes.map { ($0.index, $0.patterns.map(\.text).joined(separator: ", ")) })
    }

    /// Whether a change that `threshold` fails remains once `ignored` fingerprints are
    /// left out; declarations count as breaking (a universal link withdrawn) or for `any`.
    package func fails(_ threshold: FailureThreshold, ignoring ignored: Set<String> = []) -> Bool {
        if threshold == .any && !declarations.isEmpty { return true }
        if threshold != .none && declarations.contains(where: \.isBreaking) { return true }
        return outcomes.contains { threshold.fails($0.severity) && !ignored.contains($0.fingerprint) }
    }
}

extension ManifestDiff {
    /// Resolves probes with both manifests and groups what differs.
    struct Replay {
        var exploration: ContextExploration
        var resolutions: Int { exploration.resolutions }

        init(old: CompiledManifest, new: CompiledManifest) {
            exploration = ContextExploration([old, new])
        }

        mutating func compare(_ probe: Probe) -> [OutcomeChange] {
            let results = exploration.explore(probe.url, fixed: probe.context)
            let tested = results.map(\.context)
            // One change per distinct (old, new) pair of outcomes.
            var groups: [(Outcome, Outcome, [ResolveContext])] = []
            for (context, outcomes) in results where outcomes[0] != outcomes[1] {
                let (a, b) = (outcomes[0], outcomes[1])
                if let k = groups.firstIndex(where: { $0.0 == a && $0.1 == b }) {
                    groups[k].2.append(context)
                } else {
                    groups.append((a, b, [context]))
                }
            }
            return groups.compactMap { a, b, contexts in
                guard let severity = ChangeSeverity.of(a, b, url: probe.url) else { return nil }
                let words = probe.context != nil ? ValidationCase.text(of: contexts[0]) : ContextSpace.describe(contexts, of: tested)
                return OutcomeChange(severity: severity, url: probe.url, shape: probe.shape, contexts: contexts,
                                     context: words.flatMap { $0.isEmpty ? nil : $0 }, old: a, new: b, source: probe.source)
            }
        }
    }
}
