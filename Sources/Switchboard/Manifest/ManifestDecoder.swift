import RouteMatching

/// Turns a parsed JSON document into a ``Manifest``, collecting every problem with its
/// JSON pointer instead of stopping at the first. Structural checks that need the
/// compiled routes (ambiguity, shadowing, redirect cycles) are ``ManifestValidator``'s.
struct ManifestDecoder {
    /// Largest route table accepted.
    static let maxRoutes = 50_000
    /// Most trie candidates a manifest may compile to: every expansion of every pattern
    /// (2^n for n optional groups), once per host it is restricted to. 50,000 routes of 8
    /// groups each would be 12.8 million; this many load in about 2 s (the hardening suite's manifests cases).
    static let maxExpansions = 300_000

    private(set) var diagnostics: [ManifestDiagnostic] = []
    /// Host keys listed at the top level, for checking routes' `hosts`.
    private(set) var hostKeys: [String] = []

    mutating func error(_ code: DiagnosticCode, _ pointer: JSONPointer, _ message: String) {
        diagnostics.append(ManifestDiagnostic(code: code, pointer: pointer.description, message: message))
    }

    mutating func warning(_ code: DiagnosticCode, _ pointer: JSONPointer, _ message: String) {
        diagnostics.append(ManifestDiagnostic(.warning, code: code, pointer: pointer.description, message: message))
    }

    mutating func decode(_ document: JSONValue) -> Manifest? {
        let root = JSONPointer.root
        guard let members = document.objectMembers else {
            error(.typeMismatch, root, "the manifest must be a JSON object, not \(document.kindDescription)")
            return nil
        }
        checkKeys(members, root, known: ["version", "updatedAt", "hosts", "schemes", "caseSensitive", "fallback",
                                         "features", "messages", "apps", "routes", "$schema"])
        var version: Int64 = 1
        switch document["version"] {
        case .integer(let v)? where v >= 1: version = v
        case nil: error(.missingField, root.appending("version"), "\"version\" is required: an integer >= 1")
        case let other?: error(.invalidValue, root.appending("version"), "\"version\" must be an integer >= 1, not \(Self.show(other))")
        }
        var updatedAt: String? = nil
        var updatedAtEpoch: Int64? = nil
        if let value = document["updatedAt"] {
            if let text = value.stringValue, let epoch = RFC3339.epochSeconds(text) {
                updatedAt = text
                updatedAtEpoch = epoch
            } else {
                error(.invalidValue, root.appending("updatedAt"), "\"updatedAt\" must be an RFC 3339 time such as \"2026-11-20T10:00:00Z\"")
            }
        }
        let hosts = stringList(document["hosts"], root.appending("hosts")) ?? []
        for (i, host) in hosts.enumerated() {
            switch HostName.key(listed: host) {
            case .success(let key): hostKeys.append(key)
            case .failure(let reason): error(.invalidHost, root.appending("hosts").appending(i), "\"\(host)\" is not a valid host (\(reason))")
            }
        }
        let schemes = stringList(document["schemes"], root.appending("schemes")) ?? []
        for (i, scheme) in schemes.enumerated() {
            let lower = scheme.lowercased()
            let pointer = root.appending("schemes").appending(i)
            if lower == "http" || lower == "https" || URLScope.unsafeSchemes.contains(lower) {
                error(.invalidScheme, pointer, "\"\(scheme)\" cannot be an app scheme: list web hosts under \"hosts\"; unsafe schemes are never followed")
            } else if URLScope.schemeEnd(Array((scheme + ":").utf8)) != scheme.utf8.count {
                error(.invalidScheme, pointer, "\"\(scheme)\" is not a URL scheme (a letter, then letters, digits, '+', '-' or '.')")
            }
        }
        let caseSensitive = bool(document["caseSensitive"], root.appending("caseSensitive")) ?? false
        let fallback = decodeFallback(document["fallback"], root.appending("fallback"))
        var routes: [Route] = []
        let routesPointer = root.appending("routes")
        switch document["routes"] {
        case .array(let items)?:
            if items.isEmpty { error(.emptyRoutes, routesPointer, "\"routes\" must hold at least one route") }
            if items.count > Self.maxRoutes {
                error(.tooManyRoutes, routesPointer, "\(items.count) routes; at most \(Self.maxRoutes) are accepted")
            } else if let (count, largest) = Self.expansionCount(items), count > Self.maxExpansions {
                // Counted on the text, before any pattern is parsed or expanded.
                error(.tooManyExpansions, routesPointer,
                      "the routes expand to \(count) patterns (each optional group doubles a pattern's; /routes/\(largest) has the most); at most \(Self.maxExpansions) are accepted")
            } else {
                routes = decodeRoutes(items, routesPointer)
            }
        case nil: error(.missingField, routesPointer, "\"routes\" is required: an array of routes")
        case let other?: error(.typeMismatch, routesPointer, "\"routes\" must be an array, not \(other.kindDescription)")
        }
        checkEchoShape(document["features"], root.appending("features"), member: "value", isBoolean: true)
        checkEchoShape(document["messages"], root.appending("messages"), member: "content", isBoolean: false)
        let apps = decodeApps(document["apps"], root.appending("apps"))
        return Manifest(
            version: version, updatedAt: updatedAt, updatedAtEpoch: updatedAtEpoch, hosts: hosts,
            schemes: schemes.map { $0.lowercased() }, caseSensitive: caseSensitive, fallback: fallback,
            features: document["features"]?.sortingKeys(), messages: document["messages"]?.sortingKeys(), apps: apps, routes: routes)
    }

    /// Routes decode independently of one another: a large table is decoded in two
    /// halves at once, on two cores where there are two.
    private mutating func decodeRoutes(_ items: [JSONValue], _ pointer: JSONPointer) -> [Route] {
        @Sendable func decode(_ range: Range<Int>, with decoder: inout ManifestDecoder) -> [Route] {
            var routes: [Route] = []
            routes.reserveCapacity(range.count)
            for i in range {
                if let route = decoder.decodeRoute(items[i], at: i, pointer.appending(i)) { routes.append(route) }
            }
            return routes
        }
        guard items.count >= Self.routesDecodedInHalves else { return decode(items.indices, with: &self) }
        // Each half starts from this decoder (its host keys) and reports its own problems.
        var empty = self
        empty.diagnostics = []
        let start = empty, half = items.count / 2
        let (first, second) = concurrently({
            var decoder = start
            return (decode(0..<half, with: &decoder), decoder.diagnostics)
        }, {
            var decoder = start
            return (decode(half..<items.count, with: &decoder), decoder.diagnostics)
        })
        diagnostics += first.1 + second.1
        return first.0 + second.0
    }

    /// From how many routes decoding is worth splitting: handing half to another thread
    /// costs as much as decoding tens of routes, so a small table is decoded on one.
    static let routesDecodedInHalves = 1_000

    /// How many trie candidates `routes` would compile to, counted on the patterns' text
    /// (2^groups per pattern and redirect, times the route's hosts), and the route that
    /// contributes most; nil when under the cap is certain.
    static func expansionCount(_ routes: [JSONValue]) -> (Int, Int)? {
        var total = 0, largest = 0, most = 0
        func expansions(_ value: JSONValue) -> Int {
            guard let text = value.stringValue else { return 0 }
            var groups = 0
            for byte in text.utf8 where byte == UInt8(ascii: "(") { groups += 1 }
            return 1 << min(groups, RoutePattern.maxOptionalGroups)
        }
        for (index, route) in routes.enumerated() {
            // One pass over the route's members: this runs on every load.
            var count = 0, hosts = 1
            for member in route.objectMembers ?? [] {
                switch member.key {
                case "pattern", "redirect": count += expansions(member.value)
                case "patterns": for item in member.value.arrayValue ?? [] { count += expansions(item) }
                case "hosts": hosts = max(1, member.value.arrayValue?.count ?? 1)
                default: break
                }
            }
            count *= hosts
            total += count
            if count > most { most = count; largest = index }
        }
        return total > maxExpansions ? (total, largest) : nil
    }

    /// `features` and `messages` are passed through untouched, but Echo's clients read
    /// only arrays of `{"name", "value": boolean}` and `{"name", "content": string}`.
    private mutating func checkEchoShape(_ value: JSONValue?, _ pointer: JSONPointer, member: String, isBoolean: Bool) {
        guard let value else { return }
        let example = isBoolean ? "[{\"name\": \"ipad_vir\", \"value\": false}]" : "[{\"name\": \"LiveAuctionsCurrentWebSocketVersion\", \"content\": \"3\"}]"
        guard let items = value.arrayValue else {
            warning(.echoShape, pointer, "served as written, but Echo's clients read an array such as \(example), not \(value.kindDescription)")
            return
        }
        for (i, item) in items.enumerated() {
            var fits = item["name"]?.stringValue != nil
            switch item[member] {
            case .bool?: fits = fits && isBoolean
            case .string?: fits = fits && !isBoolean
            default: fits = false
            }
            if !fits {
                warning(.echoShape, pointer.appending(i), "served as written, but Echo's clients read items such as \(example)")
            }
        }
    }

    private mutating func decodeFallback(_ value: JSONValue?, _ pointer: @autoclosure () -> JSONPointer) -> Fallback {
        guard let value else { return .default }
        guard let members = value.objectMembers else {
            error(.typeMismatch, pointer(), "\"fallback\" must be an object such as {\"destination\": \"WebView\", \"presentation\": \"web\"}")
            return .default
        }
        checkKeys(members, pointer(), known: ["destination", "presentation"])
        let destination = string(value["destination"], pointer().appending("destination")) ?? Fallback.default.destination
        let presentation = value["presentation"].flatMap { decodePresentation($0, pointer().appending("presentation")) } ?? .web
        return Fallback(destination: destination, presentation: presentation)
    }

    mutating func decodePresentation(_ value: JSONValue, _ pointer: @autoclosure () -> JSONPointer) -> Presentation? {
        switch value {
        case .string(let name):
            guard let style = Presentation.Style(rawValue: name) else {
                error(.unknownStyle, pointer(), "unknown presentation style \"\(name)\"; use one of \(Self.styleList)")
                return nil
            }
            if style == .tab {
                error(.missingTab, pointer(), "style \"tab\" needs the tab to switch to: {\"style\": \"tab\", \"tab\": \"home\"}")
            }
            return Presentation(style: style)
        case .object(let members):
            guard let styleValue = value["style"] else {
                error(.missingField, pointer().appending("style"), "a presentation object needs \"style\"")
                return nil
            }
            guard let name = styleValue.stringValue, let style = Presentation.Style(rawValue: name) else {
                error(.unknownStyle, pointer().appending("style"), "unknown presentation style \(Self.show(styleValue)); use one of \(Self.styleList)")
                return nil
            }
            if style == .tab {
                switch value["tab"] {
                case .string(let tab)? where !tab.isEmpty: break
                case nil: error(.missingTab, pointer(), "style \"tab\" needs \"tab\": the tab to switch to")
                default: error(.invalidValue, pointer().appending("tab"), "\"tab\" must be a non-empty string")
                }
            }
            return Presentation(style: style, options: Self.inKeyOrder(members.filter { $0.key != "style" }))
        default:
            error(.typeMismatch, pointer(), "a presentation is a style name or an object with \"style\", not \(value.kindDescription)")
            return nil
        }
    }

    private static let styleList = Presentation.Style.allCases.map(\.rawValue).joined(separator: ", ")

    /// Members in key order, their values too: what a result or the Echo document shows of
    /// the manifest (declared params, `inject`, presentation fields, defaults, features)
    /// comes out in the canonical manifest's order, not the file's, so that a manifest and
    /// its canonical form (what `GET /v1/manifest` serves, one ETag) answer with the same
    /// bytes.
    static func inKeyOrder(_ members: [JSONValue.Member]) -> [JSONValue.Member] {
        // sortingKeys copies nothing when the members are in order already (most are).
        JSONValue.object(members).sortingKeys().objectMembers ?? members
    }

    // MARK: - Typed accessors that record what is wrong

    mutating func checkKeys(_ members: [JSONValue.Member], _ pointer: @autoclosure () -> JSONPointer, known: [String]) {
        for member in members where !known.contains(where: { JSONValue.sameKey($0, member.key) }) {
            unknownField(member.key, pointer())
        }
    }

    /// The warning for a member no field of its object reads.
    mutating func unknownField(_ key: String, _ object: JSONPointer) {
        warning(.unknownField, object.appending(key), "unknown field \"\(key)\" is ignored")
    }

    mutating func string(_ value: JSONValue?, _ pointer: @autoclosure () -> JSONPointer, nonEmpty: Bool = true) -> String? {
        guard let value else { return nil }
        guard let s = value.stringValue, !nonEmpty || !s.isEmpty else {
            error(.typeMismatch, pointer(), "expected a non-empty string, not \(Self.show(value))")
            return nil
        }
        return s
    }

    mutating func bool(_ value: JSONValue?, _ pointer: @autoclosure () -> JSONPointer) -> Bool? {
        guard let value else { return nil }
        guard case .bool(let b) = value else {
            error(.typeMismatch, pointer(), "expected true or false, not \(Self.show(value))")
            return nil
        }
        return b
    }

    /// A string or a list of strings.
    mutating func stringList(_ value: JSONValue?, _ pointer: @autoclosure () -> JSONPointer, allowSingle: Bool = false) -> [String]? {
        guard let value else { return nil }
        if allowSingle, let s = value.stringValue { return [s] }
        guard let items = value.arrayValue else {
            error(.typeMismatch, pointer(), "expected an array of strings, not \(value.kindDescription)")
            return nil
        }
        var out: [String] = []
        for (i, item) in items.enumerated() {
            if let s = string(item, pointer().appending(i)) { out.append(s) }
        }
        return out
    }

    /// A short rendering of a value for messages.
    static func show(_ value: JSONValue) -> String {
        let bytes = value.serialized()
        let text = String(decoding: bytes.prefix(40), as: UTF8.self)
        return bytes.count > 40 ? text + "…" : text
    }
}
