/// One line of a deep-link cases file: a URL and what it must resolve to.
///
/// ```text
/// https://www.artsy.net/artwork/soup -> Artwork
/// artsy://artist/banksy               # must match some route
/// https://www.artsy.net/nowhere -> fallback
/// /artwork/soup [platform=ios appVersion=7.1.0] -> WebView
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
    /// The context the case names (`[platform=ios appVersion=7.1.0]`), replacing the run's.
    public let context: ResolveContext?
    /// The line as written (without comment), for reports.
    public let text: String

    public init(line: Int, url: String, context: ResolveContext? = nil, expectation: Expectation, text: String) {
        self.line = line
        self.url = url
        self.context = context
        self.expectation = expectation
        self.text = text
    }

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
            var subject = parts[0].trimmingWhitespace
            var context: ResolveContext? = nil
            if let open = subject.range(of: " ["), subject.hasSuffix("]") {
                let fields = subject[open.upperBound..<subject.index(before: subject.endIndex)]
                context = try Self.context(fields, line: index + 1)
                subject = subject[..<open.lowerBound].trimmingWhitespace
            }
            let url = subject
            guard !url.isEmpty, !url.contains(" "), !url.contains("\t") else {
                throw SyntaxError(line: index + 1, message: "expected 'URL' or 'URL -> Destination|fallback|external|rejected' (a context may follow the URL: [platform=ios appVersion=7.1.0]), got '\(trimmed)'")
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
            cases.append(ValidationCase(line: index + 1, url: url, context: context, expectation: expectation, text: trimmed))
        }
        return cases
    }

    /// `platform=ios idiom=tablet appVersion=7.1.0`, each at most once.
    static func context(_ text: Substring, line: Int) throws(SyntaxError) -> ResolveContext {
        var context = ResolveContext()
        var seen: Set<Substring> = []
        for field in text.split(whereSeparator: { $0 == " " || $0 == "\t" }) {
            guard let eq = field.firstIndex(of: "="), case let key = field[..<eq], seen.insert(key).inserted else {
                throw SyntaxError(line: line, message: "expected a context such as [platform=ios idiom=phone appVersion=7.1.0], got '[\(text)]'")
            }
            let value = String(field[field.index(after: eq)...])
            switch key {
            case "platform": context.platform = value
            case "idiom": context.idiom = value
            case "appVersion":
                guard let version = SemanticVersion(value) else {
                    throw SyntaxError(line: line, message: "appVersion '\(value)' is not a semantic version such as 7.2.0")
                }
                context.appVersion = version
            default:
                throw SyntaxError(line: line, message: "unknown context key '\(key)'; use platform, idiom and appVersion")
            }
        }
        return context
    }

    /// A context as a case writes it: `[platform=ios appVersion=7.1.0]`, or empty for none.
    public static func text(of context: ResolveContext) -> String {
        var fields: [String] = []
        if let p = context.platform { fields.append("platform=\(p)") }
        if let i = context.idiom { fields.append("idiom=\(i)") }
        if let v = context.appVersion { fields.append("appVersion=\(v)") }
        return fields.isEmpty ? "" : "[\(fields.joined(separator: " "))]"
    }

    /// The line that states `expectation` for `url` in `context`.
    public static func line(url: String, context: ResolveContext = .none, expectation: Expectation) -> String {
        let ctx = text(of: context)
        let subject = ctx.isEmpty ? url : "\(url) \(ctx)"
        return expectation == .matched ? subject : "\(subject) -> \(expectation)"
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
