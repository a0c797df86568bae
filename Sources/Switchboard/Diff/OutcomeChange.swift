/// A URL that resolves differently in the new manifest, in some or all of the
/// contexts that matter to it.
public struct OutcomeChange: Sendable, Equatable {
    /// Where the URL came from, to place an annotation.
    public enum Source: Sendable, Equatable {
        /// Generated from this route (its index) of the old or the new manifest.
        case oldRoute(Int)
        case newRoute(Int)
        /// A line of a `--cases` file (its index among them, and its line).
        case cases(file: Int, line: Int)
    }

    public let severity: ChangeSeverity
    public let url: String
    /// What the URL stands for (``URLCorpus/Item/shape``, or the URL of a case).
    public let shape: String
    /// The contexts it differs in; `context` says which in words, nil when in all tried.
    public let contexts: [ResolveContext]
    public let context: String?
    public let old: Outcome
    public let new: Outcome
    public let source: Source
    /// 16 hex digits of a SHA-256 of kind, routes, URL shape and context: stable across
    /// runs and sample values, for `--ignore`.
    public let fingerprint: String

    init(severity: ChangeSeverity, url: String, shape: String, contexts: [ResolveContext], context: String?,
         old: Outcome, new: Outcome, source: Source) {
        self.severity = severity
        self.url = url
        self.shape = shape
        self.contexts = contexts
        self.context = context
        self.old = old
        self.new = new
        self.source = source
        let key = [severity.rawValue, old.route ?? old.status.rawValue, new.route ?? new.status.rawValue, shape, context ?? ""]
            .joined(separator: "\u{1F}")
        self.fingerprint = String(SHA256.hex(Array(key.utf8)).prefix(16))
    }

    /// `breaking /show/sample [appVersion < 7.2.0]: matched show -> Show push => fallback`
    public var description: String {
        "\(severity.rawValue) \(url)\(context.map { " [\($0)]" } ?? ""): \(old) => \(new)"
    }
}
