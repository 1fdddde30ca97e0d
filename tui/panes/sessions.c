/* Terminal sessions: opening one on the work queue (attach to a detached session, let the user
 * pick among several, or start a shell), draining its output into the terminal model under a
 * budget, recording it, and closing or detaching it. */
#include "tui/panes/panes.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/util.h"
#include "tui/term/term_render.h"

/* What one wakeup drains at most, in bytes and time: libvterm scrolls a whole screen per line,
 * so a flood of short lines parses slowly, and keys and other panes must not wait behind it.
 * The poll is level-triggered, so the rest is read on the next pass of the loop. */
#define DRAIN_BUDGET   (1u << 20)
#define DRAIN_BUDGET_S 0.004
/* While keys go to one terminal, another one's output is read in turns of one drain budget
 * and a rest of PAUSE_MS: a flood elsewhere then waits in its pty (its program slows down)
 * instead of taking the CPU and the sandbox's relay from the echo the user waits for. */
#define TYPING_S 0.5
#define PAUSE_MS 20

static double last_key; /* when a key last went to a terminal */

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
        tui_dirty(app);
        return;
    }
    free(j->choices);
    if (!j->pty) {
        tui_status(app, true, "terminal into %.12s: %s", j->id,
                   j->err.msg[0] ? j->err.msg : "failed");
        sm_sandbox_free(j->sbx);
        free(j);
        return;
    }
    if (app->npanes >= TUI_MAX_PANES || app->quit) {
        sm_pty_detach(j->pty);
        sm_sandbox_free(j->sbx);
        tui_status(app, true, "at most %d terminals at once", TUI_MAX_PANES);
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
    uv_timer_init(app->loop, &p->pause);
    p->pause.data = p;
    uv_poll_start(&p->poll, UV_READABLE, on_pty);
    p->polling = true;
    int idx = app->npanes++;
    app->panes[idx] = p;
    app->focus = app->shown = idx;
    if (j->attached) {
        tui_status(app, false, "attached to session %s of %.12s", p->pty->session_id, j->id);
        /* a redraw request makes full-screen programs repaint for the new client */
        sm_pty_resize(p->pty, j->rows, j->cols + 1, NULL);
        sm_pty_resize(p->pty, j->rows, j->cols, NULL);
    } else {
        /* the "opening a terminal ..." of the start is over: show the terminal's key hints */
        app->status[0] = '\0';
        app->status_until = 0;
    }
    free(j);
    tui_dirty(app);
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
    tui_status(app, false, "opening a terminal into %.12s ...", sandbox_id);
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
    tui_dirty(p->app);
}

/* True when a key or the focused terminal's output is waiting: a pane in the background then
 * stops draining for this pass, so the flood it carries never delays what the user sees. */
static bool urgent_pending(tui_app *app, tui_pane *self)
{
    struct pollfd pf[2] = {{.fd = STDIN_FILENO, .events = POLLIN}, {.fd = -1, .events = POLLIN}};
    tui_pane *f = tui_focused(app);
    if (f && f != self && !f->exited)
        pf[1].fd = sm_pty_fd(f->pty);
    return poll(pf, 2, 0) > 0;
}

static void on_pty(uv_poll_t *h, int status, int events);

static void resume(uv_timer_t *h)
{
    tui_pane *p = h->data;
    if (!p->exited && !p->polling) {
        uv_poll_start(&p->poll, UV_READABLE, on_pty);
        p->polling = true;
    }
}

static void on_pty(uv_poll_t *h, int status, int events)
{
    tui_pane *p = h->data;
    char buf[65536];
    size_t total = 0;
    double start = sm_now_mono();
    bool focused = p->app->focus >= 0 && p->app->panes[p->app->focus] == p;
    bool rest = !focused && start - last_key < TYPING_S; /* keys go elsewhere: read less */
    double budget_s = rest ? DRAIN_BUDGET_S / 4 : DRAIN_BUDGET_S;
    while (total < DRAIN_BUDGET && sm_now_mono() - start < budget_s) {
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
    if (rest && total >= 4096 && p->polling) {
        uv_poll_stop(&p->poll); /* more is waiting: it waits a little longer */
        p->polling = false;
        uv_timer_start(&p->pause, resume, PAUSE_MS, 0);
    }
    if (tui_term_take_bells(p->term))
        for (int i = 0; i < p->app->npanes; i++)
            if (p->app->panes[i] == p && p->app->shown != i)
                beep();  /* a hidden terminal rang */
    if (p->rect.h > 0) { /* a hidden pane is drawn whole when it is shown again */
        p->app->term_bytes += total;
        tui_dirty_rows(p->app);
    }
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
    uv_timer_stop(&p->pause);
    uv_close((uv_handle_t *)&p->pause, NULL); /* closed before the poll, whose callback frees p */
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
    tui_dirty(app);
}

void tui_panes_shutdown(tui_app *app)
{
    while (app->npanes > 0)
        tui_panes_close(app, app->npanes - 1, true);
    tui_panes_cursor_reset(); /* the user's own cursor again */
}

void tui_panes_input(tui_pane *p, wint_t ch, bool is_key)
{
    last_key = sm_now_mono();
    tui_term_input(p->term, ch, is_key, pane_write, p);
}

void tui_panes_send(tui_pane *p, const char *data, size_t len)
{
    pane_write(data, len, p);
}

/* Where recordings go: $SANDMAN_RECORD_DIR, else $XDG_DATA_HOME/sandman/recordings, else
 * ~/.local/share/sandman/recordings (never the directory sandman was started from). */
static bool record_dir(char *buf, size_t len)
{
    const char *env = getenv("SANDMAN_RECORD_DIR"), *xdg = getenv("XDG_DATA_HOME");
    const char *home = getenv("HOME");
    int n;
    if (env && *env)
        n = snprintf(buf, len, "%s", env);
    else if (xdg && *xdg == '/')
        n = snprintf(buf, len, "%s/sandman/recordings", xdg);
    else if (home && *home == '/')
        n = snprintf(buf, len, "%s/.local/share/sandman/recordings", home);
    else
        return false;
    return n > 0 && (size_t)n < len;
}

void tui_panes_record(tui_app *app, tui_pane *p)
{
    if (sm_cast_is_open(&p->cast)) {
        sm_cast_close(&p->cast);
        tui_status(app, false, "recording saved to %s", p->cast_path);
        return;
    }
    char dir[400];
    if (!record_dir(dir, sizeof dir)) {
        tui_status(app, true, "cannot record: set SANDMAN_RECORD_DIR, XDG_DATA_HOME or HOME");
        return;
    }
    if (sm_mkdir_p(dir, 0700) != 0) {
        tui_status(app, true, "cannot record: cannot create %s: %s", dir, strerror(errno));
        return;
    }
    char stamp[32];
    sm_format_time(sm_now_wall(), stamp, sizeof stamp);
    for (char *c = stamp; *c; c++)
        if (*c == ':' || *c == '.')
            *c = '-';
    snprintf(p->cast_path, sizeof p->cast_path, "%s/sandman-%.12s-%s.cast", dir, p->sandbox_id,
             stamp);
    int rows, cols;
    tui_term_size(p->term, &rows, &cols);
    sm_error err;
    sm_error_clear(&err);
    if (sm_cast_open(&p->cast, p->cast_path, cols, rows, p->sandbox_id, "xterm-256color", &err) !=
        SM_OK) {
        tui_status(app, true, "%s", err.msg);
        return;
    }
    /* start from what the pane shows now, not from a blank screen */
    char *snap = tui_term_snapshot(p->term);
    sm_cast_output(&p->cast, snap, strlen(snap));
    free(snap);
    tui_status(app, false, "recording to %s (Ctrl-b R stops)", p->cast_path);
}
