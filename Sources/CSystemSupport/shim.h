// What SystemSupport calls in C: what the Glibc module does not export, and the
// monotonic clock read in one inline call.
#ifndef SWITCHBOARD_SYSTEM_SUPPORT_SHIM_H
#define SWITCHBOARD_SYSTEM_SUPPORT_SHIM_H
#include <malloc.h>
#include <stdint.h>
#include <time.h>

/// Hands freed heap pages back to the kernel (glibc's malloc_trim).
static inline void sb_trim_heap(void) { malloc_trim(0); }

/// One heap, trimmable as a whole, for a process that frees large structures now and
/// then (see `keepFreedMemoryReturned`). Call before any other thread allocates.
static inline void sb_configure_malloc(void) {
    mallopt(M_ARENA_MAX, 1);
    mallopt(M_MMAP_THRESHOLD, 128 * 1024);
    mallopt(M_TRIM_THRESHOLD, 128 * 1024);
}

/// CLOCK_MONOTONIC in nanoseconds: one vDSO call.
static inline uint64_t sb_monotonic_nanoseconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#endif
