import Switchboard
/// The request contexts that matter to a URL: those that can change which route takes
/// it or what that route answers. Built from the platforms, idioms and app-version
/// boundaries of the routes that can match it (not of the whole table): each boundary,
/// and just below (or above) it where the comparison makes that a different answer.
struct ContextSpace {
    /// Contexts tried for one URL at most; beyond, the idiom axis is dropped.
    static let maxContexts = 256

    private(set) var platforms: Set<String> = []
    private(set) var idioms: Set<String> = []
    private(set) var versions: Set<SemanticVersion> = []

    /// Adds what `route` depends on; returns whether anything was new.
    @discardableResult
    mutating func add(_ route: Route) -> Bool {
        let before = (platforms.count, idioms.count, versions.count)
        if let since = route.since { addBoundary(since, below: true) }
        if let until = route.until { addBoundary(until, below: true) }
        for variant in route.variants {
            platforms.formUnion(variant.platforms ?? [])
            idioms.formUnion(variant.idioms ?? [])
            for comparator in variant.appVersion?.comparators ?? [] {
                switch comparator.op {
                case .greaterOrEqual, .less: addBoundary(comparator.version, below: true)
                case .greater, .lessOrEqual: addBoundary(comparator.version, below: false)
                case .equal: addBoundary(comparator.version, below: true); addBoundary(comparator.version, below: false)
                }
            }
        }
        return before != (platforms.count, idioms.count, versions.count)
    }

    private mutating func addBoundary(_ version: SemanticVersion, below: Bool) {
        versions.insert(version)
        if let neighbour = below ? Self.justBelow(version) : Self.justAbove(version) { versions.insert(neighbour) }
    }

    /// Every combination: no context first, then each platform, idiom and version alone
    /// and together, in a stable order.
    var contexts: [ResolveContext] {
        let p: [String?] = [nil] + platforms.sorted()
        var i: [String?] = [nil] + idioms.sorted()
        let v: [SemanticVersion?] = [nil] + versions.sorted()
        if p.count * i.count * v.count > Self.maxContexts { i = [nil] }
        var out: [ResolveContext] = []
        for platform in p {
            for idiom in i {
                for version in v { out.append(ResolveContext(platform: platform, idiom: idiom, version: version)) }
            }
        }
        return Array(out.prefix(Self.maxContexts))
    }

    /// A release version just below `v`: 7.2.3 -> 7.2.2, 7.2.0 -> 7.1.999, 7.0.0 -> 6.999.999.
    static func justBelow(_ v: SemanticVersion) -> SemanticVersion? {
        guard v.prerelease.isEmpty else { return nil }
        if v.patch > 0 { return SemanticVersion("\(v.major).\(v.minor).\(v.patch - 1)") }
        if v.minor > 0 { return SemanticVersion("\(v.major).\(v.minor - 1).999") }
        if v.major > 0 { return SemanticVersion("\(v.major - 1).999.999") }
        return nil
    }

    /// The next patch release after `v`.
    static func justAbove(_ v: SemanticVersion) -> SemanticVersion? {
        SemanticVersion("\(v.major).\(v.minor).\(v.patch + 1)")
    }

    /// The part of `tested` that `changed` covers, in words: nil when it is all of it,
    /// else `appVersion < 7.2.0 on ios`, `on tablet`, `without appVersion`, ...
    static func describe(_ changed: [ResolveContext], of tested: [ResolveContext]) -> String? {
        guard changed.count < tested.count else { return nil }
        var parts: [String] = []
        let changedVersions = Set(changed.map(\.appVersion)), testedVersions = Set(tested.map(\.appVersion))
        if changedVersions != testedVersions {
            let with = changedVersions.compactMap { $0 }.sorted(), all = testedVersions.compactMap { $0 }.sorted()
            if with.isEmpty {
                parts.append("without appVersion")
            } else if let lo = all.firstIndex(of: with[0]), let hi = all.firstIndex(of: with[with.count - 1]),
                      Array(all[lo...hi]) == with {
                // One run of the versions tried: a range between two of them.
                switch (lo == 0, hi == all.count - 1) {
                case (true, true): break
                case (true, false): parts.append("appVersion < \(all[hi + 1])")
                case (false, true): parts.append("appVersion >= \(with[0])")
                case (false, false): parts.append("\(with[0]) <= appVersion < \(all[hi + 1])")
                }
            } else {
                parts.append("appVersion " + with.map(\.description).joined(separator: ", "))
            }
        }
        for (name, value) in [("platform", \ResolveContext.platform), ("idiom", \ResolveContext.idiom)] {
            let mine = Set(changed.map { $0[keyPath: value] }), all = Set(tested.map { $0[keyPath: value] })
            guard mine != all else { continue }
            let named = mine.compactMap { $0 }.sorted()
            parts.append(named.isEmpty ? "without \(name)" : "on " + named.joined(separator: ", "))
        }
        return parts.isEmpty ? "in \(changed.count) of \(tested.count) contexts" : parts.joined(separator: " ")
    }
}
