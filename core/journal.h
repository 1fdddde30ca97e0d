/* The event journal: one append-only JSON-lines file per sandbox under
 * <state>/journal/<provider>/<id>.jsonl. Lines are lifecycle, exec, transfer and failure
 * events; each has ts, type, event, sandbox_id, provider. Appends are single O_APPEND writes,
 * so concurrent processes never interleave a line. Secrets are redacted before writing. */
#ifndef SM_JOURNAL_H
#define SM_JOURNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "core/failure.h"

typedef struct cJSON cJSON;

/* Caller frees. */
char *sm_journal_path(const char *provider, const char *sandbox_id);

/* Adds ts/sandbox_id/provider to ev (consumed) and appends it. */
int sm_journal_append(const char *provider, const char *sandbox_id, const char *type,
                      const char *event, cJSON *fields);
/* Appends a failure event: type "failure", the failure object under "failure". */
int sm_journal_failure(const char *provider, const char *sandbox_id, const sm_failure *f);

/* Reads one sandbox's events, oldest first; *out is a cJSON array the caller deletes.
 * A missing journal is an empty array. Malformed lines are skipped. */
int sm_journal_read(const char *provider, const char *sandbox_id, cJSON **out);
/* The same for the events of its last max_bytes only (0: all of it); the line the window cuts
 * is dropped. Reads only that much of the file, however long the journal; with only (may be
 * NULL), only the lines that hold that text are parsed. */
int sm_journal_read_tail(const char *provider, const char *sandbox_id, long long max_bytes,
                         const char *only, cJSON **out);
int sm_journal_remove(const char *provider, const char *sandbox_id);
/* Why the sandbox's last failing command or operation failed, from its journal, picked as the
 * dashboard picks it (sm_failure_note: the newest, a plain non-zero exit not hiding a stronger
 * failure of the minute before); false when its journal has no failure. out->commands_since
 * counts the commands (exec, transfer) that ran after it, so that a failure a later command
 * got past shows its age ("exit 3, 2 commands ago") instead of standing as the current one.
 * Reads the journal's tail only (at most 4 MiB of it). */
bool sm_journal_last_failure(const char *provider, const char *sandbox_id, sm_failure *out);

/* Follows every journal: each poll returns the lines appended since the last one (the first
 * poll returns up to `backlog` bytes from the end of each file; a journal first seen by a later
 * poll, a new sandbox's, is read from its start). Files that disappear are
 * forgotten. Cheap when nothing changed: one stat per journal. */
typedef struct sm_journal_follower sm_journal_follower;
sm_journal_follower *sm_journal_follower_new(size_t backlog);
void sm_journal_follower_free(sm_journal_follower *f);
/* A cJSON array of new events, oldest first across every journal (by ts; a file's own order
 * for equal times); caller deletes. NULL when there are none. */
cJSON *sm_journal_follower_poll(sm_journal_follower *f);

/* One line describing an event for humans: "exit 3 in 12ms: make test",
 * "OOM killed: memory.oom_kill 1, limit 64MiB", "upload ./a -> /tmp/a (12B)". */
void sm_journal_event_summary(const cJSON *ev, char *buf, size_t len);

#endif
