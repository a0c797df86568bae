/* The C reference for .ci/bench-http --reference: libmicrohttpd with the daemon options
 * Switchboard starts with (one internal epoll thread, the same limits), answering every
 * request with a fixed 222-byte JSON body queued on the second call of the handler, as
 * Switchboard does. What it serves per second is the ceiling of this machine for any
 * libmicrohttpd server. Build: cc -O2 -o ref .ci/reference-server.c -lmicrohttpd */
#include <microhttpd.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char body[] =
    "{\"url\":\"/artist/banksy\",\"status\":\"matched\",\"route\":{\"name\":\"artist\",\"pattern\":"
    "\"/artist/:id\"},\"destination\":\"Artist\",\"params\":{\"id\":\"banksy\"},\"presentation\":"
    "{\"style\":\"push\"},\"manifest\":{\"version\":1,\"etag\":\"sha256-0\"}}";

static enum MHD_Result handle(void *cls, struct MHD_Connection *connection, const char *url, const char *method,
                              const char *version, const char *upload, size_t *upload_size, void **state) {
    static int seen;
    (void)cls; (void)url; (void)method; (void)version; (void)upload; (void)upload_size;
    if (*state != &seen) { *state = &seen; return MHD_YES; }
    struct MHD_Response *response = MHD_create_response_from_buffer(strlen(body), (void *)body, MHD_RESPMEM_MUST_COPY);
    MHD_add_response_header(response, "Content-Type", "application/json");
    enum MHD_Result result = MHD_queue_response(connection, 200, response);
    MHD_destroy_response(response);
    return result;
}

int main(int argc, char **argv) {
    unsigned short port = argc > 1 ? (unsigned short)atoi(argv[1]) : 18383;
    struct MHD_Daemon *daemon = MHD_start_daemon(
        MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_ITC | MHD_ALLOW_SUSPEND_RESUME, port, NULL, NULL, handle, NULL,
        MHD_OPTION_THREAD_POOL_SIZE, 1, MHD_OPTION_CONNECTION_LIMIT, 65536, MHD_OPTION_PER_IP_CONNECTION_LIMIT, 256,
        MHD_OPTION_CONNECTION_TIMEOUT, 15, MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)(32 << 10),
        MHD_OPTION_STRICT_FOR_CLIENT, 1, MHD_OPTION_END);
    if (daemon == NULL) return 1;
    for (;;) pause();
}
