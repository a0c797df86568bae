import Switchboard
/// How much an outcome change matters to the people whose links it moves, judged by
/// what they see, as oasdiff rates API changes ERR / WARN / INFO.
package enum ChangeSeverity: String, Sendable, Comparable, CaseIterable {
    /// A link now opens a screen of the app: where it fell back, left the app, was
    /// refused, or opened a web page (the fallback or a route presented `web`).
    case added
    /// The user sees the same screen (the same destination, presented alike or not), or
    /// one web page for another: other params, presentation, route or redirects.
    case changed
    /// A link that opened a screen of the app now opens another, a web page (the fallback
    /// or a `web` route), leaves the app or is refused; or its http(s) link stops opening
    /// the app.
    case breaking

    private var rank: Int {
        switch self {
        case .added: return 0
        case .changed: return 1
        case .breaking: return 2
        }
    }

    package static func < (a: ChangeSeverity, b: ChangeSeverity) -> Bool { a.rank < b.rank }

    /// The severity of going from `old` to `new`, nil when nothing a client sees differs.
    static func of(_ old: Outcome, _ new: Outcome, url: String) -> ChangeSeverity? {
        guard old != new else { return nil }
        if old.universalLink == true, new.universalLink == false { return .breaking }
        if old.looksLike(new) { return .changed }
        if old.isNative {
            // The same screen presented otherwise is a change; another screen, a web page,
            // leaving the app or a refusal breaks the link.
            return new.isNative && new.destination == old.destination ? .changed : .breaking
        }
        return new.isNative ? .added : .changed
    }
}
