import RouteMatching

/// The manifest document (docs/manifest.md), decoded. Build one with ``ManifestDecoder``.
public struct Manifest: Sendable {
    public let version: Int64
    public let updatedAt: String?
    /// Seconds since 1970 of `updatedAt`, for `Last-Modified`.
    package let updatedAtEpoch: Int64?
    package let hosts: [String]
    package let schemes: [String]
    package let caseSensitive: Bool
    package let fallback: Fallback
    public let features: JSONValue?
    public let messages: JSONValue?
    /// The apps whose links these are (association files, `verify-domain`); left out of
    /// the canonical form and the ETag.
    package let apps: Apps?
    public let routes: [Route]
}
