import CSystemSupport

/// Returns freed heap pages to the kernel. glibc keeps them after a large free (a
/// big manifest replaced by a small one would leave RSS at its high-water mark).
public func releaseFreedMemory() {
    sb_trim_heap()
}
