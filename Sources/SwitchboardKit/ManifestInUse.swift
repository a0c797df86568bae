import Switchboard

/// A manifest the client resolves with: compiled by the same engine as the server's.
public struct ManifestInUse: Sendable {
    public let compiled: CompiledManifest
    /// The ETag the server sent with it (its own for a bundled copy): what the next
    /// conditional GET names in `If-None-Match`.
    public let etag: String
    public let source: ManifestSource
    /// The authors' version number (`version` of the manifest).
    public var version: Int64 { compiled.manifest.version }

    public init(compiled: CompiledManifest, etag: String, source: ManifestSource) {
        self.compiled = compiled
        self.etag = etag
        self.source = source
    }
}
