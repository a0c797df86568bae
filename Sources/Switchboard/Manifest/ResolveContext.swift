/// Who is asking: used by `variants` and `since`/`until`.
public struct ResolveContext: Sendable, Hashable {
    public var platform: String?
    public var idiom: String?
    public var appVersion: SemanticVersion?

    /// No field set. (Apart from the memberwise form: its default arguments made the
    /// server's every request copy and destroy an empty context through outlined value
    /// witnesses.)
    public init() {}

    public init(platform: String? = nil, idiom: String? = nil, appVersion: SemanticVersion? = nil) {
        self.platform = platform
        self.idiom = idiom
        self.appVersion = appVersion
    }

    public static let none = ResolveContext()
    /// Values `platform` may take in `when`.
    package static let platforms = ["ios", "android", "web"]
    /// Values `idiom` may take in `when`.
    package static let idioms = ["phone", "tablet"]
}
