/// One line of a deep-link cases file: a URL and what it must resolve to.
///
/// ```text
/// https://www.artsy.net/artwork/soup -> Artwork
/// artsy://artist/banksy               # must match some route
/// https://www.artsy.net/nowhere -> fallback
/// ```
public struct ValidationCase: Sendable, Equatable {
    public enum Expectation: Sendable, Equatable, CustomStringConvertible {
        /// Any route matches.
        case matched
        case destination(String)
        case fallback
        case external
        case rejected

        public var description: String {
            switch self {
            case .matched: return "a route"
            case .destination(let d): return d
            case .fallback: return "fallback"
            case .external: return "external"
            case .rejected: return "rejected"
            }
        }
    }

    public let line: Int
    public let url: String
    public let expectation: Expectation
    /// The line as written (without comment), for reports.
    public let text: String

    /// Why a cases file cannot be read.
    public struct SyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
        public let line: Int
        public let message: String
        public var description: String { "line \(line): \(message)" }
    }

    /// Parses a cases file: one case a line, blank lines and `#` comments skipped.
    public static func parse(_ text: String) throws(SyntaxError) -> [ValidationCase] {
        var cases: [ValidationCase] = []
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            var line = Substring(rawLine)
            if line.last == "\r" { line = line.dropLast() }
            if let hash = line.range(of: " #") { line = line[..<hash.lowerBound] }
            let trimmed = line.trimmingWhitespace
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            let parts = trimmed.components(separatedBy: "->")
            let url = parts[0].trimmingWhitespace
            guard !url.isEmpty, !url.contains(" "), !url.contains("\t") else {
                throw SyntaxError(line: index + 1, message: "expected 'URL' or 'URL -> Destination|fallback|external|rejected', got '\(trimmed)'")
            }
            var expectation = Expectation.matched
            if parts.count == 2 {
                let target = parts[1].trimmingWhitespace
                guard !target.isEmpty, !target.contains(" ") else {
                    throw SyntaxError(line: index + 1, message: "expected one destination after '->', got '\(parts[1].trimmingWhitespace)'")
                }
                switch target {
                case "fallback": expectation = .fallback
                case "external": expectation = .external
                case "rejected": expectation = .rejected
                default: expectation = .destination(target)
                }
            } else if parts.count > 2 {
                throw SyntaxError(line: index + 1, message: "more than one '->' in '\(trimmed)'")
            }
            cases.append(ValidationCase(line: index + 1, url: url, expectation: expectation, text: trimmed))
        }
        return cases
    }

    /// Whether `result` meets the expectation.
    public func isMet(by result: ResultSummary) -> Bool {
        switch expectation {
        case .matched: return result.status == "matched"
        case .destination(let d): return result.status == "matched" && result.destination == d
        case .fallback: return result.status == "fallback"
        case .external: return result.status == "external"
        case .rejected: return result.status == "rejected"
        }
    }
}

extension StringProtocol {
    var trimmingWhitespace: String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\t" { s = s.dropLast() }
        return String(s)
    }
}
