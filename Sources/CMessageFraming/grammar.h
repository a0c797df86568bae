// The byte classes of RFC 9110's grammar that chunk lines and trailers are checked with.
#ifndef SWITCHBOARD_MESSAGE_FRAMING_GRAMMAR_H
#define SWITCHBOARD_MESSAGE_FRAMING_GRAMMAR_H

#include <string.h>

// RFC 9110 5.6.2: tchar.
static inline int is_tchar(unsigned char c) {
    static const char others[] = "!#$%&'*+-.^_`|~";
    if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) return 1;
    return c != 0 && memchr(others, c, sizeof others - 1) != NULL;
}

// VCHAR, obs-text, SP and HTAB: what a field value (and a quoted string's text) may hold.
static inline int is_field_byte(unsigned char c) { return c == ' ' || c == '\t' || (c >= 0x21 && c != 0x7F); }

static inline int hex_value(unsigned char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

#endif
