import Dispatch

#if canImport(Glibc)
import Glibc
#endif

/// Calls `onChange` when anything in a folder changes (inotify): files written,
/// renamed into place (editors' atomic saves), symlinks swapped (Kubernetes ConfigMap
/// `..data`), attributes changed. Events are coalesced; the callback runs on `queue`.
package final class DirectoryWatcher: Sendable {
    /// Dispatch sources are thread-safe; `cancel()` may be called from any thread.
    nonisolated(unsafe) private let source: DispatchSourceRead

    /// Watches `directory`; nil when inotify is unavailable or the folder cannot be watched.
    package init?(directory: String, queue: DispatchQueue, onChange: @escaping @Sendable () -> Void) {
        let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else { return nil }
        let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE | IN_ATTRIB | IN_MODIFY
                          | IN_DELETE_SELF | IN_MOVE_SELF)
        guard inotify_add_watch(fd, directory, mask) >= 0 else {
            close(fd)
            return nil
        }
        let source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
        source.setEventHandler {
            // Drain every pending event: what changed does not matter, the manifest is
            // re-read and compared.
            var buffer = [UInt8](repeating: 0, count: 4096)
            while buffer.withUnsafeMutableBytes({ read(fd, $0.baseAddress, $0.count) }) > 0 {}
            onChange()
        }
        source.setCancelHandler { close(fd) }
        source.resume()
        self.source = source
    }

    package func cancel() {
        source.cancel()
    }

    deinit {
        source.cancel()
    }
}
