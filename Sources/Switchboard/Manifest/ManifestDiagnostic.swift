/// One problem found in a manifest: where (a JSON pointer), what (a stable code) and a
/// message a person can act on.
public struct ManifestDiagnostic: Sendable, Equatable, CustomStringConvertible {
    public enum Severity: String, Sendable {
        case error, warning
    }

    public let severity: Severity
    /// Stable identifier: `ambiguous`, `duplicate`, `never-wins`, `redirect-cycle`, ...
    public let code: String
    /// RFC 6901 pointer into the manifest, e.g. `/routes/3/pattern`.
    public let pointer: String
    public let message: String
    /// Where the pointer's value is in the file, when the manifest came from bytes.
    public var position: SourcePosition?
    /// On a `more-problems` diagnostic: how many errors and warnings it stands for.
    package var unlistedErrors = 0, unlistedWarnings = 0

    package init(_ severity: Severity = .error, code: DiagnosticCode, pointer: String, message: String,
                position: SourcePosition? = nil) {
        self.severity = severity
        self.code = code.rawValue
        self.pointer = pointer
        self.message = message
        self.position = position
    }

    /// The most diagnostics a manifest's check lists: past them one `more-problems`
    /// diagnostic says how many more there were, so that a manifest with a problem repeated
    /// in every route neither fills memory nor floods a log.
    package static let maxListed = 1_000

    /// The first ``maxListed`` of `diagnostics` (in the order given), and one saying how many
    /// more there were, `unlisted` errors found and not built included.
    package static func listed(_ diagnostics: [ManifestDiagnostic], unlisted: Int = 0) -> [ManifestDiagnostic] {
        guard diagnostics.count > maxListed || unlisted > 0 else { return diagnostics }
        let rest = diagnostics.dropFirst(maxListed)
        let errors = rest.contains { $0.severity == .error } || unlisted > 0
        let more = rest.count + unlisted
        var note = ManifestDiagnostic(errors ? .error : .warning, code: .moreProblems, pointer: "",
                                      message: "\(more) more problem\(more == 1 ? "" : "s") not listed: at most \(maxListed) are")
        let restErrors = rest.count { $0.severity == .error }
        note.unlistedErrors = restErrors + unlisted
        note.unlistedWarnings = rest.count - restErrors
        return Array(diagnostics.prefix(maxListed)) + [note]
    }

    /// How many errors and warnings `diagnostics` report, those a `more-problems` stands
    /// for included.
    package static func counts(_ diagnostics: [ManifestDiagnostic]) -> (errors: Int, warnings: Int) {
        diagnostics.reduce(into: (errors: 0, warnings: 0)) { counts, d in
            if d.code == DiagnosticCode.moreProblems.rawValue {
                counts.errors += d.unlistedErrors
                counts.warnings += d.unlistedWarnings
            } else if d.severity == .error {
                counts.errors += 1
            } else {
                counts.warnings += 1
            }
        }
    }

    /// `error[ambiguous] /routes/3/pattern: ... (line 41, column 18)`
    public var description: String {
        let place = position.map { " (line \($0.line), column \($0.column))" } ?? ""
        return "\(severity.rawValue)[\(code)] \(pointer.isEmpty ? "/" : pointer): \(message)\(place)"
    }
}

/// An RFC 6901 JSON pointer under construction. The decoder takes pointers as
/// `@autoclosure`s, so one is built only when a problem is reported, not for every field
/// read.
struct JSONPointer: Sendable, CustomStringConvertible {
    private(set) var description: String = ""

    func appending(_ key: String) -> JSONPointer {
        var p = self
        p.description += "/" + key.replacingTilde()
        return p
    }

    func appending(_ index: Int) -> JSONPointer {
        var p = self
        p.description += "/\(index)"
        return p
    }

    static let root = JSONPointer()
}

extension String {
    fileprivate func replacingTilde() -> String {
        let special = utf8.contains { $0 == UInt8(ascii: "~") || $0 == UInt8(ascii: "/") }
        if !special { return self }
        var out = ""
        for ch in self {
            switch ch {
            case "~": out += "~0"
            case "/": out += "~1"
            default: out.append(ch)
            }
        }
        return out
    }
}

/// The manifest could not be loaded: every problem found, errors and warnings.
public struct ManifestError: Error, Sendable, Equatable, CustomStringConvertible {
    public let diagnostics: [ManifestDiagnostic]

    package init(diagnostics: [ManifestDiagnostic]) { self.diagnostics = diagnostics }

    public var errors: [ManifestDiagnostic] { diagnostics.filter { $0.severity == .error } }

    /// How many errors were found: those listed, and those a `more-problems` stands for.
    public var errorCount: Int { ManifestDiagnostic.counts(diagnostics).errors }

    public var description: String {
        let count = errorCount
        return "\(count) manifest error\(count == 1 ? "" : "s"): " + errors.map(\.description).joined(separator: "; ")
    }
}
