import Switchboard

/// Where the manifest in use came from.
public enum ManifestSource: String, Sendable {
    /// The last good manifest the client persisted.
    case cache
    /// The copy the app or backend bundled and passed in.
    case bundle
    /// Fetched from the server in this run.
    case server
}
