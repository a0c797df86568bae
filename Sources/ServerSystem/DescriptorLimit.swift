#if canImport(Glibc)
import Glibc
#endif

/// The process's limit on open file descriptors (`RLIMIT_NOFILE`), and connection caps
/// that fit inside it.
///
/// A connection costs a descriptor. Caps larger than what the process may open let one
/// client's idle connections use up every descriptor, so that `accept` fails for
/// everyone else until they time out. systemd starts services with a soft limit of
/// 1,024 (and a hard one of 524,288): ``raise()`` lifts the soft limit to the hard one,
/// and MicroHTTPD's `fitting(_:)` lowers a daemon's caps to what is left after the
/// descriptors the process needs for itself.
///
/// ```swift
/// let limit = DescriptorLimit.raise()
/// let http = limit.fitting(HTTPDaemon.Configuration(port: 0))
/// ```
package struct DescriptorLimit: Sendable, Equatable {
    /// Descriptors the process may have open (the soft `RLIMIT_NOFILE`).
    package let descriptors: Int

    /// Descriptors kept for everything but client connections: standard streams and
    /// logs, the listening socket, each worker thread's epoll and wake-up descriptors,
    /// the manifest being read, the folder watcher, and a margin.
    package static func reserved(threads: Int) -> Int { 32 + 3 * max(1, threads) }

    package init(descriptors: Int) {
        self.descriptors = descriptors
    }

    /// The current soft limit, unchanged.
    package static func current() -> DescriptorLimit {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return DescriptorLimit(descriptors: 1024) }
        return DescriptorLimit(descriptors: Self.clamp(limit.rlim_cur))
    }

    /// Raises the soft limit to the hard limit (`setrlimit(RLIMIT_NOFILE)`) and returns
    /// the limit in force afterwards; on failure the limit stays as it was.
    @discardableResult
    package static func raise() -> DescriptorLimit {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return current() }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised)
        }
        return current()
    }

    private static func clamp(_ value: rlim_t) -> Int {
        value > rlim_t(Int32.max) ? Int(Int32.max) : Int(value)
    }
}
