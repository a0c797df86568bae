import RouteMatching

/// A route that almost took a URL but that the search never tried (Symfony's
/// `router:match` shows these): one literal, the host, a version gate or a param type
/// differed.
public struct NearMiss: Sendable, Equatable {
    public let route: String
    /// The pattern (or alias) as written, and the expansion compared.
    public let pattern: String
    public let path: String
    /// The first difference, in the order matching meets them: host, segments, gates.
    public let reason: String
    /// How many things differed (1 or 2).
    public let distance: Int
}

extension CompiledManifest {
    /// Near misses listed at most.
    public static let maxNearMisses = 10

    /// Resolves with an explanation that also lists the routes that almost matched
    /// (`explain=near`), closest first, then in precedence order.
    public func resolveExplainingNearMisses(bytes: [UInt8], context: ResolveContext = .none) -> Resolution {
        let result = resolve(bytes: bytes, context: context, explain: true)
        guard case .internal(let url) = scope.classify(bytes), var explanation = result.explanation else { return result }
        explanation.near = nearMisses(host: url.host, segments: url.segments, context: context, tried: explanation.steps)
        return result.replacingExplanation(explanation)
    }

    /// The table entries that differ from the URL in one or two places, leaving out
    /// those the search tried.
    func nearMisses(host: String?, segments: [String], context: ResolveContext, tried: [Explanation.Step]) -> [NearMiss] {
        let triedKeys = Set(tried.map { "\($0.route)\u{1F}\($0.pattern)" })
        let keys = manifest.caseSensitive ? segments : segments.map { $0.lowercased() }
        var found: [(NearMiss, Int, Int)] = []
        for entry in table where !triedKeys.contains("\(entry.route.name)\u{1F}\(entry.pattern)") {
            var reasons: [String] = []
            // How far: a literal counts by its edit distance, anything else as a few edits.
            var cost = 0
            if let only = entry.host, only != host { reasons.append("host: only on \(only)"); cost += 4 }
            let hasWildcard = entry.segments.last.map { if case .wildcard = $0 { return true } else { return false } } ?? false
            let fixed = hasWildcard ? entry.segments.count - 1 : entry.segments.count
            guard hasWildcard ? segments.count >= fixed : segments.count == fixed else { continue }
            for (k, matcher) in entry.segments.prefix(fixed).enumerated() {
                switch matcher {
                case .literal(let key) where key != keys[k]:
                    reasons.append("segment \(k + 1): \"\(segments[k])\" is not \"\(key)\"")
                    cost += Self.editDistance(keys[k], key)
                case .param(let name, let type) where !type.accepts(segments[k]):
                    reasons.append("param \(name): not \(Self.article(type))")
                    cost += 4
                default:
                    break
                }
                if reasons.count > 2 { break }
            }
            if let version = context.appVersion {
                if let since = entry.route.since, version < since { reasons.append("since \(since) > appVersion \(version)"); cost += 4 }
                if let until = entry.route.until, version >= until { reasons.append("until \(until) <= appVersion \(version)"); cost += 4 }
            }
            guard (1...2).contains(reasons.count) else { continue }
            found.append((NearMiss(route: entry.route.name, pattern: entry.pattern, path: entry.path, reason: reasons[0],
                                   distance: reasons.count), cost, found.count))
        }
        // Closest first: fewer differences, then fewer edits, then precedence order.
        found.sort { ($0.0.distance, $0.1, $0.2) < ($1.0.distance, $1.1, $1.2) }
        return found.prefix(Self.maxNearMisses).map(\.0)
    }

    /// Levenshtein distance over characters, both capped at 64.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let x = Array(a.prefix(64)), y = Array(b.prefix(64))
        var row = Array(0...y.count)
        for i in 1...max(x.count, 1) where !x.isEmpty {
            var previous = row[0]
            row[0] = i
            for j in stride(from: 1, through: y.count, by: 1) {
                let current = row[j]
                row[j] = min(row[j] + 1, row[j - 1] + 1, previous + (x[i - 1] == y[j - 1] ? 0 : 1))
                previous = current
            }
        }
        return row[y.count]
    }
}
