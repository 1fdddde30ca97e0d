/* Kept output: what a sandbox's commands printed, kept with the sandbox so `sandman logs` and the
 * dashboard can show it after the fact. Per sandbox, under <state>/output/<provider>/<id>/:
 *   entry.log (and entry.log.1)  the entrypoint's stdout and stderr as they came, written by the
 *                                provider (the local supervisor), each file at most the cap;
 *   exec-NNNNNN.json             one per exec: the command, its result and the last `cap` bytes
 *                                of its stdout and stderr, redacted; the newest SM_OUTPUT_KEEP
 *                                are kept (a ring per sandbox).
 * Removed with the sandbox. Must not depend on providers or front ends. */
#ifndef SM_OUTPUT_H
#define SM_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>

#define SM_OUTPUT_KEEP        32
#define SM_OUTPUT_DEFAULT_CAP (64 * 1024)

/* Bytes kept per command: $SANDMAN_OUTPUT_CAP (a number, k/m suffixes; 1k..1g), else 64 KiB. */
long long sm_output_cap(void);

/* The tail of a stream: the last cap bytes of what was fed, and how many were dropped before. */
typedef struct sm_output_tail {
    char *data;
    size_t len, cap;
    long long dropped;
} sm_output_tail;
void sm_output_tail_init(sm_output_tail *t, size_t cap);
void sm_output_tail_feed(sm_output_tail *t, const char *buf, size_t n);
void sm_output_tail_free(sm_output_tail *t);

/* One kept command (n >= 1) or the entrypoint (n == 0). Strings owned by the entry. */
typedef struct sm_output_entry {
    int n;
    double ts;          /* when it started (wall clock); for the entrypoint, the file's mtime */
    double duration_ms; /* -1 for the entrypoint */
    int return_code;    /* -1 when not known (the entrypoint) */
    char *cmd;          /* the command; "(entrypoint)" for n == 0 */
    char *out, *err;    /* redacted text; the entrypoint's both streams are in out */
    size_t out_len, err_len;
    long long dropped; /* bytes before the kept tail, both streams */
} sm_output_entry;
void sm_output_entry_free(sm_output_entry *e);

/* Keeps one exec's result (the streams' tails are redacted here). Returns its number (>= 1) or
 * -1 when it could not be written. Prunes past SM_OUTPUT_KEEP. */
int sm_output_keep_exec(const char *provider, const char *id, const char *cmd, double started,
                        double duration_ms, int return_code, const sm_output_tail *out,
                        const sm_output_tail *err);

/* Every kept output of the sandbox, the entrypoint first (when it had one), then by number;
 * *out malloc'd (free each with sm_output_entry_free, then the array). Text is not loaded. */
int sm_output_list(const char *provider, const char *id, sm_output_entry **out, size_t *n);
/* One output with its text: n == 0 the entrypoint, n > 0 that exec, n < 0 the newest exec.
 * SM_ERR_NOT_FOUND when there is none. */
int sm_output_read(const char *provider, const char *id, int n, sm_output_entry *out);

/* Follows the entrypoint's log: appends to buf (NUL-terminated, malloc'd, *len bytes) what was
 * written since *offset, the file's rotation included; *offset starts at 0 or a value this
 * returned. Redacted. Returns the number of bytes added. */
size_t sm_output_follow_entry(const char *provider, const char *id, long long *offset,
                              unsigned long long *inode, char **buf, size_t *len);

/* For runtimes that keep the entrypoint's output themselves: makes entry.log hold text (the
 * runtime's latest copy, redacted here), appending only what is new when the kept log is the
 * start of it, so a follower sees each byte once. */
void sm_output_put_entry(const char *provider, const char *id, const char *text, size_t len);

int sm_output_remove(const char *provider, const char *id);

/* A streamed exec's output passes through a tee (output_tee.c): each descriptor >= 0 is
 * replaced by a pipe whose reader, a thread, writes everything on to the original at once and
 * keeps the last cap bytes. NULL (descriptors untouched) when neither is streamed or pipes
 * cannot be made. finish closes the pipes' write ends, waits for what the provider wrote, and
 * moves the tails into out and err (initialised here; free them). */
typedef struct sm_output_tee sm_output_tee;
sm_output_tee *sm_output_tee_start(int *stdout_fd, int *stderr_fd, size_t cap);
void sm_output_tee_finish(sm_output_tee *t, sm_output_tail *out, sm_output_tail *err);

#endif
