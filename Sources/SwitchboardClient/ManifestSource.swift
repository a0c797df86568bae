import Switchboard

// Declared inside `SwitchboardClient`, so that `SwitchboardClient.ManifestSource` names it
// although the module has the class's name, and aliased at the top level.

extension SwitchboardClient {
    /// Where the manifest in use came from.
    public enum ManifestSource: String, Sendable {
        /// The last good manifest the client persisted.
        case cache
        /// The copy the app or backend bundled and passed in.
        case bundle
        /// Fetched from the server in this run.
        case server
    }
}

public typealias ManifestSource = SwitchboardClient.ManifestSource
