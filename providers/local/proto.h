/* The local provider's control protocol between a sandman client and a sandbox's init
 * (PID 1 inside the sandbox), over the unix stream socket <sandbox dir>/ctl.sock.
 * Frames: a fixed header then `len` payload bytes; file descriptors ride as SCM_RIGHTS on the
 * header. Payload strings are NUL-terminated and packed back to back.
 * Shared by the client (libsandman_providers) and the static supervisor binary, so it uses
 * libc only. */
#ifndef SM_LOCAL_PROTO_H
#define SM_LOCAL_PROTO_H

#include <stddef.h>
#include <stdint.h>

#define LP_MAX_PAYLOAD (8u << 20) /* a request's strings (command, env) or a chunk of data */
#define LP_MAX_FDS     4

enum lp_type {
    LP_PING = 1, /* client -> init; answered by LP_PONG */
    LP_PONG,
    LP_EXEC,       /* a=rows b=cols; strings: shell, cmd, cwd, user, env...; fds: in,out,err */
    LP_STARTED,    /* a=pid inside the sandbox; payload: session id for PTY sessions */
    LP_EXITED,     /* a=raw wait status */
    LP_ERROR,      /* a=errno-like code; payload: one-line message */
    LP_KILL,       /* client -> init: a=signal for the command's process group */
    LP_PTY_OPEN,   /* like LP_EXEC but init allocates the terminal and relays it; no fds */
    LP_PTY_ATTACH, /* a=since offset, b=takeover; payload: session id */
    LP_DATA,       /* terminal bytes, either direction; a=offset of first byte (init->client) */
    LP_RESIZE,     /* a=rows b=cols */
    LP_CLOSE,      /* client -> init: end the session */
    LP_DETACH,     /* client -> init: leave the session running */
    LP_SESSIONS,   /* client -> init: list sessions; reply LP_SESSIONS with lines */
};

enum lp_flags {
    LP_F_PTY = 1u << 0,      /* LP_EXEC/LP_PTY_OPEN: give the command a terminal */
    LP_F_LOGIN = 1u << 1,    /* run the shell as a login shell (interactive sessions) */
    LP_F_KEEP = 1u << 2,     /* PTY session survives its client (detach instead of kill) */
    LP_F_CLEAN_RC = 1u << 3, /* with LP_F_LOGIN: an interactive shell without the image's rc
                              * files (bash --noprofile --norc, a plain PS1): the host's */
};

struct lp_hdr {
    uint32_t len;
    uint16_t type;
    uint16_t flags;
    int64_t a;
    int64_t b;
};

struct lp_frame {
    struct lp_hdr h;
    char *payload; /* malloc'd, NUL-terminated past len; NULL when len == 0 */
    int fds[LP_MAX_FDS];
    int nfds;
};

/* Blocking send of one frame (retries EINTR, handles short writes). 0 or -1 (errno). */
int lp_send(int fd, int type, int flags, int64_t a, int64_t b, const void *payload, size_t len,
            const int *fds, int nfds);
/* Blocking receive of one frame. 0 ok, -1 error (errno), 1 on orderly EOF. */
int lp_recv(int fd, struct lp_frame *f);
void lp_frame_free(struct lp_frame *f);

/* Non-blocking incremental receiver for event loops. */
struct lp_reader {
    char *buf;
    size_t len, cap;
    int fds[16];
    int nfds;
};
/* Reads what is available. Returns 0 (progress or EAGAIN), 1 on EOF, -1 on error. */
int lp_reader_fill(struct lp_reader *r, int fd);
/* Pops one complete frame into f (1), or 0 if none is complete. fds in arrival order. */
int lp_reader_next(struct lp_reader *r, struct lp_frame *f);
void lp_reader_free(struct lp_reader *r);

/* Packs strings into a payload buffer (malloc'd). */
char *lp_pack(const char *const *strs, size_t n, size_t *len);
/* Splits a payload into up to max strings (pointers into payload). Returns the count. */
size_t lp_unpack(const char *payload, size_t len, const char **out, size_t max);

#endif
