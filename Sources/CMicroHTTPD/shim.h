// Wrappers for what Swift cannot call in libmicrohttpd 0.9.75 (Debian's
// libmicrohttpd-dev): the variadic MHD_start_daemon and MHD_get_daemon_info, and a
// header count that needs a C iterator callback.
#ifndef SWITCHBOARD_CMICROHTTPD_SHIM_H
#define SWITCHBOARD_CMICROHTTPD_SHIM_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <microhttpd.h>

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
                                                 sb_uri_log_callback uri_log, void *uri_log_cls) {
    struct sockaddr_in v4;
    struct sockaddr_in6 v6;
    const struct sockaddr *address;
    unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_ITC;
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
    return MHD_start_daemon(flags, config->port, NULL, NULL, handler, handler_cls,
        MHD_OPTION_SOCK_ADDR, address,
        MHD_OPTION_THREAD_POOL_SIZE, config->threads,
        MHD_OPTION_CONNECTION_LIMIT, config->connection_limit,
        MHD_OPTION_PER_IP_CONNECTION_LIMIT, config->per_ip_limit,
        MHD_OPTION_CONNECTION_TIMEOUT, config->timeout_seconds,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, config->memory_limit,
        MHD_OPTION_THREAD_STACK_SIZE, config->stack_size,
        MHD_OPTION_STRICT_FOR_CLIENT, (int)1,
        MHD_OPTION_UNESCAPE_CALLBACK, sb_identity_unescape, NULL,
        MHD_OPTION_URI_LOG_CALLBACK, uri_log, uri_log_cls,
        MHD_OPTION_NOTIFY_COMPLETED, completed, completed_cls,
        MHD_OPTION_END);
}

/// The port the daemon listens on (wraps the variadic MHD_get_daemon_info).
static inline uint16_t sb_daemon_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}


/// A response whose body MHD copies (MHD_create_response_from_buffer_copy does not
/// exist before 1.0).
static inline struct MHD_Response *sb_response_copy(size_t size, const void *data) {
    return MHD_create_response_from_buffer(size, (void *)data, MHD_RESPMEM_MUST_COPY);
}

struct sb_header_count { const char *name; unsigned int count; };

static inline enum MHD_Result sb_count_iterator(void *cls, enum MHD_ValueKind kind, const char *key, const char *value) {
    (void)kind; (void)value;
    struct sb_header_count *count = (struct sb_header_count *)cls;
    if (key != NULL && strcasecmp(key, count->name) == 0) count->count += 1;
    return MHD_YES;
}

/// How many request headers named `name` (case-insensitively) the request has:
/// 0.9.75 accepts duplicate Content-Length headers, which smuggling relies on.
static inline unsigned int sb_count_header(struct MHD_Connection *connection, const char *name) {
    struct sb_header_count count = { name, 0 };
    MHD_get_connection_values(connection, MHD_HEADER_KIND, sb_count_iterator, &count);
    return count.count;
}

#endif
