/// The declared type of a param (SPEC §1 `params`). Every type but `string` is
/// "typed" and ranks above `string` in precedence.
public enum ParamType: Sendable, Hashable, CustomStringConvertible {
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
    public static let maxSafeInteger: Int64 = 9_007_199_254_740_991

    /// The type's name as written in manifests.
    public var name: String {
        switch self {
        case .string: return "string"
        case .int: return "int"
        case .uuid: return "uuid"
        case .slug: return "slug"
        case .enumeration: return "enum"
        case .regex: return "regex"
        }
    }

    public var description: String {
        switch self {
        case .enumeration(let values): return "enum(\(values.joined(separator: "|")))"
        case .regex(let r): return "regex(\(r.pattern))"
        default: return name
        }
    }

    /// Whether this type ranks as a typed param (above `string`).
    public var isTyped: Bool {
        if case .string = self { return false }
        return true
    }

    /// Whether `value` is of this type.
    public func accepts(_ value: String) -> Bool { accepts(utf8: value.utf8) }

    /// Whether the UTF-8 `value` is of this type (the matcher's form: no String made
    /// but for a regex).
    public func accepts(_ value: ArraySlice<UInt8>) -> Bool { accepts(utf8: value) }

    private func accepts<C: Collection<UInt8>>(utf8 value: C) -> Bool {
        switch self {
        case .string: return true
        case .int: return Self.intValue(utf8: value) != nil
        case .uuid: return Self.isUUID(utf8: value)
        case .slug: return Self.isSlug(utf8: value)
        case .enumeration(let values):
            let count = value.count
            return values.contains { $0.utf8.count == count && $0.utf8.elementsEqual(value) }
        case .regex(let regex): return regex.matches(String(decoding: value, as: UTF8.self))
        }
    }

    /// The value of an `int` param, or nil when it is not one.
    public static func intValue(_ text: String) -> Int64? { intValue(utf8: text.utf8) }

    /// The value of an `int` param given as UTF-8: a concrete entry point for other
    /// modules, which the generic form below would reach unspecialized.
    package static func intValue(_ text: ArraySlice<UInt8>) -> Int64? { intValue(utf8: text) }

    static func intValue<C: Collection<UInt8>>(utf8 text: C) -> Int64? {
        var utf8 = text[...]
        let negative = utf8.first == UInt8(ascii: "-")
        if negative { utf8 = utf8.dropFirst() }
        guard !utf8.isEmpty else { return nil }
        var value: Int64 = 0
        for b in utf8 {
            guard b >= UInt8(ascii: "0"), b <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int64(b - UInt8(ascii: "0"))
            guard value <= maxSafeInteger else { return nil }
        }
        return negative ? -value : value
    }

    static func isUUID<C: Collection<UInt8>>(utf8: C) -> Bool {
        guard utf8.count == 36 else { return false }
        for (i, b) in utf8.enumerated() {
            if i == 8 || i == 13 || i == 18 || i == 23 {
                guard b == UInt8(ascii: "-") else { return false }
            } else {
                guard PercentDecoding.hexValue(b) != nil else { return false }
            }
        }
        return true
    }

    static func isSlug<C: Collection<UInt8>>(utf8: C) -> Bool {
        !utf8.isEmpty && utf8.allSatisfy { isSlugByte($0) }
    }

    @inline(__always) package static func isSlugByte(_ b: UInt8) -> Bool {
        URLScope.isAlpha(b) || (b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9")) || b == UInt8(ascii: "_") || b == UInt8(ascii: "-")
    }

    /// Whether no value is of both types (SPEC §1: typed params overlap unless provably
    /// disjoint; a regex overlaps every other typed param).
    public func isDisjoint(from other: ParamType) -> Bool {
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
    public func covers(_ other: ParamType) -> Bool {
        switch (self, other) {
        case (.string, _): return true
        case (.enumeration(let a), .enumeration(let b)): return Set(b).isSubset(of: a)
        case (let type, .enumeration(let values)): return values.allSatisfy(type.accepts)
        case (.slug, .uuid), (.slug, .int): return true
        default: return self == other
        }
    }
}
