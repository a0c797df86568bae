import Testing
import RouteMatching
@testable import Switchboard
@testable import SwitchboardTooling

/// `explain=near` looks at every expansion of the table, so it counts differences
/// without building strings; these tests hold it to the plain search it replaced.
struct NearMissTests {
    /// The plain search: every table entry, reasons written as they are found.
    static func reference(_ m: CompiledManifest, host: String?, segments: [String], context: ResolveContext,
                          tried: [Explanation.Step]) -> [NearMiss] {
        let triedKeys = Set(tried.map { "\($0.route)\u{1F}\($0.pattern)" })
        let keys = m.manifest.caseSensitive ? segments : segments.map { $0.lowercased() }
        var found: [(NearMiss, Int, Int)] = []
        for entry in m.table where !triedKeys.contains("\(entry.route.name)\u{1F}\(entry.pattern)") {
            var reasons: [String] = []
            var cost = 0
            if let only = entry.host, only != host { reasons.append("host: only on \(only)"); cost += 4 }
            let hasWildcard = entry.segments.last.map { if case .wildcard = $0 { return true } else { return false } } ?? false
            let fixed = hasWildcard ? entry.segments.count - 1 : entry.segments.count
            guard hasWildcard ? segments.count >= fixed : segments.count == fixed else { continue }
            for (k, matcher) in entry.segments.prefix(fixed).enumerated() {
                switch matcher {
                case .literal(let key) where key != keys[k]:
                    reasons.append("segment \(k + 1): \"\(segments[k])\" is not \"\(key)\"")
                    cost += levenshtein(Array(keys[k].utf8), Array(key.utf8))
                case .param(let name, let type) where !type.accepts(segments[k]):
                    reasons.append("param \(name): not \(CompiledManifest.article(type))")
                    cost += 4
                default:
                    break
                }
            }
            if let version = context.appVersion {
                if let since = entry.route.since, version < since { reasons.append("since \(since) > appVersion \(version)"); cost += 4 }
                if let until = entry.route.until, version >= until { reasons.append("until \(until) <= appVersion \(version)"); cost += 4 }
            }
            guard (1...2).contains(reasons.count) else { continue }
            found.append((NearMiss(route: entry.route.name, pattern: entry.pattern, path: entry.path, reason: reasons[0],
                                   distance: reasons.count), cost, found.count))
        }
        found.sort { ($0.0.distance, $0.1, $0.2) < ($1.0.distance, $1.1, $1.2) }
        return found.prefix(CompiledManifest.maxNearMisses).map(\.0)
    }

    /// Levenshtein distance, the textbook full matrix (inputs under 64 bytes here).
    static func levenshtein(_ a: [UInt8], _ b: [UInt8]) -> Int {
        var d = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { d[i][0] = i }
        for j in 0...b.count { d[0][j] = j }
        for i in stride(from: 1, through: a.count, by: 1) {
            for j in stride(from: 1, through: b.count, by: 1) {
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
        }
        return d[a.count][b.count]
    }

    @Test func agreesWithThePlainSearchOverTheBundledCorpus() throws {
        let m = try ManifestFile.load(#filePath.components(separatedBy: "/Tests/")[0] + "/Config/routes.json")
        let corpus = URLCorpus(m.manifest).items.map(\.url)
        let extra = ["/artist/banksy/work", "/artist-seriez/x", "/user/conversations/12", "https://live.artsy.net/x", "/", "/a/b/c/d/e"]
        let contexts = [ResolveContext.empty, ResolveContext(appVersion: SemanticVersion("7.1.0")!),
                        ResolveContext(appVersion: SemanticVersion("5.0.0")!)]
        var compared = 0
        for url in corpus + extra {
            guard case .internal(let parsed) = m.scope.classify(Array(url.utf8)) else { continue }
            for context in contexts {
                let result = m.resolveExplainingNearMisses(bytes: Array(url.utf8), context: context)
                let steps = result.explanation?.steps ?? []
                let expected = Self.reference(m, host: parsed.host, segments: parsed.segments, context: context, tried: steps)
                #expect(result.explanation?.near == expected, "\(url) \(context)")
                compared += 1
            }
        }
        #expect(compared > 300)
    }

    @Test func editDistanceIsLevenshtein() {
        var scratch: [Int] = []
        for (a, b) in [("", ""), ("", "abc"), ("kitten", "sitting"), ("artist-seriez", "artist-series"), ("é", "e"),
                       (String(repeating: "a", count: 80), String(repeating: "b", count: 70)), ("flaw", "lawn"), ("abc", "")] {
            let expected = Self.levenshtein(Array(a.utf8.prefix(64)), Array(b.utf8.prefix(64)))
            #expect(CompiledManifest.editDistance(a, b, scratch: &scratch) == expected, "\(a) \(b)")
        }
    }
}
