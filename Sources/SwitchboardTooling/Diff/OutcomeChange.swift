import Switchboard
/// A URL that resolves differently in the new manifest, in some or all of the
/// contexts that matter to it.
package struct OutcomeChange: Sendable, Equatable {
    /// Where the URL came from, to place an annotation.
    package enum Source: Sendable, Equatable {
        /// Generated from this route (its index) of the old or the new manifest.
        case oldRoute(Int)
        case newRoute(Int)
        /// A line of a `--cases` file (its index among them, and its line).
        case cases(file: Int, line: Int)
        /// A request read from `--traffic` files.
        case traffic
    }

    package let severity: ChangeSeverity
    package let url: String
    /// What the URL stands for (``URLCorpus/Item/pattern``, or the URL of a case).
    package let shape: String
    /// The contexts it differs in; `context` says which in words, nil when in all tried.
    package let contexts: [ResolveContext]
    package let context: String?
    package let old: Outcome
    package let new: Outcome
    package let source: Source
    /// The change as `--ignore` accepts it: 16 hex digits of a SHA-256 of the outcome
    /// before and after (route, redirects, destination, presentation, the keys of the
    /// params that are the route's, not query items it does not know, an http(s) link
    /// that stops or starts opening the app) and the URL's shape: the
    /// route and pattern that matched it before (else after), so its hosts, schemes and
    /// sample values are folded together. Not of contexts or order, and nothing versioned:
    /// stable across runs and releases, and the same for every URL of one route that
    /// changes alike, so one accepted route change is one line, and a different later
    /// change of the same URLs is not covered by it.
    package let fingerprint: String

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
        // Whether an http(s) link opens the app is part of the change only when a route
        // that matches before and after changed it.
        var link = ""
        if let before = old.universalLink, let after = new.universalLink, before != after { link = "universalLink \(before) -> \(after)" }
        // The URL's shape: the pattern that matched it before, else after (every URL a
        // route's pattern takes, whichever corpus it came from), else what it was made from.
        let matched = [old, new].first { $0.route != nil }.map { "\($0.route ?? "") \($0.pattern ?? "")" } ?? shape
        let key = (Self.fingerprintFields(old) + Self.fingerprintFields(new) + [link, matched]).joined(separator: "\u{1F}")
        self.fingerprint = String(SHA256.hex(Array(key.utf8)).prefix(16))
    }

    /// What a fingerprint reads of an outcome.
    static func fingerprintFields(_ o: Outcome) -> [String] {
        let keys = o.routeKeys.sorted().joined(separator: ",")
        let presentation = o.presentation.map { String(decoding: $0.serialized(sortedKeys: true), as: UTF8.self) } ?? ""
        return [o.status.rawValue, o.route ?? "", o.via.joined(separator: ","), o.destination ?? "", presentation, keys]
    }

    /// The URL with the contexts it changed in, as reports list it: `/show/x [on ios]`,
    /// `/show/x [platform=ios]` (a case's or a request's own context, written as a case
    /// writes it).
    package var urlInContext: String {
        guard let context else { return url }
        return url + " " + (context.hasPrefix("[") ? context : "[\(context)]")
    }

    /// `breaking /show/sample [appVersion < 7.2.0]: matched show -> Show push => fallback`
    package var description: String {
        "\(severity.rawValue) \(urlInContext): \(old) => \(new)"
    }
}
