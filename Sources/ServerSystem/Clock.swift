import CSystemSupport

/// The monotonic clock in nanoseconds, for timing a request: one `clock_gettime` (the
/// request path reads it twice, when its request line is read and when its answer is
/// made; `ContinuousClock.now` and `DispatchTime.now()` cost 98 and 66 instructions a
/// read, most of it conversions).
@inline(__always)
public func monotonicNanoseconds() -> UInt64 {
    sb_monotonic_nanoseconds()
}
