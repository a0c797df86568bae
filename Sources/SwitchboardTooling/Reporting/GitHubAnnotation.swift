import Switchboard
/// A GitHub Actions workflow command that annotates a file of the pull request:
/// `::error file=F,line=L,col=C,title=T::message`.
///
/// Escaped per the runner's rules, so that text from a manifest (a route named
/// `a%0A::error::forged` or holding `,` and `:`) cannot end the command early, forge
/// another annotation or move this one: in the message `%`, CR and LF are encoded; in
/// property values also `:` and `,`.
///
/// ```swift
/// GitHubAnnotation(.error, file: "routes.json", line: 12, column: 7, message: "duplicate route").command
/// // ::error file=routes.json,line=12,col=7::duplicate route
/// ```
package struct GitHubAnnotation: Sendable, Equatable {
    package enum Level: String, Sendable {
        case error, warning, notice
    }

    package let level: Level
    package let file: String?
    package let position: SourcePosition?
    package let title: String?
    package let message: String

    package init(_ level: Level, file: String?, position: SourcePosition? = nil, title: String? = nil, message: String) {
        self.level = level
        self.file = file
        self.position = position
        self.title = title
        self.message = message
    }

    package init(_ level: Level, file: String?, line: Int, column: Int, title: String? = nil, message: String) {
        self.init(level, file: file, position: SourcePosition(line: line, column: column), title: title, message: message)
    }

    /// The workflow command, one line.
    package var command: String {
        var properties: [String] = []
        if let file { properties.append("file=" + Self.escapeProperty(file)) }
        if let position { properties.append("line=\(position.line),col=\(position.column)") }
        if let title { properties.append("title=" + Self.escapeProperty(title)) }
        let props = properties.isEmpty ? "" : " " + properties.joined(separator: ",")
        return "::\(level.rawValue)\(props)::\(Self.escapeData(message))"
    }

    /// The message: `%`, CR and LF encoded.
    package static func escapeData(_ text: String) -> String {
        var out = ""
        for ch in text.unicodeScalars {
            switch ch {
            case "%": out += "%25"
            case "\r": out += "%0D"
            case "\n": out += "%0A"
            default: out.unicodeScalars.append(ch)
            }
        }
        return out
    }

    /// A property value: also `:` and `,`.
    package static func escapeProperty(_ text: String) -> String {
        var out = ""
        for ch in escapeData(text).unicodeScalars {
            switch ch {
            case ":": out += "%3A"
            case ",": out += "%2C"
            default: out.unicodeScalars.append(ch)
            }
        }
        return out
    }
}
