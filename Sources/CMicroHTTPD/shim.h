// Wrappers for what Swift cannot call in libmicrohttpd 0.9.75 (Debian's
// libmicrohttpd-dev): the variadic MHD_start_daemon, MHD_get_daemon_info and
// MHD_set_connection_option, unions read through MHD_get_connection_info, and a header
// scan that needs a C iterator callback.
#ifndef SWITCHBOARD_CMICROHTTPD_SHIM_H
#define SWITCHBOARD_CMICROHTTPD_SHIM_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <string.h>
#include <stdio.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <microhttpd.h>

/// How strictly libmicrohttpd reads a request. From 0.9.77 on (Debian 13 ships 1.0.1),
/// MHD_OPTION_CLIENT_DISCIPLINE_LVL 1 refuses what RFC 9112 lets a server refuse: bare
/// LF and bare CR, NUL, obs-fold, whitespace before a colon, a name that is not a token,
/// and Content-Length beside chunked; the per-field checks below are then left to it
/// (SB_STRICT_PARSER). 0.9.75 (Debian 12) has only MHD_OPTION_STRICT_FOR_CLIENT, which
/// misreads all of these, so the header scan checks them.
#if MHD_VERSION >= 0x00097701
#define SB_STRICT_OPTION MHD_OPTION_CLIENT_DISCIPLINE_LVL
#define SB_STRICT_PARSER 1
#else
#define SB_STRICT_OPTION MHD_OPTION_STRICT_FOR_CLIENT
#define SB_STRICT_PARSER 0
#endif

/// Whether libmicrohttpd refuses malformed fields and NULs itself (see SB_STRICT_PARSER).
static const int sb_strict_parser = SB_STRICT_PARSER;

/// The options Switchboard starts a daemon with.
struct sb_daemon_config {
    const char *host;              // IPv4 or IPv6 literal to bind
    uint16_t port;                 // 0 picks a free port
    unsigned int threads;          // internal epoll threads (thread pool size)
    unsigned int connection_limit;
    unsigned int per_ip_limit;
    unsigned int timeout_seconds;  // inactivity timeout
    size_t memory_limit;           // per-connection memory (bounds request line + headers)
    size_t stack_size;             // worker thread stack size, 0 for the default
};

/// Called once per request with its raw request target, before MHD parses or
/// unescapes it; the returned pointer becomes the request's context.
typedef void *(*sb_uri_log_callback)(void *cls, const char *uri, struct MHD_Connection *connection);

/// The identity unescaper: MHD's own decoding is bypassed, Switchboard decodes the
/// raw target exactly once itself.
static inline size_t sb_identity_unescape(void *cls, struct MHD_Connection *c, char *s) {
    (void)cls; (void)c;
    return strlen(s);
}

/// Wraps the variadic MHD_start_daemon. Returns NULL when the address is invalid or
/// the daemon could not start (address in use, ...).
static inline struct MHD_Daemon *sb_start_daemon(const struct sb_daemon_config *config,
                                                 MHD_AccessHandlerCallback handler, void *handler_cls,
                                                 MHD_RequestCompletedCallback completed, void *completed_cls,
                                                 sb_uri_log_callback uri_log, void *uri_log_cls,
                                                 MHD_NotifyConnectionCallback connection_notify, void *connection_notify_cls,
                                                 MHD_AcceptPolicyCallback accept_policy, void *accept_policy_cls,
                                                 MHD_LogCallback logger, void *logger_cls) {
    struct sockaddr_in v4;
    struct sockaddr_in6 v6;
    const struct sockaddr *address;
    // MHD_ALLOW_SUSPEND_RESUME: held polls and event streams park their connection
    // (MHD_suspend_connection) instead of a thread, and are woken from other threads.
    // MHD_USE_ERROR_LOG: its messages go to `logger`, which records the error answers it
    // writes itself (a request line it cannot read) and drops the rest.
    unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_ITC | MHD_ALLOW_SUSPEND_RESUME
        | MHD_USE_ERROR_LOG;
    memset(&v4, 0, sizeof v4);
    memset(&v6, 0, sizeof v6);
    if (inet_pton(AF_INET, config->host, &v4.sin_addr) == 1) {
        v4.sin_family = AF_INET;
        v4.sin_port = htons(config->port);
        address = (const struct sockaddr *)&v4;
    } else if (inet_pton(AF_INET6, config->host, &v6.sin6_addr) == 1) {
        v6.sin6_family = AF_INET6;
        v6.sin6_port = htons(config->port);
        address = (const struct sockaddr *)&v6;
        flags |= MHD_USE_IPv6;
    } else {
        return NULL;
    }
    return MHD_start_daemon(flags, config->port, accept_policy, accept_policy_cls, handler, handler_cls,
        MHD_OPTION_SOCK_ADDR, address,
        MHD_OPTION_THREAD_POOL_SIZE, config->threads,
        MHD_OPTION_CONNECTION_LIMIT, config->connection_limit,
        MHD_OPTION_PER_IP_CONNECTION_LIMIT, config->per_ip_limit,
        MHD_OPTION_CONNECTION_TIMEOUT, config->timeout_seconds,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, config->memory_limit,
        MHD_OPTION_THREAD_STACK_SIZE, config->stack_size,
        SB_STRICT_OPTION, (int)1,
        MHD_OPTION_UNESCAPE_CALLBACK, sb_identity_unescape, NULL,
        MHD_OPTION_URI_LOG_CALLBACK, uri_log, uri_log_cls,
        MHD_OPTION_NOTIFY_COMPLETED, completed, completed_cls,
        MHD_OPTION_NOTIFY_CONNECTION, connection_notify, connection_notify_cls,
        MHD_OPTION_EXTERNAL_LOGGER, logger, logger_cls,
        MHD_OPTION_END);
}

/// The port the daemon listens on (wraps the variadic MHD_get_daemon_info).
static inline uint16_t sb_daemon_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}

/// What the connection-notify callback stored for the connection (its socket context).
static inline void *sb_socket_context(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info == NULL ? NULL : info->socket_context;
}

/// The connection's socket, or -1 (a union member of MHD_get_connection_info).
static inline int sb_connection_fd(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : info->connect_fd;
}

/// An address as 128 bits: IPv6 as it is, IPv4 as its IPv4-mapped IPv6 form
/// (::ffff:a.b.c.d); `known` is 0 for another family (or none), which reads as `::`.
struct sb_ip {
    uint64_t high;
    uint64_t low;
    int known;
};

static inline struct sb_ip sb_address_ip(const struct sockaddr *address) {
    struct sb_ip ip = { 0, 0, 0 };
    if (address == NULL) return ip;
    if (address->sa_family == AF_INET) {
        ip.low = 0xFFFF00000000ull | ntohl(((const struct sockaddr_in *)address)->sin_addr.s_addr);
        ip.known = 1;
    } else if (address->sa_family == AF_INET6) {
        const uint8_t *b = ((const struct sockaddr_in6 *)address)->sin6_addr.s6_addr;
        for (int i = 0; i < 8; i++) ip.high = (ip.high << 8) | b[i];
        for (int i = 8; i < 16; i++) ip.low = (ip.low << 8) | b[i];
        ip.known = 1;
    }
    return ip;
}

/// The connection's peer address.
static inline struct sb_ip sb_connection_ip(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    return sb_address_ip(info == NULL ? NULL : info->client_addr);
}

/// The lines of one forwarded header, `Forwarded` (`which` 1) or `X-Forwarded-For`
/// (`which` 2), in order, up to `capacity`; `count` may exceed it (the lines past it are
/// not stored).
struct sb_forwarded_scan {
    const char **values;
    unsigned int capacity;
    unsigned int count;
    unsigned char which;
};

static inline enum MHD_Result sb_forwarded_iterator(void *cls, enum MHD_ValueKind kind, const char *key, size_t key_size,
                                                    const char *value, size_t value_size) {
    (void)kind; (void)value_size;
    struct sb_forwarded_scan *scan = (struct sb_forwarded_scan *)cls;
    if (key == NULL) return MHD_YES;
    if (scan->which == 1 ? !(key_size == 9 && strcasecmp(key, "Forwarded") == 0)
                         : !(key_size == 15 && strcasecmp(key, "X-Forwarded-For") == 0)) return MHD_YES;
    if (scan->count < scan->capacity) scan->values[scan->count] = value == NULL ? "" : value;
    scan->count += 1;
    return MHD_YES;
}

static inline unsigned int sb_forwarded_headers(struct MHD_Connection *connection, unsigned char which, const char **values,
                                                unsigned int capacity) {
    struct sb_forwarded_scan scan = { values, capacity, 0, which };
    MHD_get_connection_values_n(connection, MHD_HEADER_KIND, sb_forwarded_iterator, &scan);
    return scan.count;
}

/// A response whose body MHD copies (MHD_create_response_from_buffer_copy does not
/// exist before 1.0).
static inline struct MHD_Response *sb_response_copy(size_t size, const void *data) {
    return MHD_create_response_from_buffer(size, (void *)data, MHD_RESPMEM_MUST_COPY);
}

/// What one pass over a request's headers finds: the field count, their size as
/// "Name: value\r\n" lines, how often the framing headers occur (0.9.75 accepts
/// duplicate Content-Length headers, which smuggling relies on) and their first values,
/// the first field that breaks RFC 9112's framing (`malformed`), and the values of the
/// headers named in `names` (`values[i]` is the first value of `names[i]`, as
/// MHD_lookup_connection_value would give it, or NULL; a lookup per name would cost a
/// pass each).
struct sb_header_scan {
    unsigned int fields;
    size_t bytes;
    unsigned int content_lengths;
    unsigned int transfer_encodings;
    unsigned int hosts;
    /// Lines of `Forwarded` and of `X-Forwarded-For`.
    unsigned int forwardeds;
    unsigned int x_forwarded_fors;
    const char *content_length;
    const char *transfer_encoding;
    /// The first `Expect` value, or NULL.
    const char *expect;
    /// Why the header section is refused (a fixed string), or NULL.
    const char *malformed;
    /// Where the last field's value ended.
    const char *previous_end;
    const char *const *names;
    const char **values;
    unsigned int count;
    unsigned int found;
};

/// RFC 9110 5.6.2 tchar: the bytes a field name may hold, as a bit per byte.
static const uint64_t sb_tchar_bits[4] = {
    0x03FF6CFA00000000ull,  // '!' '#'-'\'' '*' '+' '-' '.' '0'-'9'
    0x57FFFFFFC7FFFFFEull,  // 'A'-'Z' '^' '_' '`' 'a'-'z' '|' '~'
    0, 0,
};

static inline int sb_is_tchar(unsigned char c) { return (int)((sb_tchar_bits[c >> 6] >> (c & 63)) & 1); }

/// Whether the bytes from `from` to `to` (one buffer: the request head as libmicrohttpd
/// 0.9.75 keeps it, its separators overwritten in place) are all in `allowed`, and at
/// most a few.
static inline int sb_only(const char *from, const char *to, const char *allowed) {
    if (to < from || to - from > 64) return 0;
    for (const char *p = from; p < to; p++) {
        if (*p == '\0') continue;
        if (strchr(allowed, *p) == NULL) return 0;
    }
    return 1;
}

/// Checks one field as libmicrohttpd 0.9.75 parsed it, for what it misreads (RFC 9112
/// §5), so that a request it would frame wrongly is refused instead:
/// - a name with a byte that is not a token character (`Content-Length : 33` keeps the
///   space in the name, and the field is not taken for framing);
/// - an obs-fold: 0.9.75 appends the continuation to the *name*, copied elsewhere
///   (`Content-Length:\r\n 33` becomes `Content-Length33`), so the value no longer
///   follows the name;
/// - a NUL in a value: the C string ends there, and what followed it shows between the
///   value's end and the next field's name, where only the line's end belongs (0.9.75
///   overwrites CR and LF with NULs in place);
/// - a bare CR in a value (0.9.75 keeps it, and the field after it inside the value).
/// `previous_end` is where the previous field's value ended (NULL for the first).
static inline const char *sb_field_problem(const char *key, size_t key_size, const char *value, size_t value_size,
                                           const char *previous_end) {
    if (key_size == 0) return "a header field without a name";
    for (size_t i = 0; i < key_size; i++) {
        if (!sb_is_tchar((unsigned char)key[i])) return "a header field name holds a byte that is not a token character";
    }
    if (!sb_only(key + key_size, value, ": \t")) return "obs-fold (a header line continued on the next) is not accepted";
    if (previous_end != NULL && !sb_only(previous_end, key, "\r\n")) return "NUL byte in a header field value";
    if (value_size > 0 && memchr(value, '\r', value_size) != NULL) return "bare CR in a header field value";
    return NULL;
}

static inline enum MHD_Result sb_scan_iterator(void *cls, enum MHD_ValueKind kind, const char *key, size_t key_size,
                                               const char *value, size_t value_size) {
    (void)kind;
    struct sb_header_scan *scan = (struct sb_header_scan *)cls;
    if (key == NULL) return MHD_YES;
    if (value == NULL) value = "";
    scan->fields += 1;
    size_t length = key_size;
    scan->bytes += key_size + value_size + 4;
#if !SB_STRICT_PARSER
    if (scan->malformed == NULL) scan->malformed = sb_field_problem(key, key_size, value, value_size, scan->previous_end);
    scan->previous_end = value + value_size;
#endif
    // Names are compared in full only when their first letter and length could match:
    // most headers (User-Agent, Accept) are passed over without a strcasecmp.
    char first = (char)(key[0] | 0x20);
    if (first == 'h' && length == 4 && strcasecmp(key, "Host") == 0) {
        scan->hosts += 1;
    } else if (first == 'c' && length == 14 && strcasecmp(key, "Content-Length") == 0) {
        if (scan->content_lengths++ == 0) scan->content_length = value;
        return MHD_YES;
    } else if (first == 't' && length == 17 && strcasecmp(key, "Transfer-Encoding") == 0) {
        if (scan->transfer_encodings++ == 0) scan->transfer_encoding = value;
        return MHD_YES;
    } else if (first == 'e' && length == 6 && strcasecmp(key, "Expect") == 0) {
        if (scan->expect == NULL) scan->expect = value;
        return MHD_YES;
    } else if (first == 'f' && length == 9 && strcasecmp(key, "Forwarded") == 0) {
        scan->forwardeds += 1;
        return MHD_YES;
    } else if (first == 'x' && length == 15 && strcasecmp(key, "X-Forwarded-For") == 0) {
        scan->x_forwarded_fors += 1;
        return MHD_YES;
    }
    for (unsigned int i = 0; i < scan->count; i++) {
        if (scan->values[i] == NULL && (char)(scan->names[i][0] | 0x20) == first && strcasecmp(key, scan->names[i]) == 0) {
            scan->values[i] = value;
            scan->found += 1;
            break;
        }
    }
    return MHD_YES;
}

/// Scans the request's headers once; `values` has room for `count` entries.
static inline struct sb_header_scan sb_scan_headers(struct MHD_Connection *connection, const char *const *names,
                                                    const char **values, unsigned int count) {
    struct sb_header_scan scan = { 0, 0, 0, 0, 0, 0, 0, NULL, NULL, NULL, NULL, NULL, names, values, count, 0 };
    for (unsigned int i = 0; i < count; i++) values[i] = NULL;
    MHD_get_connection_values_n(connection, MHD_HEADER_KIND, sb_scan_iterator, &scan);
#if !SB_STRICT_PARSER
    // The last field: 0.9.75 overwrites its line's end and the empty line after it with
    // NULs, so the byte after its value's terminator is a NUL unless a NUL in the value
    // hid what follows it.
    if (scan.malformed == NULL && scan.previous_end != NULL && scan.previous_end[1] != '\0') {
        scan.malformed = "NUL byte in a header field value";
    }
#endif
    return scan;
}

/// Writes a whole answer with `Connection: close` straight to the socket `fd`, then shuts
/// its sending side, for an answer given before the request's body was read (0.9.75
/// refuses MHD_queue_response while a body is being received, and closes the connection
/// at once after an answer queued before it, which would lose the answer to the reset a
/// client still sending gets). The caller then reads and drops what the client still
/// sends for a bounded time (a lingering close). Accepted sockets are non-blocking: a
/// reader that does not read gets what fits in the socket's buffer, never a blocked
/// thread. Returns 0 when every byte was handed to the kernel.
static inline int sb_write_final_answer(int fd, const char *status_line, const char *content_type,
                                        const char *body, size_t body_size) {
    char date[40];
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(date, sizeof date, "%a, %d %b %Y %H:%M:%S GMT", &tm);
    char head[512];
    int length = snprintf(head, sizeof head,
        "HTTP/1.1 %s\r\nDate: %s\r\nConnection: close\r\nContent-Type: %s\r\n"
        "X-Content-Type-Options: nosniff\r\nContent-Length: %zu\r\n\r\n",
        status_line, date, content_type, body_size);
    int result = 0;
    if (length < 0 || (size_t)length >= sizeof head) {
        result = -1;
    } else if (send(fd, head, (size_t)length, MSG_NOSIGNAL | MSG_MORE) != length) {
        result = -1;
    } else if (send(fd, body, body_size, MSG_NOSIGNAL) != (ssize_t)body_size) {
        result = -1;
    }
    shutdown(fd, SHUT_WR);
    return result;
}

/// Sets the connection's inactivity timeout (wraps the variadic MHD_set_connection_option):
/// an answer its client stops reading is dropped after `seconds` without progress.
static inline void sb_set_connection_timeout(struct MHD_Connection *connection, unsigned int seconds) {
    MHD_set_connection_option(connection, MHD_CONNECTION_OPTION_TIMEOUT, seconds);
}

#endif
