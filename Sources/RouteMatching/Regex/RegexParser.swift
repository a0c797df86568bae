/// Parses the regex dialect of `regex` params: literals, `.`, classes `[...]` with
/// ranges and `\d \w \s \D \W \S`, groups `( )` and `(?: )` and `(?<name> )`,
/// alternation, `* + ? {n} {n,} {n,m}` (lazy forms accepted), `^` and `$`.
///
/// Refused, so that neither this engine nor a client's backtracking engine can be
/// made slow: backreferences, lookaround, a repeating quantifier inside another
/// (`(a+)+`, `(.*a){12}`), alternatives that can start alike under a repeating
/// quantifier (`(a|a)*`), and counts over 1000.
struct RegexParser {
    static let maxCount = 1000
    static let maxDepth = 32

    private let scalars: [Unicode.Scalar]
    private var index = 0
    private var depth = 0

    init(_ pattern: String) { scalars = Array(pattern.unicodeScalars) }

    static func parse(_ pattern: String) throws(RegexError) -> RegexNode {
        var parser = RegexParser(pattern)
        let node = try parser.alternation()
        guard parser.index == parser.scalars.count else { throw .syntax("unbalanced ')'") }
        try check(node)
        return node
    }

    // MARK: Safety

    private static func check(_ node: RegexNode) throws(RegexError) {
        switch node {
        case .concat(let nodes):
            for n in nodes { try check(n) }
        case .alternation(let nodes):
            for n in nodes { try check(n) }
        case .repetition(let inner, _, let max):
            if (max ?? 2) > 1 {
                if inner.hasRepeatingQuantifier { throw .unsafe("nested quantifiers") }
                if inner.isNullable { throw .unsafe("a repeated group that can match the empty string") }
                try checkAlternatives(inner)
            }
            try check(inner)
        default:
            break
        }
    }

    private static func checkAlternatives(_ node: RegexNode) throws(RegexError) {
        switch node {
        case .alternation(let branches):
            for i in branches.indices {
                for j in branches.indices where j > i && branches[i].firstSet.intersects(branches[j].firstSet) {
                    throw .unsafe("alternatives that can start with the same character under a quantifier")
                }
            }
            for b in branches { try checkAlternatives(b) }
        case .concat(let nodes):
            for n in nodes { try checkAlternatives(n) }
        default:
            break
        }
    }

    // MARK: Grammar

    private var peek: Unicode.Scalar? { index < scalars.count ? scalars[index] : nil }

    private mutating func alternation() throws(RegexError) -> RegexNode {
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.maxDepth else { throw .syntax("groups nested too deeply") }
        var branches = [try concatenation()]
        while peek == "|" {
            index += 1
            branches.append(try concatenation())
        }
        return branches.count == 1 ? branches[0] : .alternation(branches)
    }

    private mutating func concatenation() throws(RegexError) -> RegexNode {
        var nodes: [RegexNode] = []
        while let c = peek, c != "|", c != ")" {
            var atom = try self.atom()
            while let q = peek, q == "*" || q == "+" || q == "?" || q == "{" {
                if case .startAnchor = atom { throw .syntax("nothing to repeat") }
                if case .endAnchor = atom { throw .syntax("nothing to repeat") }
                if case .repetition = atom { throw .unsafe("nested quantifiers") }
                let (min, max) = try quantifier()
                atom = .repetition(atom, min: min, max: max)
                if peek == "?" { index += 1 }  // lazy: same set of full matches
            }
            nodes.append(atom)
        }
        return nodes.count == 1 ? nodes[0] : (nodes.isEmpty ? .empty : .concat(nodes))
    }

    private mutating func quantifier() throws(RegexError) -> (Int, Int?) {
        let c = scalars[index]
        index += 1
        switch c {
        case "*": return (0, nil)
        case "+": return (1, nil)
        case "?": return (0, 1)
        default:
            let min = try number()
            var max: Int? = min
            if peek == "," {
                index += 1
                max = peek == "}" ? nil : try number()
            }
            guard peek == "}" else { throw .syntax("expected '}'") }
            index += 1
            if let max, max < min { throw .syntax("{\(min),\(max)}: the maximum is below the minimum") }
            return (min, max)
        }
    }

    private mutating func number() throws(RegexError) -> Int {
        var value = 0
        var digits = 0
        while let c = peek, c >= "0", c <= "9" {
            value = value * 10 + Int(c.value - 48)
            digits += 1
            index += 1
            guard value <= Self.maxCount else { throw .unsafe("a count over \(Self.maxCount)") }
        }
        guard digits > 0 else { throw .syntax("expected a number in '{}'") }
        return value
    }

    private mutating func atom() throws(RegexError) -> RegexNode {
        let c = scalars[index]
        index += 1
        switch c {
        case ".": return .any
        case "^": return .startAnchor
        case "$": return .endAnchor
        case "*", "+", "?", "{": throw .syntax("nothing to repeat before '\(c)'")
        case "[": return .set(try characterClass())
        case "\\": return try escape(inClass: false)
        case "(":
            if peek == "?" {
                index += 1
                if peek == ":" {
                    index += 1
                } else if peek == "<", index + 1 < scalars.count, scalars[index + 1] != "=", scalars[index + 1] != "!" {
                    while let n = peek, n != ">" { index += 1 }
                    guard peek == ">" else { throw .syntax("unterminated group name") }
                    index += 1
                } else {
                    throw .unsupported("lookaround and inline options")
                }
            }
            let inner = try alternation()
            guard peek == ")" else { throw .syntax("missing ')'") }
            index += 1
            return inner
        default:
            return .scalar(c)
        }
    }

    private mutating func escape(inClass: Bool) throws(RegexError) -> RegexNode {
        guard let c = peek else { throw .syntax("trailing backslash") }
        index += 1
        switch c {
        case "d": return .set(.digits)
        case "D": return .set(ScalarSet(ranges: ScalarSet.digits.ranges, negated: true))
        case "w": return .set(.word)
        case "W": return .set(ScalarSet(ranges: ScalarSet.word.ranges, negated: true))
        case "s": return .set(.space)
        case "S": return .set(ScalarSet(ranges: ScalarSet.space.ranges, negated: true))
        case "n": return .scalar("\n")
        case "t": return .scalar("\t")
        case "1"..."9", "k": throw .unsupported("backreferences")
        case "b", "B", "A", "z", "Z", "G": throw .unsupported("the assertion \\\(c)")
        default:
            if c.properties.isAlphabetic && c.isASCII { throw .unsupported("the escape \\\(c)") }
            return .scalar(c)
        }
    }

    private mutating func characterClass() throws(RegexError) -> ScalarSet {
        var set = ScalarSet(ranges: [], negated: false)
        if peek == "^" { set.negated = true; index += 1 }
        var first = true
        while let c = peek, c != "]" || first {
            first = false
            index += 1
            var low: UInt32
            if c == "\\" {
                switch try escape(inClass: true) {
                case .scalar(let s): low = s.value
                case .set(let inner):
                    set.ranges += inner.positiveRanges
                    continue
                default: throw .syntax("bad escape in class")
                }
            } else {
                low = c.value
            }
            if peek == "-", index + 1 < scalars.count, scalars[index + 1] != "]" {
                index += 1
                var high = scalars[index].value
                index += 1
                if high == UInt32(UInt8(ascii: "\\")) {
                    guard case .scalar(let s) = try escape(inClass: true) else { throw .syntax("bad range in class") }
                    high = s.value
                }
                guard high >= low else { throw .syntax("range out of order in class") }
                set.ranges.append(low...high)
            } else {
                set.ranges.append(low...low)
            }
        }
        guard peek == "]" else { throw .syntax("missing ']'") }
        index += 1
        return set
    }
}

/// Why a `regex` param's pattern was refused.
package enum RegexError: Error, Sendable, Equatable, CustomStringConvertible {
    case syntax(String)
    case unsupported(String)
    case unsafe(String)
    case tooLarge

    package var description: String {
        switch self {
        case .syntax(let s): return "regex syntax: \(s)"
        case .unsupported(let s): return "\(s) not supported in regex params"
        case .unsafe(let s): return "unsafe regex: \(s) can take super-linear time in backtracking engines"
        case .tooLarge: return "regex compiles to more than \(SafeRegex.maxProgramSize) instructions"
        }
    }
}
