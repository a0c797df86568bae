import Dispatch
import Switchboard

// Telling the app: the update stream, callbacks on a queue it chooses, mode watchers, and
// the announcement that reaches them all.
extension SwitchboardClient {
    /// The updates from now on, starting with the manifest in use (if any): each manifest
    /// adopted and each failure. Ends when the client goes away.
    public func updates() -> AsyncStream<ClientUpdate> {
        let (stream, continuation) = AsyncStream.makeStream(of: ClientUpdate.self, bufferingPolicy: .bufferingNewest(64))
        let id: Int = state.withLock { s in
            if let current = s.current { continuation.yield(.adopted(current)) }
            s.nextSubscriber += 1
            s.subscribers[s.nextSubscriber] = continuation
            return s.nextSubscriber
        }
        continuation.onTermination = { [weak self] _ in _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) } }
        return stream
    }

    /// Calls `handler` on the main queue with each update from now on (for code that does
    /// not use Swift concurrency: a UIKit controller), until the subscription is cancelled
    /// or released: keep it as long as the handler should run. The handler may call the client.
    public func onUpdate(_ handler: @escaping @MainActor @Sendable (ClientUpdate) -> Void) -> UpdateSubscription {
        subscribe { update, stillSubscribed in
            DispatchQueue.main.async {
                MainActor.assumeIsolated { if stillSubscribed() { handler(update) } }
            }
        }
    }

    /// ``onUpdate(_:)`` on `queue` (a serial queue keeps the updates in order).
    public func onUpdate(on queue: DispatchQueue, _ handler: @escaping @Sendable (ClientUpdate) -> Void) -> UpdateSubscription {
        subscribe { update, stillSubscribed in
            queue.async { if stillSubscribed() { handler(update) } }
        }
    }

    /// Registers `deliver`, called with each update and a check that the subscription has
    /// not ended since: an update queued before `cancel()` does not reach the handler after it.
    private func subscribe(_ deliver: @escaping @Sendable (ClientUpdate, @escaping @Sendable () -> Bool) -> Void) -> UpdateSubscription {
        let id: Int = state.withLock { s in
            s.nextSubscriber += 1
            return s.nextSubscriber
        }
        let stillSubscribed: @Sendable () -> Bool = { [weak self] in self?.state.withLock { $0.callbacks[id] != nil } ?? false }
        state.withLock { $0.callbacks[id] = { update in deliver(update, stillSubscribed) } }
        return UpdateSubscription { [weak self] in _ = self?.state.withLock { $0.callbacks.removeValue(forKey: id) } }
    }

    /// Calls `handler` with the mode each time it changes (start, stop, pause, resume).
    package func onModeChange(_ handler: @escaping @Sendable (Mode) -> Void) -> UpdateSubscription {
        let id: Int = state.withLock { s in
            s.nextSubscriber += 1
            s.modeWatchers[s.nextSubscriber] = handler
            return s.nextSubscriber
        }
        return UpdateSubscription { [weak self] in _ = self?.state.withLock { $0.modeWatchers.removeValue(forKey: id) } }
    }

    func announce(_ update: ClientUpdate) {
        let callbacks = state.withLock { s in
            for continuation in s.subscribers.values { continuation.yield(update) }
            return Array(s.callbacks.values)
        }
        for callback in callbacks { callback(update) }
    }
}
