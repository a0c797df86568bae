import ArgumentParser

/// `--format` of `check` and `validate`: who reads the output.
enum ReportFormat: String, ExpressibleByArgument, CaseIterable {
    /// People at a terminal.
    case text
    /// Tools.
    case json
    /// GitHub Actions: workflow annotations on the file and line.
    case github
}

/// `--format` of `diff`: those, and two more.
enum DiffFormat: String, ExpressibleByArgument, CaseIterable {
    case text, json, github
    /// A pull-request comment.
    case markdown
    /// CI dashboards.
    case junit
}
