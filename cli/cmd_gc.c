/* `sandman gc`: removes what crashed rollouts and forgotten sessions leave behind, chosen by
 * attribution labels (--run, --user, -l), age (--older-than), an expired TTL (--expired), a
 * dead owner or supervisor (--orphaned) or an end (--ended); --dry-run only lists. Without a
 * selector it refuses (--all says "every sandbox" on purpose), so a bare `gc` never removes
 * everything. The work is core/gc.c; this file parses and prints. */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "core/attribution.h"
#include "core/gc.h"
#include "core/util.h"

typedef struct gc_args {
    sm_map labels;
    sm_gc_filter f;
    bool dry_run;
    long jobs;
} gc_args;

enum { G_RUN = 1, G_USER, G_LABEL, G_OLDER, G_EXPIRED, G_ORPHANED, G_ENDED, G_ALL, G_DRY, G_JOBS };
static const cli_opt gc_opts[] = {
    {"dry-run", 'n', NULL, "only list what would be removed, and why", G_DRY},
    {"run", 0, "RUN", "sandboxes of this run (label " SM_LABEL_RUN ")", G_RUN},
    {"user", 0, "USER", "sandboxes of this user (label " SM_LABEL_USER ")", G_USER},
    {"label", 'l', "K=V", "sandboxes with this label (repeatable; all must match)", G_LABEL},
    {"older-than", 0, "D", "created longer ago than D (90s, 10m, 2h, 1d, 1w)", G_OLDER},
    {"expired", 0, NULL, "whose TTL ran out", G_EXPIRED},
    {"orphaned", 0, NULL,
     "whose supervisor died, or whose owner process (label " SM_LABEL_OWNER ") is gone",
     G_ORPHANED},
    {"ended", 0, NULL, "that ended (stopped or failed) and are still listed", G_ENDED},
    {"all", 0, NULL, "every sandbox the other selectors leave (required when there are none)",
     G_ALL},
    {"jobs", 'j', "N", "removals at once (1..64, default 8)", G_JOBS},
    {NULL, 0, NULL, NULL, 0}};

static void gc_init(void *args)
{
    gc_args *a = args;
    a->jobs = SM_GC_DEFAULT_JOBS;
    a->f.labels = &a->labels;
}

static int gc_opt(sm_cli *cli, void *args, int id, const char *arg)
{
    gc_args *a = args;
    switch (id) {
    case G_LABEL:
        return sm_map_set_kv(&a->labels, arg) < 0
                   ? cli_usage(cli, "--label wants KEY=VALUE, not '%s'", arg)
                   : 0;
    case G_RUN:
    case G_USER:
        if (!*arg)
            return cli_usage(cli, "--%s wants a non-empty value", id == G_RUN ? "run" : "user");
        sm_map_set(&a->labels, id == G_RUN ? SM_LABEL_RUN : SM_LABEL_USER, arg);
        return 0;
    case G_OLDER:
        if (sm_parse_duration(arg, &a->f.older_than_s) < 0 || !(a->f.older_than_s > 0))
            return cli_usage(cli,
                             "--older-than wants a duration such as 90s, 10m, 2h, 1d or 1w, "
                             "not '%s'",
                             arg);
        return 0;
    case G_JOBS:
        if (sm_parse_long(arg, &a->jobs) < 0 || a->jobs < 1 || a->jobs > SM_GC_MAX_JOBS)
            return cli_usage(cli, "--jobs wants a number from 1 to %d, not '%s'", SM_GC_MAX_JOBS,
                             arg);
        return 0;
    case G_EXPIRED: a->f.expired = true; return 0;
    case G_ORPHANED: a->f.orphaned = true; return 0;
    case G_ENDED: a->f.ended = true; return 0;
    case G_ALL: a->f.all = true; return 0;
    case G_DRY: a->dry_run = true; return 0;
    }
    return 0;
}

static void gc_done(void *args)
{
    sm_map_free(&((gc_args *)args)->labels);
}

static int gc_check(sm_cli *cli, cli_call *c)
{
    gc_args *a = c->args;
    if (sm_gc_filter_empty(&a->f))
        return cli_usage(cli, "say what to collect: --expired, --orphaned, --ended, --older-than "
                              "D, --run RUN, --user USER or -l K=V (or --all for every sandbox)");
    return 0;
}

static cJSON *item_json(const sm_gc_item *it, bool with_error)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "id", it->id);
    cJSON_AddStringToObject(o, "why", it->why);
    cJSON_AddStringToObject(o, "status", sm_status_name(it->status));
    if (it->created_at > 0) {
        char t[40];
        sm_format_time(it->created_at, t, sizeof t);
        cJSON_AddStringToObject(o, "created_at", t);
    }
    if (with_error) {
        cJSON *e = cJSON_AddObjectToObject(o, "error");
        cJSON_AddStringToObject(e, "kind", sm_error_code_name(it->err.code));
        cJSON_AddStringToObject(e, "failure", sm_failure_kind_name(it->err.failure.kind));
        cJSON_AddStringToObject(e, "message", it->err.msg);
    }
    return o;
}

static int cmd_gc(sm_cli *cli, cli_call *c)
{
    gc_args *a = c->args;
    sm_gc_result r;
    sm_error err;
    sm_error_clear(&err);
    int rc = sm_gc_run(c->provider, &a->f, a->dry_run, (int)a->jobs, &r, &err);
    int status = CLI_OK;
    size_t removed = 0, failed = 0;
    for (size_t k = 0; k < r.n; k++)
        r.items[k].removed ? removed++ : failed++;
    if (rc != SM_OK) {
        /* listing failed: say what was done before it */
        if (removed)
            cli_printf(cli->err, "sandman: gc removed %zu sandbox%s before it failed\n", removed,
                       removed == 1 ? "" : "es");
        status = cli_fail(cli, &err);
        sm_gc_result_free(&r);
        return status;
    }
    char buf[600], wbuf[600];
    if (cli->json) {
        cJSON *doc = cJSON_CreateObject();
        cJSON_AddBoolToObject(doc, "dry_run", a->dry_run);
        cJSON_AddNumberToObject(doc, "sweeps", r.sweeps);
        cJSON *m = cJSON_AddArrayToObject(doc, a->dry_run ? "would_remove" : "removed");
        cJSON *fl = a->dry_run ? NULL : cJSON_AddArrayToObject(doc, "failed");
        for (size_t k = 0; k < r.n; k++) {
            const sm_gc_item *it = &r.items[k];
            if (a->dry_run || it->removed)
                cJSON_AddItemToArray(m, item_json(it, false));
            else
                cJSON_AddItemToArray(fl, item_json(it, true));
        }
        cli_print_json(cli, doc);
    } else {
        for (size_t k = 0; k < r.n; k++) {
            const sm_gc_item *it = &r.items[k];
            if (a->dry_run || it->removed)
                cli_printf(cli->out, "%s  %s\n", cli_field(it->id, buf, sizeof buf),
                           cli_field(it->why, wbuf, sizeof wbuf));
            else
                cli_printf(cli->err, "sandman: could not remove %s (%s): %s\n",
                           cli_field(it->id, buf, sizeof buf),
                           cli_field(it->why, wbuf, sizeof wbuf), it->err.msg);
        }
    }
    if (r.n == 0)
        cli_printf(cli->err, "sandman: no sandbox matches: nothing to collect\n");
    else if (a->dry_run)
        cli_printf(cli->err, "sandman: gc would remove %zu sandbox%s (dry run: nothing removed)\n",
                   r.n, r.n == 1 ? "" : "es");
    else
        cli_printf(cli->err, "sandman: removed %zu of %zu sandbox%s in %d sweep%s%s\n", removed,
                   r.n, r.n == 1 ? "" : "es", r.sweeps, r.sweeps == 1 ? "" : "s",
                   failed ? "; see above for the others" : "");
    if (!a->dry_run && failed)
        status = CLI_FAIL;
    sm_gc_result_free(&r);
    return status;
}

const sm_cmd sm_cmd_gc = {
    .name = "gc",
    .usage = "[--dry-run] [--expired] [--orphaned] [--ended] [--older-than D] [--run RUN] "
             "[--user USER] [-l K=V]... [--all]",
    .summary = "remove leftover sandboxes: expired, orphaned, ended, old or of a run",
    .flags = CLI_PROVIDER,
    .max_pos = 0,
    .opts = gc_opts,
    .args_size = sizeof(gc_args),
    .init = gc_init,
    .opt = gc_opt,
    .check = gc_check,
    .run = cmd_gc,
    .done = gc_done,
};
