import Switchboard
/// What a result says, read back from its JSON, so results computed here and results
/// fetched from a running server are judged and explained the same way.
package struct ResultSummary: Sendable, Equatable {
    package var url: String
    package var status: String
    package var route: String?
    /// The pattern (or alias) of `route` that matched.
    package var pattern: String?
    package var destination: String?
    package var reason: String?
    /// The `explain` object, when present.
    package var explain: JSONValue?

    package init?(json: JSONValue) {
        guard let url = json["url"]?.stringValue, let status = json["status"]?.stringValue else { return nil }
        self.url = url
        self.status = status
        self.route = json["route"]?["name"]?.stringValue
        self.pattern = json["route"]?["pattern"]?.stringValue
        self.destination = json["destination"]?.stringValue
        self.reason = json["reason"]?.stringValue
        self.explain = json["explain"]
    }

    /// The redirecting routes the resolution passed through (from `explain`).
    package var redirects: [(route: String, pattern: String)] {
        (explain?["tried"]?.arrayValue ?? []).compactMap { step in
            guard step["outcome"]?.stringValue == "redirected", let route = step["route"]?.stringValue,
                  let pattern = step["pattern"]?.stringValue else { return nil }
            return (route, pattern)
        }
    }

    /// `matched artwork -> Artwork`, `fallback -> WebView`, `rejected (userinfo in URL)`.
    package var outcome: String {
        switch status {
        case "matched": return "matched route \(route ?? "?") -> \(destination ?? "?")"
        case "fallback": return "fallback -> \(destination ?? "?")"
        case "rejected": return "rejected (\(reason ?? "?"))"
        default: return status
        }
    }

    /// The explanation as text lines: the one format `resolve --explain`, the API's
    /// `explain=1` and `validate` share (the same data, read from the same JSON).
    package var explanationLines: [String] {
        guard let explain else { return [] }
        var lines: [String] = []
        if let path = explain["path"]?.stringValue {
            let host = explain["host"]?.stringValue.map { " on host \($0)" } ?? ""
            lines.append("normalized path \(path)\(host)")
        }
        for step in explain["tried"]?.arrayValue ?? [] {
            let route = step["route"]?.stringValue ?? "?"
            let pattern = step["pattern"]?.stringValue ?? "?"
            let outcome = step["outcome"]?.stringValue ?? "?"
            var line = "tried \(route) \(pattern): \(outcome)"
            if let reason = step["reason"]?.stringValue { line += " (\(reason))" }
            if let detail = step["detail"]?.stringValue { line += " \(detail)" }
            if let path = step["path"]?.stringValue, path != explain["path"]?.stringValue { line += " [on \(path)]" }
            lines.append(line)
        }
        if let note = explain["note"]?.stringValue { lines.append(note) }
        for miss in explain["near"]?.arrayValue ?? [] {
            lines.append("almost \(miss["route"]?.stringValue ?? "?") \(miss["path"]?.stringValue ?? "?"): \(miss["reason"]?.stringValue ?? "?")")
        }
        return lines
    }
}
