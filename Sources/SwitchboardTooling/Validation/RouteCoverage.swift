import Switchboard
/// Which routes and aliases a set of cases reaches, as Envoy's `router_check_tool
/// --covall` reports: a route's pattern counts as reached when a case matched it or
/// redirected through it.
package struct RouteCoverage: Sendable {
    /// One pattern (or alias) of one route.
    package struct Target: Sendable, Hashable, CustomStringConvertible {
        package let route: String
        package let pattern: String
        package var description: String { "\(route) \(pattern)" }
    }

    /// Every route's every pattern, in manifest order.
    package let targets: [Target]
    /// Those no case reached.
    package let unreached: [Target]

    package init(manifest: Manifest, results: [ResultSummary]) {
        var reached: Set<Target> = []
        for result in results {
            if result.status == "matched", let route = result.route, let pattern = result.pattern {
                reached.insert(Target(route: route, pattern: pattern))
            }
            for hop in result.redirects { reached.insert(Target(route: hop.route, pattern: hop.pattern)) }
        }
        targets = manifest.routes.flatMap { route in route.patterns.map { Target(route: route.name, pattern: $0.text) } }
        unreached = targets.filter { !reached.contains($0) }
    }

    /// The share reached, 0...100 (100 for a manifest without routes).
    package var percent: Double {
        targets.isEmpty ? 100 : Double(targets.count - unreached.count) * 100 / Double(targets.count)
    }

    /// `coverage: 14 of 16 routes and aliases reached (87.5%)`
    package var summary: String {
        let shown = (percent * 10).rounded(.down) / 10
        return "coverage: \(targets.count - unreached.count) of \(targets.count) routes and aliases reached (\(shown)%)"
    }
}
