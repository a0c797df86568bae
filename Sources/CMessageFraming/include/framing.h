// The bytes of a request below libmicrohttpd: the chunked bodies it reads itself, checked
// as they arrive, and final answers written straight to a socket.
#ifndef SWITCHBOARD_MESSAGE_FRAMING_H
#define SWITCHBOARD_MESSAGE_FRAMING_H

#include <stddef.h>

/// Starts checking what a connection's socket reads (a connection opens; before its
/// first read). Sockets not watched are read as they are.
void sb_framing_watch(int fd);

/// Stops checking it (a connection closes; before its socket is closed, so a reused
/// descriptor is never checked against another connection's state).
void sb_framing_forget(int fd);

/// Whether the connection's chunked body was refused (answered 400 and shut down).
int sb_framing_refused(int fd);

/// Whether a refusal waits for the connection's next read: the bytes before it were handed
/// over and the socket's reading side shut, so its peer only seems to have hung up.
int sb_framing_refusing(int fd);

/// Writes a whole response with `Connection: close` straight to the socket `fd` and shuts
/// down its sending side. 0.9.75 refuses MHD_queue_response while a body is being
/// received, so a request refused mid-body (late, past a budget, badly framed) is answered
/// this way, then dropped. Accepted sockets are non-blocking: a reader that does not read
/// gets what fits in the socket's buffer, never a blocked thread. Returns 0 when every byte
/// was handed to the kernel.
int sb_send_final_response_fd(int fd, const char *status_line, const char *content_type,
                              const char *body, size_t body_size);

/// The byte-at-a-time checker behind the socket reads, for tests: feeds `length` bytes to a
/// fresh connection's state in pieces of `piece` bytes; returns how many bytes were
/// accepted before a refusal (`length` when none) and the refusal's detail in `detail`.
size_t sb_framing_check(const char *bytes, size_t length, size_t piece, const char **detail);

#endif
