/* PTY sessions (seed §1 SandboxPtySession): a provider-neutral object over a provider's
 * session vtable, plus the one-shot `pty exec` marker protocol of seed §3.2, which runs a
 * command inside a live shell session and recovers its exit status from a printed marker. */
#ifndef SM_PTY_H
#define SM_PTY_H

#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"
#include "core/spec.h"
#include "core/vtquery.h"

typedef struct sm_pty sm_pty;

typedef enum sm_pty_mode { SM_PTY_MODE_NONE = 0, SM_PTY_MODE_PTY, SM_PTY_MODE_PIPE } sm_pty_mode;

typedef struct sm_pty_ops {
    /* Reads the next chunk. *got = 0 with SM_OK means exited and drained (sticky EOF).
     * timeout_s < 0 waits forever; 0 polls. SM_ERR_TIMEOUT when nothing arrived in time;
     * SM_ERR_RUNTIME (kind pty_error) when the session died without an exit status. */
    int (*read)(sm_pty *p, char *buf, size_t len, double timeout_s, size_t *got, sm_error *err);
    /* Pipe mode only; pty mode returns EOF. */
    int (*read_stderr)(sm_pty *p, char *buf, size_t len, double timeout_s, size_t *got,
                       sm_error *err);
    int (*write)(sm_pty *p, const void *data, size_t len, sm_error *err);
    int (*resize)(sm_pty *p, int rows, int cols, sm_error *err);
    int (*signal)(sm_pty *p, int sig, sm_error *err);
    /* Waits for the process to exit; *code is its exit code (128+N for signal N). */
    int (*wait_exit)(sm_pty *p, double timeout_s, int *code, sm_error *err);
    /* A pollable descriptor that becomes readable when read() has something (or EOF). */
    int (*fd)(sm_pty *p);
    /* Owned session: ends it. Attached session: detaches. Frees the provider part. */
    void (*close)(sm_pty *p);
    /* Bytes of output delivered so far (the `since` offset a re-attach would replay from). */
    long long (*offset)(sm_pty *p);
    /* Optional: leave the session running and free p (providers that keep sessions). */
    void (*detach)(sm_pty *p);
} sm_pty_ops;

struct sm_pty {
    const sm_pty_ops *ops;
    char session_id[64];
    sm_pty_mode mode;
    bool closed;
    void *impl;
    /* Set by the provider on attach: output before this offset replays what earlier clients
     * were shown. sm_pty_read takes the terminal queries out of it (answered again, they would
     * be typed into the program). */
    long long replay_end;
    sm_vtq replay_filter;
};

int sm_pty_read(sm_pty *p, char *buf, size_t len, double timeout_s, size_t *got, sm_error *err);
int sm_pty_read_stderr(sm_pty *p, char *buf, size_t len, double timeout_s, size_t *got,
                       sm_error *err);
int sm_pty_write(sm_pty *p, const void *data, size_t len, sm_error *err);
int sm_pty_resize(sm_pty *p, int rows, int cols, sm_error *err);
/* sig by name: SIGINT, SIGTERM, SIGKILL, SIGQUIT, SIGHUP (others rejected). */
int sm_pty_signal(sm_pty *p, const char *signame, sm_error *err);
int sm_pty_wait_exit(sm_pty *p, double timeout_s, int *code, sm_error *err);
int sm_pty_fd(sm_pty *p);
long long sm_pty_offset(sm_pty *p);
/* Idempotent; frees p. */
void sm_pty_close(sm_pty *p);
/* Leaves the session running for a later attach (when the provider keeps sessions; otherwise
 * the same as close) and frees p. */
void sm_pty_detach(sm_pty *p);

/* Marker protocol. The token is "NGPTY" + 12 hex characters. */
void sm_pty_marker_token(char token[18]);
/* The text written to the shell: "{ <cmd>\n} </dev/null\n" followed by a printf that prints
 * the token from two separately quoted halves, ':', $? and a newline. Caller frees. */
char *sm_pty_marker_script(const char *cmd, const char *token);
/* Parses accumulated output. Returns 1 when the marker line is complete: *prefix_len is the
 * length of the command's output before the marker, *code the exit code (or -1 when the digits
 * were unreadable, which callers report as 125 + "pty"). Returns 0 when more input is needed. */
int sm_pty_marker_parse(const char *buf, size_t len, const char *token, size_t *prefix_len,
                        int *code);
/* Runs cmd in a live shell session with the marker protocol; fills res (stdout = output
 * before the marker, including the echo; stderr NULL in pty mode). A timeout gives 125 +
 * "timeout"; EOF before the marker gives 125 + "pty" with an error. */
int sm_pty_exec_marker(sm_pty *p, const char *cmd, double timeout_s, sm_exec_result *res,
                       sm_error *err);

#endif
