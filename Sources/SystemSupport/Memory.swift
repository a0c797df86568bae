import CSystemSupport

/// Returns freed heap pages to the kernel. glibc keeps them after a large free (a
/// big manifest replaced by a small one would leave RSS at its high-water mark).
public func releaseFreedMemory() {
    sb_trim_heap()
}

/// The monotonic clock in nanoseconds, for timing a request: one `clock_gettime` (the
/// request path reads it three times; `ContinuousClock.now` and `DispatchTime.now()`
/// cost 98 and 66 instructions a read, most of it conversions).
@inline(__always)
public func monotonicNanoseconds() -> UInt64 {
    sb_monotonic_nanoseconds()
}
