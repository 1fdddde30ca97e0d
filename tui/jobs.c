/* Jobs on libuv's work queue: the refresh (provider list + samples), the journal read (local
 * files, so the events view stays live while a provider hangs) and CLI commands the user
 * started. Workers touch only their job; the done callbacks run on the loop and fold the
 * result into the state. */
#include "tui/jobs.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "core/util.h"
#include "tui/views/views.h"

/* ---- refresh: list + sample on the work queue; the journal as a job of its own ---------- */

typedef struct refresh_job {
    uv_work_t req;
    tui_app *app;
    sm_provider *p;
    sm_sampler *sampler;
    sm_fleet_snapshot *snap;
} refresh_job;

static void refresh_work(uv_work_t *req)
{
    refresh_job *j = req->data;
    sm_list_filter f = {.labels = NULL, .all = true};
    j->snap = sm_fleet_scan(j->p, j->sampler, &f);
}

static void refresh_done(uv_work_t *req, int status)
{
    refresh_job *j = req->data;
    tui_app *app = j->app;
    app->reads--;
    if (j->p != app->provider) { /* begun under a previous context: its rows are not ours */
        sm_fleet_snapshot_free(j->snap);
    } else {
        app->refreshing = false;
        /* a failed refresh keeps the rows of the last good one, marked stale (list.c) */
        tui_model_apply(&app->model, j->snap, NULL);
        app->ev_gen++;
        if (app->refresh_again) {
            app->refresh_again = false;
            tui_jobs_refresh(app);
        }
    }
    free(j);
    tui_dirty(app);
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
        tui_model_apply(&app->model, NULL, j->events);
        app->ev_gen++;
        tui_dirty(app);
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
void tui_jobs_refresh(tui_app *app)
{
    start_journal(app);
    if (app->view == VIEW_LOGS && app->focus < 0)
        tui_jobs_logs(app);
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

/* ---- the logs view's reads: local files, like the journal -------------------------------- */

typedef struct logs_job {
    uv_work_t req;
    tui_app *app;
    unsigned gen;
    char provider[32], id[72];
    tui_logcursor cur;
    tui_logbuf add;
} logs_job;

static void logs_work(uv_work_t *req)
{
    logs_job *j = req->data;
    tui_logbuf_read(j->provider, j->id, &j->cur, &j->add);
}

static void logs_done(uv_work_t *req, int status)
{
    logs_job *j = req->data;
    tui_app *app = j->app;
    tui_logs *l = &app->logs;
    l->reading = false;
    if (j->gen == l->gen) { /* still the sandbox the view shows */
        tui_logbuf_append(&l->buf, &j->add);
        l->cur = j->cur;
        l->loaded = true;
        tui_logs_arrived(app);
        tui_dirty(app);
    }
    tui_logbuf_free(&j->add);
    free(j);
    if (l->again) {
        l->again = false;
        tui_jobs_logs(app);
    }
}

void tui_jobs_logs(tui_app *app)
{
    tui_logs *l = &app->logs;
    if (l->reading) {
        l->again = true;
        return;
    }
    if (app->quit || !l->id[0])
        return;
    logs_job *j = xcalloc(1, sizeof *j);
    j->app = app;
    j->gen = l->gen;
    snprintf(j->provider, sizeof j->provider, "%s", l->provider);
    snprintf(j->id, sizeof j->id, "%s", l->id);
    j->cur = l->cur;
    j->req.data = j;
    l->reading = true;
    uv_queue_work(app->loop, &j->req, logs_work, logs_done);
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
        tui_status(app, true, "%s", *err ? err : "command failed");
    } else {
        tui_status(app, false, "%s: %s", j->title, *out ? out : "done");
    }
    for (int i = 0; i < j->argc; i++)
        free(j->argv[i]);
    free(j->argv);
    free(j->context);
    free(j->config);
    free(j->out);
    free(j->err);
    free(j);
    tui_jobs_refresh(app); /* show the effect at once */
    tui_dirty(app);
}

void tui_jobs_command(tui_app *app, int argc, char **argv, const char *title)
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
    tui_status(app, false, "%s ...", title);
    uv_queue_work(app->loop, &j->req, cmd_work, cmd_done);
}
