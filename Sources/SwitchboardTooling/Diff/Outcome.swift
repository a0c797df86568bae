import Switchboard
import RouteMatching
/// What one resolution opens, as `diff` compares it: status, route (and the redirects
/// that led to it), destination and presentation (the fallback's too: it is a screen the
/// user sees), params, and whether the route opens the app from an http(s) link.
package struct Outcome: Sendable, Equatable, CustomStringConvertible {
    package let status: Resolution.Status
    package let route: String?
    /// The pattern (or alias) of `route` that matched, as written.
    package let pattern: String?
    /// The redirect routes followed to reach `route`, in order.
    package let via: [String]
    package let destination: String?
    package private(set) var params: JSONValue
    package let presentation: JSONValue?
    package let reason: String?
    /// The matched route's `universalLink` for an http(s) link (nil otherwise).
    package let universalLink: Bool?
    /// The keys of `params` that are the route's: bound by the pattern that matched,
    /// declared, injected, and a web route's `url`. The others are query items the route
    /// does not know (`utm_source`, `fbclid`, `ref`), which it passes on as they came: a
    /// change's fingerprint leaves them out, so one change of a route is one finding
    /// whatever tracking params its links carry.
    package let routeKeys: [String]

    init(_ result: Resolution, route matched: Route?, universalLink: Bool?) {
        status = result.status
        route = result.route?.name
        pattern = result.route?.pattern
        via = result.explanation?.steps.filter { $0.outcome == "redirected" }.map(\.route) ?? []
        destination = result.status == .matched || result.status == .fallback ? result.destination : nil
        // Keys sorted: JSON objects are unordered, and the canonical manifest a server
        // serves sorts the declarations whose order a file gives its params.
        params = JSONValue.object(result.params).sortingKeys()
        presentation = result.presentation?.json.sortingKeys()
        reason = result.reason
        self.universalLink = result.status == .matched ? universalLink : nil
        var known: Set<String> = ["url"]
        if let matched, result.status == .matched {
            known.formUnion(matched.params.map(\.name))
            known.formUnion(matched.inject.map { $0.key })
            if let pattern = matched.patterns.first(where: { $0.text == result.route?.pattern }) { known.formUnion(pattern.paramNames) }
        }
        routeKeys = (params.objectMembers ?? []).map(\.key).filter { known.contains($0) }
    }

    /// The outcome with each param's value shown as `…`: what a report of real traffic
    /// shows of params read from users' URLs.
    var withoutParamValues: Outcome {
        var copy = self
        copy.params = .object((params.objectMembers ?? []).map { .init($0.key, .string("…")) })
        return copy
    }

    /// The presentation's style (`push`, `web`, ...).
    package var style: String? { presentation?["style"]?.stringValue }

    /// Whether the user sees a web page in the app: the fallback, or a route presented `web`.
    package var isWeb: Bool { status == .fallback || (status == .matched && style == "web") }

    /// Whether the URL opens a screen of the app's own: a route presented other than `web`
    /// or `external`.
    package var isNative: Bool { status == .matched && style != "web" && style != "external" }

    /// Whether the user sees the same screen: destination and presentation alike.
    func looksLike(_ other: Outcome) -> Bool {
        status != .rejected && other.status != .rejected && status != .external && other.status != .external
            && destination == other.destination && presentation == other.presentation
    }

    /// `matched artist -> Artist push {"id":"banksy"}`, `fallback -> WebView web`, `external`;
    /// redirects as `via legacy-artist`.
    package var description: String {
        let hops = via.isEmpty ? "" : " via " + via.joined(separator: ", ")
        switch status {
        case .matched:
            let shownParams = params.objectMembers?.isEmpty == false
                ? " " + String(decoding: params.serialized(), as: UTF8.self) : ""
            return "matched \(route ?? "?")\(hops) -> \(destination ?? "?") \(style ?? "?")\(shownParams)"
                + (universalLink == false ? " (no universal link)" : "")
        case .fallback:
            return "fallback\(hops) -> \(destination ?? "?") \(style ?? "?")"
        case .external:
            return "external"
        case .rejected:
            return "rejected (\(reason ?? "?"))"
        }
    }

    /// As JSON, for the machine-readable reports.
    package var json: JSONValue {
        var members: [JSONValue.Member] = [.init("status", .string(status.rawValue))]
        if let route { members.append(.init("route", .string(route))) }
        if !via.isEmpty { members.append(.init("via", .array(via.map { .string($0) }))) }
        if let destination { members.append(.init("destination", .string(destination))) }
        if status != .rejected { members.append(.init("params", params)) }
        if let presentation { members.append(.init("presentation", presentation)) }
        if let reason { members.append(.init("reason", .string(reason))) }
        if let universalLink { members.append(.init("universalLink", .bool(universalLink))) }
        return .object(members)
    }
}
