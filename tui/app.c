/* The dashboard's event loop (libuv): a refresh timer that lists and samples on the work
 * queue, a coalescing render timer, keyboard and mouse input, resize, and action jobs that run
 * CLI commands from the one command table. The UI thread never blocks on a provider. */
#include "tui/app.h"

#include <cjson/cJSON.h>
#include <curses.h>
#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "core/util.h"
#include "tui/tui.h"
#include "tui/term/term_render.h"
#include "tui/widgets/draw.h"

#define RENDER_DELAY_MS 12
#define FLOOD_FRAME_S   0.1  /* a streaming terminal is drawn at 10 frames a second */
#define FLOOD_BYTES     4096 /* more output than this since the last frame is a stream */
#define KEY_PASTE_START (KEY_MAX + 1)
#define KEY_PASTE_END   (KEY_MAX + 2)
#define SLOW_REFRESH_S  0.3
#define QUIT_GRACE_MS   1000 /* commands in flight at quit get this long to finish */

/* ---- refresh: list + sample on the work queue; the journal as a job of its own ---------- */

typedef struct refresh_job {
    uv_work_t req;
    tui_app *app;
    sm_provider *p;
    sm_sampler *sampler;
    sm_sandbox_info *list;
    size_t n;
    sm_sample *samples;
    bool *ok;
    sm_error err;
    int rc;
} refresh_job;

static void refresh_work(uv_work_t *req)
{
    refresh_job *j = req->data;
    sm_error_clear(&j->err);
    sm_list_filter f = {.labels = NULL, .all = true};
    j->rc = sm_provider_list(j->p, &f, &j->list, &j->n, &j->err);
    if (j->rc == SM_OK) {
        j->samples = xcalloc(j->n ? j->n : 1, sizeof *j->samples);
        j->ok = xcalloc(j->n ? j->n : 1, sizeof *j->ok);
        sm_sampler_collect(j->sampler, j->list, j->n, j->samples, j->ok);
    }
}

static void start_refresh(tui_app *app);

static void refresh_done(uv_work_t *req, int status)
{
    refresh_job *j = req->data;
    tui_app *app = j->app;
    app->reads--;
    if (j->p != app->provider) { /* begun under a previous context: its rows are not ours */
        if (j->rc == SM_OK)
            sm_sandbox_info_list_free(j->list, j->n);
    } else {
        app->refreshing = false;
        if (j->rc == SM_OK) {
            tui_model_update(&app->model, j->list, j->n, j->samples, j->ok, sm_provider_name(j->p));
            app->model.error[0] = app->model.error_label[0] = '\0';
        } else { /* the rows of the last good refresh stay, marked stale (list.c) */
            tui_model *m = &app->model;
            m->error_label[0] = '\0';
            if (j->err.failure.kind != SM_FAIL_NONE)
                sm_failure_label(&j->err.failure, m->error_label, sizeof m->error_label);
            snprintf(m->error, sizeof m->error, "%s%s%s", m->error_label,
                     m->error_label[0] ? ": " : "", j->err.msg);
        }
        if (app->model.filter[0] || app->view == VIEW_LIST)
            tui_model_rebuild(&app->model);
        app->model.refreshed_at = sm_now_wall();
        if (app->refresh_again) {
            app->refresh_again = false;
            start_refresh(app);
        }
    }
    free(j->samples);
    free(j->ok);
    free(j);
    tui_app_dirty(app);
}

typedef struct journal_job {
    uv_work_t req;
    tui_app *app;
    sm_journal_follower *follower;
    cJSON *events;
} journal_job;

static void journal_work(uv_work_t *req)
{
    journal_job *j = req->data;
    j->events = sm_journal_follower_poll(j->follower);
}

static void start_journal(tui_app *app);

static void journal_done(uv_work_t *req, int status)
{
    journal_job *j = req->data;
    tui_app *app = j->app;
    app->reads--;
    app->journal_reading = false;
    if (j->events) {
        tui_model_add_events(&app->model, j->events);
        if (app->model.filter[0] || app->view == VIEW_LIST)
            tui_model_rebuild(&app->model);
        tui_app_dirty(app);
    }
    free(j);
    if (app->journal_again) {
        app->journal_again = false;
        start_journal(app);
    }
}

/* The journal is local files: reading it never waits on a provider, so the events view
 * stays live while a provider is slow or hung. */
static void start_journal(tui_app *app)
{
    if (app->journal_reading) {
        app->journal_again = true;
        return;
    }
    if (app->quit)
        return;
    journal_job *j = xcalloc(1, sizeof *j);
    j->app = app;
    j->follower = app->follower;
    j->req.data = j;
    app->journal_reading = true;
    app->reads++;
    uv_queue_work(app->loop, &j->req, journal_work, journal_done);
}

/* A refresh asked for while one runs follows it, so what a key shows is never older than the
 * key press (the one running may have read the journal before the change). The journal is
 * read at the same time, by its own job. */
static void start_refresh(tui_app *app)
{
    start_journal(app);
    if (app->refreshing) {
        app->refresh_again = true;
        return;
    }
    if (app->quit || !app->provider)
        return;
    refresh_job *j = xcalloc(1, sizeof *j);
    j->app = app;
    j->p = app->provider;
    j->sampler = app->sampler;
    j->req.data = j;
    app->refreshing = true;
    app->reads++;
    app->refresh_started = sm_now_mono();
    uv_queue_work(app->loop, &j->req, refresh_work, refresh_done);
}

static void on_tick(uv_timer_t *t)
{
    tui_app *app = t->data;
    start_refresh(app);
    if (app->status_until > 0 && sm_now_mono() > app->status_until) {
        app->status[0] = '\0';
        app->status_until = 0;
    }
    tui_app_dirty(app); /* ages and TTLs move on even when nothing else did */
}

/* ---- action jobs: CLI commands on the work queue ------------------------------------ */

typedef struct cmd_job {
    uv_work_t req;
    tui_app *app;
    int argc;
    char **argv;
    char *context;
    char *config;
    char title[128];
    char *out, *err;
    int rc;
} cmd_job;

static void cmd_work(uv_work_t *req)
{
    cmd_job *j = req->data;
    sm_cli cli;
    cli_init(&cli);
    size_t olen = 0, elen = 0;
    cli.out = open_memstream(&j->out, &olen);
    cli.err = open_memstream(&j->err, &elen);
    cli.context_name = j->context ? xstrdup(j->context) : NULL;
    cli.config_path = j->config ? xstrdup(j->config) : NULL;
    const sm_cmd *cmd = cli_find_command(j->argv[0]);
    j->rc = cmd ? cli_run_command(&cli, cmd, j->argc, j->argv)
                : cli_usage(&cli, "unknown command '%s'", j->argv[0]);
    fclose(cli.out);
    fclose(cli.err);
    cli.out = cli.err = NULL;
    cli_free(&cli);
}

static int count_lines(const char *s)
{
    int n = 0;
    for (; s && *s; s++)
        n += *s == '\n';
    return n;
}

static void cmd_done(uv_work_t *req, int status)
{
    cmd_job *j = req->data;
    tui_app *app = j->app;
    app->jobs--;
    const char *out = j->out ? j->out : "", *err = j->err ? j->err : "";
    if (count_lines(out) + count_lines(err) > 1) {
        free(app->output);
        app->output = xasprintf("%s%s%s", out, *out && *err ? "\n" : "", err);
        snprintf(app->output_title, sizeof app->output_title, "%s (exit %d)", j->title, j->rc);
        app->output_scroll = 0;
        app->overlay = OV_OUTPUT;
        app->status[0] = '\0'; /* the "... ..." of the start is over */
        app->status_until = 0;
    } else if (j->rc != 0) {
        tui_app_status(app, true, "%s", *err ? err : "command failed");
    } else {
        tui_app_status(app, false, "%s: %s", j->title, *out ? out : "done");
    }
    for (int i = 0; i < j->argc; i++)
        free(j->argv[i]);
    free(j->argv);
    free(j->context);
    free(j->config);
    free(j->out);
    free(j->err);
    free(j);
    start_refresh(app); /* show the effect at once */
    tui_app_dirty(app);
}

void tui_app_run_command(tui_app *app, int argc, char **argv, const char *title)
{
    cmd_job *j = xcalloc(1, sizeof *j);
    j->app = app;
    j->argc = argc;
    j->argv = xcalloc((size_t)argc + 1, sizeof(char *));
    for (int i = 0; i < argc; i++)
        j->argv[i] = xstrdup(argv[i]);
    j->context = app->context ? xstrdup(app->context) : NULL;
    j->config = app->cli->config_path ? xstrdup(app->cli->config_path) : NULL;
    snprintf(j->title, sizeof j->title, "%s", title);
    j->req.data = j;
    app->jobs++;
    tui_app_status(app, false, "%s ...", title);
    uv_queue_work(app->loop, &j->req, cmd_work, cmd_done);
}

/* Splits a command line into words (single/double quotes, backslash escapes). */
static int split_words(const char *line, char ***out)
{
    int n = 0, cap = 8;
    char **v = xcalloc((size_t)cap, sizeof *v);
    const char *p = line;
    while (*p) {
        while (*p == ' ' || *p == '\t')
            p++;
        if (!*p)
            break;
        char word[1024];
        size_t w = 0;
        char quote = 0;
        for (; *p && (quote || (*p != ' ' && *p != '\t')); p++) {
            if (quote && *p == quote) {
                quote = 0;
            } else if (!quote && (*p == '\'' || *p == '"')) {
                quote = *p;
            } else if (*p == '\\' && p[1] && quote != '\'') {
                if (w + 1 < sizeof word)
                    word[w++] = *++p;
            } else if (w + 1 < sizeof word) {
                word[w++] = *p;
            }
        }
        word[w] = '\0';
        if (n + 1 >= cap) {
            cap *= 2;
            v = xrealloc(v, (size_t)cap * sizeof *v);
        }
        v[n++] = xstrdup(word);
    }
    v[n] = NULL;
    *out = v;
    return n;
}

/* Verbs that want the terminal or never end: on a worker thread they would fight the
 * dashboard for the screen (shell) or run forever with their own signal handling (top). What
 * the dashboard offers instead, or NULL for a verb the palette runs. */
static const char *interactive_verb(const char *verb)
{
    static const char *refused[][2] = {
        {"shell", "shell: press t for a terminal into the sandbox (T for a new session)"},
        {"top", "top: the dashboard is top (e shows the events)"},
        {"tui", "tui: the dashboard is already open"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++)
        if (!strcmp(verb, refused[i][0]))
            return refused[i][1];
    return NULL;
}

void tui_app_palette(tui_app *app, const char *line)
{
    char **argv;
    int argc = split_words(line, &argv);
    if (argc == 0) {
        free(argv);
        return;
    }
    if (!strcmp(argv[0], "q") || !strcmp(argv[0], "quit")) {
        app->quit = true;
    } else if (!strcmp(argv[0], "ctx") || !strcmp(argv[0], "context")) {
        if (argc != 2)
            tui_app_status(app, true,
                           ":ctx wants one context name (a config block or a "
                           "provider)");
        else
            tui_app_switch_context(app, argv[1]);
    } else if (!strcmp(argv[0], "help")) {
        app->overlay = OV_HELP;
    } else if (interactive_verb(argv[0])) {
        tui_app_status(app, true, "%s", interactive_verb(argv[0]));
    } else if (!cli_find_command(argv[0])) {
        tui_app_status(app, true, "unknown command '%s' (try :help)", argv[0]);
    } else {
        tui_app_run_command(app, argc, argv, line);
    }
    for (int i = 0; i < argc; i++)
        free(argv[i]);
    free(argv);
}

void tui_app_switch_context(tui_app *app, const char *name)
{
    sm_provider *p = NULL;
    sm_error err;
    sm_error_clear(&err);
    if (sm_provider_open(&app->cli->config, name, &p, &err) != SM_OK) {
        tui_app_status(app, true, "sandman: %s", err.msg[0] ? err.msg : "cannot switch context");
        return;
    }
    /* The old provider may still be in a refresh (a hung engine holds one until it times
     * out): that result is dropped when it ends, and the new context's refresh starts now. */
    app->retired = xrealloc(app->retired, (app->nretired + 1) * sizeof *app->retired);
    app->retired_samplers =
        xrealloc(app->retired_samplers, (app->nretired + 1) * sizeof *app->retired_samplers);
    app->retired[app->nretired] = app->provider;
    app->retired_samplers[app->nretired++] = app->sampler;
    app->refreshing = false;
    app->refresh_again = false;
    app->provider = p;
    app->sampler = sm_sampler_new(p);
    free(app->context);
    app->context = xstrdup(name);
    tui_model_set_provider(&app->model, sm_provider_name(p));
    tui_app_status(app, false, "context %s (%s)", name, sm_provider_name(p));
    start_refresh(app);
}

/* ---- status line, redraw scheduling ------------------------------------------------- */

void tui_app_status(tui_app *app, bool error, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(app->status, sizeof app->status, fmt, ap);
    va_end(ap);
    char *nl = strchr(app->status, '\n');
    if (nl)
        *nl = '\0';
    app->status_error = error;
    app->status_until = sm_now_mono() + (error ? 8 : 4);
    tui_app_dirty(app);
}

void tui_app_render(tui_app *app);
static void update_mousemask(tui_app *app);

static void on_render(uv_timer_t *t)
{
    tui_app_render(t->data);
}

void tui_app_dirty(tui_app *app)
{
    app->full = true;
    if (!uv_is_active((uv_handle_t *)&app->render))
        uv_timer_start(&app->render, on_render, RENDER_DELAY_MS, 0);
}

void tui_app_term_dirty(tui_app *app)
{
    if (uv_is_active((uv_handle_t *)&app->render))
        return;
    /* Draw at once when the last frame is old enough (an echo should not wait a timer), else
     * when it is: at most ~80 frames a second for a trickle of output, 10 while a visible
     * terminal streams (parsing goes on at full speed; only drawing waits). */
    double gap = app->term_bytes > FLOOD_BYTES ? FLOOD_FRAME_S : RENDER_DELAY_MS / 1000.0;
    double wait = app->last_frame + gap - sm_now_mono();
    uv_timer_start(&app->render, on_render, wait > 0 ? (uint64_t)(wait * 1000) + 1 : 0, 0);
}

static void on_spin(uv_timer_t *t)
{
    tui_app *app = t->data;
    if (app->refreshing && sm_now_mono() - app->refresh_started > SLOW_REFRESH_S) {
        app->spinner++;
        tui_app_dirty(app);
    }
}

/* ---- drawing the frame ----------------------------------------------------------------- */

static void draw_header(tui_app *app)
{
    tui_model *m = &app->model;
    attr_t h = tui_attr(TH_HEADER);
    tui_fill(0, 0, app->cols, h);
    char left[512], load[64] = "";
    snprintf(left, sizeof left, " sandman  ctx %s (%s)", app->context ? app->context : "-",
             app->provider ? sm_provider_name(app->provider) : "-");
    int x = tui_put(0, 0, app->cols, left, h | A_BOLD, false) + 2;
    static const tui_role roles[] = {TH_STATUS_STARTING, TH_STATUS_RUNNING, TH_STATUS_STOPPED,
                                     TH_STATUS_ERROR, TH_STATUS_UNKNOWN};
    for (int s = 0; s <= SM_STATUS_UNKNOWN; s++) {
        if (!m->counts[s] && s != SM_STATUS_RUNNING)
            continue;
        char c[48];
        snprintf(c, sizeof c, "%d %s", m->counts[s], sm_status_name((sm_status)s));
        attr_t a = (h & ~A_COLOR) | (tui_attr(roles[s]) & ~A_COLOR);
        if (app->tier != TUI_TIER_MONO)
            a = h | A_BOLD;
        x += tui_put(0, x, app->cols - x, c, a, false) + 2;
    }
    FILE *f = fopen("/proc/loadavg", "re");
    if (f) {
        double l1, l5, l15;
        if (fscanf(f, "%lf %lf %lf", &l1, &l5, &l15) == 3)
            snprintf(load, sizeof load, "load %.2f %.2f %.2f ", l1, l5, l15);
        fclose(f);
    }
    if (x + (int)strlen(load) < app->cols)
        tui_put_right(0, x, app->cols - x, load, h);

    /* second line: view tabs, then refresh state and filter/sort on the right */
    tui_fill(1, 0, app->cols, tui_attr(TH_NORMAL));
    char tab[128];
    snprintf(tab, sizeof tab, " 1 Sandboxes (%zu) ", m->nrows);
    x = tui_put(1, 0, app->cols, tab,
                tui_attr(app->view != VIEW_EVENTS && app->focus < 0 ? TH_TAB_ACTIVE : TH_TAB),
                false);
    snprintf(tab, sizeof tab, " 2 Events (%d) ", cJSON_GetArraySize(m->events));
    x += 1 + tui_put(1, x + 1, app->cols - x - 1, tab,
                     tui_attr(app->view == VIEW_EVENTS && app->focus < 0 ? TH_TAB_ACTIVE : TH_TAB),
                     false);
    for (int i = 0; i < app->npanes && x + 4 < app->cols; i++) {
        char label[96];
        tui_pane_tab(app->panes[i], label, sizeof label);
        snprintf(tab, sizeof tab, " %d %s ", i + 3, label);
        x += 1 + tui_put(1, x + 1, app->cols - x - 1, tab,
                         tui_attr(app->focus == i ? TH_TAB_ACTIVE : TH_TAB), false);
    }
    char right[300] = "";
    size_t r = 0;
    if (m->error[0]) {
        r += (size_t)snprintf(right + r, sizeof right - r, "%s  ", m->error);
    } else if (app->refreshing && sm_now_mono() - app->refresh_started > SLOW_REFRESH_S) {
        static const char *spin_u[] = {"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"};
        static const char *spin_a[] = {"|", "/", "-", "\\"};
        r += (size_t)snprintf(right + r, sizeof right - r, "%s waiting for %s  ",
                              tui_unicode ? spin_u[app->spinner % 10] : spin_a[app->spinner % 4],
                              app->provider ? sm_provider_name(app->provider) : "provider");
    }
    if (m->filter[0])
        r += (size_t)snprintf(right + r, sizeof right - r, "filter: %s  ", m->filter);
    if (app->view == VIEW_LIST)
        snprintf(right + r, sizeof right - r, "sort: %s%s ", tui_sort_name(m->sort),
                 m->sort_reverse ? " (reversed)" : "");
    if (x + 2 < app->cols)
        tui_put_right(1, x + 2, app->cols - x - 2, right,
                      tui_attr(m->error[0] ? TH_FAILURE : TH_DIM));
}

static void draw_footer(tui_app *app)
{
    int y = app->rows - 1;
    if (app->overlay == OV_FILTER || app->overlay == OV_PALETTE || app->overlay == OV_SEARCH) {
        tui_prompt_draw(app);
        return;
    }
    if (app->prefix) {
        tui_put(y, 0, app->cols,
                "Ctrl-b: 1 list  2 events  3-9 terminals  n/p next/prev  % split  o other side  "
                "[ scroll  / search  R record  c new  d detach  x close",
                tui_attr(TH_KEY), true);
        return;
    }
    if (app->status[0]) {
        tui_put(y, 0, app->cols, app->status, tui_attr(app->status_error ? TH_FAILURE : TH_OK),
                true);
        return;
    }
    static const char *dash_hints[][2] = {
        {"?", "help"}, {"/", "filter"},   {"s", "sort"},   {"space", "mark"}, {"d", "delete"},
        {"n", "new"},  {"t", "terminal"}, {"e", "events"}, {":", "command"},  {"q", "quit"},
    };
    static const char *term_hints[][2] = {
        {"Ctrl-b 1", "list"},   {"Ctrl-b [", "scroll"}, {"Ctrl-b /", "search"},
        {"Ctrl-b %", "split"},  {"Ctrl-b d", "detach"}, {"Ctrl-b x", "close"},
        {"Ctrl-b R", "record"}, {"Ctrl-b ?", "help"},
    };
    bool term = app->focus >= 0;
    const char *(*hints)[2] = term ? term_hints : dash_hints;
    size_t n =
        term ? sizeof term_hints / sizeof term_hints[0] : sizeof dash_hints / sizeof dash_hints[0];
    int total = 0; /* with two spaces between hints; one when that does not fit (80 columns) */
    for (size_t i = 0; i < n; i++)
        total += (int)(strlen(hints[i][0]) + 1 + strlen(hints[i][1])) + (i ? 2 : 0);
    int gap = total <= app->cols ? 2 : 1;
    tui_fill(y, 0, app->cols, tui_attr(TH_NORMAL));
    int x = 0, last = (int)(strlen(hints[n - 1][0]) + 1 + strlen(hints[n - 1][1]));
    for (size_t i = 0; i < n; i++) {
        int w = (int)(strlen(hints[i][0]) + 1 + strlen(hints[i][1]));
        if (x + w > app->cols - (i + 1 < n ? last + gap : 0))
            continue; /* whole hints only, and room kept for the last one (quit, help) */
        x += tui_put(y, x, app->cols - x, hints[i][0], tui_attr(TH_KEY), false);
        x += 1 + tui_put(y, x + 1, app->cols - x - 1, hints[i][1], tui_attr(TH_DIM), false);
        x += gap;
    }
}

void tui_app_render(tui_app *app)
{
    update_mousemask(app);
    app->last_frame = sm_now_mono();
    app->term_bytes = 0;
    getmaxyx(stdscr, app->rows, app->cols);
    if (app->rows < 5 || app->cols < 20) {
        erase();
        tui_put(0, 0, app->cols, "terminal too small", tui_attr(TH_FAILURE), false);
        refresh();
        return;
    }
    tui_rect dash;
    tui_panes_layout(app, &dash);
    if (!app->full && !app->full_redraw && app->overlay == OV_NONE) {
        /* only terminal output changed: redraw the dirty rows of the visible panes */
        tui_panes_draw(app, true);
        refresh();
        return;
    }
    app->full = false;
    if (app->full_redraw) {
        clearok(curscr, TRUE);
        app->full_redraw = false;
    }
    erase();
    draw_header(app);
    if (dash.h > 0) {
        int cols = app->cols;
        app->cols = dash.w; /* views lay themselves out in the width they get */
        switch (app->view) {
        case VIEW_LIST: tui_list_draw(app, dash.y, dash.h); break;
        case VIEW_DETAIL: tui_detail_draw(app, dash.y, dash.h); break;
        case VIEW_EVENTS: tui_events_draw(app, dash.y, dash.h); break;
        }
        app->cols = cols;
    }
    for (int i = 0; i < app->npanes; i++)
        tui_term_mark_all_dirty(app->panes[i]->term);
    tui_panes_draw(app, false);
    draw_footer(app);
    switch (app->overlay) {
    case OV_HELP: tui_help_draw(app); break;
    case OV_CONFIRM: tui_confirm_draw(app); break;
    case OV_SESSIONS: tui_sessions_draw(app); break;
    case OV_FORM: tui_form_draw(app); break;
    case OV_OUTPUT: tui_output_draw(app); break;
    default: break;
    }
    refresh();
}

/* ---- input ------------------------------------------------------------------------------ */

static void handle_resize(tui_app *app)
{
    struct winsize ws;
    if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 && ws.ws_col > 0)
        resize_term(ws.ws_row, ws.ws_col);
    app->full_redraw = true;
    tui_app_dirty(app);
}

/* The mouse events asked of the outer terminal: every button and the wheel, and motion too
 * while the focused terminal's program tracks drags or moves (its mouse mode 2 or 3). */
static void update_mousemask(tui_app *app)
{
    mmask_t want = ALL_MOUSE_EVENTS;
    tui_pane *f = app->focus >= 0 && app->focus < app->npanes ? app->panes[app->focus] : NULL;
    if (f && !f->exited && tui_term_mouse_mode(f->term) >= 2)
        want |= REPORT_MOUSE_POSITION;
    if (want != app->mousemask) {
        mousemask(want, NULL);
        app->mousemask = want;
    }
}

static void handle_mouse(tui_app *app)
{
    MEVENT ev;
    if (getmouse(&ev) != OK || app->overlay != OV_NONE)
        return;
    for (int i = 0; i < app->npanes; i++) { /* a terminal gets what happens over it */
        tui_rect r = app->panes[i]->rect;
        if (r.h > 0 && ev.y >= r.y && ev.y < r.y + r.h && ev.x >= r.x && ev.x < r.x + r.w) {
            tui_panes_mouse(app, ev.y, ev.x, ev.bstate);
            return;
        }
    }
    bool wheel_up = ev.bstate & BUTTON4_PRESSED, wheel_down = ev.bstate & BUTTON5_PRESSED;
    if (wheel_up || wheel_down) {
        if (app->view == VIEW_EVENTS)
            tui_events_key(app, wheel_up ? KEY_UP : KEY_DOWN);
        else
            tui_list_key(app, wheel_up ? KEY_UP : KEY_DOWN);
        return;
    }
    if (!(ev.bstate & BUTTON1_PRESSED))
        return;
    /* ncurses resolves no clicks (mouseinterval 0, so presses reach terminals at once): a second
     * press on the same line within 0.4 s is a double click */
    double now = sm_now_mono();
    bool dbl = now - app->click_at < 0.4 && ev.y == app->click_y;
    app->click_at = dbl ? 0 : now;
    app->click_y = ev.y;
    if (ev.y == 1) { /* the tab line: find the tab under the pointer */
        char tab[128];
        snprintf(tab, sizeof tab, " 1 Sandboxes (%zu) ", app->model.nrows);
        int x = (int)strlen(tab) + 1;
        int hit = ev.x < x ? 0 : -1;
        snprintf(tab, sizeof tab, " 2 Events (%d) ", cJSON_GetArraySize(app->model.events));
        x += (int)strlen(tab) + 1;
        if (hit < 0 && ev.x < x)
            hit = 1;
        for (int i = 0; hit < 0 && i < app->npanes; i++) {
            char label[96];
            tui_pane_tab(app->panes[i], label, sizeof label);
            snprintf(tab, sizeof tab, " %d %s ", i + 3, label);
            x += (int)strlen(tab) + 1;
            if (ev.x < x)
                hit = i + 2;
        }
        if (hit == 0 || hit == 1) {
            app->focus = -1;
            app->view = hit == 0 ? VIEW_LIST : VIEW_EVENTS;
            if (!app->split)
                app->shown = -1;
        } else if (hit >= 2) {
            app->focus = app->shown = hit - 2;
        }
    } else if (ev.y >= TUI_HEADER_LINES && ev.y < app->rows - 1) {
        app->focus = -1; /* a click on the dashboard side takes the keyboard there */
        if (app->view == VIEW_LIST) {
            tui_list_click(app, ev.y, TUI_HEADER_LINES);
            if (dbl)
                app->view = VIEW_DETAIL;
        } else if (app->view == VIEW_EVENTS) {
            tui_events_click(app, ev.y, TUI_HEADER_LINES);
        }
    }
}

static void handle_key(tui_app *app, wint_t ch, bool is_key)
{
    int key = is_key ? (int)ch : (ch < 0x80 ? (int)ch : -1);
    if (is_key && ch == KEY_RESIZE) {
        handle_resize(app);
        return;
    }
    if (is_key && ch == KEY_MOUSE) {
        handle_mouse(app);
        return;
    }
    if (is_key && ch == KEY_PASTE_START) {
        app->pasting = true;
        app->paste_len = 0;
        return;
    }
    if (is_key && ch == KEY_PASTE_END) {
        app->pasting = false;
        if (app->focus >= 0 && app->focus < app->npanes && !app->panes[app->focus]->exited)
            tui_term_paste(app->panes[app->focus]->term, app->paste ? app->paste : "",
                           app->paste_len);
        else if (app->overlay == OV_FILTER || app->overlay == OV_PALETTE)
            for (size_t i = 0; i < app->paste_len; i++)
                if ((unsigned char)app->paste[i] >= 32)
                    tui_prompt_key(app, (unsigned char)app->paste[i], false);
        return;
    }
    if (app->pasting) {
        char mb[8];
        int n = is_key ? 0 : wctomb(mb, (wchar_t)ch);
        if (n > 0) {
            app->paste = xrealloc(app->paste, app->paste_len + (size_t)n + 1);
            memcpy(app->paste + app->paste_len, mb, (size_t)n);
            app->paste_len += (size_t)n;
        }
        return;
    }
    switch (app->overlay) {
    case OV_FILTER:
    case OV_SEARCH:
    case OV_PALETTE: tui_prompt_key(app, ch, is_key); return;
    case OV_FORM: tui_form_key(app, ch, is_key); return;
    case OV_CONFIRM: tui_confirm_key(app, key); return;
    case OV_SESSIONS: tui_sessions_key(app, key); return;
    case OV_OUTPUT: tui_output_key(app, key); return;
    case OV_HELP:
        app->overlay = OV_NONE; /* any key closes help */
        return;
    default: break;
    }
    if (app->prefix) {
        app->prefix = false;
        if (!tui_panes_prefix(app, ch, is_key))
            tui_app_status(app, true, "Ctrl-b %s: no such command (Ctrl-b ? for help)",
                           is_key ? keyname((int)ch) : (char[]){(char)(ch < 128 ? ch : '?'), 0});
        return;
    }
    if (!is_key && ch == TUI_PREFIX_KEY) {
        app->prefix = true;
        return;
    }
    if (app->focus >= 0 && app->focus < app->npanes) {
        tui_panes_key(app, ch, is_key);
        return;
    }
    if ((key == 't' || key == 'T') && app->view != VIEW_EVENTS) {
        tui_row *r = tui_model_selected(&app->model);
        if (r && r->info->status == SM_STATUS_RUNNING &&
            (sm_provider_caps(app->provider) & SM_CAP_PTY))
            tui_panes_open(app, r->info->id, key == 'T');
        else if (r)
            tui_app_status(app, true, "%s",
                           !(sm_provider_caps(app->provider) & SM_CAP_PTY)
                               ? "this provider has no terminals"
                               : "the sandbox is not running");
        return;
    }
    if (app->view == VIEW_DETAIL && tui_detail_key(app, key))
        return;
    if (app->view == VIEW_EVENTS && tui_events_key(app, key))
        return;
    if (app->view == VIEW_LIST && tui_list_key(app, key))
        return;
    switch (key) {
    case 'q':
    case 3: /* Ctrl-C on the dashboard side (raw mode: it arrives as a key, not a SIGINT) */
        app->quit = true;
        break;
    case '?': app->overlay = OV_HELP; break;
    case '/': tui_prompt_open(app, OV_FILTER); break;
    case ':': tui_prompt_open(app, OV_PALETTE); break;
    case '1': app->view = VIEW_LIST; break;
    case '2':
    case 'e':
        app->view = app->view == VIEW_EVENTS && key == 'e' ? VIEW_LIST : VIEW_EVENTS;
        start_refresh(app);
        break;
    case 'n': tui_form_open(app); break;
    case 'r': start_refresh(app); break;
    case 12: /* ctrl-l */ app->full_redraw = true; break;
    case 27:
        if (app->model.filter[0]) {
            app->model.filter[0] = '\0';
            tui_model_rebuild(&app->model);
        } else {
            app->view = VIEW_LIST;
        }
        break;
    default: break;
    }
}

static void on_input(uv_poll_t *h, int status, int events)
{
    tui_app *app = h->data;
    wint_t ch;
    int r;
    bool dashboard = false;
    while ((r = get_wch(&ch)) != ERR) {
        /* Keys typed into a terminal need no repaint of their own: the program's echo arrives
         * as output and is drawn as soon as it does. Everything else repaints the frame. */
        dashboard |= !(app->focus >= 0 && app->focus < app->npanes && !app->prefix &&
                       app->overlay == OV_NONE && !app->pasting);
        handle_key(app, ch, r == KEY_CODE_YES);
        if (app->quit)
            break;
    }
    if (app->quit)
        uv_stop(app->loop);
    if (dashboard || app->full)
        tui_app_dirty(app);
}

static void on_signal(uv_signal_t *s, int signum)
{
    tui_app *app = s->data;
    if (signum == SIGWINCH) {
        handle_resize(app);
    } else {
        app->quit = true;
        uv_stop(app->loop);
    }
}

/* ---- start and stop ------------------------------------------------------------------------ */

static void on_grace(uv_timer_t *t)
{
    *(bool *)t->data = true;
}

/* Quitting never waits on a provider. The terminal is already restored; commands the user
 * started (a delete, a create) get a short grace to finish, then the process ends without
 * joining the workers still blocked in a provider call: nothing they use is freed under them,
 * since nothing is freed at all (exit hands everything back at once). Refreshes are only
 * reads, so they are never waited for. */
static void quit_in_flight(tui_app *app, int status)
{
    static bool over;
    static uv_timer_t grace; /* closed by the loop after this returns */
    uv_timer_init(app->loop, &grace);
    grace.data = &over;
    uv_timer_start(&grace, on_grace, QUIT_GRACE_MS, 0);
    while (app->jobs > 0 && !over)
        uv_run(app->loop, UV_RUN_ONCE);
    uv_timer_stop(&grace);
    uv_close((uv_handle_t *)&grace, NULL);
    if (app->reads == 0 && app->jobs == 0)
        return;
    fflush(stdout);
    fflush(stderr);
    _exit(status);
}

static int setup_terminal(tui_app *app, sm_error *err)
{
    setlocale(LC_ALL, "");
    const char *cs = nl_langinfo(CODESET);
    tui_unicode = cs && !strcmp(cs, "UTF-8") && !getenv("SANDMAN_ASCII");
    if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
        return sm_error_set(err, SM_ERR_INVALID, SM_FAIL_INVALID_REQUEST,
                            "the dashboard needs a terminal; use a command such as "
                            "'sandman ls' or 'sandman top' instead");
    set_escdelay(25);
    if (!initscr())
        return sm_error_set(err, SM_ERR_INVALID, SM_FAIL_INVALID_REQUEST,
                            "cannot initialise the terminal (TERM=%s)",
                            getenv("TERM") ? getenv("TERM") : "");
    raw(); /* Ctrl-C, Ctrl-Z, Ctrl-\, Ctrl-S are keys for the terminals' programs, not signals */
    noecho();
    nonl();
    keypad(stdscr, TRUE);
    nodelay(stdscr, TRUE);
    curs_set(0);
    update_mousemask(app);
    mouseinterval(0);
    if (has_colors()) {
        start_color();
        use_default_colors();
    }
    app->tier = tui_color_tier_detect(getenv("NO_COLOR"), has_colors(), COLORS);
    tui_theme_apply(&app->theme, app->tier);
    tui_term_render_init(app->tier);
    define_key("\033[200~", KEY_PASTE_START);
    define_key("\033[201~", KEY_PASTE_END);
    /* bracketed paste from the outer terminal, so pastes reach a program as one paste */
    if (write(STDOUT_FILENO, "\033[?2004h", 8) < 0) {
    }
    getmaxyx(stdscr, app->rows, app->cols);
    return SM_OK;
}

int tui_run(sm_cli *cli)
{
    tui_app app;
    memset(&app, 0, sizeof app);
    app.cli = cli;
    app.interval = 1.0;
    app.focus = app.shown = app.other = -1;
    const char *iv = getenv("SANDMAN_INTERVAL");
    double d;
    if (iv && sm_parse_double(iv, &d) == 0 && d >= 0.1)
        app.interval = d;
    int status = CLI_OK;
    sm_provider *p = cli_provider(cli, &status);
    if (!p)
        return status;
    cli->provider = NULL; /* the dashboard owns it and may replace it (:ctx) */
    app.provider = p;
    app.context = xstrdup(sm_provider_context(p));
    app.sampler = sm_sampler_new(p);
    app.follower = sm_journal_follower_new(256 * 1024);
    tui_model_init(&app.model);
    tui_model_set_provider(&app.model, sm_provider_name(p));
    /* a hung provider holds a worker thread until its call times out; with a context switch
     * or two, libuv's default four could all be held */
    setenv("UV_THREADPOOL_SIZE", "16", 0);

    sm_error err;
    sm_error_clear(&err);
    const char *theme =
        cli->theme ? cli->theme
                   : (cli->config_loaded && cli->config.theme ? cli->config.theme : "default");
    if (tui_theme_load(theme, &app.theme, &err) != SM_OK || setup_terminal(&app, &err) != SM_OK) {
        if (err.code == SM_ERR_NOT_FOUND)
            err.code = SM_ERR_INVALID; /* a theme that does not exist is bad input: 2 */
        status = cli_fail(cli, &err);
        tui_theme_free(&app.theme);
        goto out;
    }

    app.loop = uv_default_loop();
    uv_timer_init(app.loop, &app.tick);
    uv_timer_init(app.loop, &app.render);
    uv_timer_init(app.loop, &app.spin);
    app.tick.data = app.render.data = app.spin.data = &app;
    uv_poll_init(app.loop, &app.stdin_poll, STDIN_FILENO);
    app.stdin_poll.data = &app;
    uv_poll_start(&app.stdin_poll, UV_READABLE, on_input);
    uv_signal_init(app.loop, &app.winch);
    uv_signal_init(app.loop, &app.term);
    app.winch.data = app.term.data = &app;
    uv_signal_start(&app.winch, on_signal, SIGWINCH);
    uv_signal_start(&app.term, on_signal, SIGTERM);
    uv_timer_start(&app.tick, on_tick, 0, (uint64_t)(app.interval * 1000));
    uv_timer_start(&app.spin, on_spin, 100, 100);
    tui_app_render(&app);
    uv_run(app.loop, UV_RUN_DEFAULT);

    tui_panes_shutdown(&app); /* sessions stay in their sandboxes, ready to attach again */
    if (write(STDOUT_FILENO, "\033[?2004l", 8) < 0) {
    }
    endwin();
    /* Let work in flight finish before freeing what it uses. */
    uv_timer_stop(&app.tick);
    uv_timer_stop(&app.render);
    uv_timer_stop(&app.spin);
    uv_poll_stop(&app.stdin_poll);
    uv_signal_stop(&app.winch);
    uv_signal_stop(&app.term);
    uv_close((uv_handle_t *)&app.tick, NULL);
    uv_close((uv_handle_t *)&app.render, NULL);
    uv_close((uv_handle_t *)&app.spin, NULL);
    uv_close((uv_handle_t *)&app.stdin_poll, NULL);
    uv_close((uv_handle_t *)&app.winch, NULL);
    uv_close((uv_handle_t *)&app.term, NULL);
    app.quit = true;
    quit_in_flight(&app, status);
    uv_run(app.loop, UV_RUN_DEFAULT);
    uv_loop_close(app.loop);
    tui_theme_free(&app.theme);
out:
    tui_confirm_close(&app);
    free(app.output);
    free(app.paste);
    free(app.pick);
    tui_model_free(&app.model);
    sm_journal_follower_free(app.follower);
    sm_sampler_free(app.sampler);
    sm_provider_free(app.provider);
    for (size_t i = 0; i < app.nretired; i++) {
        sm_sampler_free(app.retired_samplers[i]);
        sm_provider_free(app.retired[i]);
    }
    free(app.retired);
    free(app.retired_samplers);
    free(app.context);
    return status;
}
