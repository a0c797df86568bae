import Switchboard
/// For people at a terminal: declaration changes, then one line per finding (a route and
/// how its URLs' outcome changed), breaking first, with how many URLs, a few of them and
/// its fingerprint; accepted and stale ignore entries; a summary line last.
package struct DiffTextRenderer: DiffRenderer {
    package init() {}

    package func render(_ report: DiffReport) -> String {
        var lines: [String] = []
        // Weighed by real traffic first: what most users will see.
        if let header = report.trafficHeader {
            lines.append(header)
            lines += report.trafficLines.map { "  " + $0 }
            lines += report.trafficBreakdownLines.map { "  " + $0 }
            lines += report.shareVerdicts.map { "  " + $0 }
            for bad in report.traffic?.badExamples ?? [] { lines.append("  bad line \(bad.file):\(bad.line): \(bad.reason)") }
            let weighted = report.trafficFindings
            if !weighted.isEmpty {
                lines.append("weighted by requests:")
                lines += weighted.prefix(50).map { "  " + report.describe($0) }
                if weighted.count > 50 { lines.append("  ... \(weighted.count - 50) more (--format json lists them all)") }
            }
        }
        if !report.diff.declarations.isEmpty {
            lines.append("declarations:")
            lines += report.diff.declarations.map { "  \($0.description)" }
        }
        let findings = report.findings
        if !findings.isEmpty {
            lines.append("outcomes:")
            for f in findings {
                let removed = report.removedNote(f.changes[0]).map { " (\($0))" } ?? ""
                lines.append("  \(f.severity.rawValue) \(f.route)\(removed): \(f.old) => \(f.new)  [\(f.fingerprint)]")
                lines.append("    \(f.changes.count) URL\(f.changes.count == 1 ? "" : "s"): " + f.examples().joined(separator: ", ")
                             + (f.changes.count > 3 ? ", ..." : ""))
            }
        }
        let accepted = report.acceptedFindings
        if !accepted.isEmpty {
            lines.append("ignored:")
            lines += accepted.map { "  \($0.severity.rawValue) \($0.route): \($0.old) => \($0.new)  [\($0.fingerprint): \(report.ignore[$0.fingerprint]?.reason ?? "")]" }
        }
        let stale = report.staleIgnores
        if !stale.isEmpty {
            lines.append("stale ignore entries (they match no change; a reviewed change is gone or has become another):")
            lines += stale.map { "  \(report.ignoreFile ?? "ignore file"):\($0.entry.line): \($0.fingerprint) \($0.entry.reason)" }
        }
        lines.append(report.summary)
        return lines.joined(separator: "\n") + "\n"
    }
}
