/// One segment of a route pattern: a literal, a named param, or a trailing wildcard.
package enum PatternSegment: Sendable, Hashable, CustomStringConvertible {
    /// A literal, percent-decoded once (`%61bout` is `about`).
    case literal(String)
    /// `:name`: one whole segment.
    case param(String)
    /// `*` or `*name`: the rest of the path, zero or more segments. The name is `*` when
    /// none is given.
    case wildcard(String)

    /// The param name bound by this segment, if any.
    package var paramName: String? {
        switch self {
        case .literal: return nil
        case .param(let name), .wildcard(let name): return name
        }
    }

    /// The segment as written in a pattern.
    package var description: String {
        switch self {
        case .literal(let text):
            var out = ""
            for scalar in text.unicodeScalars {
                switch scalar {
                case "/", "%", "(", ")", "?", "#": out += "%" + String(scalar.value, radix: 16, uppercase: true)
                default: out.unicodeScalars.append(scalar)
                }
            }
            return out
        case .param(let name): return ":" + name
        case .wildcard(let name): return name == "*" ? "*" : "*" + name
        }
    }
}
