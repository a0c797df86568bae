import RouteMatching

/// A declared param (docs/manifest.md `params`): its type, whether it is required, a default.
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
