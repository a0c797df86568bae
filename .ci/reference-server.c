/* The C reference for .ci/bench-http: libmicrohttpd with the daemon options Switchboard
 * starts with (one internal epoll thread, the same limits, and the same identity
 * unescaper: libmicrohttpd splits the query but decodes nothing, as for Switchboard,
 * which decodes its url itself), doing what libmicrohttpd must
 * do for Switchboard's two commonest requests and nothing else:
 *   - any request with If-None-Match: 304 with Switchboard's headers (ETag,
 *     X-Manifest-Version, Cache-Control, Vary, Last-Modified), a response made once and
 *     queued each time, as Switchboard queues its prepared 304;
 *   - any other: a fixed 290-byte JSON body (the length of a resolve answer), copied into
 *     a new response with its Content-Type, as Switchboard answers a resolve.
 * Both are queued on the second call of the handler, as Switchboard does. What it serves
 * per second is this machine's ceiling for any libmicrohttpd server, and its instructions
 * per request (callgrind) the floor a Switchboard request is measured against.
 * An optional second argument, SPIN, makes each resolve answer first spend SPIN rounds of
 * a multiply-add chain (about a nanosecond each, four cycles, touching no memory): a
 * calibration point for bench-http's --reference-spin, what CPU ratio a server gets that
 * adds only that much user time to the floor.
 * Build (as .ci/bench-http does): cc -O2 -o ref .ci/reference-server.c -lmicrohttpd;
 * run: ref PORT [SPIN] */
#include <microhttpd.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char body[] =
    "{\"url\":\"/artist/banksy\",\"status\":\"matched\",\"route\":{\"name\":\"artist\",\"pattern\":"
    "\"/artist/:id(/:tab)\"},\"destination\":\"Artist\",\"params\":{\"id\":\"banksy\"},\"presentation\":"
    "{\"style\":\"push\"},\"manifest\":{\"version\":1,\"etag\":\"\\\"sha256-a018735c9922f1c1a13c4fb899213adf"
    "3eab075f7702bb601d2638a4724d5d72\\\"\"}}";

static struct MHD_Response *not_modified;
static long spin;
static volatile unsigned long spun;

static enum MHD_Result handle(void *cls, struct MHD_Connection *connection, const char *url, const char *method,
                              const char *version, const char *upload, size_t *upload_size, void **state) {
    static int seen;
    (void)cls; (void)url; (void)method; (void)version; (void)upload; (void)upload_size;
    if (*state != &seen) { *state = &seen; return MHD_YES; }
    if (MHD_lookup_connection_value(connection, MHD_HEADER_KIND, "If-None-Match") != NULL)
        return MHD_queue_response(connection, 304, not_modified);
    unsigned long x = 1;
    for (long i = 0; i < spin; i++) x = x * 6364136223846793005UL + 1442695040888963407UL;
    spun = x;
    struct MHD_Response *response = MHD_create_response_from_buffer(strlen(body), (void *)body, MHD_RESPMEM_MUST_COPY);
    MHD_add_response_header(response, "Content-Type", "application/json");
    enum MHD_Result result = MHD_queue_response(connection, 200, response);
    MHD_destroy_response(response);
    return result;
}

/* Switchboard's sb_identity_unescape (Sources/CMicroHTTPD/shim.h): nothing decoded. */
static size_t identity_unescape(void *cls, struct MHD_Connection *connection, char *s) {
    (void)cls; (void)connection;
    return strlen(s);
}

static volatile sig_atomic_t stopping;
static void stop(int signal) { (void)signal; stopping = 1; }

int main(int argc, char **argv) {
    unsigned short port = argc > 1 ? (unsigned short)atoi(argv[1]) : 18383;
    spin = argc > 2 ? atol(argv[2]) : 0;
    not_modified = MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT);
    MHD_add_response_header(not_modified, "ETag", "\"sha256-a018735c9922f1c1a13c4fb899213adf3eab075f7702bb601d2638a4724d5d72\"");
    MHD_add_response_header(not_modified, "X-Manifest-Version", "1");
    MHD_add_response_header(not_modified, "Cache-Control", "public, max-age=60");
    MHD_add_response_header(not_modified, "Vary", "Accept-Encoding");
    MHD_add_response_header(not_modified, "Last-Modified", "Fri, 20 Nov 2026 10:00:00 GMT");
    // SIGTERM is blocked but while main waits in sigsuspend, and the daemon's threads
    // inherit the block: with pause() one could land on a daemon thread, or between the
    // test of `stopping` and the wait, and main would wait on.
    sigset_t term, waiting;
    sigemptyset(&term);
    sigaddset(&term, SIGTERM);
    sigprocmask(SIG_BLOCK, &term, &waiting);
    sigdelset(&waiting, SIGTERM);
    struct MHD_Daemon *daemon = MHD_start_daemon(
        MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_ITC | MHD_ALLOW_SUSPEND_RESUME, port, NULL, NULL, handle, NULL,
        MHD_OPTION_THREAD_POOL_SIZE, 1, MHD_OPTION_CONNECTION_LIMIT, 65536, MHD_OPTION_PER_IP_CONNECTION_LIMIT, 256,
        MHD_OPTION_CONNECTION_TIMEOUT, 15, MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)(32 << 10),
        MHD_OPTION_STRICT_FOR_CLIENT, 1, MHD_OPTION_UNESCAPE_CALLBACK, identity_unescape, NULL, MHD_OPTION_END);
    if (daemon == NULL) return 1;
    // SIGTERM stops the daemon and returns from main, so callgrind writes its counts.
    signal(SIGTERM, stop);
    while (!stopping) sigsuspend(&waiting);
    MHD_stop_daemon(daemon);
    MHD_destroy_response(not_modified);
    return 0;
}
