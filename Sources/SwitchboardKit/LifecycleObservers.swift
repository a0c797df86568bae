import Foundation

/// The app's background and foreground notifications, observed by their names so that the
/// code is the same on every platform (and tested on Linux by posting them): UIKit's, which
/// a scene-based app still gets, and an app extension's host's.
final class LifecycleObservers: @unchecked Sendable {
    // @unchecked: `tokens` is written once, by `observe` right after init and before the
    // object is shared, then only read by `deinit`; NotificationCenter is thread-safe.
    private var tokens: [any NSObjectProtocol] = []

    static let backgroundNames = ["UIApplicationDidEnterBackgroundNotification", "NSExtensionHostDidEnterBackgroundNotification"]
    static let foregroundNames = ["UIApplicationWillEnterForegroundNotification", "NSExtensionHostWillEnterForegroundNotification"]

    /// Calls `background` and `foreground` on the thread that posts each notification.
    func observe(background: @escaping @Sendable () -> Void, foreground: @escaping @Sendable () -> Void) {
        let center = NotificationCenter.default
        for name in Self.backgroundNames {
            tokens.append(center.addObserver(forName: Notification.Name(name), object: nil, queue: nil) { _ in background() })
        }
        for name in Self.foregroundNames {
            tokens.append(center.addObserver(forName: Notification.Name(name), object: nil, queue: nil) { _ in foreground() })
        }
    }

    deinit {
        for token in tokens { NotificationCenter.default.removeObserver(token) }
    }
}
