import RouteMatching

extension CompiledManifest {
    /// Redirects followed for one URL before giving up with the fallback.
    package static let maxRedirects = 8

    /// Resolves a URL given as text.
    public func resolve(_ url: String, context: ResolveContext = .empty, explain: Bool = false) -> Resolution {
        resolve(bytes: Array(url.utf8), context: context, explain: explain)
    }

    /// Resolves URL bytes (which may not be UTF-8: such input is rejected).
    public func resolve(bytes: [UInt8], context: ResolveContext = .empty, explain: Bool = false) -> Resolution {
        var plain = false
        switch scope.classify(bytes, plain: &plain) {
        case .rejected(let reason):
            return Resolution(url: bytes, reason: reason.description, target: .rejected,
                              explained: explain ? ExplanationBox(Explanation(note: "rejected: \(reason)")) : nil)
        case .external:
            return Resolution(url: bytes, plain: plain, target: .external,
                              explained: explain ? ExplanationBox(Explanation(note: "external: not a host or scheme of the app")) : nil)
        case .internal(let url):
            return resolveInternal(url, urlBytes: bytes, plain: plain, context: context, explain: explain)
        }
    }

    private func resolveInternal(_ url: consuming InternalURL, urlBytes: [UInt8], plain: Bool, context: ResolveContext,
                                 explain: Bool) -> Resolution {
        let record = explain ? ExplanationRecord(Explanation(host: url.host, path: url.path, segments: url.segments)) : nil
        // The URL's parts the result keeps are moved out of it, not copied: a copy is a
        // retain now and a release when the URL goes.
        var segments = SegmentBuffer(), query: [(key: String, value: String)] = [], fragment: [UInt8]? = nil
        swap(&segments, &url.segmentBuffer)
        swap(&query, &url.query)
        swap(&fragment, &url.fragmentBytes)
        var hops = RedirectHops()
        guard let (route, candidate) = route(host: url.host, segments: &segments, query: query, context: context,
                                             record: record, hops: &hops) else {
            if let record, record.value.note == nil { record.value.note = "no route matched: fallback" }
            return Resolution(url: urlBytes, plain: plain, target: targets.fallback, fragment: fragment, redirects: hops,
                              explained: record.map { ExplanationBox($0.value) })
        }
        let redirected = hops.count > 0
        let slot = route.variants.firstIndex { $0.applies(to: context) }.map { $0 + 1 } ?? 0
        let target = targets.target(route, pattern: candidate.patternIndex, slot: slot)
        // A web presentation carries the URL as given, unless the route binds or injects
        // `url` itself; a `url` query param never overrides it.
        let webURL = target.presentation.style == .web && !candidate.binds("url") && !route.inject.contains { $0.key == "url" }
        // A plain URL's segments are plain (read from its bytes) unless a redirect's
        // literals replaced some.
        let matched = MatchedParams(route: route, candidate: candidate, segments: segments, query: query, webURL: webURL,
                                    plainSegments: plain && !redirected)
        return Resolution(url: urlBytes, plain: plain, target: target, matched: matched, fragment: fragment, redirects: hops,
                          explained: record.map { ExplanationBox($0.value) })
    }

    /// The route that takes the URL, after redirects (each one's route appended to
    /// `hops`), leaving in `segments` the ones it matched; nil when none does (or
    /// redirects loop). Records every candidate tried in `record` when there is one.
    private func route(host: String?, segments: inout SegmentBuffer, query: [(key: String, value: String)],
                       context: ResolveContext, record: ExplanationRecord?, hops: inout RedirectHops) -> (Route, RouteCandidate)? {
        let explain = record != nil
        var taken = 0
        while true {
            let path = explain ? InternalURL(host: host, segmentBuffer: segments).path : ""
            func search(_ trie: RouteTrie) -> Int? {
                // Without an explanation to record into, a closure that does not touch it.
                if !explain {
                    return trie.match(segments) { index, failure in
                        guard failure == nil else { return false }
                        let candidate = trie.candidates[index]
                        return !refusable[candidate.route] || refusal(candidate, nil, query, context) == nil
                    }
                }
                return trie.match(segments, pruning: false) { index, failure in
                    let candidate = trie.candidates[index]
                    let refusal = refusal(candidate, failure, query, context)
                    let route = manifest.routes[candidate.route]
                    record?.value.steps.append(Explanation.Step(
                        route: route.name, pattern: route.patterns[candidate.patternIndex].text,
                        expansion: TableEntry.path(of: candidate.segments), path: path,
                        outcome: refusal == nil ? (route.redirect == nil ? "matched" : "redirected") : "refused",
                        detail: refusal?.description))
                    return refusal == nil
                }
            }
            // Routes restricted to the URL's host first, then the rest. (The candidate
            // taken, not the trie it came from: a trie copied is a retain per array.)
            let candidate: RouteCandidate
            if let restricted = restrictedTrie(for: host), let hit = search(restricted) {
                candidate = restricted.candidates[hit]
            } else if let hit = search(general) {
                candidate = general.candidates[hit]
            } else {
                return nil
            }
            let route = manifest.routes[candidate.route]
            guard let redirect = route.redirect else { return (route, candidate) }
            taken += 1
            hops.append(route.index)
            segments = Self.substitute(redirect, candidate, segments)
            if let record, let last = record.value.steps.indices.last {
                record.value.steps[last].detail = "to " + InternalURL(host: nil, segmentBuffer: segments).path
            }
            if taken > Self.maxRedirects {
                record?.value.note = "more than \(Self.maxRedirects) redirects"
                return nil
            }
        }
    }

    /// Why a candidate cannot take the URL; described only when explaining.
    enum Refusal: CustomStringConvertible {
        case type(RouteTrie.TypeFailure)
        case since(SemanticVersion, SemanticVersion)
        case until(SemanticVersion, SemanticVersion)
        case queryType(String, ParamType)
        case missing(String)

        var description: String {
            switch self {
            case .type(let f): return "param \(f.param): not \(CompiledManifest.article(f.type))"
            case .since(let since, let v): return "since \(since) > appVersion \(v)"
            case .until(let until, let v): return "until \(until) <= appVersion \(v)"
            case .queryType(let name, let type): return "query param \(name): not \(CompiledManifest.article(type))"
            case .missing(let name): return "missing required param \(name)"
            }
        }
    }

    /// Why `candidate` cannot take the URL, or nil when it can.
    private func refusal(_ candidate: RouteCandidate, _ failure: RouteTrie.TypeFailure?, _ query: [(key: String, value: String)],
                         _ context: ResolveContext) -> Refusal? {
        if let failure { return .type(failure) }
        let route = manifest.routes[candidate.route]
        // Most routes have neither bound: nothing of the version is copied for those.
        if route.since != nil || route.until != nil, let version = context.appVersion {
            if let since = route.since, version < since { return .since(since, version) }
            if let until = route.until, version >= until { return .until(until, version) }
        }
        // Only the declarations that can refuse a candidate the query decides
        // (``Route/queryChecks``), by index: a declaration is read in place, not copied
        // (its name, type and default retained and released) for each candidate offered.
        let checks = route.queryChecks
        if checks.isEmpty { return nil }
        let declarations = route.params
        for i in checks where !candidate.binds(declarations[i].name) {
            var present = false
            for item in query where item.key == declarations[i].name {
                present = true
                if !declarations[i].type.accepts(item.value) { return .queryType(declarations[i].name, declarations[i].type) }
            }
            if !present && declarations[i].required && declarations[i].defaultValue == nil { return .missing(declarations[i].name) }
        }
        return nil
    }

    static func article(_ type: ParamType) -> String {
        switch type {
        case .enumeration(let values): return "one of \(values.joined(separator: "|"))"
        case .regex(let r): return "matching /\(r.pattern)/"
        case .int: return "an int"
        case .uuid: return "a uuid"
        default: return "a \(type.name)"
        }
    }

    /// The redirect target's segments with `:params` replaced by this match's raw
    /// values; optional groups whose params are not all bound are left out. Values are
    /// data: no dot-segment removal runs on them. Copied as bytes, segment by segment.
    static func substitute(_ target: RoutePattern, _ candidate: RouteCandidate, _ segments: SegmentBuffer) -> SegmentBuffer {
        let expansion = target.expansions.first { $0.allSatisfy { $0.paramName.map { candidate.binds($0) } ?? true } } ?? []
        var out = SegmentBuffer(capacity: segments.tail(0).count + 32, segments: expansion.count + segments.count)
        for segment in expansion {
            switch segment {
            case .literal(let text): out.appendSegment(text)
            case .param(let name), .wildcard(let name):
                guard let bound = candidate.binding(name) else { continue }
                for k in bound.depth..<(bound.wildcard ? segments.count : bound.depth + 1) { out.appendSegment(k, of: segments) }
            }
        }
        return out
    }
}
