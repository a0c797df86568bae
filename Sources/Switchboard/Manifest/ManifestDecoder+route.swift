import RouteMatching

/// A route object's fields, found in one pass over its members (searching the object
/// for each field cost a tenth of a load).
private struct RouteFields {
    var name, pattern, patterns, hosts, destination, presentation, params, inject, variants,
        since, until, priority, universalLink, redirect: JSONValue?
}

extension ManifestDecoder {
    mutating func decodeRoute(_ value: JSONValue, at index: Int, _ pointer: @autoclosure () -> JSONPointer) -> Route? {
        guard let members = value.objectMembers else {
            error(.typeMismatch, pointer(), "a route must be an object, not \(value.kindDescription)")
            return nil
        }
        var field = RouteFields()
        for member in members {
            switch member.key {
            case "name": field.name = member.value
            case "pattern": field.pattern = member.value
            case "patterns": field.patterns = member.value
            case "hosts": field.hosts = member.value
            case "destination": field.destination = member.value
            case "presentation": field.presentation = member.value
            case "params": field.params = member.value
            case "inject": field.inject = member.value
            case "variants": field.variants = member.value
            case "since": field.since = member.value
            case "until": field.until = member.value
            case "priority": field.priority = member.value
            case "universalLink": field.universalLink = member.value
            case "redirect": field.redirect = member.value
            case "description": break
            default: unknownField(member.key, pointer())
            }
        }
        let name = string(field.name, pointer().appending("name"))
        if field.name == nil { error(.missingField, pointer().appending("name"), "every route needs a unique \"name\"") }

        var patterns: [RoutePattern] = []
        let asList = field.patterns != nil
        switch (field.pattern, field.patterns) {
        case (nil, nil):
            error(.missingField, pointer().appending("pattern"), "a route needs \"pattern\" (or \"patterns\" for aliases)")
        case (_?, _?):
            error(.conflictingFields, pointer().appending("patterns"), "give \"pattern\" or \"patterns\", not both")
        case (let single?, nil):
            if let p = pattern(single, pointer().appending("pattern")) { patterns.append(p) }
        case (nil, let list?):
            guard let items = list.arrayValue, !items.isEmpty else {
                error(.typeMismatch, pointer().appending("patterns"), "\"patterns\" must be a non-empty array of patterns")
                break
            }
            for (i, item) in items.enumerated() {
                if let p = pattern(item, pointer().appending("patterns").appending(i)) { patterns.append(p) }
            }
        }

        var hostKeysOfRoute: [String]? = nil
        let hostsWritten = stringList(field.hosts, pointer().appending("hosts"))
        if let hostsWritten {
            if hostsWritten.isEmpty { error(.invalidValue, pointer().appending("hosts"), "\"hosts\" must not be empty; leave it out to apply to every host") }
            var keys: [String] = []
            for (i, host) in hostsWritten.enumerated() {
                guard case .success(let key) = HostName.key(listed: host), hostKeys.contains(key) else {
                    error(.unknownHost, pointer().appending("hosts").appending(i), "\"\(host)\" is not listed in the top-level \"hosts\"")
                    continue
                }
                if !keys.contains(key) { keys.append(key) }
            }
            hostKeysOfRoute = keys
        }

        let redirect = field.redirect.flatMap { pattern($0, pointer().appending("redirect")) }
        let destination = string(field.destination, pointer().appending("destination"))
        if field.redirect != nil {
            for (key, given) in [("destination", field.destination), ("presentation", field.presentation),
                                 ("variants", field.variants), ("inject", field.inject)] where given != nil {
                error(.redirectConflict, pointer().appending(key), "a redirect route has no \"\(key)\": the route it leads to decides")
            }
        } else if field.destination == nil {
            error(.missingField, pointer().appending("destination"), "a route needs \"destination\" (the screen to open) or \"redirect\"")
        }
        let presentation = field.presentation.flatMap { decodePresentation($0, pointer().appending("presentation")) } ?? .push

        let pathParams = patterns.count == 1 ? patterns[0].paramNames : patterns.flatMap(\.paramNames)
        var params: [ParamDeclaration] = []
        if let declared = field.params {
            var boundEverywhere = patterns.first?.requiredParamNames ?? []
            for other in patterns.dropFirst() {
                let required = other.requiredParamNames
                boundEverywhere.removeAll { !required.contains($0) }
            }
            params = decodeParams(declared, pointer().appending("params"), boundByEveryExpansion: boundEverywhere)
        }
        let known = pathParams + params.map(\.name)
        let inject = decodeInject(field.inject, pointer().appending("inject"), known: known)
        let variants = decodeVariants(field.variants, pointer().appending("variants"))

        let since = version(field.since, pointer().appending("since"))
        let until = version(field.until, pointer().appending("until"))
        if let since, let until, since >= until {
            error(.emptyRange, pointer().appending("until"), "until \(until) is not after since \(since): the route would exist for no version")
        }
        var priority = 0
        switch field.priority {
        case nil: break
        case .integer(let p)? where abs(p) <= 1_000_000: priority = Int(p)
        case let other?: error(.invalidValue, pointer().appending("priority"), "\"priority\" must be an integer between -1000000 and 1000000, not \(Self.show(other))")
        }
        let universalLink = bool(field.universalLink, pointer().appending("universalLink")) ?? true

        if let redirect {
            for name in redirect.paramNames where !pathParams.contains(name) {
                error(.unknownParam, pointer().appending("redirect"), "the redirect uses :\(name), which the route's pattern does not bind")
            }
        }
        guard let name, !patterns.isEmpty else { return nil }
        return Route(
            index: index, name: name, patterns: patterns, patternsAsList: asList, hosts: hostKeysOfRoute, hostsAsWritten: hostsWritten,
            destination: destination, presentation: presentation, params: params, inject: inject, variants: variants,
            since: since, until: until, sinceText: field.since?.stringValue, untilText: field.until?.stringValue,
            priority: priority, universalLink: universalLink, redirect: redirect)
    }

    private mutating func pattern(_ value: JSONValue, _ pointer: @autoclosure () -> JSONPointer) -> RoutePattern? {
        guard let text = value.stringValue else {
            error(.typeMismatch, pointer(), "a pattern is a string such as \"/artwork/:id\", not \(value.kindDescription)")
            return nil
        }
        do {
            let parsed = try RoutePattern(parsing: text)
            if text.utf8.count > 1, text.utf8.last == UInt8(ascii: "/") {
                warning(.trailingSlash, pointer(), "\"\(text)\": the trailing slash is ignored (URLs lose theirs too); write \"\(text.dropLast())\"")
            }
            return parsed
        } catch {
            self.error(error.diagnosticCode, pointer(), "\"\(text)\": \(error)")
            return nil
        }
    }

    private mutating func version(_ value: JSONValue?, _ pointer: @autoclosure () -> JSONPointer) -> SemanticVersion? {
        guard let value else { return nil }
        guard let text = value.stringValue, let v = SemanticVersion(text) else {
            error(.invalidVersion, pointer(), "expected a semantic version such as \"7.2.0\", not \(Self.show(value))")
            return nil
        }
        return v
    }

    private mutating func decodeVariants(_ value: JSONValue?, _ pointer: @autoclosure () -> JSONPointer) -> [Variant] {
        guard let value else { return [] }
        guard let items = value.arrayValue else {
            error(.typeMismatch, pointer(), "\"variants\" must be an array")
            return []
        }
        var variants: [Variant] = []
        for (i, item) in items.enumerated() {
            // Pointers are built only for a diagnostic: most variants have none.
            func p() -> JSONPointer { pointer().appending(i) }
            guard let members = item.objectMembers else {
                error(.typeMismatch, p(), "a variant is an object with \"when\" and \"destination\" and/or \"presentation\"")
                continue
            }
            checkKeys(members, p(), known: ["when", "destination", "presentation"])
            var variant = Variant()
            variant.destination = string(item["destination"], p().appending("destination"))
            variant.presentation = item["presentation"].flatMap { decodePresentation($0, p().appending("presentation")) }
            if item["destination"] == nil, item["presentation"] == nil {
                error(.invalidVariant, p(), "a variant must override \"destination\" or \"presentation\"")
            }
            guard let when = item["when"], let conditions = when.objectMembers else {
                error(.missingField, p().appending("when"), "a variant needs \"when\": {\"platform\", \"idiom\", \"appVersion\"}")
                continue
            }
            for condition in conditions {
                func cp() -> JSONPointer { p().appending("when").appending(condition.key) }
                switch condition.key {
                case "platform":
                    variant.platforms = stringList(condition.value, cp(), allowSingle: true)
                    for v in variant.platforms ?? [] where !ResolveContext.platforms.contains(v) {
                        error(.invalidValue, cp(), "unknown platform \"\(v)\"; use ios, android or web")
                    }
                case "idiom":
                    variant.idioms = stringList(condition.value, cp(), allowSingle: true)
                    for v in variant.idioms ?? [] where !ResolveContext.idioms.contains(v) {
                        error(.invalidValue, cp(), "unknown idiom \"\(v)\"; use phone or tablet")
                    }
                case "appVersion":
                    guard let text = condition.value.stringValue, let range = VersionRange(parsing: text) else {
                        error(.invalidVersion, cp(), "expected a range such as \">=7.2.0 <8.0.0\", not \(Self.show(condition.value))")
                        continue
                    }
                    if range.isEmpty { error(.emptyRange, cp(), "\"\(text)\" holds for no version") }
                    variant.appVersion = range
                default:
                    error(.unknownCondition, cp(), "unknown condition \"\(condition.key)\"; use platform, idiom or appVersion")
                }
            }
            variants.append(variant)
        }
        return variants
    }

    private mutating func decodeInject(_ value: JSONValue?, _ pointer: @autoclosure () -> JSONPointer, known: [String]) -> [(key: String, value: InjectedValue)] {
        guard let value else { return [] }
        guard let members = value.objectMembers else {
            error(.typeMismatch, pointer(), "\"inject\" must be an object of param names to values")
            return []
        }
        return Self.inKeyOrder(members).compactMap { member in
            if let ref = member.value.objectMembers, ref.count == 1, ref[0].key == "param" {
                guard let source = ref[0].value.stringValue, !source.isEmpty else {
                    error(.typeMismatch, pointer().appending(member.key).appending("param"),
                          "{\"param\": name} copies the param called name: a non-empty string, not \(Self.show(ref[0].value))")
                    return nil
                }
                // Query params are params too: a name the pattern does not bind and
                // `params` does not declare is copied from the query when present.
                if !known.contains(source) {
                    warning(.undeclaredParam, pointer().appending(member.key).appending("param"),
                            "\"\(source)\" is neither in the pattern nor declared in \"params\": copied from the query when present; declare it to type-check it")
                }
                return (member.key, .param(source))
            }
            return (member.key, .constant(member.value))
        }
    }
}
