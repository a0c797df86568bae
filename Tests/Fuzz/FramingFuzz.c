// libFuzzer: the checker of chunked bodies below libmicrohttpd (Sources/CMessageFraming) on
// any bytes. The first byte picks a piece size; the rest is a connection's stream, checked
// whole, in those pieces and a byte at a time: no crash and no read out of bounds (ASan),
// and the same verdict however reads split the stream. A stream not refused is accepted
// whole.
#include "framing.h"

#include <stdlib.h>
#include <string.h>

static int same(const char *a, const char *b) { return a == b || (a != NULL && b != NULL && strcmp(a, b) == 0); }

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
    if (size == 0) return 0;
    const char *stream = (const char *)data + 1;
    size_t length = size - 1, piece = (size_t)(data[0] % 16) + 1;
    const char *whole_detail, *piece_detail, *byte_detail;
    size_t whole = sb_framing_check(stream, length, 0, &whole_detail);
    size_t pieces = sb_framing_check(stream, length, piece, &piece_detail);
    size_t bytes = sb_framing_check(stream, length, 1, &byte_detail);
    if (whole > length || whole != pieces || whole != bytes) abort();
    if (!same(whole_detail, piece_detail) || !same(whole_detail, byte_detail)) abort();
    if (whole_detail == NULL && whole != length) abort();
    return 0;
}
