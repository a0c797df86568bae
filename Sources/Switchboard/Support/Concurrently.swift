import Dispatch
import Synchronization

/// Runs `first` and `second` at the same time, on two cores where there are two, and
/// returns both results: a manifest load builds what serving needs (canonical bytes,
/// their SHA-256, result targets) while it compiles and checks the routes.
package func concurrently<A: Sendable, B: Sendable>(_ first: @Sendable () -> A, _ second: @Sendable () -> B) -> (A, B) {
    let results = Mutex<(A?, B?)>((nil, nil))
    DispatchQueue.concurrentPerform(iterations: 2) { part in
        if part == 0 {
            let a = first()
            results.withLock { $0.0 = a }
        } else {
            let b = second()
            results.withLock { $0.1 = b }
        }
    }
    return results.withLock { ($0.0!, $0.1!) }
}
