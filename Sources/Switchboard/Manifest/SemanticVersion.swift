import RouteMatching

/// An app version compared by semver precedence: build metadata ignored, `7.2` means
/// `7.2.0`, a pre-release sorts before its release.
///
/// ```swift
/// SemanticVersion("7.2")! < SemanticVersion("7.10.0-beta.1")!  // true
/// ```
public struct SemanticVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let major: Int
    public let minor: Int
    public let patch: Int
    /// Dot-separated pre-release identifiers (`beta.1` is `["beta", "1"]`).
    public let prerelease: [String]

    public init?(_ text: String) {
        // One pass over the bytes: MAJOR[.MINOR[.PATCH]][-PRERELEASE][+BUILD].
        let utf8 = text.utf8
        guard let (numbers, offset) = text.withUTF8Span(Self.numbers) else { return nil }
        var pre: [String] = []
        if offset < utf8.count {
            let index = utf8.index(utf8.startIndex, offsetBy: offset)
            let tail = Substring(text)[index...]
            var rest = tail.dropFirst()
            if tail.first == "-" {
                let end = rest.firstIndex(of: "+") ?? rest.endIndex
                guard Self.identifiersAreValid(rest[..<end]) else { return nil }
                pre = rest[..<end].split(separator: ".").map(String.init)
                rest = rest[end...].dropFirst()
                if end == tail.endIndex { rest = rest[rest.endIndex...] }
                if end < tail.endIndex {
                    guard Self.identifiersAreValid(rest) else { return nil }
                }
            } else {
                guard Self.identifiersAreValid(rest) else { return nil }
            }
        }
        (major, minor, patch) = numbers
        prerelease = pre
    }

    /// A version from its UTF-8 bytes (a query value): MAJOR.MINOR.PATCH without making
    /// a String; a version with a pre-release or build part goes through ``init(_:)``.
    package init?(utf8 bytes: ArraySlice<UInt8>) {
        guard let (numbers, end) = Self.numbers(bytes.span) else { return nil }
        guard end == bytes.count else {
            self.init(String(decoding: bytes, as: UTF8.self))
            return
        }
        self.init(numbers, prerelease: [])
    }

    private init(_ numbers: (Int, Int, Int), prerelease: [String]) {
        (major, minor, patch) = numbers
        self.prerelease = prerelease
    }

    /// The leading `MAJOR[.MINOR[.PATCH]]` (at most 9 digits each) and the offset where
    /// it ends: at the end, or at a `-` or `+`; nil for anything else. Over a span, one
    /// number accumulated at a time: every resolve reads its appVersion here.
    private static func numbers(_ utf8: Span<UInt8>) -> ((Int, Int, Int), Int)? {
        var numbers = (0, 0, 0)
        var current = 0, count = 0, digits = 0
        var i = 0
        while i < utf8.count {
            let b = utf8[i]
            let digit = b &- UInt8(ascii: "0")
            if digit < 10 {
                guard digits < 9 else { return nil }
                current = current &* 10 &+ Int(digit)
                digits += 1
            } else if b == UInt8(ascii: ".") {
                guard digits > 0, count < 2 else { return nil }
                if count == 0 { numbers.0 = current } else { numbers.1 = current }
                count += 1
                current = 0
                digits = 0
            } else if b == UInt8(ascii: "-") || b == UInt8(ascii: "+") {
                break
            } else {
                return nil
            }
            i += 1
        }
        guard digits > 0 else { return nil }
        switch count {
        case 0: numbers.0 = current
        case 1: numbers.1 = current
        default: numbers.2 = current
        }
        return (numbers, i)
    }

    private static func identifiersAreValid(_ text: Substring) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        return parts.allSatisfy { !$0.isEmpty && $0.utf8.allSatisfy { ParamType.isSlugByte($0) } }
    }

    public var description: String {
        "\(major).\(minor).\(patch)" + (prerelease.isEmpty ? "" : "-" + prerelease.joined(separator: "."))
    }

    public static func < (lhs: SemanticVersion, rhs: SemanticVersion) -> Bool {
        if lhs.major != rhs.major { return lhs.major < rhs.major }
        if lhs.minor != rhs.minor { return lhs.minor < rhs.minor }
        if lhs.patch != rhs.patch { return lhs.patch < rhs.patch }
        if lhs.prerelease.isEmpty || rhs.prerelease.isEmpty { return !lhs.prerelease.isEmpty && rhs.prerelease.isEmpty }
        for (a, b) in zip(lhs.prerelease, rhs.prerelease) where a != b {
            switch (Int(a), Int(b)) {
            case let (x?, y?): return x < y
            case (_?, nil): return true
            case (nil, _?): return false
            default: return a < b
            }
        }
        return lhs.prerelease.count < rhs.prerelease.count
    }
}

