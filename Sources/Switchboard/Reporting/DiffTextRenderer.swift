/// For people at a terminal: declaration changes, then one line per outcome change,
/// breaking first, with its fingerprint; accepted changes; a summary line last.
public struct DiffTextRenderer: DiffRenderer {
    public init() {}

    public func render(_ report: DiffReport) -> String {
        var lines: [String] = []
        if !report.diff.declarations.isEmpty {
            lines.append("declarations:")
            lines += report.diff.declarations.map { "  \($0.description)" }
        }
        if !report.outcomes.isEmpty {
            lines.append("outcomes:")
            lines += report.outcomes.map { "  \($0.description)  [\($0.fingerprint)]" }
        }
        let ignored = report.ignored
        if !ignored.isEmpty {
            lines.append("ignored:")
            lines += ignored.map { "  \($0.change.description)  [\($0.change.fingerprint): \($0.reason)]" }
        }
        lines.append(report.summary)
        return lines.joined(separator: "\n") + "\n"
    }
}
