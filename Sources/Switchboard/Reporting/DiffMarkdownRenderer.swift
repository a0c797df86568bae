/// A pull-request comment: a summary, the outcome changes as a table, the declaration
/// changes as a list. Manifest text is escaped so that it shows as text: it cannot
/// close the table, open HTML or a link.
public struct DiffMarkdownRenderer: DiffRenderer {
    public init() {}

    public func render(_ report: DiffReport) -> String {
        var lines = ["### Switchboard: routing changes", "", "**\(Self.escape(report.summary))**", ""]
        let outcomes = report.outcomes
        if !outcomes.isEmpty {
            lines += ["| | URL | Context | Before | After | Fingerprint |", "| --- | --- | --- | --- | --- | --- |"]
            for c in outcomes {
                let icon = c.severity == .breaking ? "🔴 breaking" : c.severity == .changed ? "🟡 changed" : "🟢 added"
                lines.append("| \(icon) | \(Self.code(c.url)) | \(Self.escape(c.context ?? "all")) | \(Self.escape(c.old.description)) | \(Self.escape(c.new.description)) | \(Self.code(c.fingerprint)) |")
            }
            lines.append("")
        }
        if !report.diff.declarations.isEmpty {
            lines += ["<details><summary>\(report.diff.declarations.count) declaration changes</summary>", ""]
            lines += report.diff.declarations.map { "- " + Self.escape($0.description) }
            lines += ["", "</details>", ""]
        }
        let ignored = report.ignored
        if !ignored.isEmpty {
            lines += ["Accepted (`--ignore`):", ""]
            lines += ignored.map { "- \(Self.code($0.change.fingerprint)) \(Self.escape($0.change.description)): \(Self.escape($0.reason))" }
            lines.append("")
        }
        return lines.joined(separator: "\n")
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
