extension ResolveContext {
    /// A field of a request context, as every input names it: the query string of
    /// `GET /v1/resolve`, the `context` of `POST /v1/resolve`, a cases line's
    /// `[platform=ios appVersion=7.1.0]`, the CLI's flags, the client library.
    package enum Field: String, Sendable, CaseIterable {
        case platform, idiom, appVersion
    }

    /// Why a context field cannot be taken; one wording wherever a context is read.
    package enum FieldError: Error, Sendable, Equatable, CustomStringConvertible {
        case unknown(String)
        case repeated(Field)
        case notAVersion(String)

        package var description: String {
            switch self {
            case .unknown(let name): return "unknown context field \"\(name)\"; use platform, idiom and appVersion"
            case .repeated(let field): return "give \(field.rawValue) at most once"
            case .notAVersion(let text): return "appVersion \"\(text)\" is not a semantic version such as 7.2.0"
            }
        }
    }

    /// Sets `field` from its text, once: a field that already has a value is refused.
    package mutating func set(_ field: Field, _ text: String) throws(FieldError) {
        switch field {
        case .platform:
            guard platform == nil else { throw .repeated(field) }
            platform = text
        case .idiom:
            guard idiom == nil else { throw .repeated(field) }
            idiom = text
        case .appVersion:
            guard appVersion == nil else { throw .repeated(field) }
            guard let version = SemanticVersion(text) else { throw .notAVersion(text) }
            appVersion = version
        }
    }

    /// Sets `appVersion` from its UTF-8 bytes (a query value), once: the usual
    /// MAJOR.MINOR.PATCH is read without making a String.
    package mutating func setAppVersion(utf8 bytes: ArraySlice<UInt8>) throws(FieldError) {
        guard appVersion == nil else { throw .repeated(.appVersion) }
        guard let version = SemanticVersion(utf8: bytes) else { throw .notAVersion(String(decoding: bytes, as: UTF8.self)) }
        appVersion = version
    }

    /// Sets the field called `name`; an unknown name is refused.
    package mutating func set(named name: some StringProtocol, _ text: String) throws(FieldError) {
        guard let field = Field(rawValue: String(name)) else { throw .unknown(String(name)) }
        try set(field, text)
    }
}
