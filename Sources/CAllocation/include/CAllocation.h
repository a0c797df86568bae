#ifndef SWITCHBOARD_ALLOCATION_H
#define SWITCHBOARD_ALLOCATION_H
/// 1 when this build replaces glibc's calloc with one served from the thread cache
/// (calloc.c), 0 when it keeps the C library's.
int sb_calloc_is_thread_cached(void);
/// The C library's version at run time, "2.36".
const char *sb_glibc_version(void);
/// 1 when calloc zeroes a block freed dirty and refuses a count times a size that
/// overflows (ENOMEM); 0 otherwise.
int sb_calloc_check(void);
#endif
