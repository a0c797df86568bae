import RouteMatching

/// The manifest document (docs/manifest.md), decoded. Build one with ``ManifestDecoder``.
public struct Manifest: Sendable {
    public let version: Int64
    public let updatedAt: String?
    /// Seconds since 1970 of `updatedAt`, for `Last-Modified`.
    public let updatedAtEpoch: Int64?
    public let hosts: [String]
    public let schemes: [String]
    public let caseSensitive: Bool
    public let fallback: Fallback
    public let features: JSONValue?
    public let messages: JSONValue?
    public let routes: [Route]
}
