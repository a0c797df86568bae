import RouteMatching

extension ManifestDecoder {
    static let routeKeys: [String] = [
        "name", "pattern", "patterns", "hosts", "destination", "presentation", "params", "inject",
        "variants", "since", "until", "priority", "universalLink", "redirect", "description",
    ]

    mutating func decodeRoute(_ value: JSONValue, at index: Int, _ pointer: @autoclosure () -> JSONPointer) -> Route? {
        guard let members = value.objectMembers else {
            error("type-mismatch", pointer(), "a route must be an object, not \(value.kindDescription)")
            return nil
        }
        checkKeys(members, pointer(), known: Self.routeKeys)
        let name = string(value["name"], pointer().appending("name"))
        if value["name"] == nil { error("missing-field", pointer().appending("name"), "every route needs a unique \"name\"") }

        var patterns: [RoutePattern] = []
        let asList = value["patterns"] != nil
        switch (value["pattern"], value["patterns"]) {
        case (nil, nil):
            error("missing-field", pointer().appending("pattern"), "a route needs \"pattern\" (or \"patterns\" for aliases)")
        case (_?, _?):
            error("conflicting-fields", pointer().appending("patterns"), "give \"pattern\" or \"patterns\", not both")
        case (let single?, nil):
            if let p = pattern(single, pointer().appending("pattern")) { patterns.append(p) }
        case (nil, let list?):
            guard let items = list.arrayValue, !items.isEmpty else {
                error("type-mismatch", pointer().appending("patterns"), "\"patterns\" must be a non-empty array of patterns")
                break
            }
            for (i, item) in items.enumerated() {
                if let p = pattern(item, pointer().appending("patterns").appending(i)) { patterns.append(p) }
            }
        }

        var hostKeysOfRoute: [String]? = nil
        let hostsWritten = stringList(value["hosts"], pointer().appending("hosts"))
        if let hostsWritten {
            if hostsWritten.isEmpty { error("invalid-value", pointer().appending("hosts"), "\"hosts\" must not be empty; leave it out to apply to every host") }
            var keys: [String] = []
            for (i, host) in hostsWritten.enumerated() {
                guard case .success(let key) = HostName.key(listed: host), hostKeys.contains(key) else {
                    error("unknown-host", pointer().appending("hosts").appending(i), "\"\(host)\" is not listed in the top-level \"hosts\"")
                    continue
                }
                if !keys.contains(key) { keys.append(key) }
            }
            hostKeysOfRoute = keys
        }

        let redirect = value["redirect"].flatMap { pattern($0, pointer().appending("redirect")) }
        let destination = string(value["destination"], pointer().appending("destination"))
        if value["redirect"] != nil {
            for key in ["destination", "presentation", "variants", "inject"] where value[key] != nil {
                error("redirect-conflict", pointer().appending(key), "a redirect route has no \"\(key)\": the route it leads to decides")
            }
        } else if value["destination"] == nil {
            error("missing-field", pointer().appending("destination"), "a route needs \"destination\" (the screen to open) or \"redirect\"")
        }
        let presentation = value["presentation"].flatMap { decodePresentation($0, pointer().appending("presentation")) } ?? .push

        let pathParams = patterns.flatMap(\.paramNames)
        let boundEverywhere = patterns.dropFirst().reduce(patterns.first?.requiredParamNames ?? []) { $0.intersection($1.requiredParamNames) }
        let params = decodeParams(value["params"], pointer().appending("params"), boundByEveryExpansion: boundEverywhere)
        let known = pathParams + params.map(\.name)
        let inject = decodeInject(value["inject"], pointer().appending("inject"), known: known)
        let variants = decodeVariants(value["variants"], pointer().appending("variants"))

        let since = version(value["since"], pointer().appending("since"))
        let until = version(value["until"], pointer().appending("until"))
        if let since, let until, since >= until {
            error("empty-range", pointer().appending("until"), "until \(until) is not after since \(since): the route would exist for no version")
        }
        var priority = 0
        switch value["priority"] {
        case nil: break
        case .integer(let p)? where abs(p) <= 1_000_000: priority = Int(p)
        case let other?: error("invalid-value", pointer().appending("priority"), "\"priority\" must be an integer between -1000000 and 1000000, not \(Self.show(other))")
        }
        let universalLink = bool(value["universalLink"], pointer().appending("universalLink")) ?? true

        if let redirect {
            for name in redirect.paramNames where !pathParams.contains(name) {
                error("unknown-param", pointer().appending("redirect"), "the redirect uses :\(name), which the route's pattern does not bind")
            }
        }
        guard let name, !patterns.isEmpty else { return nil }
        return Route(
            index: index, name: name, patterns: patterns, patternsAsList: asList, hosts: hostKeysOfRoute, hostsAsWritten: hostsWritten,
            destination: destination, presentation: presentation, params: params, inject: inject, variants: variants,
            since: since, until: until, sinceText: value["since"]?.stringValue, untilText: value["until"]?.stringValue,
            priority: priority, universalLink: universalLink, redirect: redirect)
    }

    private mutating func pattern(_ value: JSONValue, _ pointer: @autoclosure () -> JSONPointer) -> RoutePattern? {
        guard let text = value.stringValue else {
            error("type-mismatch", pointer(), "a pattern is a string such as \"/artwork/:id\", not \(value.kindDescription)")
            return nil
        }
        do {
            let parsed = try RoutePattern(parsing: text)
            if text.utf8.count > 1, text.utf8.last == UInt8(ascii: "/") {
                warning("trailing-slash", pointer(), "\"\(text)\": the trailing slash is ignored (URLs lose theirs too); write \"\(text.dropLast())\"")
            }
            return parsed
        } catch {
            self.error(error.code, pointer(), "\"\(text)\": \(error)")
            return nil
        }
    }

    private mutating func version(_ value: JSONValue?, _ pointer: @autoclosure () -> JSONPointer) -> SemanticVersion? {
        guard let value else { return nil }
        guard let text = value.stringValue, let v = SemanticVersion(text) else {
            error("invalid-version", pointer(), "expected a semantic version such as \"7.2.0\", not \(Self.show(value))")
            return nil
        }
        return v
    }

    private mutating func decodeVariants(_ value: JSONValue?, _ pointer: @autoclosure () -> JSONPointer) -> [Variant] {
        guard let value else { return [] }
        guard let items = value.arrayValue else {
            error("type-mismatch", pointer(), "\"variants\" must be an array")
            return []
        }
        var variants: [Variant] = []
        for (i, item) in items.enumerated() {
            let p = pointer().appending(i)
            guard let members = item.objectMembers else {
                error("type-mismatch", p, "a variant is an object with \"when\" and \"destination\" and/or \"presentation\"")
                continue
            }
            checkKeys(members, p, known: ["when", "destination", "presentation"])
            var variant = Variant()
            variant.destination = string(item["destination"], p.appending("destination"))
            variant.presentation = item["presentation"].flatMap { decodePresentation($0, p.appending("presentation")) }
            if item["destination"] == nil, item["presentation"] == nil {
                error("invalid-variant", p, "a variant must override \"destination\" or \"presentation\"")
            }
            guard let when = item["when"], let conditions = when.objectMembers else {
                error("missing-field", p.appending("when"), "a variant needs \"when\": {\"platform\", \"idiom\", \"appVersion\"}")
                continue
            }
            for condition in conditions {
                let cp = p.appending("when").appending(condition.key)
                switch condition.key {
                case "platform":
                    variant.platforms = stringList(condition.value, cp, allowSingle: true)
                    for v in variant.platforms ?? [] where !ResolveContext.platforms.contains(v) {
                        error("invalid-value", cp, "unknown platform \"\(v)\"; use ios, android or web")
                    }
                case "idiom":
                    variant.idioms = stringList(condition.value, cp, allowSingle: true)
                    for v in variant.idioms ?? [] where !ResolveContext.idioms.contains(v) {
                        error("invalid-value", cp, "unknown idiom \"\(v)\"; use phone or tablet")
                    }
                case "appVersion":
                    guard let text = condition.value.stringValue, let range = VersionRange(parsing: text) else {
                        error("invalid-version", cp, "expected a range such as \">=7.2.0 <8.0.0\", not \(Self.show(condition.value))")
                        continue
                    }
                    if range.isEmpty { error("empty-range", cp, "\"\(text)\" holds for no version") }
                    variant.appVersion = range
                default:
                    error("unknown-condition", cp, "unknown condition \"\(condition.key)\"; use platform, idiom or appVersion")
                }
            }
            variants.append(variant)
        }
        return variants
    }

    private mutating func decodeInject(_ value: JSONValue?, _ pointer: @autoclosure () -> JSONPointer, known: [String]) -> [(key: String, value: InjectedValue)] {
        guard let value else { return [] }
        guard let members = value.objectMembers else {
            error("type-mismatch", pointer(), "\"inject\" must be an object of param names to values")
            return []
        }
        return Self.inKeyOrder(members).compactMap { member in
            if let ref = member.value.objectMembers, ref.count == 1, ref[0].key == "param" {
                guard let source = ref[0].value.stringValue, !source.isEmpty else {
                    error("type-mismatch", pointer().appending(member.key).appending("param"),
                          "{\"param\": name} copies the param called name: a non-empty string, not \(Self.show(ref[0].value))")
                    return nil
                }
                // Query params are params too: a name the pattern does not bind and
                // `params` does not declare is copied from the query when present.
                if !known.contains(source) {
                    warning("undeclared-param", pointer().appending(member.key).appending("param"),
                            "\"\(source)\" is neither in the pattern nor declared in \"params\": copied from the query when present; declare it to type-check it")
                }
                return (member.key, .param(source))
            }
            return (member.key, .constant(member.value))
        }
    }
}
