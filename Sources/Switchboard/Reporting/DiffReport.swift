/// A ``ManifestDiff`` with what its renderers need: the files compared (for
/// annotations), the changes a team accepted (`--ignore`), and the severity that fails.
public struct DiffReport: Sendable {
    public let diff: ManifestDiff
    public let oldFile: String
    public let newFile: String
    /// Where each route starts in each file (``CompiledManifest/routePositions``).
    public let oldRoutePositions: [SourcePosition]
    public let newRoutePositions: [SourcePosition]
    public let caseFiles: [String]
    /// Accepted changes: fingerprint -> reason.
    public let ignore: [String: String]
    /// What fails the run (`--fail-on`).
    public let failOn: FailureThreshold

    public init(diff: ManifestDiff, oldFile: String, newFile: String, oldRoutePositions: [SourcePosition] = [],
                newRoutePositions: [SourcePosition] = [], caseFiles: [String] = [], ignore: [String: String] = [:],
                failOn: FailureThreshold = .breaking) {
        self.diff = diff
        self.oldFile = oldFile
        self.newFile = newFile
        self.oldRoutePositions = oldRoutePositions
        self.newRoutePositions = newRoutePositions
        self.caseFiles = caseFiles
        self.ignore = ignore
        self.failOn = failOn
    }

    /// Outcome changes not accepted by the ignore file.
    public var outcomes: [OutcomeChange] { diff.outcomes.filter { ignore[$0.fingerprint] == nil } }
    /// Accepted changes, with their reasons.
    public var ignored: [(change: OutcomeChange, reason: String)] {
        diff.outcomes.compactMap { c in ignore[c.fingerprint].map { (c, $0) } }
    }

    public func count(_ severity: ChangeSeverity) -> Int { outcomes.filter { $0.severity == severity }.count }

    /// Whether the run fails (exit 1).
    public var fails: Bool {
        diff.fails(failOn, ignoring: Set(ignore.keys))
    }

    /// Whether `change` is at or above the failing severity.
    public func isFailure(_ change: OutcomeChange) -> Bool {
        failOn.fails(change.severity)
    }

    /// `2 breaking, 1 changed, 0 added (1 ignored); 3 declaration changes; 120 URLs, 134 resolutions each`
    public var summary: String {
        let ignoredCount = diff.outcomes.count - outcomes.count
        return "\(count(.breaking)) breaking, \(count(.changed)) changed, \(count(.added)) added"
            + (ignoredCount > 0 ? " (\(ignoredCount) ignored)" : "")
            + "; \(diff.declarations.count) declaration change\(diff.declarations.count == 1 ? "" : "s")"
            + "; \(diff.urlCount) URLs replayed in \(diff.resolutionCount) contexts"
    }

    /// The file and position an outcome change is best shown on: the case's line, or
    /// the route it was generated from (in the new file when it is there).
    public func location(of change: OutcomeChange) -> (file: String, position: SourcePosition?) {
        switch change.source {
        case .cases(let file, let line):
            return (caseFiles.indices.contains(file) ? caseFiles[file] : newFile, SourcePosition(line: line, column: 1))
        case .newRoute(let index):
            return (newFile, newRoutePositions.indices.contains(index) ? newRoutePositions[index] : nil)
        case .oldRoute(let index):
            return (oldFile, oldRoutePositions.indices.contains(index) ? oldRoutePositions[index] : nil)
        }
    }

    /// Where a declaration change is: the route in the new file, else in the old one.
    public func location(of change: DeclarationChange) -> (file: String, position: SourcePosition?) {
        if let i = change.newIndex, newRoutePositions.indices.contains(i) { return (newFile, newRoutePositions[i]) }
        if let i = change.oldIndex, oldRoutePositions.indices.contains(i) { return (oldFile, oldRoutePositions[i]) }
        return (change.newIndex != nil || change.oldIndex == nil ? newFile : oldFile, nil)
    }
}

/// Writes a ``DiffReport`` in one format.
public protocol DiffRenderer {
    func render(_ report: DiffReport) -> String
}
