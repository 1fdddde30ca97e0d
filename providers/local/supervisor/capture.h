/* Capture of a local sandbox entrypoint's stdout and stderr into its entry.log (capture.c), for
 * the supervisor. libc only. */
#ifndef SM_SUP_CAPTURE_H
#define SM_SUP_CAPTURE_H

#include <stddef.h>

#include "providers/local/launch.h"

/* The entrypoint's stdout and stderr, relayed into <state>/output/local/<id>/entry.log (the
 * layout of core/output.c) a line at a time, the values of credential-named env variables
 * replaced by ***; past the cap the file moves to entry.log.1, so at most twice the cap is
 * kept. The last meaningful stderr line goes into the end's reason. */
#define LINE_MAX_BYTES 4096
struct capture {
    int fd[2]; /* read ends: stdout, stderr; -1 when closed */
    char dir[4096];
    int out;
    long long size, cap;
    char pend[2][LINE_MAX_BYTES];
    size_t plen[2];
    char last_err[200];
    const char *secrets[64];
    size_t nsecrets;
};

/* Pipes for the init's stdout and stderr (the entrypoint inherits them); 0 or -1. */
int capture_start(struct capture *c, const struct launch *l, int pipes[2][2]);
/* Removes the log and its directory of a sandbox that never started. */
void capture_abort(struct capture *c);
/* Reads what stream s (0 stdout, 1 stderr) has and writes its whole lines; closes it at its end. */
void capture_read(struct capture *c, int s);
/* After the init ended: what is left in the pipes, then the file is closed. */
void capture_finish(struct capture *c);
/* Copies text into buf with the secrets replaced, as capture_write writes them. */
void capture_write_redacted(const struct capture *c, const char *text, char *buf, size_t len);

#endif
