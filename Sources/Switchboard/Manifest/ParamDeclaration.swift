import RouteMatching

/// A declared param (docs/manifest.md `params`): its type, whether it is required, a default.
package struct ParamDeclaration: Sendable, Equatable {
    package let name: String
    package let type: ParamType
    /// Whether a candidate without this param is refused.
    package let required: Bool
    package let defaultValue: JSONValue?

    package init(name: String, type: ParamType, required: Bool, defaultValue: JSONValue?) {
        self.name = name
        self.type = type
        self.required = required
        self.defaultValue = defaultValue
    }
}
