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
        var core = Substring(text)
        if let plus = core.firstIndex(of: "+") {
            let build = core[core.index(after: plus)...]
            guard Self.identifiersAreValid(build) else { return nil }
            core = core[..<plus]
        }
        var pre: [String] = []
        if let dash = core.firstIndex(of: "-") {
            let tail = core[core.index(after: dash)...]
            guard Self.identifiersAreValid(tail) else { return nil }
            pre = tail.split(separator: ".").map(String.init)
            core = core[..<dash]
        }
        let numbers = core.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...3).contains(numbers.count) else { return nil }
        var values: [Int] = []
        for n in numbers {
            guard !n.isEmpty, n.count <= 9, n.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }), let v = Int(n) else { return nil }
            values.append(v)
        }
        while values.count < 3 { values.append(0) }
        major = values[0]
        minor = values[1]
        patch = values[2]
        prerelease = pre
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

