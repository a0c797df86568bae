import Switchboard
/// What real links do with one manifest (`switchboard traffic`): every record read is
/// tallied by outcome, route and rejection reason, exactly; links that end at the fallback
/// or are rejected are grouped by shape. Each distinct URL (in its context) is resolved
/// once and its outcome kept in a bounded table of the most requested ones
/// (``SpaceSaving``): a URL pushed out is resolved again when it comes back, which costs
/// time, never accuracy. Only the shapes' counts can be estimates: past
/// `shapeCapacity` distinct shapes, the least counted give way (the report says so).
package final class TrafficAnalysis {
    /// What the tables may hold unless told otherwise (`traffic --memory`): 128 MiB.
    package static let defaultMemoryBudget = 128 << 20
    /// An entry's bytes beside its strings' (the entry, its key's slot, the heap's
    /// indices, the strings' headers), rounded up.
    static let entryOverhead = 256

    /// What one URL in one context does, as the tallies read it.
    struct Summary {
        let status: Resolution.Status
        /// The route that answered (its index), or -1.
        let route: Int
        /// The redirect routes passed through, by index.
        let via: [Int]
        let reason: String?
        /// For the fallback and rejections: its key in ``shapes`` (status, reason and shape),
        /// and the shape.
        let shapeKey: String?
        let shape: String
        /// The URL, for its example, made only when its shape is new.
        let url: String?
    }

    /// A group of links that no route took.
    struct Nowhere {
        let shape: String
        let status: Resolution.Status
        let reason: String?
        let example: String
    }

    package let manifest: CompiledManifest
    private let shaper: TrafficShape
    /// Routes that stand in for the fallback: a lone wildcard (`/*`) presented `web`, as
    /// Eigen's table ends. A link only they take goes nowhere the app knows, and is
    /// counted as the fallback's (`diff` rates them so too).
    private let catchAll: Set<Int>
    /// Requests each stand-in took, by route index.
    private(set) var standIns: [Int: Int] = [:]
    private var cache: SpaceSaving<TrafficRecord.Key, Summary>
    private var shapes: SpaceSaving<String, Nowhere>
    private(set) var outcomes: [Resolution.Status: Int] = [:]
    private(set) var routeHits: [Int]
    private(set) var reasons: [String: Int] = [:]
    /// The distinct clients of the records that name one.
    private var clients = DistinctCount()
    /// URLs resolved: the distinct URLs, or more when some were pushed out of the table
    /// and came back.
    private(set) var resolved = 0

    /// `memoryBudget`: bytes the two tables may hold (``defaultMemoryBudget``), three
    /// quarters for the URLs, one for the shapes.
    package init(manifest: CompiledManifest, showQuery: Bool = false, cacheCapacity: Int = 100_000, shapeCapacity: Int = 10_000,
                memoryBudget: Int = TrafficAnalysis.defaultMemoryBudget) {
        self.manifest = manifest
        shaper = TrafficShape(manifest.manifest, showQuery: showQuery)
        cache = SpaceSaving(capacity: cacheCapacity, byteBudget: memoryBudget / 4 * 3) { key, summary in
            TrafficAnalysis.entryOverhead + key.url.utf8.count + summary.shape.utf8.count + (summary.shapeKey?.utf8.count ?? 0)
                + (summary.url?.utf8.count ?? 0) + (summary.reason?.utf8.count ?? 0) + 8 * summary.via.count
        }
        shapes = SpaceSaving(capacity: shapeCapacity, byteBudget: memoryBudget / 4) { key, nowhere in
            TrafficAnalysis.entryOverhead + key.utf8.count + nowhere.shape.utf8.count + nowhere.example.utf8.count
                + (nowhere.reason?.utf8.count ?? 0)
        }
        routeHits = Array(repeating: 0, count: manifest.manifest.routes.count)
        catchAll = Set(manifest.manifest.routes.filter(Self.standsInForTheFallback).map(\.index))
    }

    /// Whether `route` takes every path as a web page: a pattern that is one wildcard, presented `web`.
    static func standsInForTheFallback(_ route: Route) -> Bool {
        guard route.redirect == nil, route.presentation.style == .web else { return false }
        return route.patterns.contains { pattern in
            pattern.expansions.contains { expansion in
                expansion.count == 1 && { if case .wildcard = expansion[0] { return true } else { return false } }()
            }
        }
    }

    /// Tallies one record.
    package func add(_ record: TrafficRecord) {
        var made = false
        let summary = cache.add(record.key, weight: record.hits) {
            made = true
            return summarize(record)
        }
        if made { resolved += 1 }
        if let client = record.client { clients.add(client) }
        let hits = record.hits
        outcomes[summary.status, default: 0] += hits
        if summary.route >= 0 { routeHits[summary.route] += hits }
        if summary.status == .fallback, summary.route >= 0 { standIns[summary.route, default: 0] += hits }
        for hop in summary.via { routeHits[hop] += hits }
        if let reason = summary.reason { reasons[reason, default: 0] += hits }
        if let key = summary.shapeKey {
            shapes.add(key, weight: hits) {
                Nowhere(shape: summary.shape, status: summary.status, reason: summary.reason, example: shaper.example(summary.url ?? ""))
            }
        }
    }

    private func summarize(_ record: TrafficRecord) -> Summary {
        let result = manifest.resolve(record.url, context: record.context)
        let via = Array(result.redirects)
        let route = result.routeIndex ?? -1
        // A stand-in for the fallback: the link is counted as the fallback's, its route kept.
        let standIn = result.status == .matched && catchAll.contains(route)
        switch standIn ? .fallback : result.status {
        case .fallback, .rejected:
            // The key keeps a fallback and a rejection of one shape apart.
            let shape = shaper.shape(of: record.url)
            let key = (result.reason ?? "fallback") + "\u{0}" + shape
            return Summary(status: standIn ? .fallback : result.status, route: route, via: via, reason: result.reason, shapeKey: key,
                           shape: shape, url: record.url)
        case .matched, .external:
            return Summary(status: result.status, route: route, via: via, reason: nil, shapeKey: nil, shape: "", url: nil)
        }
    }

    /// The report of what was read. `top`: how many shapes of links that went nowhere to
    /// list; `rareBelow`: routes with fewer hits (but some) are listed as rare.
    package func report(_ reader: TrafficReader, top: Int = 20, rareBelow: Int = 10) -> TrafficReport {
        let routes = manifest.manifest.routes.map { TrafficReport.RouteHits(route: $0.name, hits: routeHits[$0.index], redirect: $0.redirect != nil) }
        return TrafficReport(
            total: reader.requests, lines: reader.lines, badLines: reader.badLines, skippedLines: reader.skippedLines,
            badExamples: reader.badExamples, formats: reader.formats.map { ($0.file, $0.format.rawValue) },
            outcomes: Resolution.Status.allCases.map { ($0, outcomes[$0] ?? 0) },
            reasons: reasons.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.map { ($0.key, $0.value) },
            routes: routes, rareBelow: rareBelow, top: top,
            nowhere: shapes.top(top).map {
                TrafficReport.Nowhere(shape: $0.value.shape, status: $0.value.status, reason: $0.value.reason, hits: $0.count,
                                      overcount: $0.error, example: $0.value.example)
            },
            nowhereShapes: shapes.count, estimated: shapes.evicted, resolved: resolved, cacheEvicted: cache.evicted,
            clients: clients.isEmpty ? nil : clients.estimate, clientsEstimated: !clients.isExact,
            manifestVersion: Int(manifest.manifest.version), etag: manifest.etag,
            notLinks: NotALink.allCases.compactMap { kind in reader.notLinks[kind].map { (kind, $0) } },
            standIns: standIns.sorted { $0.key < $1.key }.map { (manifest.manifest.routes[$0.key].name, $0.value) })
    }
}
