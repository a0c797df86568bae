import RouteMatching

/// A declared param (SPEC §1 `params`): its type, whether it is required, a default.
public struct ParamDeclaration: Sendable, Equatable {
    public let name: String
    public let type: ParamType
    /// Whether a candidate without this param is refused.
    public let required: Bool
    public let defaultValue: JSONValue?

    public init(name: String, type: ParamType, required: Bool, defaultValue: JSONValue?) {
        self.name = name
        self.type = type
        self.required = required
        self.defaultValue = defaultValue
    }
}

/// A value added to every result of a route (`inject`).
public enum InjectedValue: Sendable, Equatable {
    case constant(JSONValue)
    /// Copies another param's converted value; left out when that param is absent.
    case param(String)
}

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

/// Who is asking: used by `variants` and `since`/`until`.
public struct ResolveContext: Sendable, Hashable {
    public var platform: String?
    public var idiom: String?
    public var appVersion: SemanticVersion?

    public init(platform: String? = nil, idiom: String? = nil, appVersion: SemanticVersion? = nil) {
        self.platform = platform
        self.idiom = idiom
        self.appVersion = appVersion
    }

    public static let none = ResolveContext()
    /// Values `platform` may take in `when`.
    public static let platforms = ["ios", "android", "web"]
    /// Values `idiom` may take in `when`.
    public static let idioms = ["phone", "tablet"]
}
