import RouteMatching

/// An override of destination and presentation chosen by the request context.
public struct Variant: Sendable, Equatable {
    public var platforms: [String]?
    public var idioms: [String]?
    public var appVersion: VersionRange?
    public var destination: String?
    public var presentation: Presentation?

    /// Whether every condition holds for `context`. A condition the context says
    /// nothing about does not hold.
    public func applies(to context: ResolveContext) -> Bool {
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
