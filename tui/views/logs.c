/* The logs view (l, as in k9s): one sandbox's kept output, its entrypoint's and each exec's
 * (core/output.h, what `sandman logs` prints), read off the UI thread by jobs (tui/jobs.c) and
 * escaped once as it arrives (logbuf.c). Follow mode keeps the end in view as output is kept
 * (f toggles; moving up leaves it, G comes back), w wraps long lines, / searches (n N next,
 * previous; matching lines highlighted), and an exec event's l opens it at that command. */
#include <stdio.h>
#include <string.h>

#include "core/output.h"
#include "core/util.h"
#include "tui/jobs.h"
#include "tui/views/views.h"
#include "tui/widgets/draw.h"

#define MAX_PIECES 64 /* rows one wrapped line takes at most */

void tui_logs_open(tui_app *app, const char *provider, const char *id, int exec)
{
    tui_logs *l = &app->logs;
    tui_view back = app->view == VIEW_LOGS ? l->back : app->view;
    tui_logbuf_free(&l->buf);
    unsigned gen = l->gen + 1;
    bool wrap = l->wrap, reading = l->reading;
    char search[sizeof l->search];
    snprintf(search, sizeof search, "%s", l->search);
    memset(l, 0, sizeof *l);
    l->gen = gen;
    l->wrap = wrap;
    l->reading = reading; /* a read of the one before may still run: its result is dropped */
    snprintf(l->search, sizeof l->search, "%s", search);
    snprintf(l->id, sizeof l->id, "%s", id);
    snprintf(l->provider, sizeof l->provider, "%s", provider);
    l->follow = exec <= 0;
    l->jump_exec = exec;
    l->match = -1;
    l->back = back;
    app->view = VIEW_LOGS;
    tui_jobs_logs(app);
}

void tui_logs_close(tui_app *app)
{
    app->view = app->logs.back == VIEW_LOGS ? VIEW_LIST : app->logs.back;
}

void tui_logs_arrived(tui_app *app)
{
    tui_logs *l = &app->logs;
    if (l->jump_exec > 0) {
        long at = tui_logbuf_find_exec(&l->buf, l->jump_exec);
        if (at >= 0) {
            l->top = (size_t)at;
            l->follow = false;
        } else {
            tui_status(app, true, "the output of exec %d is no longer kept (the newest %d are)",
                       l->jump_exec, SM_OUTPUT_KEEP);
            l->follow = true;
        }
        l->jump_exec = 0;
    }
    if (l->match >= (long)l->buf.n)
        l->match = -1;
}

/* Rows line i takes at width cols. */
static int rows_of(const tui_logs *l, size_t i, int cols)
{
    size_t pieces[MAX_PIECES];
    return l->wrap ? (int)tui_logbuf_wrap(l->buf.lines[i].text, cols, pieces, MAX_PIECES) : 1;
}

/* The first line shown: following, as many of the last lines as fill the body. */
static size_t first_line(tui_logs *l, int body, int cols)
{
    if (!l->buf.n)
        return 0;
    if (l->follow) {
        size_t i = l->buf.n;
        int used = 0;
        while (i > 0 && used + rows_of(l, i - 1, cols) <= body)
            used += rows_of(l, --i, cols);
        l->top = i;
    }
    if (l->top >= l->buf.n)
        l->top = l->buf.n - 1;
    return l->top;
}

static void draw_title(tui_app *app, int top)
{
    tui_logs *l = &app->logs;
    attr_t head = tui_attr(TH_TITLE);
    tui_fill(top, 0, app->cols, head);
    char left[160], right[256];
    snprintf(left, sizeof left, "LOGS %s  %zu line%s%s", l->id, l->buf.n, l->buf.n == 1 ? "" : "s",
             l->loaded ? "" : "  reading ...");
    int x = tui_put(top, 0, app->cols, left, head | A_BOLD, false);
    size_t r = 0;
    if (l->search[0]) {
        size_t hits = 0, at = 0;
        for (size_t i = 0; i < l->buf.n; i++)
            if (strcasestr(l->buf.lines[i].text, l->search)) {
                hits++;
                if ((long)i == l->match)
                    at = hits;
            }
        r += (size_t)snprintf(right, sizeof right, "/%s: %zu of %zu  ", l->search, at, hits);
    }
    snprintf(right + r, sizeof right - r, "%s  wrap %s ",
             l->follow ? "FOLLOWING" : "paused (f follows)", l->wrap ? "on" : "off");
    if (x + 2 < app->cols)
        tui_put_right(top, x + 2, app->cols - x - 2, right, head);
}

void tui_logs_draw(tui_app *app, int top, int height)
{
    tui_logs *l = &app->logs;
    draw_title(app, top);
    int body = height - 1, cols = app->cols;
    if (!l->buf.n) {
        char msg[160];
        snprintf(msg, sizeof msg, "%s", l->loaded ? "no output kept yet" : "reading ...");
        tui_put(top + 2, 2, cols - 4, msg, tui_attr(TH_DIM), false);
        return;
    }
    int y = top + 1, end = top + 1 + body;
    for (size_t i = first_line(l, body, cols); i < l->buf.n && y < end; i++) {
        const tui_logline *ln = &l->buf.lines[i];
        attr_t a =
            ln->header ? tui_attr(TH_TITLE) | A_BOLD : tui_attr(ln->err ? TH_WARNING : TH_NORMAL);
        if (l->search[0] && strcasestr(ln->text, l->search))
            a = tui_attr((long)i == l->match ? TH_SELECTED : TH_MARKED);
        size_t pieces[MAX_PIECES], n = 1, at = 0;
        if (l->wrap)
            n = tui_logbuf_wrap(ln->text, cols, pieces, MAX_PIECES);
        for (size_t k = 0; k < n && y < end; k++) {
            if (!l->wrap) {
                tui_put(y++, 0, cols, ln->text, a, a != tui_attr(TH_NORMAL));
                break;
            }
            char piece[4096];
            snprintf(piece, sizeof piece, "%.*s", (int)pieces[k], ln->text + at);
            at += pieces[k];
            tui_put(y++, 0, cols, piece, a, a != tui_attr(TH_NORMAL));
        }
    }
}

void tui_logs_scroll(tui_app *app, long delta)
{
    tui_logs *l = &app->logs;
    if (!l->buf.n)
        return;
    if (delta < 0) {
        l->follow = false;
        size_t d = (size_t)-delta;
        l->top = d > l->top ? 0 : l->top - d;
    } else if (!l->follow) {
        l->top = l->top + (size_t)delta >= l->buf.n ? l->buf.n - 1 : l->top + (size_t)delta;
    }
}

void tui_logs_jump(tui_app *app, bool end)
{
    tui_logs *l = &app->logs;
    l->follow = end;
    if (!end)
        l->top = 0;
}

void tui_logs_toggle_follow(tui_app *app)
{
    tui_logs *l = &app->logs;
    l->follow = !l->follow;
    tui_status(app, false, "logs: %s", l->follow ? "following" : "paused");
    if (l->follow)
        tui_jobs_logs(app);
}

void tui_logs_toggle_wrap(tui_app *app)
{
    app->logs.wrap = !app->logs.wrap;
}

/* Shows the match: a few lines of context above it. */
static void show_match(tui_app *app, long at)
{
    tui_logs *l = &app->logs;
    l->match = at;
    if (at < 0) {
        tui_status(app, true, "logs: no line has '%s'", l->search);
        return;
    }
    l->follow = false;
    l->top = at > 3 ? (size_t)at - 3 : 0;
}

void tui_logs_search(tui_app *app, const char *pattern)
{
    tui_logs *l = &app->logs;
    snprintf(l->search, sizeof l->search, "%s", pattern);
    if (!pattern[0]) {
        l->match = -1;
        return;
    }
    /* from the end backwards when following (the newest match), else down from the top */
    long from = l->follow ? (long)l->buf.n : (long)l->top - 1;
    show_match(app, tui_logbuf_search(&l->buf, l->search, from, l->follow ? -1 : 1));
}

void tui_logs_next(tui_app *app, int dir)
{
    tui_logs *l = &app->logs;
    if (!l->search[0]) {
        tui_status(app, true, "logs: / searches first");
        return;
    }
    long from = l->match >= 0 ? l->match : (long)l->top - (dir > 0);
    show_match(app, tui_logbuf_search(&l->buf, l->search, from, dir));
}
