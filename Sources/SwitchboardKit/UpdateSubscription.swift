/// A subscription made by ``SwitchboardClient/onUpdate(_:)``: it ends when it is cancelled
/// or released, so an app keeps it (a property of the controller that shows the updates)
/// for as long as the handler should run.
public final class UpdateSubscription: Sendable {
    private let end: @Sendable () -> Void

    init(_ end: @escaping @Sendable () -> Void) {
        self.end = end
    }

    public func cancel() { end() }

    deinit { end() }
}
