import Switchboard
/// Resolves a URL with one or more manifests in every context that matters to it:
/// first with no context, then in the contexts the routes reached so far depend on
/// (``ContextSpace``), again while new routes turn up.
struct ContextExploration {
    /// Rounds of widening at most.
    static let maxRounds = 4

    let manifests: [CompiledManifest]
    private let routesByName: [[String: Route]]
    private(set) var resolutions = 0

    init(_ manifests: [CompiledManifest]) {
        self.manifests = manifests
        routesByName = manifests.map { m in Dictionary(m.manifest.routes.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a }) }
    }

    /// The outcome with each manifest, per context tried (no context first); only in
    /// `fixed` when given.
    mutating func explore(_ url: String, fixed: ResolveContext? = nil) -> [(context: ResolveContext, outcomes: [Outcome])] {
        var space = ContextSpace()
        var results: [(context: ResolveContext, outcomes: [Outcome])] = []
        var tried: Set<ResolveContext> = []
        var pending: [ResolveContext] = [fixed ?? .empty]
        for _ in 0..<Self.maxRounds {
            var grew = false
            for context in pending where tried.insert(context).inserted {
                var outcomes: [Outcome] = []
                for (compiled, routes) in zip(manifests, routesByName) {
                    resolutions += 1
                    let result = compiled.resolve(url, context: context, explain: true)
                    for step in result.explanation?.steps ?? [] {
                        if let route = routes[step.route], space.add(route) { grew = true }
                    }
                    // A universal link applies to http(s) links only: an app scheme or a path
                    // opens the app whatever `universalLink` says.
                    let web = url.lowercased().hasPrefix("http:") || url.lowercased().hasPrefix("https:")
                    let route = result.route.flatMap { routes[$0.name] }
                    outcomes.append(Outcome(result, route: route, universalLink: web ? route?.universalLink : nil))
                }
                results.append((context, outcomes))
            }
            guard grew, fixed == nil else { break }
            pending = space.contexts
        }
        return results
    }
}
