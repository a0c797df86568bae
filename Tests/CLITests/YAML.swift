/// A reader for the block YAML the deployment files are written in: `---` documents,
/// block mappings and sequences, plain and quoted scalars, `#` comments. Flow style,
/// anchors, tags and multi-line scalars are not read (the files use none). Enough to
/// render a kustomization in a test without a cluster or a YAML package.
enum YAML {
    struct Error: Swift.Error, CustomStringConvertible {
        let line: Int
        let message: String
        var description: String { "line \(line): \(message)" }
    }

    private struct Line {
        let number: Int
        let indent: Int
        let text: Substring
    }

    /// Every document of `text`, each a `[String: Any]`, `[Any]` or `String`.
    static func documents(_ text: String) throws -> [Any] {
        var documents: [[Line]] = [[]]
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let content = withoutComment(raw)
            let trimmed = content.drop { $0 == " " }
            if trimmed.isEmpty { continue }
            if content == "---" { documents.append([]); continue }
            documents[documents.count - 1].append(Line(number: index + 1, indent: content.count - trimmed.count, text: trimmed))
        }
        return try documents.filter { !$0.isEmpty }.map { lines in
            var i = 0
            let value = try block(lines, &i, indent: lines[0].indent)
            if i < lines.count { throw Error(line: lines[i].number, message: "unexpected indentation") }
            return value
        }
    }

    private static func withoutComment(_ line: Substring) -> Substring {
        var quote: Character?
        var previous: Character = " "
        for index in line.indices {
            let c = line[index]
            if let q = quote {
                if c == q { quote = nil }
            } else if c == "\"" || c == "'" {
                quote = c
            } else if c == "#" && previous == " " {
                return Substring(line[..<index].reversed().drop { $0 == " " }.reversed())
            }
            previous = c
        }
        return Substring(line.reversed().drop { $0 == " " }.reversed())
    }

    private static func isItem(_ text: Substring) -> Bool { text == "-" || text.hasPrefix("- ") }

    private static func block(_ lines: [Line], _ i: inout Int, indent: Int) throws -> Any {
        isItem(lines[i].text) ? try sequence(lines, &i, indent: indent) : try mapping(lines, &i, indent: indent)
    }

    private static func sequence(_ lines: [Line], _ i: inout Int, indent: Int) throws -> [Any] {
        var items: [Any] = []
        var lines = lines
        while i < lines.count, lines[i].indent == indent, isItem(lines[i].text) {
            let rest = lines[i].text.dropFirst().drop { $0 == " " }
            if rest.isEmpty {
                i += 1
                guard i < lines.count, lines[i].indent > indent else { items.append(""); continue }
                items.append(try block(lines, &i, indent: lines[i].indent))
            } else if keyAndValue(rest) != nil {
                // `- key: value` opens a mapping whose keys line up with `key`.
                let column = indent + (lines[i].text.count - rest.count)
                lines[i] = Line(number: lines[i].number, indent: column, text: rest)
                items.append(try mapping(lines, &i, indent: column))
            } else {
                items.append(scalar(rest))
                i += 1
            }
        }
        return items
    }

    private static func mapping(_ lines: [Line], _ i: inout Int, indent: Int) throws -> [String: Any] {
        var map: [String: Any] = [:]
        while i < lines.count, lines[i].indent == indent, !isItem(lines[i].text) {
            guard let (key, value) = keyAndValue(lines[i].text) else {
                throw Error(line: lines[i].number, message: "expected `key: value`, found `\(lines[i].text)`")
            }
            if map[key] != nil { throw Error(line: lines[i].number, message: "duplicate key \(key)") }
            i += 1
            if !value.isEmpty {
                map[key] = scalar(value)
            } else if i < lines.count, lines[i].indent > indent || (lines[i].indent == indent && isItem(lines[i].text)) {
                map[key] = try block(lines, &i, indent: lines[i].indent)
            } else {
                map[key] = ""
            }
        }
        return map
    }

    /// `key: value` or `key:`, the key plain or quoted.
    private static func keyAndValue(_ text: Substring) -> (String, Substring)? {
        if text.hasPrefix("\"") || text.hasPrefix("'") { return nil }
        if text.hasSuffix(":") && !text.dropLast().contains(": ") { return (String(text.dropLast()), "") }
        guard let colon = text.range(of: ": ") else { return nil }
        return (String(text[..<colon.lowerBound]), text[colon.upperBound...].drop { $0 == " " })
    }

    private static func scalar(_ text: Substring) -> String {
        if text.count >= 2, let first = text.first, first == "\"" || first == "'", text.last == first {
            return String(text.dropFirst().dropLast())
        }
        return String(text)
    }
}
