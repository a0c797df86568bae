import RouteMatching

/// An override of destination and presentation chosen by the request context.
package struct Variant: Sendable, Equatable {
    package var platforms: [String]?
    package var idioms: [String]?
    package var appVersion: VersionRange?
    package var destination: String?
    package var presentation: Presentation?

    /// Whether every condition holds for `context`. A condition the context says
    /// nothing about does not hold.
    package func applies(to context: ResolveContext) -> Bool {
        if let platforms {
            guard let p = context.platform, platforms.contains(p) else { return false }
        }
        if let idioms {
            guard let i = context.idiom, idioms.contains(i) else { return false }
        }
        if let appVersion {
            guard let v = context.appVersion, appVersion.contains(v) else { return false }
        }
        return true
    }
}
