import Dispatch
import MicroHTTPD
import SystemSupport

/// Runs the store's reloads one at a time on its own queue, off the request path,
/// and coalesces bursts of change events (an editor's save is several) into one.
final class Reloader: Sendable {
    let store: ManifestStore
    let queue = DispatchQueue(label: "switchboard.reload")
    private let pending = Locked(false)

    init(store: ManifestStore) { self.store = store }

    /// Reloads soon, once for any number of calls in the next few milliseconds.
    func schedule() {
        guard pending.withLock({ p in defer { p = true }; return !p }) else { return }
        queue.asyncAfter(deadline: .now() + .milliseconds(30)) { [self] in
            pending.withLock { $0 = false }
            _ = reloadAndTrim()
        }
    }

    /// Reloads now and returns what happened.
    func reloadNow() -> ManifestStore.ReloadOutcome {
        queue.sync { reloadAndTrim() }
    }

    /// A reload frees a whole manifest (the old one, or the refused new one).
    private func reloadAndTrim() -> ManifestStore.ReloadOutcome {
        let outcome = store.reload()
        releaseFreedMemory()
        return outcome
    }
}
