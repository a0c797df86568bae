// Chunked bodies checked as RFC 9112 7.1 frames them, below libmicrohttpd.
//
// libmicrohttpd 0.9.75 (Debian 12's) reads chunk-size lines, chunk extensions and
// trailers itself and tells the application nothing of them: it accepts a bare CR in an
// extension, a bare LF ending a chunk line, CR, NUL and obs-fold in trailers, and answers
// a long extension with 500. A front proxy that reads those bytes otherwise could smuggle
// a request through. It has no hook for its own reads, so this file defines `recv`, the
// call it reads sockets with: the executable's definition is the one the library's calls
// bind to. A socket the daemon watches (`sb_framing_watch`) has each read followed through
// a small state machine of the connection's requests: heads are skimmed for
// Transfer-Encoding and Content-Length (a head with both, or with two lengths, the daemon
// refuses and closes), fixed bodies skipped, chunked bodies checked byte by byte. Every
// other socket of the process is read by `recvfrom` untouched.
//
// A violation is answered with a 400 problem written to the socket, which is then shut down
// both ways, and every later read fails with ECONNRESET. The bytes before it are handed to
// libmicrohttpd first (so its request is known and logged, and requests pipelined before
// it are answered before the 400); the violating ones never are.

#include "framing.h"
#include "grammar.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>

/// Longest chunk line (size and extensions) accepted: extensions carry nothing this server
/// reads, and a client that sends kilobytes of them is not a client of this API.
#define LONGEST_CHUNK_LINE 4096
/// Longest trailer section accepted.
#define LONGEST_TRAILERS 8192
/// Bytes of a head line kept to read its name and value: Content-Length's digits fit.
#define KEPT 64

enum state {
    HEAD_LINE_START, HEAD_SKIP, HEAD_KEEP, FIXED_BODY,
    CHUNK_SIZE, CHUNK_SIZE_BWS, CHUNK_EXT, CHUNK_EXT_QUOTED, CHUNK_EXT_ESCAPED, CHUNK_LINE_LF,
    CHUNK_DATA, CHUNK_DATA_CR, CHUNK_DATA_LF,
    TRAILER_START, TRAILER_NAME, TRAILER_VALUE, TRAILER_LINE_LF, TRAILER_END_LF,
    /// A head this file cannot follow (a Content-Length it cannot read): libmicrohttpd or
    /// the daemon refuses it and closes the connection; nothing more is checked.
    UNFOLLOWED,
    /// Bytes were refused; those before them were handed over, and the refusal is answered
    /// at the next read (once libmicrohttpd has answered the requests they completed).
    REFUSING,
    REFUSED,
};

struct framing {
    uint8_t state;
    /// The head's request line was read (an empty line before it is skipped, RFC 9112 2.2).
    uint8_t request_line;
    uint8_t chunked;
    uint8_t has_length;
    /// A hexadecimal digit of the chunk size was read; how many past its leading zeros.
    uint8_t sized;
    uint8_t digits;
    uint8_t kept;
    uint8_t kept_whole;
    /// Bytes of the current chunk line, or of the trailer section.
    uint32_t line;
    /// Bytes of a fixed body or of a chunk's data still to come.
    uint64_t remaining;
    uint64_t length;
    const char *refusal;
    char keep[KEPT];
};

// Watched sockets by descriptor, in pages made on first use and kept: a read looks its
// socket up with two loads and no lock. Descriptors past the last page are not watched.
#define PAGE_BITS 10
#define PAGES 2048
static _Atomic(_Atomic(struct framing *) *) pages[PAGES];

static _Atomic(struct framing *) *slot(int fd, int make) {
    if (fd < 0 || (fd >> PAGE_BITS) >= PAGES) return NULL;
    _Atomic(_Atomic(struct framing *) *) *page = &pages[fd >> PAGE_BITS];
    _Atomic(struct framing *) *entries = atomic_load_explicit(page, memory_order_acquire);
    if (entries == NULL && make) {
        _Atomic(struct framing *) *made = calloc((size_t)1 << PAGE_BITS, sizeof *made);
        if (made == NULL) return NULL;
        _Atomic(struct framing *) *expected = NULL;
        if (atomic_compare_exchange_strong_explicit(page, &expected, made, memory_order_acq_rel, memory_order_acquire)) {
            entries = made;
        } else {
            free(made);
            entries = expected;
        }
    }
    return entries == NULL ? NULL : &entries[fd & ((1 << PAGE_BITS) - 1)];
}

void sb_framing_watch(int fd) {
    _Atomic(struct framing *) *entry = slot(fd, 1);
    if (entry == NULL) return;
    struct framing *framing = calloc(1, sizeof *framing);
    struct framing *old = atomic_exchange_explicit(entry, framing, memory_order_acq_rel);
    free(old);
}

void sb_framing_forget(int fd) {
    _Atomic(struct framing *) *entry = slot(fd, 0);
    if (entry == NULL) return;
    free(atomic_exchange_explicit(entry, NULL, memory_order_acq_rel));
}

static int in_state(int fd, enum state state) {
    _Atomic(struct framing *) *entry = slot(fd, 0);
    struct framing *framing = entry == NULL ? NULL : atomic_load_explicit(entry, memory_order_acquire);
    return framing != NULL && framing->state == state;
}

int sb_framing_refused(int fd) { return in_state(fd, REFUSED); }

int sb_framing_refusing(int fd) { return in_state(fd, REFUSING); }

// Whether the kept line's field name, case aside, is `name` (whitespace before the colon
// is read past, as a lenient reader would: the daemon refuses such a head anyway).
static int names(const struct framing *f, const char *name, size_t *value) {
    size_t n = strlen(name), i = 0;
    if (f->kept < n) return 0;
    for (; i < n; i++) {
        char c = f->keep[i];
        if (c >= 'A' && c <= 'Z') c = (char)(c - 'A' + 'a');
        if (c != name[i]) return 0;
    }
    while (i < f->kept && (f->keep[i] == ' ' || f->keep[i] == '\t')) i++;
    if (i == f->kept || f->keep[i] != ':') return 0;
    *value = i + 1;
    return 1;
}

static void begin_head(struct framing *f) {
    f->state = HEAD_LINE_START;
    f->request_line = f->chunked = f->has_length = 0;
    f->length = 0;
}

static void begin_chunk_line(struct framing *f) {
    f->state = CHUNK_SIZE;
    f->sized = f->digits = 0;
    f->line = 0;
    f->remaining = 0;
}

// A head line ended (its first KEPT bytes kept, the ending LF not).
static void head_line(struct framing *f) {
    size_t kept = f->kept;
    if (kept > 0 && f->keep[kept - 1] == '\r' && f->kept_whole) kept--;
    if (kept == 0 && f->kept_whole) {
        if (!f->request_line) { f->state = HEAD_LINE_START; return; }
        if (f->chunked) { begin_chunk_line(f); return; }
        if (f->has_length && f->length > 0) { f->state = FIXED_BODY; f->remaining = f->length; return; }
        begin_head(f);
        return;
    }
    f->state = HEAD_LINE_START;
    if (!f->request_line) { f->request_line = 1; return; }
    size_t value;
    if (names(f, "transfer-encoding", &value)) { f->chunked = 1; return; }
    if (!names(f, "content-length", &value)) return;
    uint64_t length = 0;
    int digits = 0;
    while (value < kept && (f->keep[value] == ' ' || f->keep[value] == '\t')) value++;
    for (; value < kept && f->keep[value] >= '0' && f->keep[value] <= '9'; value++, digits++) {
        if (length > (UINT64_MAX - 9) / 10) { f->state = UNFOLLOWED; return; }
        length = length * 10 + (uint64_t)(f->keep[value] - '0');
    }
    while (value < kept && (f->keep[value] == ' ' || f->keep[value] == '\t')) value++;
    if (digits == 0 || value != kept || !f->kept_whole || (f->has_length && f->length != length)) {
        f->state = UNFOLLOWED;
        return;
    }
    f->has_length = 1;
    f->length = length;
}

// Skips what this read holds of a fixed body or a chunk's data: whether it was the last.
static int skip(struct framing *f, const unsigned char **p, const unsigned char *end) {
    uint64_t left = (uint64_t)(end - *p);
    uint64_t take = left < f->remaining ? left : f->remaining;
    *p += take;
    f->remaining -= take;
    return f->remaining == 0;
}

#define REFUSE(why) do { f->refusal = (why); return (size_t)(p - bytes); } while (0)

// Follows `length` bytes read from the connection: how many of them are acceptable (all of
// them unless a chunked body breaks its framing, whose reason is then `f->refusal`).
static size_t follow(struct framing *f, const unsigned char *bytes, size_t length) {
    const unsigned char *p = bytes, *end = bytes + length;
    while (p < end) {
        unsigned char c = *p;
        switch (f->state) {
        case HEAD_LINE_START:
            f->kept = 0;
            f->kept_whole = 1;
            // Only lines that may be blank, Transfer-Encoding or Content-Length are kept;
            // the rest (the request line among them) are skipped to their LF.
            f->state = (c == '\r' || c == '\n' || (f->request_line && (c == 't' || c == 'T' || c == 'c' || c == 'C')))
                ? HEAD_KEEP : HEAD_SKIP;
            continue;
        case HEAD_SKIP: {
            const unsigned char *lf = memchr(p, '\n', (size_t)(end - p));
            if (lf == NULL) return length;
            p = lf + 1;
            f->request_line = 1;
            f->state = HEAD_LINE_START;
            continue;
        }
        case HEAD_KEEP: {
            const unsigned char *lf = memchr(p, '\n', (size_t)(end - p));
            size_t n = (size_t)((lf == NULL ? end : lf) - p), room = KEPT - f->kept;
            if (n > room) {
                n = room;
                f->kept_whole = 0;
            }
            memcpy(f->keep + f->kept, p, n);
            f->kept = (uint8_t)(f->kept + n);
            if (lf == NULL) return length;
            p = lf + 1;
            head_line(f);
            continue;
        }
        case FIXED_BODY:
            if (skip(f, &p, end)) begin_head(f);
            continue;
        case CHUNK_DATA:
            if (skip(f, &p, end)) f->state = CHUNK_DATA_CR;
            continue;
        case UNFOLLOWED:
            return length;
        case REFUSING:
        case REFUSED:
            return 0;
        default:
            break;
        }
        // The chunked body, a byte at a time.
        if (f->state <= CHUNK_EXT_ESCAPED && ++f->line > LONGEST_CHUNK_LINE)
            REFUSE("a chunk line (its size and extensions) is longer than 4096 bytes");
        switch (f->state) {
        case CHUNK_SIZE: {
            int v = hex_value(c);
            if (v >= 0) {
                if (f->digits > 0 || v != 0) f->digits++;
                f->sized = 1;
                if (f->digits > 16) REFUSE("a chunk size past 16 hexadecimal digits");
                f->remaining = (f->remaining << 4) | (uint64_t)v;
                break;
            }
            if (!f->sized) REFUSE("a chunk size must start with a hexadecimal digit");
            if (c == '\r') f->state = CHUNK_LINE_LF;
            else if (c == ';') f->state = CHUNK_EXT;
            else if (c == ' ' || c == '\t') f->state = CHUNK_SIZE_BWS;
            else if (c == '\n') REFUSE("a chunk line ends in LF without CR");
            else REFUSE("a chunk size holds a byte that is not a hexadecimal digit");
            break;
        }
        case CHUNK_SIZE_BWS:
            if (c == ';') f->state = CHUNK_EXT;
            else if (c != ' ' && c != '\t') REFUSE("whitespace after a chunk size must be followed by an extension");
            break;
        case CHUNK_EXT:
            if (c == '\r') f->state = CHUNK_LINE_LF;
            else if (c == '"') f->state = CHUNK_EXT_QUOTED;
            else if (c == '\n') REFUSE("a chunk line ends in LF without CR");
            else if (!is_tchar(c) && c != ';' && c != '=' && c != ' ' && c != '\t')
                REFUSE("a chunk extension holds a byte outside its grammar (RFC 9112 7.1.1)");
            break;
        case CHUNK_EXT_QUOTED:
            if (c == '"') f->state = CHUNK_EXT;
            else if (c == '\\') f->state = CHUNK_EXT_ESCAPED;
            else if (!is_field_byte(c)) REFUSE("a chunk extension's quoted string holds a control byte");
            break;
        case CHUNK_EXT_ESCAPED:
            if (!is_field_byte(c)) REFUSE("a chunk extension's quoted string holds a control byte");
            f->state = CHUNK_EXT_QUOTED;
            break;
        case CHUNK_LINE_LF:
            if (c != '\n') REFUSE("a bare CR in a chunk line");
            if (f->remaining > 0) {
                f->state = CHUNK_DATA;
            } else {
                f->state = TRAILER_START;
                f->line = 0;
            }
            break;
        case CHUNK_DATA_CR:
            if (c != '\r') REFUSE("a chunk's data is not followed by CRLF");
            f->state = CHUNK_DATA_LF;
            break;
        case CHUNK_DATA_LF:
            if (c != '\n') REFUSE("a chunk's data is not followed by CRLF");
            begin_chunk_line(f);
            break;
        default:
            // The trailer section (RFC 9112 7.1.2): field lines, then an empty line.
            if (++f->line > LONGEST_TRAILERS) REFUSE("a trailer section longer than 8192 bytes");
            switch (f->state) {
            case TRAILER_START:
                if (c == '\r') f->state = TRAILER_END_LF;
                else if (c == ' ' || c == '\t') REFUSE("obs-fold in the trailer section");
                else if (c == '\n') REFUSE("a trailer line ends in LF without CR");
                else if (is_tchar(c)) f->state = TRAILER_NAME;
                else REFUSE("a trailer field's name is not a token");
                break;
            case TRAILER_NAME:
                if (c == ':') f->state = TRAILER_VALUE;
                else if (!is_tchar(c)) REFUSE("a trailer field's name is not a token");
                break;
            case TRAILER_VALUE:
                if (c == '\r') f->state = TRAILER_LINE_LF;
                else if (c == '\n') REFUSE("a trailer line ends in LF without CR");
                else if (!is_field_byte(c)) REFUSE("a trailer field's value holds a control byte (CR, NUL or another)");
                break;
            case TRAILER_LINE_LF:
                if (c != '\n') REFUSE("a bare CR in the trailer section");
                f->state = TRAILER_START;
                break;
            case TRAILER_END_LF:
                if (c != '\n') REFUSE("a bare CR in the trailer section");
                begin_head(f);
                break;
            }
        }
        p++;
    }
    return length;
}

static void refuse(int fd, struct framing *f) {
    char body[256];
    int size = snprintf(body, sizeof body,
        "{\"type\":\"about:blank\",\"title\":\"Bad Request\",\"status\":400,\"detail\":\"%s\"}", f->refusal);
    if (size > 0 && (size_t)size < sizeof body)
        sb_send_final_response_fd(fd, "400 Bad Request", "application/problem+json", body, (size_t)size);
    shutdown(fd, SHUT_RDWR);
    f->state = REFUSED;
}

// The read libmicrohttpd makes of every connection (see the top of this file). A watched
// socket is read by the thread serving its connection alone, so its state needs no lock.
ssize_t recv(int fd, void *buffer, size_t length, int flags) {
    _Atomic(struct framing *) *entry = slot(fd, 0);
    struct framing *f = entry == NULL ? NULL : atomic_load_explicit(entry, memory_order_acquire);
    if (f != NULL && f->state >= REFUSING) {
        // libmicrohttpd reads again only once it has answered what it was handed.
        if (f->state == REFUSING) refuse(fd, f);
        errno = ECONNRESET;
        return -1;
    }
    ssize_t got = recvfrom(fd, buffer, length, flags, NULL, NULL);
    if (f == NULL || got <= 0 || (flags & MSG_PEEK)) return got;
    size_t accepted = follow(f, buffer, (size_t)got);
    if (accepted == (size_t)got) return got;
    if (accepted == 0) {
        refuse(fd, f);
        errno = ECONNRESET;
        return -1;
    }
    // The bytes before the refused one may complete requests pipelined before it: they are
    // handed over and answered first. The rest of this read is gone from the socket, so no
    // new data would wake libmicrohttpd to read again; shutting the reading side makes the
    // socket readable, and the read it then makes answers the refusal.
    f->state = REFUSING;
    shutdown(fd, SHUT_RD);
    return (ssize_t)accepted;
}

size_t sb_framing_check(const char *bytes, size_t length, size_t piece, const char **detail) {
    struct framing f;
    memset(&f, 0, sizeof f);
    size_t at = 0;
    if (piece == 0) piece = length;
    while (at < length) {
        size_t n = length - at < piece ? length - at : piece;
        size_t accepted = follow(&f, (const unsigned char *)bytes + at, n);
        at += accepted;
        if (accepted < n) break;
    }
    *detail = f.refusal;
    return at;
}
