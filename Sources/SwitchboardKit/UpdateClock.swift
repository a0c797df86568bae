/// The clock the client measures its requests and waits its pauses on: the system's by
/// default. The updater scenarios (conformance/updater) give one that moves only when the
/// script says, so backoffs and intervals of minutes are checked without waiting for them.
package protocol UpdateClock: Sendable {
    /// The time since an origin of the clock's own.
    var now: Duration { get }
    /// Returns after `duration`, or throws `CancellationError` when the task is cancelled.
    func sleep(for duration: Duration) async throws
}

/// The system's continuous clock.
package struct SystemUpdateClock: UpdateClock {
    private let origin = ContinuousClock.now

    package init() {}

    package var now: Duration { ContinuousClock.now - origin }

    package func sleep(for duration: Duration) async throws {
        try await Task.sleep(for: duration)
    }
}
