/// GitHub Actions annotations: each outcome change on the line of the route (or case)
/// it came from, breaking as errors, changed as warnings, added as notices; declaration
/// changes as notices (a universal link withdrawn as an error); the summary last.
public struct DiffGitHubRenderer: DiffRenderer {
    public init() {}

    public func render(_ report: DiffReport) -> String {
        var lines: [String] = []
        for c in report.outcomes {
            let (file, position) = report.location(of: c)
            let level: GitHubAnnotation.Level = c.severity == .breaking ? .error : c.severity == .changed ? .warning : .notice
            lines.append(GitHubAnnotation(level, file: file, position: position,
                                          title: "\(c.severity.rawValue) link \(c.url)" + (c.context.map { " [\($0)]" } ?? ""),
                                          message: "\(c.old) => \(c.new) (fingerprint \(c.fingerprint))").command)
        }
        for d in report.diff.declarations {
            let (file, position) = report.location(of: d)
            lines.append(GitHubAnnotation(d.isBreaking ? .error : .notice, file: file, position: position,
                                          title: "route change", message: d.description).command)
        }
        lines.append(GitHubAnnotation(report.fails ? .error : .notice, file: nil, title: "switchboard diff", message: report.summary).command)
        return lines.joined(separator: "\n") + "\n"
    }
}
