import ArgumentParser

/// `--format`: who reads the output.
enum ReportFormat: String, ExpressibleByArgument, CaseIterable {
    /// People at a terminal.
    case text
    /// Tools.
    case json
    /// GitHub Actions: workflow annotations on the file and line.
    case github
    /// A pull-request comment (`diff` only).
    case markdown
    /// CI dashboards (`diff` only; `validate` writes JUnit with `--junit FILE`).
    case junit
}
