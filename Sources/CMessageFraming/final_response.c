// A final answer written straight to a socket, for where libmicrohttpd cannot queue one.

#include "framing.h"

#include <stdio.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <time.h>

int sb_send_final_response_fd(int fd, const char *status_line, const char *content_type,
                              const char *body, size_t body_size) {
    char date[40];
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(date, sizeof date, "%a, %d %b %Y %H:%M:%S GMT", &tm);
    char head[512];
    int length = snprintf(head, sizeof head,
        "HTTP/1.1 %s\r\nDate: %s\r\nConnection: close\r\nContent-Type: %s\r\nContent-Length: %zu\r\n\r\n",
        status_line, date, content_type, body_size);
    if (length < 0 || (size_t)length >= sizeof head) return -1;
    if (send(fd, head, (size_t)length, MSG_NOSIGNAL | MSG_MORE) != length) return -1;
    if (send(fd, body, body_size, MSG_NOSIGNAL) != (ssize_t)body_size) return -1;
    shutdown(fd, SHUT_WR);
    return 0;
}
