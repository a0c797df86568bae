import Switchboard

// Declared inside `SwitchboardClient`, so that `SwitchboardClient.ClientUpdate` names it
// although the module has the class's name, and aliased at the top level.

extension SwitchboardClient {
    /// What the client's update sequence announces.
    public enum ClientUpdate: Sendable {
        /// A manifest was put in use: the first one, or a newer one from the server.
        case adopted(ManifestInUse)
        /// An update failed: the manifest in use (if any) stays.
        case failed(ClientFailure)
    }
}

public typealias ClientUpdate = SwitchboardClient.ClientUpdate
