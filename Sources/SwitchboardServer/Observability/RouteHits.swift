import Switchboard
import Synchronization

/// Requests per route for `switchboard_route_hits_total{route, outcome}`: how many each
/// route answered (`matched`) and, for a redirect route, passed on (`redirected`). One
/// counter pair per route of the manifest in service, so the series are bounded by its
/// routes; a reload carries each route's counts over by name, and a route the new
/// manifest drops is no longer reported. Counting a resolution is one relaxed atomic add
/// for its route and one per redirect it followed, on counters found by index: no lock,
/// no lookup by name.
final class RouteHits: Sendable {
    final class Counter: Sendable {
        let matched = Atomic<Int>(0)
        let redirected = Atomic<Int>(0)
    }

    /// By route index of the manifest it was made for.
    let counters: [Counter]
    let names: [String]
    /// Which routes redirect: their series is `redirected`, the others' `matched`.
    let redirects: [Bool]

    /// Counters for `manifest`'s routes, the same objects as `previous`'s for routes of the
    /// same name (a request still answered from the old manifest counts where the new one
    /// reads).
    init(_ manifest: Manifest, carrying previous: RouteHits? = nil) {
        let kept = previous.map { Dictionary(zip($0.names, $0.counters), uniquingKeysWith: { a, _ in a }) } ?? [:]
        names = manifest.routes.map(\.name)
        redirects = manifest.routes.map { $0.redirect != nil }
        counters = names.map { kept[$0] ?? Counter() }
    }

    /// Counts what `result` did.
    @inline(__always)
    func count(_ result: borrowing Resolution) {
        count(route: result.routeIndex, redirects: result.redirects)
    }

    /// A resolution's route (the one that answered) and the redirect routes it passed.
    func count(route: Int?, redirects: RedirectHops) {
        if let route { counters[route].matched.wrappingAdd(1, ordering: .relaxed) }
        for hop in redirects { counters[hop].redirected.wrappingAdd(1, ordering: .relaxed) }
    }

    /// The Prometheus series, every route of the manifest included (a dead route shows 0).
    func render(into out: inout String) {
        out += "# HELP switchboard_route_hits_total Resolutions by route: answered (matched) or passed on by a redirect (redirected).\n"
        out += "# TYPE switchboard_route_hits_total counter\n"
        for (i, name) in names.enumerated() {
            let hits = redirects[i] ? counters[i].redirected.load(ordering: .relaxed) : counters[i].matched.load(ordering: .relaxed)
            out += "switchboard_route_hits_total{route=\"\(Self.label(name))\",outcome=\"\(redirects[i] ? "redirected" : "matched")\"} \(hits)\n"
        }
    }

    /// A label value as the exposition format writes it: `\`, `"` and a line end escaped.
    static func label(_ text: String) -> String {
        guard text.contains(where: { $0 == "\\" || $0 == "\"" || $0 == "\n" }) else { return text }
        return text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
    }
}
