import Switchboard
/// A ``ManifestDiff`` with what its renderers need: the files compared (annotations go
/// on the NEW one, the file in the reviewer's checkout), the changes a team accepted
/// (`--ignore`), and what fails the run.
package struct DiffReport: Sendable {
    /// One change of one route: every URL whose outcome changed the same way (one
    /// fingerprint), however many hosts, schemes and contexts.
    package struct Finding: Sendable {
        package let fingerprint: String
        package let changes: [OutcomeChange]
        package var severity: ChangeSeverity { changes[0].severity }
        /// The route it concerns: the one before, else the one after.
        package var route: String { changes[0].old.route ?? changes[0].new.route ?? "(no route)" }
        package var old: Outcome { changes[0].old }
        package var new: Outcome { changes[0].new }
        /// A few of its URLs, with their contexts.
        package func examples(_ count: Int = 3) -> [String] {
            changes.prefix(count).map(\.urlInContext)
        }
    }

    /// An `--ignore` entry.
    package struct Accepted: Sendable {
        package let reason: String
        /// Its line in the ignore file.
        package let line: Int

        package init(reason: String, line: Int) {
            self.reason = reason
            self.line = line
        }
    }

    package let diff: ManifestDiff
    package let oldFile: String
    package let newFile: String
    /// Where each route starts in each file (``CompiledManifest/routePositions``).
    package let oldRoutePositions: [SourcePosition]
    package let newRoutePositions: [SourcePosition]
    package let caseFiles: [String]
    /// Accepted changes, by fingerprint.
    package let ignore: [String: Accepted]
    /// The ignore file, for the annotations of stale entries.
    package let ignoreFile: String?
    /// What fails the run (`--fail-on`).
    package let failOn: FailureThreshold
    /// Whether an ignore entry that matches no change fails the run (`--strict-ignore`).
    package let strictIgnore: Bool
    /// What real traffic says of the change (`--traffic`), and the shares that fail the
    /// run (`--fail-on-share`).
    package let traffic: TrafficImpact.Result?
    package let failOnShare: [ShareThreshold]

    package init(diff: ManifestDiff, oldFile: String, newFile: String, oldRoutePositions: [SourcePosition] = [],
                newRoutePositions: [SourcePosition] = [], caseFiles: [String] = [], ignore: [String: Accepted] = [:],
                ignoreFile: String? = nil, failOn: FailureThreshold = .breaking, strictIgnore: Bool = false,
                traffic: TrafficImpact.Result? = nil, failOnShare: [ShareThreshold] = []) {
        self.diff = diff
        self.oldFile = oldFile
        self.newFile = newFile
        self.oldRoutePositions = oldRoutePositions
        self.newRoutePositions = newRoutePositions
        self.caseFiles = caseFiles
        self.ignore = ignore
        self.ignoreFile = ignoreFile
        self.failOn = failOn
        self.strictIgnore = strictIgnore
        self.traffic = traffic
        self.failOnShare = failOnShare
    }

    /// Outcome changes not accepted by the ignore file.
    package var outcomes: [OutcomeChange] { diff.outcomes.filter { ignore[$0.fingerprint] == nil } }
    /// Accepted changes, with their reasons.
    package var ignored: [(change: OutcomeChange, reason: String)] {
        diff.outcomes.compactMap { c in ignore[c.fingerprint].map { (c, $0.reason) } }
    }

    /// The outcome changes not accepted, one finding per route and change, in the order
    /// of their first URL (breaking first).
    package var findings: [Finding] { Self.group(outcomes) }
    /// The accepted ones likewise.
    package var acceptedFindings: [Finding] { Self.group(diff.outcomes.filter { ignore[$0.fingerprint] != nil }) }

    static func group(_ changes: [OutcomeChange]) -> [Finding] {
        var order: [String] = [], byFingerprint: [String: [OutcomeChange]] = [:]
        for c in changes {
            if byFingerprint[c.fingerprint] == nil { order.append(c.fingerprint) }
            byFingerprint[c.fingerprint, default: []].append(c)
        }
        return order.map { Finding(fingerprint: $0, changes: byFingerprint[$0]!) }
    }

    /// Ignore entries that match no change: accepted once, for a change that is gone or
    /// that has become another.
    package var staleIgnores: [(fingerprint: String, entry: Accepted)] {
        let seen = Set(diff.outcomes.map(\.fingerprint) + (traffic?.findings.map(\.fingerprint) ?? []))
        return ignore.filter { !seen.contains($0.key) }.map { ($0.key, $0.value) }.sorted { $0.1.line < $1.1.line }
    }

    /// Findings (not URLs) of `severity`.
    package func count(_ severity: ChangeSeverity) -> Int { findings.filter { $0.severity == severity }.count }

    /// Whether the run fails (exit 1).
    package var fails: Bool {
        diff.fails(failOn, ignoring: Set(ignore.keys)) || trafficFails || !sharesExceeded.isEmpty
            || (strictIgnore && !staleIgnores.isEmpty)
    }

    /// Whether `change` is at or above the failing severity.
    package func isFailure(_ change: OutcomeChange) -> Bool {
        failOn.fails(change.severity)
    }

    /// `2 breaking, 1 changed, 0 added (1 ignored; 1 stale ignore entry); 3 declaration changes; 120 URLs replayed in 268 resolutions`
    package var summary: String {
        let urls = outcomes.count, accepted = acceptedFindings.count, stale = staleIgnores.count
        var notes: [String] = []
        if accepted > 0 { notes.append("\(accepted) ignored") }
        if stale > 0 { notes.append("\(stale) stale ignore entr\(stale == 1 ? "y" : "ies")") }
        return "\(count(.breaking)) breaking, \(count(.changed)) changed, \(count(.added)) added"
            + (notes.isEmpty ? "" : " (\(notes.joined(separator: "; ")))")
            + " over \(urls) URL\(urls == 1 ? "" : "s")"
            + "; \(diff.declarations.count) declaration change\(diff.declarations.count == 1 ? "" : "s")"
            + "; \(diff.urlCount) URLs replayed in \(diff.resolutionCount) resolutions"
            + (traffic.map { t in
                "; \(TrafficReport.percent(t.hits(atOrAbove: .breaking, ignoring: Set(ignore.keys)), of: t.total)) of "
                    + "\(TrafficReport.grouped(t.total)) requests break"
            } ?? "")
    }

    /// The file and position an outcome change is shown on: the case's line, or the route
    /// in the NEW file (a route the new manifest removed: the route next to where it stood).
    package func location(of change: OutcomeChange) -> (file: String, position: SourcePosition?) {
        switch change.source {
        case .cases(let file, let line):
            return (caseFiles.indices.contains(file) ? caseFiles[file] : newFile, SourcePosition(line: line, column: 1))
        case .newRoute(let index):
            return (newFile, newRoutePositions.indices.contains(index) ? newRoutePositions[index] : nil)
        case .oldRoute(let index):
            return (newFile, removedAnchor(index))
        case .traffic:
            return (newFile, nil)
        }
    }

    /// Where a declaration change is: the route in the new file, or where a removed one stood.
    package func location(of change: DeclarationChange) -> (file: String, position: SourcePosition?) {
        if let i = change.newIndex, newRoutePositions.indices.contains(i) { return (newFile, newRoutePositions[i]) }
        if let i = change.oldIndex { return (newFile, removedAnchor(i)) }
        return (newFile, nil)
    }

    /// What a finding on a route the new manifest does not have says of it.
    package func removedNote(_ change: OutcomeChange) -> String? {
        guard case .oldRoute(let index) = change.source else { return nil }
        return "removed, was \(diff.oldPatterns[index] ?? "?")"
    }

    private func removedAnchor(_ oldIndex: Int) -> SourcePosition? {
        guard let anchor = diff.removedRouteAnchors[oldIndex], newRoutePositions.indices.contains(anchor) else {
            return newRoutePositions.first
        }
        return newRoutePositions[anchor]
    }
}

/// Writes a ``DiffReport`` in one format.
package protocol DiffRenderer {
    func render(_ report: DiffReport) -> String
}
