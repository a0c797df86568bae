// zlib for gzip-encoding the manifest once per version. deflateInit2 is a macro
// Swift cannot call: wrap it.
#ifndef SWITCHBOARD_CZLIB_SHIM_H
#define SWITCHBOARD_CZLIB_SHIM_H
#include <zlib.h>

/// deflateInit2 with a gzip wrapper (windowBits 15 + 16) at the best compression.
static inline int sb_deflate_init_gzip(z_stream *stream) {
    return deflateInit2(stream, Z_BEST_COMPRESSION, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY);
}
#endif
