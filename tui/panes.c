/* Embedded terminals in the dashboard: opening sessions, draining their output into the
 * terminal model, drawing, keys, scroll/search/copy mode, recording, tabs and the split. */
#include "tui/panes.h"

#include <curses.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/strbuf.h"
#include "core/util.h"
#include "tui/app.h"
#include "tui/term/term_render.h"
#include "tui/widgets/draw.h"

/* What one wakeup drains at most, in bytes and time: libvterm scrolls a whole screen per line,
 * so a flood of short lines parses slowly, and keys and other panes must not wait behind it.
 * The poll is level-triggered, so the rest is read on the next pass of the loop. */
#define DRAIN_BUDGET   (1u << 20)
#define DRAIN_BUDGET_S 0.004

/* ---- opening a session on the work queue --------------------------------------------- */

typedef struct open_job {
    uv_work_t req;
    tui_app *app;
    sm_provider *p;
    char id[72];
    bool force_new;
    char session[64]; /* attach to this session ("" = the detached one, or a new shell) */
    int rows, cols;
    sm_sandbox *sbx;
    sm_pty *pty;
    bool attached;
    sm_pty_session_info *choices; /* several detached sessions: the user picks one */
    size_t nchoices;
    sm_error err;
} open_job;

static void open_work(uv_work_t *req)
{
    open_job *j = req->data;
    sm_error_clear(&j->err);
    j->sbx = sm_sandbox_new(j->p, false);
    if (sm_sandbox_open(j->sbx, j->id, &j->err) != SM_OK)
        return;
    if (j->session[0]) { /* the one the user picked */
        if (sm_sandbox_pty_attach(j->sbx, j->session, false, 0, &j->pty, &j->err) == SM_OK)
            j->attached = true;
        return;
    }
    if (!j->force_new) {
        sm_pty_session_info *s = NULL;
        size_t n = 0, detached = 0;
        sm_error ignore;
        sm_error_clear(&ignore);
        if (sm_sandbox_pty_sessions(j->sbx, &s, &n, &ignore) == SM_OK) {
            for (size_t i = 0; i < n; i++)
                if (s[i].running && !s[i].attached)
                    s[detached++] = s[i];
            if (detached > 1) { /* which one is the user's to say */
                j->choices = s;
                j->nchoices = detached;
                return;
            }
            if (detached == 1 &&
                sm_sandbox_pty_attach(j->sbx, s[0].id, false, 0, &j->pty, &ignore) == SM_OK)
                j->attached = true;
        }
        free(s);
    }
    if (!j->pty) {
        sm_pty_spec ps;
        sm_pty_spec_init(&ps);
        ps.rows = j->rows;
        ps.cols = j->cols;
        ps.keep = true; /* closing the dashboard leaves the session for a later attach */
        sm_sandbox_pty_open(j->sbx, &ps, &j->pty, &j->err);
    }
}

static void pane_write(const char *data, size_t len, void *ud)
{
    tui_pane *p = ud;
    if (p->pty && !p->exited)
        sm_pty_write(p->pty, data, len, NULL);
}

static void on_pty(uv_poll_t *h, int status, int events);

static void open_done(uv_work_t *req, int status)
{
    open_job *j = req->data;
    tui_app *app = j->app;
    app->jobs--;
    if (j->choices && !app->quit) { /* several detached sessions: the picker */
        free(app->pick);
        app->pick = j->choices;
        app->npick = j->nchoices;
        app->pick_sel = 0;
        snprintf(app->pick_sandbox, sizeof app->pick_sandbox, "%s", j->id);
        app->overlay = OV_SESSIONS;
        app->status[0] = '\0';
        sm_sandbox_free(j->sbx);
        free(j);
        tui_app_dirty(app);
        return;
    }
    free(j->choices);
    if (!j->pty) {
        tui_app_status(app, true, "terminal into %.12s: %s", j->id,
                       j->err.msg[0] ? j->err.msg : "failed");
        sm_sandbox_free(j->sbx);
        free(j);
        return;
    }
    if (app->npanes >= TUI_MAX_PANES || app->quit) {
        sm_pty_detach(j->pty);
        sm_sandbox_free(j->sbx);
        tui_app_status(app, true, "at most %d terminals at once", TUI_MAX_PANES);
        free(j);
        return;
    }
    tui_pane *p = xcalloc(1, sizeof *p);
    p->app = app;
    p->sbx = j->sbx;
    p->pty = j->pty;
    p->mark = p->sel_from = -1;
    snprintf(p->sandbox_id, sizeof p->sandbox_id, "%s", j->id);
    snprintf(p->label, sizeof p->label, "%.8s", j->id);
    p->term = tui_term_new(j->rows, j->cols, TUI_TERM_SCROLLBACK, pane_write, p);
    uv_poll_init(app->loop, &p->poll, sm_pty_fd(p->pty));
    p->poll.data = p;
    uv_poll_start(&p->poll, UV_READABLE, on_pty);
    p->polling = true;
    int idx = app->npanes++;
    app->panes[idx] = p;
    app->focus = app->shown = idx;
    if (j->attached) {
        tui_app_status(app, false, "attached to session %s of %.12s", p->pty->session_id, j->id);
        /* a redraw request makes full-screen programs repaint for the new client */
        sm_pty_resize(p->pty, j->rows, j->cols + 1, NULL);
        sm_pty_resize(p->pty, j->rows, j->cols, NULL);
    } else {
        /* the "opening a terminal ..." of the start is over: show the terminal's key hints */
        app->status[0] = '\0';
        app->status_until = 0;
    }
    free(j);
    app->full = true;
    tui_app_dirty(app);
}

void tui_panes_open(tui_app *app, const char *sandbox_id, bool force_new)
{
    tui_panes_attach(app, sandbox_id, force_new ? NULL : "");
}

void tui_panes_attach(tui_app *app, const char *sandbox_id, const char *session)
{
    tui_rect dash;
    tui_panes_layout(app, &dash);
    open_job *j = xcalloc(1, sizeof *j);
    j->app = app;
    j->p = app->provider;
    j->force_new = !session;
    snprintf(j->session, sizeof j->session, "%s", session ? session : "");
    snprintf(j->id, sizeof j->id, "%s", sandbox_id);
    /* the size the pane will have: the whole body, or the right side of a split */
    int body_h = app->rows - TUI_HEADER_LINES - 1;
    j->rows = body_h > 1 ? body_h : 24;
    j->cols = app->split ? app->cols - app->cols * 2 / 5 - 1 : app->cols;
    if (j->cols < 10)
        j->cols = 80;
    j->req.data = j;
    app->jobs++;
    tui_app_status(app, false, "opening a terminal into %.12s ...", sandbox_id);
    uv_queue_work(app->loop, &j->req, open_work, open_done);
}

/* ---- output -------------------------------------------------------------------------- */

static void pane_exited(tui_pane *p)
{
    p->exited = true;
    int code = -1;
    sm_error err;
    sm_error_clear(&err);
    if (sm_pty_wait_exit(p->pty, 0.5, &code, &err) == SM_OK)
        p->exit_code = code;
    else
        snprintf(p->failure, sizeof p->failure, "%s", err.msg);
    if (p->polling) {
        uv_poll_stop(&p->poll);
        p->polling = false;
    }
    sm_cast_close(&p->cast);
    tui_app_dirty(p->app);
}

/* True when a key or the focused terminal's output is waiting: a pane in the background then
 * stops draining for this pass, so the flood it carries never delays what the user sees. */
static bool urgent_pending(tui_app *app, tui_pane *self)
{
    struct pollfd pf[2] = {{.fd = STDIN_FILENO, .events = POLLIN}, {.fd = -1, .events = POLLIN}};
    tui_pane *f = app->focus >= 0 && app->focus < app->npanes ? app->panes[app->focus] : NULL;
    if (f && f != self && !f->exited)
        pf[1].fd = sm_pty_fd(f->pty);
    return poll(pf, 2, 0) > 0;
}

static void on_pty(uv_poll_t *h, int status, int events)
{
    tui_pane *p = h->data;
    char buf[65536];
    size_t total = 0;
    double start = sm_now_mono();
    bool focused = p->app->focus >= 0 && p->app->panes[p->app->focus] == p;
    while (total < DRAIN_BUDGET && sm_now_mono() - start < DRAIN_BUDGET_S) {
        if (!focused && total > 0 && urgent_pending(p->app, p))
            break;
        size_t got = 0;
        sm_error err;
        sm_error_clear(&err);
        int rc = sm_pty_read(p->pty, buf, sizeof buf, 0, &got, &err);
        if (rc == SM_ERR_TIMEOUT)
            break;
        if (rc != SM_OK) {
            snprintf(p->failure, sizeof p->failure, "%s", err.msg);
            pane_exited(p);
            return;
        }
        if (got == 0) {
            pane_exited(p);
            return;
        }
        tui_term_feed(p->term, buf, got);
        sm_cast_output(&p->cast, buf, got);
        total += got;
    }
    if (tui_term_take_bells(p->term))
        for (int i = 0; i < p->app->npanes; i++)
            if (p->app->panes[i] == p && p->app->shown != i)
                beep();  /* a hidden terminal rang */
    if (p->rect.h > 0) { /* a hidden pane is drawn whole when it is shown again */
        p->app->term_bytes += total;
        tui_app_term_dirty(p->app);
    }
}

/* ---- layout and drawing ------------------------------------------------------------------ */

void tui_panes_layout(tui_app *app, tui_rect *dash)
{
    int top = TUI_HEADER_LINES, h = app->rows - TUI_HEADER_LINES - 1;
    *dash = (tui_rect){top, 0, h, app->cols};
    for (int i = 0; i < app->npanes; i++)
        app->panes[i]->rect = (tui_rect){0, 0, 0, 0};
    if (app->shown < 0 || app->shown >= app->npanes) {
        app->shown = -1;
        return;
    }
    tui_rect right = {top, 0, h, app->cols};
    if (app->split) {
        int lw = app->cols * 2 / 5;
        right = (tui_rect){top, lw + 1, h, app->cols - lw - 1};
        tui_rect left = {top, 0, h, lw};
        if (app->other >= 0 && app->other < app->npanes && app->other != app->shown) {
            app->panes[app->other]->rect = left;
            *dash = (tui_rect){top, 0, 0, 0};
        } else {
            *dash = left;
        }
    } else {
        *dash = (tui_rect){top, 0, 0, 0};
    }
    app->panes[app->shown]->rect = right;
    /* the terminal inside follows its pane's size (the program sees it via TIOCSWINSZ) */
    for (int i = 0; i < app->npanes; i++) {
        tui_pane *p = app->panes[i];
        int rows, cols;
        if (p->rect.h <= 0)
            continue;
        tui_term_size(p->term, &rows, &cols);
        if (rows != p->rect.h || cols != p->rect.w) {
            tui_term_resize(p->term, p->rect.h, p->rect.w);
            if (!p->exited)
                sm_pty_resize(p->pty, p->rect.h, p->rect.w, NULL);
            sm_cast_resize(&p->cast, p->rect.w, p->rect.h);
        }
    }
}

void tui_pane_tab(const tui_pane *p, char *buf, size_t len)
{
    const char *title = tui_term_title(p->term);
    snprintf(buf, len, "%s%s%s%s%s", p->label, title[0] ? ":" : "", title[0] ? title : "",
             p->exited ? " (exited)" : "", sm_cast_is_open(&p->cast) ? " REC" : "");
}

static void draw_pane(tui_app *app, tui_pane *p, bool only_dirty)
{
    tui_rect r = p->rect;
    if (r.h <= 0 || r.w <= 0)
        return;
    tui_term_view v = {.live = !p->scroll,
                       .top = p->top,
                       .needle = p->needle[0] ? p->needle : NULL,
                       .sel_from = -1,
                       .sel_to = -1,
                       .mark_line = p->scroll ? p->mark : -1};
    if (p->scroll && p->sel_from >= 0) {
        v.sel_from = p->sel_from < p->mark ? p->sel_from : p->mark;
        v.sel_to = p->sel_from < p->mark ? p->mark : p->sel_from;
    }
    if (only_dirty && p->scroll)
        return; /* a scrolled view does not move with the output */
    int h = r.h;
    bool banner = p->exited || p->scroll;
    if (banner)
        h--;
    tui_term_draw(p->term, r.y, r.x, h, r.w, &v, only_dirty);
    tui_term_clear_dirty(p->term);
    if (!banner)
        return;
    char msg[256];
    if (p->scroll)
        snprintf(msg, sizeof msg,
                 " scroll: line %ld of %zu  j/k PgUp/PgDn g/G  / search  n/N next  v select  y "
                 "copy  q quit ",
                 p->mark + 1, tui_term_lines(p->term));
    else if (p->failure[0])
        snprintf(msg, sizeof msg, " session lost: %s  (Ctrl-b x closes) ", p->failure);
    else
        snprintf(msg, sizeof msg, " process exited with code %d  (Ctrl-b x closes) ", p->exit_code);
    tui_put(r.y + r.h - 1, r.x, r.w, msg,
            tui_attr(p->scroll ? TH_SELECTED : (p->exit_code ? TH_FAILURE : TH_OK)), true);
}

/* DECSCUSR to the outer terminal when the focused program asked for another cursor shape
 * (curses does not manage shapes): 0 = the terminal's default. */
static int cursor_shape_shown;

static void set_cursor_shape(int ps)
{
    if (ps == cursor_shape_shown)
        return;
    cursor_shape_shown = ps;
    char seq[16];
    int n = snprintf(seq, sizeof seq, "\033[%d q", ps);
    if (write(STDOUT_FILENO, seq, (size_t)n) < 0) {
    }
}

void tui_panes_draw(tui_app *app, bool only_dirty)
{
    for (int i = 0; i < app->npanes; i++)
        draw_pane(app, app->panes[i], only_dirty);
    if (app->split && app->shown >= 0) {
        tui_rect r = app->panes[app->shown]->rect;
        attron(tui_attr(TH_BORDER));
        mvvline(r.y, r.x - 1, ACS_VLINE, r.h);
        attroff(tui_attr(TH_BORDER));
    }
    /* the hardware cursor sits where the focused program's cursor is, in its shape */
    tui_pane *f = app->focus >= 0 && app->focus < app->npanes ? app->panes[app->focus] : NULL;
    int row, col, shape = 0;
    bool visible;
    if (f && f->rect.h > 0 && !f->scroll && !f->exited && app->overlay == OV_NONE) {
        tui_term_cursor(f->term, &row, &col, &visible, &shape);
        set_cursor_shape(shape);
        if (visible && row < f->rect.h && col < f->rect.w) {
            curs_set(1);
            move(f->rect.y + row, f->rect.x + col);
            return;
        }
    } else {
        set_cursor_shape(0);
    }
    if (app->overlay != OV_FILTER && app->overlay != OV_PALETTE && app->overlay != OV_SEARCH)
        curs_set(0);
}

/* ---- closing ---------------------------------------------------------------------------- */

static void free_pane_cb(uv_handle_t *h)
{
    tui_pane *p = h->data;
    tui_term_free(p->term);
    free(p);
}

void tui_panes_close(tui_app *app, int idx, bool detach)
{
    if (idx < 0 || idx >= app->npanes)
        return;
    tui_pane *p = app->panes[idx];
    sm_cast_close(&p->cast);
    if (p->polling)
        uv_poll_stop(&p->poll);
    if (detach && !p->exited)
        sm_pty_detach(p->pty);
    else
        sm_pty_close(p->pty);
    sm_sandbox_free(p->sbx);
    memmove(&app->panes[idx], &app->panes[idx + 1],
            (size_t)(app->npanes - idx - 1) * sizeof app->panes[0]);
    app->npanes--;
    uv_close((uv_handle_t *)&p->poll, free_pane_cb);
    if (app->focus >= app->npanes || app->focus == idx)
        app->focus = app->npanes ? (idx > 0 ? idx - 1 : 0) : -1;
    else if (app->focus > idx)
        app->focus--;
    app->shown = app->focus;
    if (app->other >= app->npanes || app->other == idx)
        app->other = -1;
    if (app->npanes == 0)
        app->split = false;
    app->full = true;
    tui_app_dirty(app);
}

void tui_panes_shutdown(tui_app *app)
{
    while (app->npanes > 0)
        tui_panes_close(app, app->npanes - 1, true);
    set_cursor_shape(0); /* the user's own cursor again */
}

/* ---- keys --------------------------------------------------------------------------------- */

static void focus_pane(tui_app *app, int idx)
{
    app->focus = idx;
    if (idx >= 0) {
        if (app->split && app->shown >= 0 && app->shown != idx)
            app->other = app->shown == idx ? app->other : app->shown;
        if (!(app->split && app->other == idx))
            app->shown = idx;
    }
    app->full = true;
}

/* Copies the selected lines to a file and, unless disabled, to the outer clipboard. */
static void copy_selection(tui_app *app, tui_pane *p)
{
    long from = p->sel_from < 0 ? p->mark : (p->sel_from < p->mark ? p->sel_from : p->mark);
    long to = p->sel_from < 0 ? p->mark : (p->sel_from < p->mark ? p->mark : p->sel_from);
    sm_strbuf b = {0};
    char line[4096];
    for (long l = from; l <= to; l++) {
        tui_term_line_text(p->term, (size_t)l, line, sizeof line);
        sm_strbuf_printf(&b, "%s\n", line);
    }
    char *path = xasprintf("%s/clipboard.txt", sm_state_dir());
    int rc = sm_write_file_atomic(path, b.data ? b.data : "", b.len, 0600);
    const char *osc = getenv("SANDMAN_OSC52");
    if (!osc || strcmp(osc, "0")) {
        /* OSC 52: base64 of the text to the outer terminal's clipboard */
        static const char tbl[] =
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        sm_strbuf e = {0};
        sm_strbuf_puts(&e, "\033]52;c;");
        const unsigned char *s = (const unsigned char *)(b.data ? b.data : "");
        for (size_t i = 0; i < b.len; i += 3) {
            unsigned v = (unsigned)s[i] << 16 | (i + 1 < b.len ? (unsigned)s[i + 1] << 8 : 0) |
                         (i + 2 < b.len ? s[i + 2] : 0);
            char q[4] = {tbl[v >> 18 & 63], tbl[v >> 12 & 63],
                         i + 1 < b.len ? tbl[v >> 6 & 63] : '=', i + 2 < b.len ? tbl[v & 63] : '='};
            sm_strbuf_append(&e, q, 4);
        }
        sm_strbuf_puts(&e, "\a");
        if (write(STDOUT_FILENO, e.data, e.len) < 0) {
        }
        sm_strbuf_free(&e);
    }
    if (rc != 0)
        tui_app_status(app, true, "cannot write %s", path);
    else
        tui_app_status(app, false, "copied %ld line%s to %s", to - from + 1, to > from ? "s" : "",
                       path);
    free(path);
    sm_strbuf_free(&b);
    p->sel_from = -1;
}

static void scroll_to(tui_pane *p, long line)
{
    int rows, cols;
    tui_term_size(p->term, &rows, &cols);
    long total = (long)tui_term_lines(p->term);
    if (line < 0)
        line = 0;
    if (line >= total)
        line = total - 1;
    p->mark = line;
    long h = p->rect.h > 1 ? p->rect.h - 1 : 1;
    if (line < (long)p->top)
        p->top = (size_t)line;
    if (line >= (long)p->top + h)
        p->top = (size_t)(line - h + 1);
}

static void enter_scroll(tui_pane *p)
{
    p->scroll = true;
    p->top = tui_term_sb_count(p->term);
    int row, col, shape;
    bool vis;
    tui_term_cursor(p->term, &row, &col, &vis, &shape);
    p->mark = (long)p->top + row;
    p->sel_from = -1;
}

void tui_panes_search(tui_app *app, const char *needle)
{
    tui_pane *p = app->focus >= 0 ? app->panes[app->focus] : NULL;
    if (!p)
        return;
    if (!p->scroll)
        enter_scroll(p);
    snprintf(p->needle, sizeof p->needle, "%s", needle);
    size_t line;
    int col;
    if (needle[0] && tui_term_search(p->term, needle, (size_t)p->mark, -1, -1, &line, &col))
        scroll_to(p, (long)line);
    else if (needle[0])
        tui_app_status(app, true, "not found: %s", needle);
    app->full = true;
}

static bool scroll_key(tui_app *app, tui_pane *p, int key)
{
    long page = p->rect.h > 2 ? p->rect.h - 2 : 1;
    size_t line;
    int col;
    switch (key) {
    case 'k':
    case KEY_UP: scroll_to(p, p->mark - 1); break;
    case 'j':
    case KEY_DOWN: scroll_to(p, p->mark + 1); break;
    case KEY_PPAGE:
    case 2: scroll_to(p, p->mark - page); break;
    case KEY_NPAGE:
    case 6: scroll_to(p, p->mark + page); break;
    case 'g':
    case KEY_HOME: scroll_to(p, 0); break;
    case 'G':
    case KEY_END: scroll_to(p, (long)tui_term_lines(p->term) - 1); break;
    case '/': tui_prompt_open(app, OV_SEARCH); break;
    case 'n':
    case 'N':
        if (p->needle[0] &&
            tui_term_search(p->term, p->needle, (size_t)p->mark, key == 'n' ? -1 : 100000,
                            key == 'n' ? -1 : 1, &line, &col))
            scroll_to(p, (long)line);
        break;
    case 'v':
    case ' ': p->sel_from = p->sel_from < 0 ? p->mark : -1; break;
    case 'y':
    case '\r':
    case '\n': copy_selection(app, p); break;
    case 'q':
    case 27:
        p->scroll = false;
        p->needle[0] = '\0';
        p->sel_from = -1;
        tui_term_mark_all_dirty(p->term);
        break;
    default: return false;
    }
    app->full = true;
    return true;
}

static void toggle_record(tui_app *app, tui_pane *p)
{
    if (sm_cast_is_open(&p->cast)) {
        sm_cast_close(&p->cast);
        tui_app_status(app, false, "recording saved to %s", p->cast_path);
        return;
    }
    const char *dir = getenv("SANDMAN_RECORD_DIR");
    char stamp[32];
    sm_format_time(sm_now_wall(), stamp, sizeof stamp);
    for (char *c = stamp; *c; c++)
        if (*c == ':' || *c == '.')
            *c = '-';
    snprintf(p->cast_path, sizeof p->cast_path, "%s/sandman-%.12s-%s.cast", dir && *dir ? dir : ".",
             p->sandbox_id, stamp);
    int rows, cols;
    tui_term_size(p->term, &rows, &cols);
    sm_error err;
    sm_error_clear(&err);
    if (sm_cast_open(&p->cast, p->cast_path, cols, rows, p->sandbox_id, "xterm-256color", &err) !=
        SM_OK) {
        tui_app_status(app, true, "%s", err.msg);
        return;
    }
    /* start from what the pane shows now, not from a blank screen */
    char *snap = tui_term_snapshot(p->term);
    sm_cast_output(&p->cast, snap, strlen(snap));
    free(snap);
    tui_app_status(app, false, "recording to %s (Ctrl-b R stops)", p->cast_path);
}

bool tui_panes_prefix(tui_app *app, wint_t ch, bool is_key)
{
    int key = is_key ? -1 : (int)ch;
    tui_pane *p = app->focus >= 0 && app->focus < app->npanes ? app->panes[app->focus] : NULL;
    if (key >= '1' && key <= '9') {
        int n = key - '1';
        if (n == 0 || n == 1) { /* 1 and 2 are the dashboard's views */
            app->focus = -1;
            app->view = n == 0 ? VIEW_LIST : VIEW_EVENTS;
            if (!app->split)
                app->shown = -1;
        } else if (n - 2 < app->npanes) {
            focus_pane(app, n - 2);
        }
        app->full = true;
        return true;
    }
    switch (key) {
    case TUI_PREFIX_KEY: /* Ctrl-b Ctrl-b sends one to the program */
        if (p && !p->exited)
            sm_pty_write(p->pty, "\x02", 1, NULL);
        return true;
    case 'n':
        if (app->npanes)
            focus_pane(app, app->focus < 0 ? 0 : (app->focus + 1) % app->npanes);
        return true;
    case 'p':
        if (app->npanes)
            focus_pane(app, app->focus <= 0 ? app->npanes - 1 : app->focus - 1);
        return true;
    case 'l':
    case '0':
        app->focus = -1;
        if (!app->split)
            app->shown = -1;
        app->full = true;
        return true;
    case '%':
    case '"':
        if (app->npanes == 0)
            return true;
        app->split = !app->split;
        if (app->split) {
            if (app->shown < 0)
                app->shown = app->focus >= 0 ? app->focus : app->npanes - 1;
            /* beside the list, or beside another terminal when the list is not in focus */
            app->other =
                app->focus >= 0 && app->npanes > 1 ? (app->shown == 0 ? 1 : app->shown - 1) : -1;
        }
        app->full = true;
        return true;
    case 'o':
        if (!app->split) {
            if (app->npanes)
                focus_pane(app, app->focus < 0 ? (app->shown >= 0 ? app->shown : 0) : -1);
            if (app->focus < 0)
                app->shown = -1;
        } else if (app->focus == app->shown) {
            app->focus = app->other; /* -1 = the dashboard side */
        } else {
            app->focus = app->shown;
        }
        app->full = true;
        return true;
    case '[':
        if (p) {
            enter_scroll(p);
            app->full = true;
        }
        return true;
    case '/':
        if (p) {
            if (!p->scroll)
                enter_scroll(p);
            tui_prompt_open(app, OV_SEARCH);
        }
        return true;
    case 'R':
        if (p)
            toggle_record(app, p);
        return true;
    case 'x':
        if (p)
            tui_panes_close(app, app->focus, false);
        return true;
    case 'd':
        if (p) {
            tui_app_status(app, false, "detached from session %s (t attaches again)",
                           p->pty->session_id);
            tui_panes_close(app, app->focus, !p->exited);
        }
        return true;
    case 'c':
        if (p)
            tui_panes_open(app, p->sandbox_id, true);
        return true;
    case '?': app->overlay = OV_HELP; return true;
    case ':': tui_prompt_open(app, OV_PALETTE); return true;
    case 'q': app->quit = true; return true;
    default: return false;
    }
}

bool tui_panes_key(tui_app *app, wint_t ch, bool is_key)
{
    tui_pane *p = app->panes[app->focus];
    if (p->scroll)
        return scroll_key(app, p, is_key ? (int)ch : (ch < 0x80 ? (int)ch : -1));
    if (p->exited)
        return false;
    if (is_key && (ch == KEY_PPAGE) && !tui_term_altscreen(p->term)) {
        enter_scroll(p); /* PgUp at a shell prompt reads the scrollback, as in most terminals */
        scroll_key(app, p, KEY_PPAGE);
        return true;
    }
    tui_term_input(p->term, ch, is_key, pane_write, p);
    return true;
}

/* A mouse event over a terminal: to its program when that asks for the mouse (buttons 1-3
 * pressed and released, the wheel, motion with the modifiers), else the wheel scrolls back. A
 * press focuses the pane. */
void tui_panes_mouse(tui_app *app, int y, int x, unsigned long bstate)
{
    static const struct {
        mmask_t press, release;
        int button;
    } buttons[] = {{BUTTON1_PRESSED, BUTTON1_RELEASED, 1},
                   {BUTTON2_PRESSED, BUTTON2_RELEASED, 2},
                   {BUTTON3_PRESSED, BUTTON3_RELEASED, 3}};
    for (int i = 0; i < app->npanes; i++) {
        tui_pane *p = app->panes[i];
        tui_rect r = p->rect;
        if (r.h <= 0 || y < r.y || y >= r.y + r.h || x < r.x || x >= r.x + r.w)
            continue;
        bool wheel_up = bstate & BUTTON4_PRESSED, wheel_down = bstate & BUTTON5_PRESSED;
        bool press = wheel_up || wheel_down ||
                     (bstate & (BUTTON1_PRESSED | BUTTON2_PRESSED | BUTTON3_PRESSED));
        if (press && app->focus != i) {
            app->focus = i;
            app->full = true;
        }
        if (tui_term_mouse_mode(p->term) && !p->exited) {
            int row = y - r.y, col = x - r.x;
            VTermModifier mod = ((bstate & BUTTON_SHIFT) ? VTERM_MOD_SHIFT : 0) |
                                ((bstate & BUTTON_CTRL) ? VTERM_MOD_CTRL : 0) |
                                ((bstate & BUTTON_ALT) ? VTERM_MOD_ALT : 0);
            bool sent = false;
            if (wheel_up || wheel_down) {
                tui_term_mouse(p->term, row, col, wheel_up ? 4 : 5, true, mod);
                sent = true;
            }
            for (size_t b = 0; b < sizeof buttons / sizeof buttons[0]; b++) {
                if (bstate & buttons[b].press) {
                    tui_term_mouse(p->term, row, col, buttons[b].button, true, mod);
                    sent = true;
                }
                if (bstate & buttons[b].release) {
                    tui_term_mouse(p->term, row, col, buttons[b].button, false, mod);
                    sent = true;
                }
            }
            if (!sent) /* motion */
                tui_term_mouse(p->term, row, col, 0, false, mod);
        } else if (wheel_up || (wheel_down && p->scroll)) {
            if (!p->scroll)
                enter_scroll(p);
            scroll_to(p, p->mark + (wheel_up ? -3 : 3));
            app->full = true;
        }
        return;
    }
}
