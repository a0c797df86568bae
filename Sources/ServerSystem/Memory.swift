import CServerSystem

/// Returns freed heap pages to the kernel, the calling thread's arena whole (its free
/// top too, which `malloc_trim` alone leaves). glibc keeps them after a large free (a big
/// manifest replaced by a small one would leave RSS at its high-water mark).
package func releaseFreedMemory() {
    sb_trim_heap()
}

/// Keeps glibc's mmap and trim thresholds at their initial 128 KiB, for a process that
/// frees large structures now and then (a server swapping manifests). Left to itself glibc
/// raises both after the first large free (up to 32 and 64 MiB): large blocks then come
/// from the heap and fragment it, and a thread arena's free top stays resident up to the
/// raised threshold, out of `releaseFreedMemory`'s reach.
package func keepFreedMemoryReturned() {
    sb_fix_malloc_thresholds()
}
