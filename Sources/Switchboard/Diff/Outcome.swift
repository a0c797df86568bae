/// What one resolution opens, as `diff` compares it: status, route, destination,
/// params, presentation, and whether the route opens the app from an http(s) link.
public struct Outcome: Sendable, Equatable, CustomStringConvertible {
    public let status: Resolution.Status
    public let route: String?
    public let destination: String?
    public let params: JSONValue
    public let presentation: JSONValue?
    public let reason: String?
    /// The matched route's `universalLink` (nil when nothing matched).
    public let universalLink: Bool?

    init(_ result: Resolution, universalLink: Bool?) {
        status = result.status
        route = result.route?.name
        destination = result.status == .matched ? result.destination : nil
        // Keys sorted: JSON objects are unordered, and the canonical manifest a server
        // serves sorts the declarations whose order a file gives its params.
        params = JSONValue.object(result.params).sortingKeys()
        presentation = result.presentation?.json.sortingKeys()
        reason = result.reason
        self.universalLink = result.status == .matched ? universalLink : nil
    }

    /// Whether the URL opens a route's destination (a fallback counts as none).
    public var opensDestination: Bool { status == .matched }

    /// `matched artist -> Artist push {"id":"banksy"}`, `fallback -> WebView`, `external`.
    public var description: String {
        switch status {
        case .matched:
            let style = presentation?["style"]?.stringValue ?? "?"
            let shownParams = params.objectMembers?.isEmpty == false
                ? " " + String(decoding: params.serialized(), as: UTF8.self) : ""
            return "matched \(route ?? "?") -> \(destination ?? "?") \(style)\(shownParams)"
                + (universalLink == false ? " (no universal link)" : "")
        case .fallback:
            return "fallback"
        case .external:
            return "external"
        case .rejected:
            return "rejected (\(reason ?? "?"))"
        }
    }

    /// As JSON, for the machine-readable reports.
    public var json: JSONValue {
        var members: [JSONValue.Member] = [.init("status", .string(status.rawValue))]
        if let route { members.append(.init("route", .string(route))) }
        if let destination { members.append(.init("destination", .string(destination))) }
        if status != .rejected { members.append(.init("params", params)) }
        if let presentation { members.append(.init("presentation", presentation)) }
        if let reason { members.append(.init("reason", .string(reason))) }
        if let universalLink { members.append(.init("universalLink", .bool(universalLink))) }
        return .object(members)
    }
}
