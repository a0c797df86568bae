/// The declared type of a param (docs/manifest.md `params`). Every type but `string` is
/// "typed" and ranks above `string` in precedence.
package enum ParamType: Sendable, Hashable, CustomStringConvertible {
    case string
    /// `-?[0-9]+` within ±(2^53−1); converted to a JSON number.
    case int
    /// 8-4-4-4-12 hex; converted to lowercase.
    case uuid
    /// `[A-Za-z0-9_-]+`.
    case slug
    /// One of the values, compared exactly: byte for byte, not by Unicode canonical
    /// equivalence as String's `==` would.
    case enumeration([String])
    /// The whole value matches the regex.
    case regex(SafeRegex)

    /// The largest magnitude an `int` may have: 2^53 − 1.
    package static let maxSafeInteger: Int64 = 9_007_199_254_740_991

    /// The type's name as written in manifests.
    package var name: String {
        switch self {
        case .string: return "string"
        case .int: return "int"
        case .uuid: return "uuid"
        case .slug: return "slug"
        case .enumeration: return "enum"
        case .regex: return "regex"
        }
    }

    package var description: String {
        switch self {
        case .enumeration(let values): return "enum(\(values.joined(separator: "|")))"
        case .regex(let r): return "regex(\(r.pattern))"
        default: return name
        }
    }

    /// Whether this type ranks as a typed param (above `string`).
    package var isTyped: Bool {
        if case .string = self { return false }
        return true
    }

    /// Whether `value` is of this type.
    package func accepts(_ value: String) -> Bool { value.withUTF8Span { accepts($0) { value } } }

    /// Whether the UTF-8 `value` is of this type (the matcher's form: no String made
    /// but for a regex).
    package func accepts(_ value: ArraySlice<UInt8>) -> Bool { accepts(value.span) { String(decoding: value, as: UTF8.self) } }

    /// Whether the UTF-8 `value` is of this type; `text` is the same value as a String,
    /// asked for by a regex only. Read over a span, as every check here is, never a
    /// String's UTF8View as a generic collection, whose every element goes through a
    /// witness.
    private func accepts(_ value: Span<UInt8>, text: () -> String) -> Bool {
        switch self {
        case .string: return true
        case .int: return Self.intValue(value) != nil
        case .uuid: return Self.isUUID(value)
        case .slug: return Self.isSlug(value)
        case .enumeration(let values): return values.contains { $0.withUTF8Span { ASCII.equal($0, value) } }
        case .regex(let regex): return regex.matches(text())
        }
    }

    /// The value of an `int` param, or nil when it is not one.
    package static func intValue(_ text: String) -> Int64? { text.withUTF8Span { intValue($0) } }

    /// The value of an `int` param given as UTF-8.
    package static func intValue(_ text: ArraySlice<UInt8>) -> Int64? { intValue(text.span) }

    static func intValue(_ text: Span<UInt8>) -> Int64? {
        let negative = !text.isEmpty && text[0] == UInt8(ascii: "-")
        let start = negative ? 1 : 0
        guard text.count > start else { return nil }
        var value: Int64 = 0
        for i in start..<text.count {
            let digit = text[i] &- UInt8(ascii: "0")
            guard digit <= 9 else { return nil }
            value = value &* 10 &+ Int64(digit)
            guard value <= maxSafeInteger else { return nil }
        }
        return negative ? -value : value
    }

    static func isUUID(_ text: Span<UInt8>) -> Bool {
        guard text.count == 36 else { return false }
        // Every byte looked at, without a branch on its value: the loop a match runs on
        // every uuid segment (and the trie on every segment it offers a uuid param).
        var wrong: UInt8 = 0
        for i in 0..<36 {
            let b = text[i]
            let dash = i == 8 || i == 13 || i == 18 || i == 23
            wrong |= (dash ? b != UInt8(ascii: "-") : !isHexDigit(b)) ? 1 : 0
        }
        return wrong == 0
    }

    static func isSlug(_ text: Span<UInt8>) -> Bool {
        guard !text.isEmpty else { return false }
        var wrong: UInt8 = 0
        for i in 0..<text.count { wrong |= isSlugByte(text[i]) ? 0 : 1 }
        return wrong == 0
    }

    @inline(__always) static func isHexDigit(_ b: UInt8) -> Bool {
        ASCIISet.hexDigits.contains(b)
    }

    /// `[A-Za-z0-9_-]`.
    @inline(__always) package static func isSlugByte(_ b: UInt8) -> Bool {
        ASCIISet.slug.contains(b)
    }

    /// Whether no value is of both types (docs/manifest.md: typed params overlap unless provably
    /// disjoint; a regex overlaps every other typed param).
    package func isDisjoint(from other: ParamType) -> Bool {
        switch (self, other) {
        case (.string, _), (_, .string): return false
        case (.regex, _), (_, .regex): return false
        case (.enumeration(let a), .enumeration(let b)): return Set(a).isDisjoint(with: b)
        case (.enumeration(let values), let type), (let type, .enumeration(let values)):
            return !values.contains(where: type.accepts)
        case (.int, .uuid), (.uuid, .int): return true
        default: return false
        }
    }

    /// Whether every value of `other` is also a value of this type (so a route with this
    /// type at a position accepts whatever one with `other` accepts).
    package func covers(_ other: ParamType) -> Bool {
        switch (self, other) {
        case (.string, _): return true
        case (.enumeration(let a), .enumeration(let b)): return Set(b).isSubset(of: a)
        case (let type, .enumeration(let values)): return values.allSatisfy(type.accepts)
        case (.slug, .uuid), (.slug, .int): return true
        default: return self == other
        }
    }
}

/// A set of ASCII bytes as a 128-bit mask: membership is a shift and a mask, no branch on
/// the byte (for the checks a match runs on every byte of a typed segment).
struct ASCIISet {
    let low: UInt64, high: UInt64

    /// `[0-9A-Fa-f]`.
    static let hexDigits = ASCIISet(low: 0x3FF << 48, high: 0x3F << 1 | 0x3F << 33)
    /// `[A-Za-z0-9_-]`: `-` and the digits below 64; the capitals, `_` and the lowercase letters above.
    static let slug = ASCIISet(low: 1 << 45 | 0x3FF << 48, high: 0x3FFFFFF << 1 | 1 << 31 | 0x3FFFFFF << 33)

    @inline(__always) func contains(_ b: UInt8) -> Bool {
        let word = b < 64 ? low : (b < 128 ? high : 0)
        return (word >> UInt64(b & 63)) & 1 != 0
    }
}
