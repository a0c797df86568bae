import RouteMatching

/// Every code a manifest diagnostic can carry: the stable identifier `check` prints
/// (`error[ambiguous]`), the JSON reports carry and docs/manifest.md explains, one by one
/// (a test holds the doc to this list).
package enum DiagnosticCode: String, CaseIterable, Sendable {
    case ambiguous = "ambiguous"
    case checksIncomplete = "checks-incomplete"
    case conflictingFields = "conflicting-fields"
    case duplicate = "duplicate"
    case duplicateName = "duplicate-name"
    case duplicateParam = "duplicate-param"
    case echoShape = "echo-shape"
    case emptyRange = "empty-range"
    case emptyRoutes = "empty-routes"
    case aasaTooLarge = "aasa-too-large"
    case invalidApp = "invalid-app"
    case invalidDefault = "invalid-default"
    case invalidHost = "invalid-host"
    case invalidJson = "invalid-json"
    case invalidParam = "invalid-param"
    case invalidPattern = "invalid-pattern"
    case invalidRegex = "invalid-regex"
    case invalidScheme = "invalid-scheme"
    case invalidValue = "invalid-value"
    case invalidVariant = "invalid-variant"
    case invalidVersion = "invalid-version"
    case missingField = "missing-field"
    case missingTab = "missing-tab"
    case moreProblems = "more-problems"
    case nestedOptional = "nested-optional"
    case neverWins = "never-wins"
    case redirectChain = "redirect-chain"
    case redirectConflict = "redirect-conflict"
    case redirectCycle = "redirect-cycle"
    case redirectTarget = "redirect-target"
    case redirectTargetHosts = "redirect-target-hosts"
    case tooManyExpansions = "too-many-expansions"
    case tooManyOptionals = "too-many-optionals"
    case tooManyRoutes = "too-many-routes"
    case trailingSlash = "trailing-slash"
    case typeMismatch = "type-mismatch"
    case undeclaredParam = "undeclared-param"
    case unknownCondition = "unknown-condition"
    case unknownField = "unknown-field"
    case unknownHost = "unknown-host"
    case unknownParam = "unknown-param"
    case unknownStyle = "unknown-style"
    case unknownType = "unknown-type"
    case unsafeRegex = "unsafe-regex"
    case wildcardNotLast = "wildcard-not-last"
}

extension PatternError {
    /// The diagnostic a pattern that does not parse gets.
    var diagnosticCode: DiagnosticCode {
        switch self {
        case .nestedOptional: .nestedOptional
        case .wildcardNotLast: .wildcardNotLast
        case .duplicateParam: .duplicateParam
        case .tooManyOptionalGroups: .tooManyOptionals
        default: .invalidPattern
        }
    }
}
