// calloc served from glibc's per-thread cache (tcache), as glibc itself does from 2.41.
//
// glibc before 2.41 (Debian 12 has 2.36) sends every calloc to the arena, under its lock:
// libmicrohttpd callocs the response and each header it is given, so a resolve paid two
// arena allocations (~400 instructions with their locks), and their frees then found the
// thread cache full of calloc'd blocks and went to the arena as well. Defined in the
// executable, this calloc is the one libmicrohttpd and the Swift runtime bind to (glibc's
// own internal callers keep theirs). It allocates with malloc, so any malloc a process is
// run with (an LD_PRELOADed one too) gets back from free only what it gave.
//
// Left out under the sanitizers, whose runtimes define calloc themselves, and with a glibc
// that already serves calloc from its cache.
#include <errno.h>
#include <gnu/libc-version.h>
#include <stdlib.h>
#include <string.h>
#include "CAllocation.h"

#if defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
#define SB_SANITIZED 1
#endif
#endif

#if defined(__GLIBC__) && !defined(SB_SANITIZED) && (__GLIBC__ == 2 && __GLIBC_MINOR__ < 41)
/// Called through a pointer the compiler cannot see through: it would fold malloc and
/// memset back into a call to calloc, this one.
static void *(*volatile allocate)(size_t) = malloc;

void *calloc(size_t count, size_t size) {
    size_t total;
    if (__builtin_mul_overflow(count, size, &total)) {
        errno = ENOMEM;
        return NULL;
    }
    void *block = allocate(total);
    if (block != NULL) memset(block, 0, total);
    return block;
}

int sb_calloc_is_thread_cached(void) { return 1; }
#else
int sb_calloc_is_thread_cached(void) { return 0; }
#endif

const char *sb_glibc_version(void) { return gnu_get_libc_version(); }

int sb_calloc_check(void) {
    // A block freed dirty comes back zeroed (from the thread cache, the same block).
    for (size_t size = 1; size <= 4096; size = size * 3 + 1) {
        unsigned char *dirty = malloc(size);
        if (dirty == NULL) return 0;
        memset(dirty, 0xA5, size);
        free(dirty);
        unsigned char *block = calloc(1, size);
        if (block == NULL) return 0;
        for (size_t i = 0; i < size; i++) {
            if (block[i] != 0) { free(block); return 0; }
        }
        free(block);
    }
    // A count times a size that overflows is refused with ENOMEM, not wrapped.
    errno = 0;
    void *overflow = calloc((size_t)1 << 33, (size_t)1 << 33);
    if (overflow != NULL) { free(overflow); return 0; }
    return errno == ENOMEM;
}
