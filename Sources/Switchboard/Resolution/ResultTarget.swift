/// Where a result sends the app: the route and pattern that matched, the destination
/// and the presentation, with their JSON written once per manifest. A resolution holds
/// one shared reference to its target (one retain) instead of a copy of each field.
final class ResultTarget: Sendable {
    /// The matched route's name and the pattern (or alias) that matched; nil for the
    /// fallback and for external URLs.
    let route: (name: String, pattern: String)?
    /// The matched route's index in the manifest, -1 for the fallback, external and
    /// rejected URLs: what counts a route's hits.
    let routeIndex: Int
    let destination: String?
    let presentation: Presentation
    /// The status of every result sent here (``Resolution/status`` reads it), which
    /// `bytes` begin with.
    let status: Resolution.Status
    /// `bytes[..<split]`: `,"status":...,"route":{...},"destination":...,"params":{`, what a result
    /// has before its params' members (without `,"params":{` when it has none);
    /// `bytes[split...]`: `},"presentation":{...}`, what follows them. One buffer, one
    /// cache line fewer for a result to fetch from a large manifest.
    let bytes: [UInt8]
    let split: Int
    var head: ArraySlice<UInt8> { bytes[..<split] }
    var tail: ArraySlice<UInt8> { bytes[split...] }

    /// `status`: that of every result sent here (a route's are matched, the fallback's
    /// fallback, external URLs' external), written first; matched and fallback results
    /// carry `params`.
    init(route: (name: String, pattern: String)?, index: Int = -1, destination: String?, presentation: Presentation,
         status: Resolution.Status = .matched) {
        self.route = route
        self.routeIndex = index
        self.destination = destination
        self.presentation = presentation
        self.status = status
        let hasParams = status != .external
        var w = JSONWriter(capacity: 180)
        w.raw(",\"status\":")
        w.string(status.rawValue)
        if let route {
            w.raw(",\"route\":{\"name\":")
            w.string(route.name)
            w.raw(",\"pattern\":")
            w.string(route.pattern)
            w.byte(UInt8(ascii: "}"))
        }
        if let destination {
            w.raw(",\"destination\":")
            w.string(destination)
        }
        if hasParams { w.raw(",\"params\":{") }
        split = w.bytes.count
        if hasParams { w.byte(UInt8(ascii: "}")) }
        w.raw(",\"presentation\":")
        presentation.write(to: &w)
        bytes = w.bytes
    }

    static let external = ResultTarget(route: nil, destination: nil, presentation: .external, status: .external)

    /// A rejected URL's: nothing to write.
    private init() {
        (route, routeIndex, destination, presentation, status, bytes, split) = (nil, -1, nil, .external, .rejected, [], 0)
    }

    static let rejected = ResultTarget()
}

/// Every target of a manifest: per route, one for each pattern and variant.
struct ResultTargets: Sendable {
    /// `[route][pattern * (1 + variants) + slot]`, slot 0 for the route itself and
    /// `1 + k` for its variant `k`.
    private let byRoute: [[ResultTarget]]
    let fallback: ResultTarget

    init(_ manifest: Manifest) {
        byRoute = manifest.routes.map { r in
            var targets: [ResultTarget] = []
            targets.reserveCapacity(r.patterns.count * (1 + r.variants.count))
            for pattern in r.patterns {
                targets.append(ResultTarget(route: (r.name, pattern.text), index: r.index, destination: r.destination,
                                            presentation: r.presentation))
                for variant in r.variants {
                    targets.append(ResultTarget(route: (r.name, pattern.text), index: r.index, destination: variant.destination ?? r.destination,
                                                presentation: variant.presentation ?? r.presentation))
                }
            }
            return targets
        }
        fallback = ResultTarget(route: nil, destination: manifest.fallback.destination, presentation: manifest.fallback.presentation,
                                status: .fallback)
    }

    func target(_ route: Route, pattern: Int, slot: Int) -> ResultTarget {
        byRoute[route.index][pattern * (1 + route.variants.count) + slot]
    }
}
