import Foundation

/// What the client sets on its cache file (``SwitchboardClient/Configuration/cacheFileOptions``).
/// Each applies on Apple's platforms when the client creates the file; a value an app set
/// on the file since (or on the first file, before the client replaced it) is kept.
public struct CacheFileOptions: Sendable, Equatable {
    /// The data-protection class of the file (iOS, watchOS, visionOS; ignored elsewhere).
    public enum Protection: Sendable, Equatable {
        /// Readable only while the device is unlocked.
        case complete
        /// Readable while unlocked; a file open before the lock stays readable.
        case completeUnlessOpen
        /// Readable from the first unlock after a reboot on: what a client started in the
        /// background (a push, a background fetch) before the user unlocks again needs.
        case completeUntilFirstUserAuthentication
        /// No protection class set: the system's default for new files.
        case systemDefault
    }

    /// Whether the file is excluded from iCloud and device backups. Default true.
    public var excludedFromBackup: Bool
    /// Default ``Protection/completeUntilFirstUserAuthentication``.
    public var protection: Protection

    public init(excludedFromBackup: Bool = true, protection: Protection = .completeUntilFirstUserAuthentication) {
        self.excludedFromBackup = excludedFromBackup
        self.protection = protection
    }
}

#if canImport(Darwin)
extension CacheFileOptions.Protection {
    var fileProtectionType: FileProtectionType? {
        switch self {
        case .complete: return .complete
        case .completeUnlessOpen: return .completeUnlessOpen
        case .completeUntilFirstUserAuthentication: return .completeUntilFirstUserAuthentication
        case .systemDefault: return nil
        }
    }
}
#endif
