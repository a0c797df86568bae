import CSystemSupport

/// Returns freed heap pages to the kernel. glibc keeps them after a large free (a
/// big manifest replaced by a small one would leave RSS at its high-water mark).
public func releaseFreedMemory() {
    sb_trim_heap()
}

/// Makes the memory a process frees reachable by `releaseFreedMemory`: a process that
/// swaps whole manifests (the server) calls it first thing, before it starts a thread.
/// Left to itself glibc gives each thread an arena of its own, and `malloc_trim` never
/// shrinks the free top of those (a reload builds its manifest in one); it also raises
/// its mmap and trim thresholds after the first large free, so large blocks come from
/// the heap and stay. With one arena and the thresholds fixed at glibc's initial 128 KiB,
/// a replaced manifest's pages all go back. Requests do not contend for the one arena:
/// their small allocations are served by each thread's cache (tcache), without its lock.
public func keepFreedMemoryReturned() {
    sb_configure_malloc()
}
