import Switchboard

// Declared inside `SwitchboardClient`, so that `SwitchboardClient.UpdateSubscription` names it
// although the module has the class's name, and aliased at the top level.

extension SwitchboardClient {
    /// A subscription made by ``SwitchboardClient/onUpdate(_:)``: `cancel()` ends it.
    public final class UpdateSubscription: Sendable {
        private let end: @Sendable () -> Void

        init(_ end: @escaping @Sendable () -> Void) {
            self.end = end
        }

        public func cancel() { end() }
    }
}

public typealias UpdateSubscription = SwitchboardClient.UpdateSubscription
