// What SystemSupport calls in C: what the Glibc module does not export, and the
// monotonic clock read in one inline call.
#ifndef SWITCHBOARD_SYSTEM_SUPPORT_SHIM_H
#define SWITCHBOARD_SYSTEM_SUPPORT_SHIM_H
#include <malloc.h>
#include <stdint.h>
#include <time.h>

/// Hands freed heap pages back to the kernel. malloc_trim gives back the free pages of
/// every arena but shrinks only the main arena's top; glibc shrinks a thread arena's top
/// when a block of 64 KiB or more (its FASTBIN_CONSOLIDATION_THRESHOLD) is freed there,
/// so one such block is taken and freed too: the calling thread's arena is trimmed whole.
static inline void sb_trim_heap(void) {
    malloc_trim(0);
    void *volatile block = malloc(96 * 1024);
    free(block);
}

/// Fixes glibc's mmap and trim thresholds at their initial 128 KiB (see
/// `keepFreedMemoryReturned`).
static inline void sb_fix_malloc_thresholds(void) {
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
