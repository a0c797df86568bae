import Switchboard
/// Change impact weighed by real traffic (`diff --traffic`): each request read is
/// resolved, in its own context, by the old and the new manifest, and every outcome
/// change counts its requests. Changes that look alike share the fingerprint of
/// ``OutcomeChange`` (the same finding as the generated URLs of that route), so a finding
/// says how many requests it touches. As in ``TrafficAnalysis``, each distinct URL is
/// compared once and kept in a bounded table of the most requested; the tallies are exact.
package final class TrafficImpact {
    /// The requests one change touches.
    package struct Finding: Sendable {
        package let fingerprint: String
        package let severity: ChangeSeverity
        package fileprivate(set) var hits = 0
        /// Distinct URLs (with their contexts) that changed this way: exact unless the
        /// table of URLs overflowed (``Result/estimated``), then at most this many.
        package fileprivate(set) var urls = 0
        /// The first few, as a report may show them (query values left out unless asked).
        package fileprivate(set) var examples: [OutcomeChange] = []
        /// Its requests by the platform and the app version they came with (`(none)` when
        /// the line says none): where a change lands.
        package fileprivate(set) var byPlatform: [String: Int] = [:]
        package fileprivate(set) var byAppVersion: [String: Int] = [:]
        /// The route it concerns, and its pattern: the one before, else the one after.
        package var route: String { examples[0].old.route ?? examples[0].new.route ?? "(no route)" }
        package var pattern: String { examples[0].old.pattern ?? examples[0].new.pattern ?? examples[0].shape }
        /// Its examples' URLs, each with the context it came in (`/show/x/info [platform=ios]`).
        package var exampleURLs: [String] { examples.map(\.urlInContext) }
    }

    /// What was read and what changed, for ``DiffReport``.
    package struct Result: Sendable {
        /// Requests read.
        package let total: Int
        package let lines: Int
        package let badLines: Int
        package let badExamples: [TrafficReader.BadLine]
        /// Every finding, most requests first.
        package let findings: [Finding]
        /// URLs compared (distinct, more if some left the table and came back).
        package let compared: Int
        package let estimated: Bool
        /// Requests that were not links (bots, static files, ...), counted apart.
        package let notLinks: Int
        /// All requests read by platform and by app version (`(none)` when a line says none).
        package let requestsByPlatform: [String: Int]
        package let requestsByAppVersion: [String: Int]
        /// Why what was read cannot stand for traffic (``TrafficReader/problem(maxBadShare:)``):
        /// a `--fail-on-share` gate fails on it rather than pass on nothing.
        package let problem: String?

        /// Requests whose change is at `severity` or above, leaving out `ignored` fingerprints.
        package func hits(atOrAbove severity: ChangeSeverity, ignoring ignored: Set<String> = []) -> Int {
            findings.filter { $0.severity >= severity && !ignored.contains($0.fingerprint) }.reduce(0) { $0 + $1.hits }
        }

        package func share(atOrAbove severity: ChangeSeverity, ignoring ignored: Set<String> = []) -> Double {
            total == 0 ? 0 : Double(hits(atOrAbove: severity, ignoring: ignored)) / Double(total)
        }
    }

    private var replay: ManifestDiff.Replay
    private let shaper: TrafficShape
    private let showQuery: Bool
    private var cache: SpaceSaving<TrafficRecord.Key, String?>
    private var findings: [String: Finding] = [:]
    private var compared = 0
    private var requestsByPlatform: [String: Int] = [:]
    private var requestsByAppVersion: [String: Int] = [:]
    package static let keptExamples = 3
    /// What a breakdown calls a request whose line says no platform or version.
    package static let none = "(none)"

    package init(old: CompiledManifest, new: CompiledManifest, showQuery: Bool = false, cacheCapacity: Int = 100_000,
                memoryBudget: Int = TrafficAnalysis.defaultMemoryBudget) {
        replay = ManifestDiff.Replay(old: old, new: new)
        shaper = TrafficShape(new.manifest, showQuery: showQuery)
        self.showQuery = showQuery
        cache = SpaceSaving(capacity: cacheCapacity, byteBudget: memoryBudget) { key, fingerprint in
            TrafficAnalysis.entryOverhead + key.url.utf8.count + (fingerprint?.utf8.count ?? 0)
        }
    }

    /// Tallies one record.
    package func add(_ record: TrafficRecord) {
        let fingerprint = cache.add(record.key, weight: record.hits) {
            compare(record)
        }
        let platform = record.context.platform ?? Self.none, version = record.context.appVersion?.description ?? Self.none
        requestsByPlatform[platform, default: 0] += record.hits
        requestsByAppVersion[version, default: 0] += record.hits
        if let fingerprint {
            findings[fingerprint]?.hits += record.hits
            findings[fingerprint]?.byPlatform[platform, default: 0] += record.hits
            findings[fingerprint]?.byAppVersion[version, default: 0] += record.hits
        }
    }

    /// The fingerprint of how `record`'s outcome changes, nil when it does not.
    private func compare(_ record: TrafficRecord) -> String? {
        compared += 1
        let probe = ManifestDiff.Probe(url: record.url, shape: shaper.shape(of: record.url), context: record.context, source: .traffic)
        guard let change = replay.compare(probe).first else { return nil }
        let fingerprint = change.fingerprint
        var finding = findings[fingerprint] ?? Finding(fingerprint: fingerprint, severity: change.severity)
        finding.urls += 1
        if finding.examples.count < Self.keptExamples {
            finding.examples.append(showQuery ? change : change.shown(as: shaper.example(record.url)))
        }
        findings[fingerprint] = finding
        return fingerprint
    }

    package func result(_ reader: TrafficReader, maxBadShare: Double = 0.01) -> Result {
        Result(total: reader.requests, lines: reader.lines, badLines: reader.badLines, badExamples: reader.badExamples,
               findings: findings.values.sorted { ($0.hits, $1.fingerprint) > ($1.hits, $0.fingerprint) },
               compared: compared, estimated: cache.evicted, notLinks: reader.notLinks.values.reduce(0, +), requestsByPlatform: requestsByPlatform,
               requestsByAppVersion: requestsByAppVersion, problem: reader.problem(maxBadShare: maxBadShare))
    }
}

extension OutcomeChange {
    /// The change with `url` shown in place of its URL, and its params' values left out:
    /// what a report of real traffic may show.
    func shown(as url: String) -> OutcomeChange {
        OutcomeChange(severity: severity, url: url, shape: shape, contexts: contexts, context: context,
                      old: old.withoutParamValues, new: new.withoutParamValues, source: source)
    }
}
