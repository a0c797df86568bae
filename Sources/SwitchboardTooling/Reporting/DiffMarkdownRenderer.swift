import Switchboard
/// A pull-request comment: a summary, one table row per finding (a route and how its
/// URLs' outcome changed, with a few of them), the declaration changes as a list. It stays
/// under ``maxCharacters`` (GitHub's limit for a comment is 65,536), saying what it left
/// out. Manifest text is escaped so that it shows as text: it cannot close the table,
/// open HTML or a link.
package struct DiffMarkdownRenderer: DiffRenderer {
    package static let maxCharacters = 60_000

    package init() {}

    package func render(_ report: DiffReport) -> String {
        var out = "### Switchboard: routing changes\n\n**\(Self.escape(report.summary))**\n\n"
        // Room kept for the closing notes of what was left out.
        let budget = Self.maxCharacters - 2_000
        // Weighed by real traffic first: the table a reviewer reads.
        if let traffic = report.traffic {
            out += "**By real traffic** (\(Self.escape(report.trafficHeader ?? ""))):\n\n"
            for line in report.trafficLines + report.shareVerdicts { out += "- " + Self.escape(line) + "\n" }
            for (dimension, rows) in report.trafficBreakdown {
                out += "\n| \(Self.escape(dimension)) | requests | breaking | changed |\n| --- | ---: | ---: | ---: |\n"
                for r in rows.prefix(10) {
                    out += "| \(Self.code(r.value)) | \(TrafficReport.grouped(r.requests)) | \(TrafficReport.grouped(r.breaking)) (\(TrafficReport.percent(r.breaking, of: r.requests))) | "
                        + "\(TrafficReport.grouped(r.changed)) (\(TrafficReport.percent(r.changed, of: r.requests))) |\n"
                }
            }
            let weighted = report.trafficFindings
            if !weighted.isEmpty {
                out += "\n| | Route | Before | After | Requests | URLs | Fingerprint |\n| --- | --- | --- | --- | ---: | --- | --- |\n"
                var shownRows = 0
                for f in weighted {
                    let icon = f.severity == .breaking ? "🔴 breaking" : f.severity == .changed ? "🟡 changed" : "🟢 added"
                    let urls = "\(f.urls): " + f.exampleURLs.map(Self.code).joined(separator: ", ") + (f.urls > f.examples.count ? ", …" : "")
                    let row = "| \(icon) | \(Self.escape(f.route)) | \(Self.escape(f.examples[0].old.description)) | "
                        + "\(Self.escape(f.examples[0].new.description)) | \(TrafficReport.grouped(f.hits)) (\(TrafficReport.percent(f.hits, of: traffic.total))) | "
                        + "\(urls) | \(Self.code(f.fingerprint)) |\n"
                    if out.utf16.count + row.utf16.count > budget / 2 { break }
                    out += row
                    shownRows += 1
                }
                if shownRows < weighted.count { out += "\n\(weighted.count - shownRows) more weighted findings left out: `--format json` lists them all.\n" }
            }
            out += "\n**All findings**, from URLs generated from the patterns (no traffic weight):\n\n"
        }
        let findings = report.findings
        var shown = 0
        if !findings.isEmpty {
            out += "| | Route | Before | After | URLs | Fingerprint |\n| --- | --- | --- | --- | --- | --- |\n"
            for f in findings {
                let icon = f.severity == .breaking ? "🔴 breaking" : f.severity == .changed ? "🟡 changed" : "🟢 added"
                let removed = report.removedNote(f.changes[0]).map { " (\(Self.escape($0)))" } ?? ""
                let urls = "\(f.changes.count): " + f.examples().map(Self.code).joined(separator: ", ") + (f.changes.count > 3 ? ", …" : "")
                let row = "| \(icon) | \(Self.escape(f.route))\(removed) | \(Self.escape(f.old.description)) | \(Self.escape(f.new.description)) | \(urls) | \(Self.code(f.fingerprint)) |\n"
                if out.utf16.count + row.utf16.count > budget { break }
                out += row
                shown += 1
            }
            if shown < findings.count {
                out += "\n\(findings.count - shown) more findings left out to stay under GitHub's comment limit: `--format json` lists them all.\n"
            }
            out += "\n"
        }
        let declarations = report.diff.declarations
        if !declarations.isEmpty {
            out += "<details><summary>\(declarations.count) declaration changes</summary>\n\n"
            var listed = 0
            for d in declarations {
                let line = "- " + Self.escape(d.description) + "\n"
                if out.utf16.count + line.utf16.count > budget + 1_000 { break }
                out += line
                listed += 1
            }
            if listed < declarations.count { out += "- … \(declarations.count - listed) more (`--format json`)\n" }
            out += "\n</details>\n\n"
        }
        let accepted = report.acceptedFindings
        if !accepted.isEmpty, out.utf16.count < budget {
            out += "Accepted (`--ignore`): " + accepted.prefix(20).map { Self.code($0.fingerprint) }.joined(separator: ", ")
                + (accepted.count > 20 ? ", …" : "") + "\n\n"
        }
        let stale = report.staleIgnores
        if !stale.isEmpty {
            out += "Stale ignore entries (they match no change): " + stale.prefix(20).map { Self.code($0.fingerprint) }.joined(separator: ", ")
                + (stale.count > 20 ? ", …" : "") + "\n"
        }
        return out
    }

    /// Text in a table cell: Markdown and HTML punctuation backslash-escaped or
    /// replaced, newlines as spaces.
    static func escape(_ text: String) -> String {
        var out = ""
        for ch in text {
            switch ch {
            case "\\", "`", "*", "_", "[", "]", "|", "#", "!", "(", ")", "~": out += "\\" + String(ch)
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "&": out += "&amp;"
            case "\n", "\r": out += " "
            default: out.append(ch)
            }
        }
        return out
    }

    /// Text as an inline code span (a URL): backticks and pipes cannot end it.
    static func code(_ text: String) -> String {
        "<code>" + escape(text) + "</code>"
    }
}
