#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A value behind a pthread mutex: state the server's request path shares across
/// libmicrohttpd's threads, and the client's. pthread is on every platform the project
/// builds for (Linux, and Apple's from their first releases), so the domain and the client
/// take it there too.
///
/// Why not `Synchronization.Mutex`: on Linux its lock is a futex driven from the
/// uninstrumented standard library, so ThreadSanitizer sees no ordering between two
/// critical sections and reports every contended counter as a race. pthread mutexes are
/// intercepted by ThreadSanitizer, so its run of the live suite stays meaningful.
///
/// `@unchecked Sendable` (as are the daemon's handles on libmicrohttpd's objects, each
/// with its reason beside it): the value is only reached under the mutex, and must itself
/// be `Sendable` to enter or leave it.
package final class Locked<Value: Sendable>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    /// The value, out of line: a stored `var` would be checked for exclusive access at
    /// run time on every call, which the mutex already guarantees.
    private let value: UnsafeMutablePointer<Value>

    package init(_ value: Value) {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        self.value = .allocate(capacity: 1)
        self.value.initialize(to: value)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
        value.deinitialize(count: 1)
        value.deallocate()
    }

    /// Runs `body` with the value, holding the lock. Keep it to a few instructions.
    package func withLock<Result: ~Copyable>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value.pointee)
    }
}
