/* The logs view's lines: kept output split, escaped and searched (see logbuf.h). */
#include "tui/views/logbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <wchar.h>

#include "core/error.h"
#include "core/output.h"
#include "core/text.h"
#include "core/util.h"

void tui_logbuf_free(tui_logbuf *b)
{
    for (size_t i = 0; i < b->n; i++)
        free(b->lines[i].text);
    free(b->lines);
    memset(b, 0, sizeof *b);
}

static void push(tui_logbuf *b, tui_logline l)
{
    if (b->n == TUI_LOG_MAX_LINES) { /* the oldest tenth goes at once, not a line at a time */
        size_t drop = TUI_LOG_MAX_LINES / 10;
        for (size_t i = 0; i < drop; i++)
            free(b->lines[i].text);
        memmove(b->lines, b->lines + drop, (b->n - drop) * sizeof *b->lines);
        b->n -= drop;
        b->dropped += drop;
    }
    if (b->n == b->cap) {
        b->cap = b->cap ? b->cap * 2 : 64;
        b->lines = xrealloc(b->lines, b->cap * sizeof *b->lines);
    }
    b->lines[b->n++] = l;
}

/* One raw line (no newline) as it is shown: tabs to spaces, a CR before the newline dropped,
 * every control escaped. */
static char *show(const char *s, size_t len)
{
    if (len && s[len - 1] == '\r')
        len--;
    char *raw = xmalloc(len * 8 + 1);
    size_t o = 0, col = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '\t') {
            do
                raw[o++] = ' ';
            while (++col % 8);
        } else {
            raw[o++] = s[i] ? s[i] : ' '; /* a NUL would end the string */
            col += ((unsigned char)s[i] & 0xC0) != 0x80;
        }
    }
    raw[o] = '\0';
    char *out = sm_text_escape(raw, 0);
    free(raw);
    return out;
}

void tui_logbuf_header(tui_logbuf *b, int exec, const char *title)
{
    push(b, (tui_logline){.text = show(title, strlen(title)), .exec = exec, .header = true});
}

static bool continues(const tui_logline *last, int exec, bool err)
{
    return last && last->partial && !last->header && last->exec == exec && last->err == err;
}

static void join(tui_logline *last, char *more, bool partial)
{
    size_t a = strlen(last->text), m = strlen(more);
    last->text = xrealloc(last->text, a + m + 1);
    memcpy(last->text + a, more, m + 1);
    last->partial = partial;
    free(more);
}

void tui_logbuf_text(tui_logbuf *b, int exec, bool err, const char *text, size_t len)
{
    size_t at = 0;
    while (at < len) {
        const char *nl = memchr(text + at, '\n', len - at);
        size_t end = nl ? (size_t)(nl - text) : len;
        char *line = show(text + at, end - at);
        tui_logline *last = b->n ? &b->lines[b->n - 1] : NULL;
        if (continues(last, exec, err))
            join(last, line, !nl);
        else
            push(b, (tui_logline){.text = line, .exec = exec, .err = err, .partial = !nl});
        at = nl ? end + 1 : len;
    }
}

void tui_logbuf_append(tui_logbuf *b, tui_logbuf *src)
{
    for (size_t i = 0; i < src->n; i++) {
        tui_logline *last = b->n ? &b->lines[b->n - 1] : NULL;
        tui_logline *l = &src->lines[i];
        if (i == 0 && continues(last, l->exec, l->err) && !l->header)
            join(last, l->text, l->partial);
        else
            push(b, *l);
    }
    free(src->lines);
    memset(src, 0, sizeof *src);
}

long tui_logbuf_find_exec(const tui_logbuf *b, int n)
{
    for (size_t i = 0; i < b->n; i++)
        if (b->lines[i].header && b->lines[i].exec == n)
            return (long)i;
    return -1;
}

long tui_logbuf_search(const tui_logbuf *b, const char *pattern, long from, int dir)
{
    if (!pattern || !*pattern || !b->n)
        return -1;
    long n = (long)b->n;
    for (long k = 1; k <= n; k++) {
        long i = ((from + dir * k) % n + n) % n;
        if (strcasestr(b->lines[i].text, pattern))
            return i;
    }
    return -1;
}

size_t tui_logbuf_wrap(const char *text, int width, size_t *pieces, size_t max)
{
    size_t n = 0, start = 0, at = 0, len = strlen(text);
    int used = 0;
    mbstate_t st;
    memset(&st, 0, sizeof st);
    if (width < 1)
        width = 1;
    while (at < len && n + 1 < max) {
        wchar_t wc;
        size_t k = mbrtowc(&wc, text + at, len - at, &st);
        int w = 1;
        if (k == (size_t)-1 || k == (size_t)-2 || k == 0) {
            memset(&st, 0, sizeof st);
            k = 1;
        } else if ((w = wcwidth(wc)) < 0) {
            w = 1;
        }
        if (used + w > width && at > start) {
            pieces[n++] = at - start;
            start = at;
            used = 0;
        }
        used += w;
        at += k;
    }
    pieces[n++] = len - start;
    return n;
}

/* One kept exec as a section: its header, what was not kept, stdout, then stderr. */
static void exec_section(tui_logbuf *out, const sm_output_entry *e)
{
    char title[700];
    snprintf(title, sizeof title, "==> exec %d: %.600s (exit %d) <==", e->n, e->cmd ? e->cmd : "",
             e->return_code);
    tui_logbuf_header(out, e->n, title);
    if (e->dropped > 0) {
        snprintf(title, sizeof title, "(%lld earlier bytes not kept)", e->dropped);
        tui_logbuf_text(out, e->n, true, title, strlen(title));
        tui_logbuf_text(out, e->n, true, "\n", 1);
    }
    if (e->out_len) {
        tui_logbuf_text(out, e->n, false, e->out, e->out_len);
        if (e->out[e->out_len - 1] != '\n')
            tui_logbuf_text(out, e->n, false, "\n", 1); /* an exec's text is complete */
    }
    if (e->err_len) {
        tui_logbuf_text(out, e->n, true, e->err, e->err_len);
        if (e->err[e->err_len - 1] != '\n')
            tui_logbuf_text(out, e->n, true, "\n", 1);
    }
}

/* New entrypoint text goes under an entrypoint header unless it continues that section. */
static void entry_text(tui_logbuf *out, tui_logcursor *cur, const char *t, size_t len)
{
    if (!len)
        return;
    if (!cur->in_entry)
        tui_logbuf_header(out, 0, "==> entrypoint <==");
    cur->in_entry = true;
    tui_logbuf_text(out, 0, false, t, len);
}

void tui_logbuf_read(const char *provider, const char *id, tui_logcursor *cur, tui_logbuf *out)
{
    char *buf = NULL;
    size_t len = 0;
    if (!cur->started) {
        sm_output_entry e;
        if (sm_output_read(provider, id, 0, &e) == SM_OK) {
            entry_text(out, cur, e.out, e.out_len);
            sm_output_entry_free(&e);
        }
        /* from where that text ends (as sandman logs -f goes on) */
        sm_output_follow_entry(provider, id, &cur->offset, &cur->inode, &buf, &len);
        free(buf);
        buf = NULL;
        len = 0;
        cur->started = true;
    } else if (sm_output_follow_entry(provider, id, &cur->offset, &cur->inode, &buf, &len) > 0) {
        entry_text(out, cur, buf, len);
    }
    free(buf);
    sm_output_entry *list = NULL;
    size_t n = 0;
    sm_output_list(provider, id, &list, &n);
    for (size_t i = 0; i < n; i++) {
        if (list[i].n > cur->last_exec) {
            sm_output_entry e;
            if (sm_output_read(provider, id, list[i].n, &e) == SM_OK) {
                exec_section(out, &e);
                cur->last_exec = e.n;
                sm_output_entry_free(&e);
                cur->in_entry = false;
            }
        }
        sm_output_entry_free(&list[i]);
    }
    free(list);
}
