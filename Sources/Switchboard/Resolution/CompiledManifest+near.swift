import RouteMatching

/// A route that almost took a URL but that the search never tried (Symfony's
/// `router:match` shows these): one literal, the host, a version gate or a param type
/// differed.
package struct NearMiss: Sendable, Equatable {
    package let route: String
    /// The pattern (or alias) as written, and the expansion compared.
    package let pattern: String
    package let path: String
    /// The first difference, in the order matching meets them: host, segments, gates.
    package let reason: String
    /// How many things differed (1 or 2).
    package let distance: Int
}

extension CompiledManifest {
    /// Near misses listed at most.
    package static let maxNearMisses = 10

    /// Resolves with an explanation that also lists the routes that almost matched
    /// (`explain=near`), closest first, then in precedence order.
    package func resolveExplainingNearMisses(bytes: [UInt8], context: ResolveContext = .empty) -> Resolution {
        let result = resolve(bytes: bytes, context: context, explain: true)
        guard case .internal(let url) = scope.classify(bytes), var explanation = result.explanation else { return result }
        explanation.near = nearMisses(host: url.host, segments: url.segments, context: context, tried: explanation.steps)
        return result.replacingExplanation(explanation)
    }

    /// The table entries that differ from the URL in one or two places, leaving out
    /// those the search tried. Every expansion is looked at, so the look is cheap: the
    /// differences are counted without building a string or a table entry, and only the
    /// ten kept are described.
    func nearMisses(host: String?, segments: [String], context: ResolveContext, tried: [Explanation.Step]) -> [NearMiss] {
        let triedKeys = Set(tried.map { "\($0.route)\u{1F}\($0.pattern)" })
        let keys = manifest.caseSensitive ? segments : segments.map { $0.lowercased() }
        // (trie, candidate, host) of each near miss, with its differences, edits and place.
        var found: [(trie: RouteTrie, candidate: Int, host: String?, distance: Int, cost: Int, order: Int)] = []
        var order = 0
        var scratch: [Int] = []
        let tries = byHost.sorted { $0.key < $1.key }.map { ($0.value, Optional($0.key)) } + [(general, nil)]
        for (trie, only) in tries {
            for index in trie.candidatesInPrecedenceOrder {
                order += 1
                let candidate = trie.candidates[index]
                let matchers = candidate.segments
                let hasWildcard = matchers.last.map { if case .wildcard = $0 { return true } else { return false } } ?? false
                let fixed = hasWildcard ? matchers.count - 1 : matchers.count
                guard hasWildcard ? segments.count >= fixed : segments.count == fixed else { continue }
                var distance = 0
                // How far: a literal counts by its edit distance, anything else as a few edits.
                var cost = 0
                if let only, only != host { distance += 1; cost += 4 }
                for k in 0..<fixed where distance <= 2 {
                    switch matchers[k] {
                    case .literal(let key) where key != keys[k]:
                        distance += 1
                        cost += Self.editDistance(keys[k], key, scratch: &scratch)
                    case .param(_, let type) where !type.accepts(segments[k]):
                        distance += 1
                        cost += 4
                    default:
                        break
                    }
                }
                let route = manifest.routes[candidate.route]
                if let version = context.appVersion {
                    if let since = route.since, version < since { distance += 1; cost += 4 }
                    if let until = route.until, version >= until { distance += 1; cost += 4 }
                }
                guard (1...2).contains(distance),
                      !triedKeys.contains("\(route.name)\u{1F}\(route.patterns[candidate.patternIndex].text)") else { continue }
                found.append((trie, index, only, distance, cost, order))
            }
        }
        // Closest first: fewer differences, then fewer edits, then precedence order.
        found.sort { ($0.distance, $0.cost, $0.order) < ($1.distance, $1.cost, $1.order) }
        return found.prefix(Self.maxNearMisses).map { miss in
            let candidate = miss.trie.candidates[miss.candidate]
            let route = manifest.routes[candidate.route]
            return NearMiss(route: route.name, pattern: route.patterns[candidate.patternIndex].text,
                            path: TableEntry.path(of: candidate.segments),
                            reason: firstDifference(candidate, host: miss.host, from: host, segments: segments, keys: keys, context: context),
                            distance: miss.distance)
        }
    }

    /// The first thing in which `candidate` differs from the URL, in the order matching
    /// meets them: host, segments, gates.
    private func firstDifference(_ candidate: RouteCandidate, host only: String?, from host: String?, segments: [String], keys: [String],
                                 context: ResolveContext) -> String {
        if let only, only != host { return "host: only on \(only)" }
        for (k, matcher) in candidate.segments.enumerated() where k < segments.count {
            switch matcher {
            case .literal(let key) where key != keys[k]:
                return "segment \(k + 1): \"\(segments[k])\" is not \"\(key)\""
            case .param(let name, let type) where !type.accepts(segments[k]):
                return "param \(name): not \(Self.article(type))"
            default:
                break
            }
        }
        let route = manifest.routes[candidate.route]
        if let version = context.appVersion, let since = route.since, version < since { return "since \(since) > appVersion \(version)" }
        if let version = context.appVersion, let until = route.until, version >= until { return "until \(until) <= appVersion \(version)" }
        return ""
    }

    /// Levenshtein distance over UTF-8 bytes (a ranking, so a letter outside ASCII may
    /// count as two), both capped at 64; `scratch` is a row kept between calls so that
    /// none allocates.
    static func editDistance(_ a: String, _ b: String, scratch row: inout [Int]) -> Int {
        let y = b.utf8.prefix(64)
        let width = y.count
        if row.count < width + 1 { row = Array(repeating: 0, count: width + 1) }
        for j in 0...width { row[j] = j }
        for (i, x) in a.utf8.prefix(64).enumerated() {
            var previous = row[0]
            row[0] = i + 1
            for (j, byte) in y.enumerated() {
                let current = row[j + 1]
                row[j + 1] = min(current + 1, row[j] + 1, previous + (x == byte ? 0 : 1))
                previous = current
            }
        }
        return row[width]
    }
}
