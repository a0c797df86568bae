// What SystemSupport calls that the Glibc module does not export.
#ifndef SWITCHBOARD_SYSTEM_SUPPORT_SHIM_H
#define SWITCHBOARD_SYSTEM_SUPPORT_SHIM_H
#include <malloc.h>

/// Hands freed heap pages back to the kernel (glibc's malloc_trim).
static inline void sb_trim_heap(void) { malloc_trim(0); }

#endif
