/* The dashboard's setup and loop: the outer terminal in raw mode, the libuv handles (refresh
 * tick, spinner, signals; the frame and the input start their own), the run, and quitting
 * without waiting on a provider. */
#include "tui/tui.h"

#include <cjson/cJSON.h>
#include <langinfo.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/util.h"
#include "tui/frame.h"
#include "tui/input.h"
#include "tui/jobs.h"
#include "tui/panes/panes.h"
#include "tui/state.h"
#include "tui/term/outer_colors.h"
#include "tui/term/term_render.h"
#include "tui/views/views.h"
#include "tui/widgets/draw.h"

#define QUIT_GRACE_MS 1000 /* commands in flight at quit get this long to finish */

static void on_tick(uv_timer_t *t)
{
    tui_app *app = t->data;
    tui_jobs_refresh(app);
    if (app->status_until > 0 && sm_now_mono() > app->status_until) {
        app->status[0] = '\0';
        app->status_until = 0;
    }
    tui_dirty(app); /* ages and TTLs move on even when nothing else did */
}

static void on_spin(uv_timer_t *t)
{
    tui_app *app = t->data;
    if (app->refreshing && sm_now_mono() - app->refresh_started > TUI_SLOW_REFRESH_S) {
        app->spinner++;
        tui_dirty(app);
    }
}

static void on_signal(uv_signal_t *s, int signum)
{
    tui_app *app = s->data;
    if (signum == SIGWINCH) {
        tui_input_resize(app);
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
    const char *direct = tui_outer_term(); /* COLORTERM=truecolor: xterm-direct, ... */
    if (direct ? !newterm(direct, stdout, stdin) : !initscr())
        return sm_error_set(err, SM_ERR_INVALID, SM_FAIL_INVALID_REQUEST,
                            "cannot initialise the terminal (TERM=%s)",
                            getenv("TERM") ? getenv("TERM") : "");
    raw(); /* Ctrl-C, Ctrl-Z, Ctrl-\, Ctrl-S are keys for the terminals' programs, not signals */
    noecho();
    nonl();
    keypad(stdscr, TRUE);
    nodelay(stdscr, TRUE);
    curs_set(0);
    tui_input_mousemask(app);
    mouseinterval(0);
    if (has_colors()) {
        start_color();
        use_default_colors();
    }
    app->tier = tui_color_tier_detect(getenv("NO_COLOR"), has_colors(), COLORS);
    tui_theme_apply(&app->theme, app->tier);
    tui_term_render_init(app->tier);
    tui_input_define_keys();
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
    uv_timer_init(app.loop, &app.spin);
    app.tick.data = app.spin.data = &app;
    tui_frame_start(&app);
    tui_input_start(&app);
    uv_signal_init(app.loop, &app.winch);
    uv_signal_init(app.loop, &app.term);
    app.winch.data = app.term.data = &app;
    uv_signal_start(&app.winch, on_signal, SIGWINCH);
    uv_signal_start(&app.term, on_signal, SIGTERM);
    uv_timer_start(&app.tick, on_tick, 0, (uint64_t)(app.interval * 1000));
    uv_timer_start(&app.spin, on_spin, 100, 100);
    tui_frame_render(&app);
    uv_run(app.loop, UV_RUN_DEFAULT);

    tui_panes_shutdown(&app); /* sessions stay in their sandboxes, ready to attach again */
    if (write(STDOUT_FILENO, "\033[?2004l", 8) < 0) {
    }
    endwin();
    /* Let work in flight finish before freeing what it uses. */
    uv_timer_stop(&app.tick);
    uv_timer_stop(&app.spin);
    uv_signal_stop(&app.winch);
    uv_signal_stop(&app.term);
    uv_close((uv_handle_t *)&app.tick, NULL);
    uv_close((uv_handle_t *)&app.spin, NULL);
    tui_frame_stop(&app);
    tui_input_stop(&app);
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
    cJSON_Delete(app.ev_paused);
    tui_events_free(&app);
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
