import RouteMatching

/// One route of the manifest, decoded and checked.
///
/// A `final class` of constants rather than a struct: a resolution reads many of its
/// fields, and one shared reference costs one retain where a struct of fifteen
/// reference-counted fields would cost fifteen.
public final class Route: Sendable {
    // What a resolution reads comes first, next to the object's header, so that on a
    // large table one or two cache lines of a cold route serve a match, not five.
    /// The route's position in the manifest's `routes` array.
    package let index: Int
    /// Declarations in the order written.
    package let params: [ParamDeclaration]
    /// The indices in `params` of the declarations some candidate of the route leaves to
    /// the query (one that every pattern binds in its path never comes from it): a
    /// resolution reads only these for query params and defaults, and most routes
    /// declare only the types of their path params.
    let queryDeclarations: [Int]
    /// Those of `queryDeclarations` that can refuse a candidate: typed, or required
    /// without a default.
    let queryChecks: [Int]
    package let inject: [(key: String, value: InjectedValue)]
    /// Whether a declared or injected param is named like an array index (`"2"`): its
    /// results' params are then written in a JavaScript object's order (``JSONWriter``).
    let namesArrayIndex: Bool
    package let variants: [Variant]
    package let redirect: RoutePattern?
    package let since: SemanticVersion?
    package let until: SemanticVersion?
    public let name: String
    /// The pattern, or the aliases of `patterns`, as parsed.
    package let patterns: [RoutePattern]
    /// Whether the manifest used `patterns` (a list) rather than `pattern`.
    package let patternsAsList: Bool
    /// Host keys this route is restricted to; nil when it applies to all.
    package let hosts: [String]?
    /// The hosts as written, for the canonical manifest.
    package let hostsAsWritten: [String]?
    public let destination: String?
    public let presentation: Presentation
    /// `since`/`until` as written.
    package let sinceText: String?
    package let untilText: String?
    package let priority: Int
    package let universalLink: Bool

    init(index: Int, name: String, patterns: [RoutePattern], patternsAsList: Bool, hosts: [String]?, hostsAsWritten: [String]?,
         destination: String?, presentation: Presentation, params: [ParamDeclaration], inject: [(key: String, value: InjectedValue)],
         variants: [Variant], since: SemanticVersion?, until: SemanticVersion?, sinceText: String?, untilText: String?,
         priority: Int, universalLink: Bool, redirect: RoutePattern?) {
        self.index = index
        self.name = name
        self.patterns = patterns
        self.patternsAsList = patternsAsList
        self.hosts = hosts
        self.hostsAsWritten = hostsAsWritten
        self.destination = destination
        self.presentation = presentation
        self.params = params
        // Candidates are the patterns' expansions: one binds a param when its expansion
        // names it.
        queryDeclarations = params.indices.filter { i in
            !patterns.allSatisfy { pattern in
                pattern.expansions.allSatisfy { expansion in expansion.contains { $0.paramName == params[i].name } }
            }
        }
        queryChecks = queryDeclarations.filter { i in
            if case .string = params[i].type { return params[i].required && params[i].defaultValue == nil }
            return true
        }
        self.inject = inject
        namesArrayIndex = params.contains { JSONWriter.isArrayIndex($0.name) } || inject.contains { JSONWriter.isArrayIndex($0.key) }
        self.variants = variants
        self.since = since
        self.until = until
        self.sinceText = sinceText
        self.untilText = untilText
        self.priority = priority
        self.universalLink = universalLink
        self.redirect = redirect
    }

    /// The declaration of `name`, if any.
    package func declaration(_ name: String) -> ParamDeclaration? {
        params.first { $0.name == name }
    }

    /// Whether `params` declares `name`.
    package func declares(_ name: String) -> Bool {
        params.contains { $0.name == name }
    }

    /// The range of app versions the route exists for.
    package var versionRange: VersionRange { VersionRange(since: since, until: until) }
}
