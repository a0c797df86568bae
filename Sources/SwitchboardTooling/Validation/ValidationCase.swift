import Switchboard
/// One line of a deep-link cases file: a URL and what it must resolve to.
///
/// ```text
/// https://www.artsy.net/artwork/soup -> Artwork
/// artsy://artist/banksy               # must match some route
/// https://www.artsy.net/nowhere -> fallback
/// /artwork/soup [platform=ios appVersion=7.1.0] -> WebView
/// ```
package struct ValidationCase: Sendable, Equatable {
    package enum Expectation: Sendable, Equatable, CustomStringConvertible {
        /// Any route matches.
        case matched
        case destination(String)
        case fallback
        case external
        case rejected

        package var description: String {
            switch self {
            case .matched: return "a route"
            case .destination(let d): return d
            case .fallback: return "fallback"
            case .external: return "external"
            case .rejected: return "rejected"
            }
        }
    }

    package let line: Int
    package let url: String
    package let expectation: Expectation
    /// The context the case names (`[platform=ios appVersion=7.1.0]`), replacing the run's.
    package let context: ResolveContext?
    /// The line as written (without comment), for reports.
    package let text: String

    package init(line: Int, url: String, context: ResolveContext? = nil, expectation: Expectation, text: String) {
        self.line = line
        self.url = url
        self.context = context
        self.expectation = expectation
        self.text = text
    }

    /// Why a cases file cannot be read.
    package struct SyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
        package let line: Int
        package let message: String
        package var description: String { "line \(line): \(message)" }
    }

    /// Parses a cases file: one case a line, blank lines and `#` comments skipped. A URL or
    /// a destination may be written as a JSON string (`"Featured Fairs"`), as ``line(url:context:expectation:)``
    /// writes one that is not a plain word; a quoted `"fallback"` is a destination of that name.
    package static func parse(_ text: String) throws(SyntaxError) -> [ValidationCase] {
        var cases: [ValidationCase] = []
        // "\r\n" is one Character: a file with Windows line ends splits on it as well.
        for (index, rawLine) in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }).enumerated() {
            var line = Substring(rawLine)
            if line.last == "\r" { line = line.dropLast() }
            let trimmed = line.trimmingWhitespace
            if trimmed.isEmpty || trimmed.unicodeScalars.first == "#" { continue }
            var reader = LineReader(Substring(trimmed), line: index + 1)
            let parsed = try reader.readCase()
            cases.append(ValidationCase(line: index + 1, url: parsed.url, context: parsed.context, expectation: parsed.expectation,
                                        text: String(Substring(trimmed)[..<reader.end])))
        }
        return cases
    }

    /// Reads one line of a cases file: `URL [context] -> target # comment`, each part after
    /// the URL optional, URL and target bare or JSON strings. It reads Unicode scalars, not
    /// characters: a combining mark after a space or a quote must not hide them.
    private struct LineReader {
        typealias Scalars = Substring.UnicodeScalarView
        var rest: Scalars
        let full: Substring
        let line: Int
        /// Where the case ends (before a comment and the spaces before it).
        var end: Substring.Index

        init(_ text: Substring, line: Int) {
            rest = text.unicodeScalars
            full = text
            self.line = line
            end = text.endIndex
        }

        mutating func readCase() throws(SyntaxError) -> (url: String, context: ResolveContext?, expectation: Expectation) {
            guard let (url, _) = try token(stopAtArrow: true) else { throw usage() }
            var context: ResolveContext? = nil
            skipSpaces()
            if rest.first == "[" {
                guard let close = rest.firstIndex(of: "]") else { throw usage() }
                context = try ValidationCase.context(Substring(rest[rest.index(after: rest.startIndex)..<close]), line: line)
                rest = rest[rest.index(after: close)...]
                skipSpaces()
            }
            var expectation = Expectation.matched
            if Self.startsWithArrow(rest) {
                rest = rest.dropFirst(2)
                skipSpaces()
                guard let (target, quoted) = try token(stopAtArrow: false), !target.isEmpty || quoted else {
                    throw SyntaxError(line: line, message: "expected a destination after '->' (fallback, external, rejected, a name, or a JSON string such as \"Featured Fairs\")")
                }
                switch (quoted, target) {
                case (false, "fallback"): expectation = .fallback
                case (false, "external"): expectation = .external
                case (false, "rejected"): expectation = .rejected
                default: expectation = .destination(target)
                }
                skipSpaces()
            }
            end = rest.startIndex
            let scalars = full.unicodeScalars
            while end > scalars.startIndex, Self.isSpace(scalars[scalars.index(before: end)]) { end = scalars.index(before: end) }
            guard rest.isEmpty || rest.first == "#" else {
                if Self.startsWithArrow(rest) { throw SyntaxError(line: line, message: "more than one '->' in '\(full)'") }
                if expectation != .matched, let arrow = full.range(of: "->") {
                    throw SyntaxError(line: line, message: "expected one destination after '->', got '\(full[arrow.upperBound...].trimmingWhitespace)'; write a destination that is not one word as a JSON string: \"Featured Fairs\"")
                }
                throw usage()
            }
            return (url, context, expectation)
        }

        /// A JSON string, or the scalars up to a space (or `->`, for a URL). A token that
        /// starts with a quote but is not a complete JSON string followed by a space, the
        /// end (or `->`) is read bare, as it was before quoting existed (`/a -> "X` names the
        /// destination `"X`).
        mutating func token(stopAtArrow: Bool) throws(SyntaxError) -> (String, quoted: Bool)? {
            guard let first = rest.first else { return nil }
            if first == "\"", let (value, after) = Self.jsonString(rest),
               after == rest.endIndex || Self.isSpace(rest[after]) || (stopAtArrow && Self.startsWithArrow(rest[after...])) {
                rest = rest[after...]
                return (value, true)
            }
            var i = rest.startIndex
            while i < rest.endIndex, !Self.isSpace(rest[i]), !(stopAtArrow && Self.startsWithArrow(rest[i...])) {
                i = rest.index(after: i)
            }
            defer { rest = rest[i...] }
            return (String(rest[..<i]), false)
        }

        /// The JSON string at the start of `text` and where it ends, if it is one.
        static func jsonString(_ text: Scalars) -> (String, Scalars.Index)? {
            var i = text.index(after: text.startIndex)
            var escaped = false
            while i < text.endIndex {
                let c = text[i]
                if escaped { escaped = false } else if c == "\\" { escaped = true } else if c == "\"" { break }
                i = text.index(after: i)
            }
            guard i < text.endIndex, case .string(let value)? = try? JSONParser.parse(Array(String(text[...i]).utf8)) else {
                return nil
            }
            return (value, text.index(after: i))
        }

        mutating func skipSpaces() {
            while let c = rest.first, Self.isSpace(c) { rest = rest.dropFirst() }
        }

        static func isSpace(_ c: Unicode.Scalar) -> Bool { c == " " || c == "\t" }

        static func startsWithArrow(_ s: Scalars) -> Bool {
            var i = s.makeIterator()
            return i.next() == "-" && i.next() == ">"
        }

        func usage() -> SyntaxError {
            SyntaxError(line: line, message: "expected 'URL' or 'URL -> Destination|fallback|external|rejected' (a context may follow the URL: [platform=ios appVersion=7.1.0]; a URL or destination with spaces as a JSON string), got '\(full)'")
        }
    }

    /// `platform=ios idiom=tablet appVersion=7.1.0`, each at most once.
    static func context(_ text: Substring, line: Int) throws(SyntaxError) -> ResolveContext {
        var context = ResolveContext()
        for field in text.split(whereSeparator: { $0 == " " || $0 == "\t" }) {
            guard let eq = field.firstIndex(of: "=") else {
                throw SyntaxError(line: line, message: "expected a context such as [platform=ios idiom=phone appVersion=7.1.0], got '[\(text)]'")
            }
            do {
                try context.set(named: field[..<eq], String(field[field.index(after: eq)...]))
            } catch {
                throw SyntaxError(line: line, message: error.description)
            }
        }
        return context
    }

    /// A context as a case writes it: `[platform=ios appVersion=7.1.0]`, or empty for none.
    package static func text(of context: ResolveContext) -> String {
        var fields: [String] = []
        if let p = context.platform { fields.append("platform=\(p)") }
        if let i = context.idiom { fields.append("idiom=\(i)") }
        if let v = context.appVersion { fields.append("appVersion=\(v)") }
        return fields.isEmpty ? "" : "[\(fields.joined(separator: " "))]"
    }

    /// The line that states `expectation` for `url` in `context`; a URL or destination that
    /// would not read back as itself is written as a JSON string (docs/pipelines.md).
    package static func line(url: String, context: ResolveContext = .empty, expectation: Expectation) -> String {
        let ctx = text(of: context)
        let written = isPlain(url, url: true) ? url : quoted(url)
        let subject = ctx.isEmpty ? written : "\(written) \(ctx)"
        switch expectation {
        case .matched: return subject
        case .destination(let d): return "\(subject) -> \(isPlain(d, url: false) ? d : quoted(d))"
        default: return "\(subject) -> \(expectation)"
        }
    }

    /// Whether `text` reads back as itself unquoted: not empty, no whitespace or control
    /// character, no `->` or `"` at all; for a URL, not starting like a comment; for a
    /// destination, no `#` or `[` and not a keyword.
    static func isPlain(_ text: String, url: Bool) -> Bool {
        // Scalars, as the reader reads them: a combining mark must not hide a `>` or a `#`.
        let scalars = Array(text.unicodeScalars)
        guard let first = scalars.first, first != "\"", !(url && first == "#") else { return false }
        for (i, scalar) in scalars.enumerated() {
            if scalar.properties.isWhitespace || scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar == "\"" {
                return false
            }
            if scalar == "-", i + 1 < scalars.count, scalars[i + 1] == ">" { return false }
            if !url, scalar == "#" || scalar == "[" { return false }
        }
        return url || !["fallback", "external", "rejected"].contains(text)
    }

    static func quoted(_ text: String) -> String {
        var w = JSONWriter()
        w.string(text)
        return String(decoding: w.bytes, as: UTF8.self)
    }

    /// Whether `result` meets the expectation.
    package func isMet(by result: ResultSummary) -> Bool {
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
