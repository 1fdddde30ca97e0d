/* The logs view's text: a sandbox's kept output (core/output.h) as lines ready to draw. Agent
 * output is untrusted: every line is escaped here once (core/text.h: ESC shows as \x1b, C1 and
 * bidi controls as \uNNNN, tabs expand to spaces), when it is read, so drawing never sees a
 * control character. Sections come in the order they were kept: a header line per exec
 * ("==> exec 3: make test (exit 2) <=="), the entrypoint's output under its own header each time
 * it resumes. Also: search, and finding an exec's section. Knows nothing about curses; the read
 * runs on a worker (tui/jobs.c) into a fresh buffer that the UI thread appends. */
#ifndef TUI_LOGBUF_H
#define TUI_LOGBUF_H

#include <stdbool.h>
#include <stddef.h>

#define TUI_LOG_MAX_LINES 200000 /* older lines go first */

typedef struct tui_logline {
    char *text;   /* escaped, no newline */
    int exec;     /* the section: its exec number, 0 the entrypoint */
    bool header;  /* the "==> ... <==" line of a section */
    bool err;     /* from stderr */
    bool partial; /* no newline yet: the next text of its stream continues it */
} tui_logline;

typedef struct tui_logbuf {
    tui_logline *lines;
    size_t n, cap;
    size_t dropped; /* lines dropped from the front (TUI_LOG_MAX_LINES) */
} tui_logbuf;

/* Where a read goes on from: the entrypoint's log position and the last exec read. */
typedef struct tui_logcursor {
    long long offset;
    unsigned long long inode;
    int last_exec;
    bool started;  /* the first read is done */
    bool in_entry; /* the last section read is the entrypoint's (more of it goes on there) */
} tui_logcursor;

void tui_logbuf_free(tui_logbuf *b);
/* A section's header line. */
void tui_logbuf_header(tui_logbuf *b, int exec, const char *title);
/* Raw output of a section's stream: split at newlines, escaped; continues the last line when
 * that is the same stream's and had no newline. */
void tui_logbuf_text(tui_logbuf *b, int exec, bool err, const char *text, size_t len);
/* Moves every line of src to the end of b (joining a continued line); src is left empty. */
void tui_logbuf_append(tui_logbuf *b, tui_logbuf *src);
/* The header line of exec n's section, or -1. */
long tui_logbuf_find_exec(const tui_logbuf *b, int n);
/* The next line from `from` (exclusive) in direction dir (+1 / -1) containing pattern
 * (case-insensitive), wrapping around; -1 when no line does. */
long tui_logbuf_search(const tui_logbuf *b, const char *pattern, long from, int dir);
/* Byte lengths of the pieces a line wraps into at width columns (at least one piece); returns
 * the count, at most max. */
size_t tui_logbuf_wrap(const char *text, int width, size_t *pieces, size_t max);

/* Reads what the sandbox kept since cur into out (fresh lines to append): the first call the
 * entrypoint's output and every kept exec, later calls what came since. On a worker thread:
 * touches only its arguments and the output files. */
void tui_logbuf_read(const char *provider, const char *id, tui_logcursor *cur, tui_logbuf *out);

#endif
