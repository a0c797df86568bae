import Switchboard

/// What the client's update sequence announces.
public enum ClientUpdate: Sendable {
    /// A manifest was put in use: the first one, or a newer one from the server.
    case adopted(ManifestInUse)
    /// An update failed: the manifest in use (if any) stays.
    case failed(ClientFailure)
}
