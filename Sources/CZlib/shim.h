// zlib for gzip-encoding the manifest once per version, and for reading gzipped traffic
// logs. deflateInit2 and inflateInit2 are macros Swift cannot call: wrap them.
#ifndef SWITCHBOARD_CZLIB_SHIM_H
#define SWITCHBOARD_CZLIB_SHIM_H
#include <zlib.h>

/// deflateInit2 with a gzip wrapper (windowBits 15 + 16) at the best compression.
static inline int sb_deflate_init_gzip(z_stream *stream) {
    return deflateInit2(stream, Z_BEST_COMPRESSION, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY);
}
/// inflateInit2 reading a gzip (or zlib) wrapper, detected from its header (15 + 32).
static inline int sb_inflate_init_gzip(z_stream *stream) {
    return inflateInit2(stream, 15 + 32);
}
#endif
