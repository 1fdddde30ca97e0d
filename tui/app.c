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
#include "tui/widgets/draw.h"

#define RENDER_DELAY_MS 12
#define SLOW_REFRESH_S  0.3

/* ---- refresh: list + sample + journal on the work queue ------------------------------ */

typedef struct refresh_job {
    uv_work_t req;
    tui_app *app;
    sm_provider *p;
    sm_sampler *sampler;
    sm_journal_follower *follower;
    sm_sandbox_info *list;
    size_t n;
    sm_sample *samples;
    bool *ok;
    cJSON *events;
    sm_error err;
    int rc;
} refresh_job;

static void refresh_work(uv_work_t *req)
{
    refresh_job *j = req->data;
    sm_error_clear(&j->err);
    sm_list_filter f = {.labels = NULL, .all = true};
    if (!(j->p->ops->caps & SM_CAP_LIST) || !j->p->ops->list) {
        j->rc = sm_error_set(&j->err, SM_ERR_UNSUPPORTED, SM_FAIL_INVALID_REQUEST,
                             "provider '%s' cannot list its sandboxes", j->p->ops->name);
    } else {
        j->rc = j->p->ops->list(j->p, &f, &j->list, &j->n, &j->err);
    }
    if (j->rc == SM_OK) {
        j->samples = xcalloc(j->n ? j->n : 1, sizeof *j->samples);
        j->ok = xcalloc(j->n ? j->n : 1, sizeof *j->ok);
        sm_sampler_collect(j->sampler, j->list, j->n, j->samples, j->ok);
    }
    j->events = sm_journal_follower_poll(j->follower);
}

static void start_refresh(tui_app *app);

static void refresh_done(uv_work_t *req, int status)
{
    refresh_job *j = req->data;
    tui_app *app = j->app;
    app->refreshing = false;
    if (j->rc == SM_OK) {
        tui_model_update(&app->model, j->list, j->n, j->samples, j->ok, j->p->ops->name);
        app->model.error[0] = '\0';
    } else {
        char label[64];
        sm_failure_label(&j->err.failure, label, sizeof label);
        snprintf(app->model.error, sizeof app->model.error, "%s", j->err.msg);
    }
    tui_model_add_events(&app->model, j->events);
    if (app->model.filter[0] || app->view == VIEW_LIST)
        tui_model_rebuild(&app->model);
    app->model.refreshed_at = sm_now_wall();
    free(j->samples);
    free(j->ok);
    free(j);
    if (app->old_provider && !app->refreshing) {
        sm_sampler_free(app->old_sampler);
        sm_provider_free(app->old_provider);
        app->old_provider = NULL;
        app->old_sampler = NULL;
    }
    tui_app_dirty(app);
}

static void start_refresh(tui_app *app)
{
    if (app->refreshing || app->quit || !app->provider)
        return;
    refresh_job *j = xcalloc(1, sizeof *j);
    j->app = app;
    j->p = app->provider;
    j->sampler = app->sampler;
    j->follower = app->follower;
    j->req.data = j;
    app->refreshing = true;
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
    } else if (!strcmp(argv[0], "tui")) {
        tui_app_status(app, true, "the dashboard is already open");
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
    sm_cli probe;
    cli_init(&probe);
    char *errbuf = NULL;
    size_t elen = 0;
    probe.err = open_memstream(&errbuf, &elen);
    probe.context_name = xstrdup(name);
    probe.config_path = app->cli->config_path ? xstrdup(app->cli->config_path) : NULL;
    int status = 0;
    sm_provider *p = cli_provider(&probe, &status);
    fclose(probe.err);
    probe.err = NULL;
    if (!p) {
        char *nl = errbuf ? strchr(errbuf, '\n') : NULL;
        if (nl)
            *nl = '\0';
        tui_app_status(app, true, "%s", errbuf && *errbuf ? errbuf : "cannot switch context");
        free(errbuf);
        cli_free(&probe);
        return;
    }
    free(errbuf);
    probe.provider = NULL; /* keep it: the dashboard owns it now */
    cli_free(&probe);
    if (app->old_provider) { /* a switch while another is still draining: drop the middle one */
        sm_sampler_free(app->old_sampler);
        sm_provider_free(app->old_provider);
    }
    app->old_provider = app->provider;
    app->old_sampler = app->sampler;
    if (!app->refreshing) {
        sm_sampler_free(app->old_sampler);
        sm_provider_free(app->old_provider);
        app->old_provider = NULL;
        app->old_sampler = NULL;
    }
    app->provider = p;
    app->sampler = sm_sampler_new(p);
    free(app->context);
    app->context = xstrdup(name);
    tui_model_free(&app->model);
    tui_model_init(&app->model);
    tui_app_status(app, false, "context %s (%s)", name, p->ops->name);
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

static void on_render(uv_timer_t *t)
{
    tui_app_render(t->data);
}

void tui_app_dirty(tui_app *app)
{
    if (!uv_is_active((uv_handle_t *)&app->render))
        uv_timer_start(&app->render, on_render, RENDER_DELAY_MS, 0);
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
             app->provider ? app->provider->ops->name : "-");
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
    char tab[64];
    snprintf(tab, sizeof tab, " 1 Sandboxes (%zu) ", m->nrows);
    x = tui_put(1, 0, app->cols, tab, tui_attr(app->view != VIEW_EVENTS ? TH_TAB_ACTIVE : TH_TAB),
                false);
    snprintf(tab, sizeof tab, " 2 Events (%d) ", cJSON_GetArraySize(m->events));
    x += 1 + tui_put(1, x + 1, app->cols - x - 1, tab,
                     tui_attr(app->view == VIEW_EVENTS ? TH_TAB_ACTIVE : TH_TAB), false);
    char right[300] = "";
    size_t r = 0;
    if (m->error[0]) {
        r += (size_t)snprintf(right + r, sizeof right - r, "%s  ", m->error);
    } else if (app->refreshing && sm_now_mono() - app->refresh_started > SLOW_REFRESH_S) {
        static const char *spin_u[] = {"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"};
        static const char *spin_a[] = {"|", "/", "-", "\\"};
        r += (size_t)snprintf(right + r, sizeof right - r, "%s waiting for %s  ",
                              tui_unicode ? spin_u[app->spinner % 10] : spin_a[app->spinner % 4],
                              app->provider ? app->provider->ops->name : "provider");
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
    if (app->overlay == OV_FILTER || app->overlay == OV_PALETTE) {
        tui_prompt_draw(app);
        return;
    }
    if (app->status[0]) {
        tui_put(y, 0, app->cols, app->status, tui_attr(app->status_error ? TH_FAILURE : TH_OK),
                true);
        return;
    }
    static const char *hints[][2] = {
        {"?", "help"}, {"/", "filter"}, {"s", "sort"},    {"space", "mark"}, {"d", "delete"},
        {"n", "new"},  {"e", "events"}, {":", "command"}, {"q", "quit"},
    };
    tui_fill(y, 0, app->cols, tui_attr(TH_NORMAL));
    int x = 0;
    for (size_t i = 0; i < sizeof hints / sizeof hints[0] && x < app->cols; i++) {
        x += tui_put(y, x, app->cols - x, hints[i][0], tui_attr(TH_KEY), false);
        x += 1 + tui_put(y, x + 1, app->cols - x - 1, hints[i][1], tui_attr(TH_DIM), false);
        x += 2;
    }
}

void tui_app_render(tui_app *app)
{
    getmaxyx(stdscr, app->rows, app->cols);
    if (app->full_redraw) {
        clearok(curscr, TRUE);
        app->full_redraw = false;
    }
    erase();
    if (app->rows < 5 || app->cols < 20) {
        tui_put(0, 0, app->cols, "terminal too small", tui_attr(TH_FAILURE), false);
        refresh();
        return;
    }
    draw_header(app);
    int top = TUI_HEADER_LINES, height = app->rows - TUI_HEADER_LINES - 1;
    switch (app->view) {
    case VIEW_LIST: tui_list_draw(app, top, height); break;
    case VIEW_DETAIL: tui_detail_draw(app, top, height); break;
    case VIEW_EVENTS: tui_events_draw(app, top, height); break;
    }
    draw_footer(app);
    switch (app->overlay) {
    case OV_HELP: tui_help_draw(app); break;
    case OV_CONFIRM: tui_confirm_draw(app); break;
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

static void handle_mouse(tui_app *app)
{
    MEVENT ev;
    if (getmouse(&ev) != OK)
        return;
    if (ev.bstate & (BUTTON4_PRESSED)) {
        tui_list_key(app, KEY_UP);
        return;
    }
#ifdef BUTTON5_PRESSED
    if (ev.bstate & BUTTON5_PRESSED) {
        tui_list_key(app, KEY_DOWN);
        return;
    }
#endif
    if (!(ev.bstate & (BUTTON1_PRESSED | BUTTON1_CLICKED | BUTTON1_DOUBLE_CLICKED)))
        return;
    if (app->overlay != OV_NONE)
        return;
    if (ev.y == 1) { /* the tab line */
        app->view = ev.x < 20 ? VIEW_LIST : VIEW_EVENTS;
    } else if (ev.y >= TUI_HEADER_LINES && ev.y < app->rows - 1) {
        if (app->view == VIEW_LIST) {
            tui_list_click(app, ev.y, TUI_HEADER_LINES);
            if (ev.bstate & BUTTON1_DOUBLE_CLICKED)
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
    switch (app->overlay) {
    case OV_FILTER:
    case OV_PALETTE: tui_prompt_key(app, ch, is_key); return;
    case OV_FORM: tui_form_key(app, ch, is_key); return;
    case OV_CONFIRM: tui_confirm_key(app, key); return;
    case OV_OUTPUT: tui_output_key(app, key); return;
    case OV_HELP:
        app->overlay = OV_NONE; /* any key closes help */
        return;
    default: break;
    }
    if (app->view == VIEW_DETAIL && tui_detail_key(app, key))
        return;
    if (app->view == VIEW_EVENTS && tui_events_key(app, key))
        return;
    if (app->view == VIEW_LIST && tui_list_key(app, key))
        return;
    switch (key) {
    case 'q': app->quit = true; break;
    case '?': app->overlay = OV_HELP; break;
    case '/': tui_prompt_open(app, OV_FILTER); break;
    case ':': tui_prompt_open(app, OV_PALETTE); break;
    case '1': app->view = VIEW_LIST; break;
    case '2':
    case 'e': app->view = app->view == VIEW_EVENTS && key == 'e' ? VIEW_LIST : VIEW_EVENTS; break;
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
    while ((r = get_wch(&ch)) != ERR) {
        handle_key(app, ch, r == KEY_CODE_YES);
        if (app->quit)
            break;
    }
    if (app->quit)
        uv_stop(app->loop);
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
    cbreak();
    noecho();
    nonl();
    keypad(stdscr, TRUE);
    nodelay(stdscr, TRUE);
    curs_set(0);
    mousemask(BUTTON1_PRESSED | BUTTON1_DOUBLE_CLICKED | BUTTON4_PRESSED
#ifdef BUTTON5_PRESSED
                  | BUTTON5_PRESSED
#endif
              ,
              NULL);
    mouseinterval(0);
    if (has_colors()) {
        start_color();
        use_default_colors();
    }
    app->tier = tui_color_tier_detect(getenv("NO_COLOR"), has_colors(), COLORS);
    tui_theme_apply(&app->theme, app->tier);
    getmaxyx(stdscr, app->rows, app->cols);
    return SM_OK;
}

int tui_run(sm_cli *cli)
{
    tui_app app;
    memset(&app, 0, sizeof app);
    app.cli = cli;
    app.interval = 1.0;
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
    app.context = xstrdup(p->context);
    app.sampler = sm_sampler_new(p);
    app.follower = sm_journal_follower_new(256 * 1024);
    tui_model_init(&app.model);

    sm_error err;
    sm_error_clear(&err);
    const char *theme =
        cli->theme ? cli->theme
                   : (cli->config_loaded && cli->config.theme ? cli->config.theme : "default");
    if (tui_theme_load(theme, &app.theme, &err) != SM_OK || setup_terminal(&app, &err) != SM_OK) {
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
    while (app.refreshing || app.jobs > 0)
        uv_run(app.loop, UV_RUN_ONCE);
    uv_run(app.loop, UV_RUN_DEFAULT);
    uv_loop_close(app.loop);
    tui_theme_free(&app.theme);
out:
    free(app.confirm_ids);
    free(app.output);
    tui_model_free(&app.model);
    sm_journal_follower_free(app.follower);
    sm_sampler_free(app.sampler);
    sm_sampler_free(app.old_sampler);
    sm_provider_free(app.provider);
    sm_provider_free(app.old_provider);
    free(app.context);
    return status;
}
