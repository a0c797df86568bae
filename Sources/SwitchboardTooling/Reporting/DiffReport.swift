import Switchboard
/// A ``ManifestDiff`` with what its renderers need: the files compared (annotations go
/// on the NEW one, the file in the reviewer's checkout), the changes a team accepted
/// (`--ignore`), and what fails the run.
public struct DiffReport: Sendable {
    /// One change of one route: every URL whose outcome changed the same way (one
    /// fingerprint), however many hosts, schemes and contexts.
    public struct Finding: Sendable {
        public let fingerprint: String
        public let changes: [OutcomeChange]
        public var severity: ChangeSeverity { changes[0].severity }
        /// The route it concerns: the one before, else the one after.
        public var route: String { changes[0].old.route ?? changes[0].new.route ?? "(no route)" }
        public var old: Outcome { changes[0].old }
        public var new: Outcome { changes[0].new }
        /// A few of its URLs, with their contexts.
        public func examples(_ count: Int = 3) -> [String] {
            changes.prefix(count).map(\.urlInContext)
        }
    }

    /// An `--ignore` entry.
    public struct Accepted: Sendable {
        public let reason: String
        /// Its line in the ignore file.
        public let line: Int

        public init(reason: String, line: Int) {
            self.reason = reason
            self.line = line
        }
    }

    public let diff: ManifestDiff
    public let oldFile: String
    public let newFile: String
    /// Where each route starts in each file (``CompiledManifest/routePositions``).
    public let oldRoutePositions: [SourcePosition]
    public let newRoutePositions: [SourcePosition]
    public let caseFiles: [String]
    /// Accepted changes, by fingerprint.
    public let ignore: [String: Accepted]
    /// The ignore file, for the annotations of stale entries.
    public let ignoreFile: String?
    /// What fails the run (`--fail-on`).
    public let failOn: FailureThreshold
    /// Whether an ignore entry that matches no change fails the run (`--strict-ignore`).
    public let strictIgnore: Bool
    /// What real traffic says of the change (`--traffic`), and the shares that fail the
    /// run (`--fail-on-share`).
    public let traffic: TrafficImpact.Result?
    public let failOnShare: [ShareThreshold]

    public init(diff: ManifestDiff, oldFile: String, newFile: String, oldRoutePositions: [SourcePosition] = [],
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
    public var outcomes: [OutcomeChange] { diff.outcomes.filter { ignore[$0.fingerprint] == nil } }
    /// Accepted changes, with their reasons.
    public var ignored: [(change: OutcomeChange, reason: String)] {
        diff.outcomes.compactMap { c in ignore[c.fingerprint].map { (c, $0.reason) } }
    }

    /// The outcome changes not accepted, one finding per route and change, in the order
    /// of their first URL (breaking first).
    public var findings: [Finding] { Self.group(outcomes) }
    /// The accepted ones likewise.
    public var acceptedFindings: [Finding] { Self.group(diff.outcomes.filter { ignore[$0.fingerprint] != nil }) }

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
    public var staleIgnores: [(fingerprint: String, entry: Accepted)] {
        let seen = Set(diff.outcomes.map(\.fingerprint) + (traffic?.findings.map(\.fingerprint) ?? []))
        return ignore.filter { !seen.contains($0.key) }.map { ($0.key, $0.value) }.sorted { $0.1.line < $1.1.line }
    }

    /// Findings (not URLs) of `severity`.
    public func count(_ severity: ChangeSeverity) -> Int { findings.filter { $0.severity == severity }.count }

    /// Whether the run fails (exit 1).
    public var fails: Bool {
        diff.fails(failOn, ignoring: Set(ignore.keys)) || trafficFails || !sharesExceeded.isEmpty
            || (strictIgnore && !staleIgnores.isEmpty)
    }

    /// Whether `change` is at or above the failing severity.
    public func isFailure(_ change: OutcomeChange) -> Bool {
        failOn.fails(change.severity)
    }

    /// `2 breaking, 1 changed, 0 added (1 ignored; 1 stale ignore entry); 3 declaration changes; 120 URLs replayed in 268 resolutions`
    public var summary: String {
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
    public func location(of change: OutcomeChange) -> (file: String, position: SourcePosition?) {
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
    public func location(of change: DeclarationChange) -> (file: String, position: SourcePosition?) {
        if let i = change.newIndex, newRoutePositions.indices.contains(i) { return (newFile, newRoutePositions[i]) }
        if let i = change.oldIndex { return (newFile, removedAnchor(i)) }
        return (newFile, nil)
    }

    /// What a finding on a route the new manifest does not have says of it.
    public func removedNote(_ change: OutcomeChange) -> String? {
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
public protocol DiffRenderer {
    func render(_ report: DiffReport) -> String
}
