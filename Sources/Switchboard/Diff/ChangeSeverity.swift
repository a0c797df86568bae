/// How much an outcome change matters to the people whose links it moves, as oasdiff
/// rates API changes ERR / WARN / INFO.
public enum ChangeSeverity: String, Sendable, Comparable, CaseIterable {
    /// A URL that fell back (or left the app) now opens a route.
    case added
    /// Same destination, other params, presentation or route.
    case changed
    /// A URL that opened a destination now falls back, leaves the app, is rejected or
    /// opens another destination; or its http(s) link stops opening the app.
    case breaking

    private var rank: Int {
        switch self {
        case .added: return 0
        case .changed: return 1
        case .breaking: return 2
        }
    }

    public static func < (a: ChangeSeverity, b: ChangeSeverity) -> Bool { a.rank < b.rank }

    /// The severity of going from `old` to `new` for `url`, nil when nothing a client
    /// sees differs.
    static func of(_ old: Outcome, _ new: Outcome, url: String) -> ChangeSeverity? {
        guard old != new else { return nil }
        if old.opensDestination {
            guard new.opensDestination, new.destination == old.destination else { return .breaking }
            if old.universalLink == true, new.universalLink == false, url.lowercased().hasPrefix("http") { return .breaking }
            return .changed
        }
        return new.opensDestination ? .added : .changed
    }
}
