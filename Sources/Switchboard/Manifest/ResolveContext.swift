/// Who is asking: used by `variants` and `since`/`until`.
public struct ResolveContext: Sendable, Hashable {
    public var platform: String?
    public var idiom: String?
    public var appVersion: SemanticVersion?

    /// No field set. (Apart from the memberwise form: its default arguments made the
    /// server's every request copy and destroy an empty context through outlined value
    /// witnesses.)
    public init() {}

    /// A platform or idiom, no app version: `since` and `until` gate nothing.
    public init(platform: String? = nil, idiom: String? = nil) {
        self.platform = platform
        self.idiom = idiom
    }

    public init(platform: String? = nil, idiom: String? = nil, appVersion: SemanticVersion) {
        self.platform = platform
        self.idiom = idiom
        self.appVersion = appVersion
    }

    /// With the app's version as the app has it (`CFBundleShortVersionString`, `7.2.0`);
    /// throws when it is not a version, rather than gating nothing by `since` and sending
    /// the app to screens it may not have.
    public init(platform: String? = nil, idiom: String? = nil, appVersion: String) throws(InvalidAppVersion) {
        guard let version = SemanticVersion(appVersion) else { throw InvalidAppVersion(text: appVersion) }
        self.init(platform: platform, idiom: idiom, appVersion: version)
    }

    /// A version already read, or nil for none (the server's query, a cases file).
    package init(platform: String?, idiom: String?, version: SemanticVersion?) {
        self.platform = platform
        self.idiom = idiom
        self.appVersion = version
    }

    /// An app version that is not `MAJOR[.MINOR[.PATCH]][-PRERELEASE][+BUILD]`.
    public struct InvalidAppVersion: Error, Sendable, CustomStringConvertible {
        public let text: String
        public var description: String { "the app version \"\(text)\" is not a version (MAJOR[.MINOR[.PATCH]][-PRERELEASE][+BUILD])" }
    }

    /// No platform, idiom or version.
    public static let empty = ResolveContext()
    /// Values `platform` may take in `when`.
    package static let platforms = ["ios", "android", "web"]
    /// Values `idiom` may take in `when`.
    package static let idioms = ["phone", "tablet"]
}
