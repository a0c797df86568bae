/// Why a pattern could not be parsed. The manifest turns these into diagnostics.
package enum PatternError: Error, Sendable, Equatable, CustomStringConvertible {
    case empty
    case missingLeadingSlash
    case tooLong
    case emptySegment
    case nestedOptional
    case unbalancedParenthesis
    case emptyOptionalGroup
    case optionalGroupForm
    case textAfterGroup
    case tooManyOptionalGroups(Int)
    case wildcardNotLast
    case invalidParamName(String)
    case duplicateParam(String)
    case invalidCharacter(String)
    case invalidPercentEncoding

    package var description: String {
        switch self {
        case .empty: return "pattern is empty"
        case .missingLeadingSlash: return "pattern must start with '/'"
        case .tooLong: return "pattern is longer than \(RoutePattern.maxLength) bytes"
        case .emptySegment: return "pattern has an empty segment ('//'), which no URL can match"
        case .nestedOptional: return "optional groups may not nest"
        case .unbalancedParenthesis: return "unbalanced parenthesis"
        case .emptyOptionalGroup: return "optional group is empty"
        case .optionalGroupForm: return "an optional group holds whole segments: '(/seg...)' after a segment, as in '/artist/:id(/:tab)', or '(seg/...)' right after a '/', as in '/(app/):object'"
        case .textAfterGroup: return "an optional group must be followed by '/', '(' or the end of the pattern"
        case .tooManyOptionalGroups(let n): return "\(n) optional groups; at most \(RoutePattern.maxOptionalGroups) are allowed"
        case .wildcardNotLast: return "a wildcard must be the last segment"
        case .invalidParamName(let name): return "invalid param name '\(name)': use letters, digits, '_' or '-', starting with a letter or '_'"
        case .duplicateParam(let name): return "param '\(name)' appears twice in the pattern"
        case .invalidCharacter(let c): return "character \(c) is not allowed in a pattern"
        case .invalidPercentEncoding: return "invalid percent-encoding in a literal"
        }
    }
}

extension RoutePattern {
    /// Parses a pattern, throwing the first problem found.
    package init(parsing text: String) throws(PatternError) {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty else { throw .empty }
        guard bytes.count <= Self.maxLength else { throw .tooLong }
        guard bytes[0] == UInt8(ascii: "/") else { throw .missingLeadingSlash }
        var slashes = 0
        for (k, b) in bytes.enumerated() {
            if b == UInt8(ascii: "/") { slashes += 1 }
            if b < 0x20 || b == 0x7F || b == UInt8(ascii: " ") || b == UInt8(ascii: "?") || b == UInt8(ascii: "#") || b == UInt8(ascii: "\\") {
                throw .invalidCharacter(b < 0x20 || b == UInt8(ascii: " ") ? "U+\(String(b, radix: 16, uppercase: true))" : "'\(UnicodeScalar(b))'")
            }
            // C1 control characters, U+0080–U+009F, are C2 80 to C2 9F in UTF-8.
            if b == 0xC2, k + 1 < bytes.count, bytes[k + 1] <= 0x9F {
                throw .invalidCharacter("'\(UnicodeScalar(bytes[k + 1]))'")
            }
        }
        // At most a segment per '/': sized once instead of grown (a load parses
        // every pattern of the table).
        var parts: [Part] = []
        parts.reserveCapacity(slashes)
        var flat: [PatternSegment] = []
        flat.reserveCapacity(slashes)
        // The open group's segments, and whether it was opened right after a '/'
        // (`(seg/...)`, each segment followed by '/') rather than after a segment (`(/seg...)`).
        var group: [PatternSegment]? = nil
        var groupAfterSlash = false
        var groups = 0
        // Just past a '/': a segment, a `(seg/` group, the close of one, or the end may follow.
        var afterSlash = true
        var i = 1
        // Reported after the whole pattern has parsed, as the later problems they are.
        var wildcardNotLast = false
        var duplicate: String? = nil
        while i < bytes.count {
            let b = bytes[i]
            if afterSlash {
                switch b {
                case UInt8(ascii: "("):
                    guard group == nil else { throw .nestedOptional }
                    guard i + 1 < bytes.count, bytes[i + 1] != UInt8(ascii: ")") else { throw .emptyOptionalGroup }
                    guard bytes[i + 1] != UInt8(ascii: "/"), bytes[i + 1] != UInt8(ascii: "(") else {
                        throw bytes[i + 1] == UInt8(ascii: "(") ? .nestedOptional : .emptySegment
                    }
                    group = []
                    groupAfterSlash = true
                    groups += 1
                    i += 1
                case UInt8(ascii: ")"):
                    // `(rest/)` closes just after its last '/'; `(/a/)` may not end in one.
                    guard let g = group else { throw .unbalancedParenthesis }
                    guard groupAfterSlash else { throw g.isEmpty ? .emptyOptionalGroup : .optionalGroupForm }
                    parts.append(.optional(g))
                    group = nil
                    i += 1
                case UInt8(ascii: "/"):
                    throw .emptySegment
                default:
                    var end = i
                    while end < bytes.count, bytes[end] != UInt8(ascii: "/"), bytes[end] != UInt8(ascii: "("), bytes[end] != UInt8(ascii: ")") {
                        end += 1
                    }
                    let segment = try Self.parseSegment(bytes, i..<end)
                    if let name = segment.paramName, duplicate == nil, flat.contains(where: { $0.paramName == name }) { duplicate = name }
                    if case .wildcard = flat.last { wildcardNotLast = true }
                    flat.append(segment)
                    if group != nil { group!.append(segment) } else { parts.append(.segment(segment)) }
                    // In a `(seg/...)` group every segment is followed by '/'.
                    if group != nil, groupAfterSlash, end == bytes.count || bytes[end] != UInt8(ascii: "/") { throw .optionalGroupForm }
                    i = end
                    afterSlash = false
                }
            } else {
                switch b {
                case UInt8(ascii: "/"):
                    i += 1
                    afterSlash = true
                    // A trailing '/' adds nothing (the manifest warns); one inside a group is an error.
                    if i == bytes.count, group != nil { throw .unbalancedParenthesis }
                case UInt8(ascii: "("):
                    guard group == nil else { throw .nestedOptional }
                    guard i + 1 < bytes.count, bytes[i + 1] == UInt8(ascii: "/") else {
                        if i + 1 < bytes.count, bytes[i + 1] == UInt8(ascii: "(") { throw .nestedOptional }
                        throw i + 1 < bytes.count && bytes[i + 1] == UInt8(ascii: ")") ? .emptyOptionalGroup : .optionalGroupForm
                    }
                    group = []
                    groupAfterSlash = false
                    groups += 1
                    i += 2
                    afterSlash = true
                case UInt8(ascii: ")"):
                    guard let g = group, !groupAfterSlash else { throw group == nil ? .unbalancedParenthesis : .optionalGroupForm }
                    parts.append(.optional(g))
                    group = nil
                    i += 1
                    // After `(/seg)`: '/', another group or the end.
                    if i < bytes.count, bytes[i] != UInt8(ascii: "/"), bytes[i] != UInt8(ascii: "(") { throw .textAfterGroup }
                default:
                    throw .unbalancedParenthesis
                }
            }
        }
        guard group == nil else { throw .unbalancedParenthesis }
        guard groups <= Self.maxOptionalGroups else { throw .tooManyOptionalGroups(groups) }
        if wildcardNotLast { throw .wildcardNotLast }
        if let duplicate { throw .duplicateParam(duplicate) }
        self.text = text
        self.parts = parts
        self.expansions = groups == 0 ? [flat] : Self.expansions(of: parts)
    }

    private static func parseSegment(_ bytes: [UInt8], _ range: Range<Int>) throws(PatternError) -> PatternSegment {
        let raw = bytes[range]
        switch raw.first {
        case UInt8(ascii: ":"):
            let name = String(decoding: raw.dropFirst(), as: UTF8.self)
            guard isParamName(name) else { throw .invalidParamName(name) }
            return .param(name)
        case UInt8(ascii: "*"):
            if raw.count == 1 { return .wildcard("*") }
            let name = String(decoding: raw.dropFirst(), as: UTF8.self)
            guard isParamName(name) else { throw .invalidParamName(name) }
            return .wildcard(name)
        default:
            guard PercentDecoding.isWellFormed(raw),
                  let decoded = PercentDecoding.decode(bytes, range, plusAsSpace: false) else {
                throw .invalidPercentEncoding
            }
            return .literal(decoded)
        }
    }

    /// Letters, digits, `_` and `-`, starting with a letter or `_`.
    static func isParamName(_ name: String) -> Bool {
        guard let first = name.utf8.first, URLScope.isAlpha(first) || first == UInt8(ascii: "_") else { return false }
        return name.utf8.allSatisfy {
            URLScope.isAlpha($0) || ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-")
        }
    }
}
