import Switchboard
/// What `switchboard check` found in one manifest file, as JSON or as GitHub
/// annotations on the lines of the file.
package struct CheckReport: Sendable {
    package let file: String
    package let diagnostics: [ManifestDiagnostic]
    /// The manifest's version and ETag when it loaded (warnings allowed).
    package let version: Int64?
    package let etag: String?

    package init(file: String, diagnostics: [ManifestDiagnostic], version: Int64? = nil, etag: String? = nil) {
        self.file = file
        self.diagnostics = diagnostics
        self.version = version
        self.etag = etag
    }

    /// Errors found, those past the listed ones (`more-problems`) included.
    package var errors: Int { ManifestDiagnostic.counts(diagnostics).errors }
    package var valid: Bool { errors == 0 }

    /// `{"file", "valid", "errors", "warnings", "version", "etag", "diagnostics": [...]}`
    package var json: String {
        var members: [JSONValue.Member] = [
            .init("file", .string(file)), .init("valid", .bool(valid)),
            .init("errors", .integer(Int64(errors))), .init("warnings", .integer(Int64(ManifestDiagnostic.counts(diagnostics).warnings))),
        ]
        if let version { members.append(.init("version", .integer(version))) }
        if let etag { members.append(.init("etag", .string(etag))) }
        members.append(.init("diagnostics", .array(diagnostics.map(Self.json))))
        return String(decoding: JSONValue.object(members).serialized(), as: UTF8.self) + "\n"
    }

    /// One diagnostic: severity, code, pointer, line and column (when known), message.
    static func json(_ d: ManifestDiagnostic) -> JSONValue {
        var members: [JSONValue.Member] = [
            .init("severity", .string(d.severity.rawValue)), .init("code", .string(d.code)), .init("pointer", .string(d.pointer)),
        ]
        if let p = d.position {
            members += [.init("line", .integer(Int64(p.line))), .init("column", .integer(Int64(p.column)))]
        }
        members.append(.init("message", .string(d.message)))
        return .object(members)
    }

    /// An annotation per diagnostic, on its line, titled with its code and pointer.
    package var githubAnnotations: [String] {
        diagnostics.map { d in
            GitHubAnnotation(d.severity == .error ? .error : .warning, file: file, position: d.position,
                             title: "\(d.code) \(d.pointer.isEmpty ? "/" : d.pointer)", message: d.message).command
        }
    }
}
