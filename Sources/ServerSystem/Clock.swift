import CServerSystem

/// The monotonic clock in nanoseconds, for timing a request: one `clock_gettime` (the
/// request path reads it twice, when its request line is read and when its answer is
/// made; `ContinuousClock.now` and `DispatchTime.now()` each add conversions to the
/// same call).
@inline(__always)
package func monotonicNanoseconds() -> UInt64 {
    sb_monotonic_nanoseconds()
}
