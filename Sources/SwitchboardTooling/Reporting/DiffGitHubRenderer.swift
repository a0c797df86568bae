import Switchboard
/// GitHub Actions annotations, on the NEW manifest (the file in the checkout): one per
/// finding, on the line of its route (a removed route: the route next to where it stood),
/// breaking as errors, changed as warnings, added as notices; declaration changes as
/// notices (a universal link withdrawn as an error); stale ignore entries as warnings on
/// the ignore file; the summary last.
package struct DiffGitHubRenderer: DiffRenderer {
    package init() {}

    package func render(_ report: DiffReport) -> String {
        var lines: [String] = []
        for f in report.findings {
            let (file, position) = report.location(of: f.changes[0])
            let level: GitHubAnnotation.Level = f.severity == .breaking ? .error : f.severity == .changed ? .warning : .notice
            let removed = report.removedNote(f.changes[0]).map { "\($0): " } ?? ""
            let urls = "\(f.changes.count) URL\(f.changes.count == 1 ? "" : "s"), e.g. " + f.examples().joined(separator: ", ")
            // What it weighs in real traffic, when --traffic was read.
            let weight = report.traffic.map { traffic in
                let hits = traffic.findings.first { $0.fingerprint == f.fingerprint }?.hits ?? 0
                return "; \(TrafficReport.grouped(hits)) of \(TrafficReport.grouped(traffic.total)) requests (\(TrafficReport.percent(hits, of: traffic.total)))"
            } ?? ""
            lines.append(GitHubAnnotation(level, file: file, position: position, title: "\(f.severity.rawValue) links of route \(f.route)",
                                          message: "\(removed)\(f.old) => \(f.new); \(urls)\(weight) (fingerprint \(f.fingerprint))").command)
        }
        // Traffic findings no generated URL shows (a URL only real users send).
        let shown = Set(report.findings.map(\.fingerprint))
        for t in report.trafficFindings where !shown.contains(t.fingerprint) {
            let level: GitHubAnnotation.Level = t.severity == .breaking ? .error : t.severity == .changed ? .warning : .notice
            lines.append(GitHubAnnotation(level, file: nil, title: "\(t.severity.rawValue) links of route \(t.route) in traffic",
                                          message: report.describe(t)).command)
        }
        for (threshold, verdict) in zip(report.failOnShare, report.shareVerdicts) {
            let failed = report.sharesExceeded.contains(threshold)
            lines.append(GitHubAnnotation(failed ? .error : .notice, file: nil, title: "--fail-on-share \(threshold)", message: verdict).command)
        }
        for d in report.diff.declarations {
            let (file, position) = report.location(of: d)
            lines.append(GitHubAnnotation(d.isBreaking ? .error : .notice, file: file, position: position,
                                          title: "route change", message: d.description).command)
        }
        for s in report.staleIgnores {
            lines.append(GitHubAnnotation(report.strictIgnore ? .error : .warning, file: report.ignoreFile,
                                          position: SourcePosition(line: s.entry.line, column: 1), title: "stale ignore entry",
                                          message: "\(s.fingerprint) matches no change: the change it accepted is gone or has become another").command)
        }
        lines.append(GitHubAnnotation(report.fails ? .error : .notice, file: nil, title: "switchboard diff", message: report.summary).command)
        return lines.joined(separator: "\n") + "\n"
    }
}
