/* `sandman top`: the dashboard's rows headlessly, one table (or JSON lines) per interval,
 * read from the same fleet (core/fleet.h): its scan, histories, failure attribution and cells. */
#include <cjson/cJSON.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/table.h"
#include "core/attribution.h"
#include "core/fleet.h"
#include "core/journal.h"
#include "core/sampler.h"
#include "core/util.h"

typedef struct top_args {
    double interval;
    long count;
    sm_map labels;
} top_args;

enum { T_INTERVAL = 1, T_COUNT, T_LABEL, T_RUN, T_USER };
static const cli_opt top_opts[] = {
    {"interval", 'i', "S", "seconds between updates (default 1)", T_INTERVAL},
    {"count", 'n', "N", "stop after N updates (default: until Ctrl-C)", T_COUNT},
    {"label", 'l', "K=V", "only sandboxes with this label (repeatable)", T_LABEL},
    {"run", 0, "RUN", "only the sandboxes of this run (label " SM_LABEL_RUN ")", T_RUN},
    {"user", 0, "USER", "only this user's sandboxes (label " SM_LABEL_USER ")", T_USER},
    {NULL, 0, NULL, NULL, 0}};

static int top_opt(sm_cli *cli, void *args, int id, const char *arg)
{
    top_args *a = args;
    if (id == T_INTERVAL && (sm_parse_double(arg, &a->interval) || a->interval < 0.1))
        return cli_usage(cli, "--interval wants seconds >= 0.1, not '%s'", arg);
    if (id == T_COUNT && (sm_parse_long(arg, &a->count) || a->count < 1))
        return cli_usage(cli, "--count wants a positive integer, not '%s'", arg);
    if (id == T_LABEL && sm_map_set_kv(&a->labels, arg) < 0)
        return cli_usage(cli, "--label wants KEY=VALUE, not '%s'", arg);
    if ((id == T_RUN || id == T_USER) && !*arg)
        return cli_usage(cli, "--%s wants a non-empty value", id == T_RUN ? "run" : "user");
    if (id == T_RUN || id == T_USER)
        sm_map_set(&a->labels, id == T_RUN ? SM_LABEL_RUN : SM_LABEL_USER, arg);
    return 0;
}

static volatile sig_atomic_t stop;

static void on_sigint(int sig)
{
    stop = 1;
}

static void num(cJSON *o, const char *k, double v)
{
    if (v >= 0)
        cJSON_AddNumberToObject(o, k, v);
    else
        cJSON_AddNullToObject(o, k);
}

/* The text table's columns, the fleet's, so they say what the dashboard and `ls` say. */
static const cli_column table[] = {
    {SM_COL_ID, -12, true},          {SM_COL_PROVIDER, -8, true}, {SM_COL_STATUS, -8, false},
    {SM_COL_RUN, -12, true},         {SM_COL_IMAGE, -16, true},   {SM_COL_AGE, 6, false},
    {SM_COL_TTL, 6, false},          {SM_COL_CPU, 6, false},      {SM_COL_MEM, -17, false},
    {SM_COL_PIDS_LIMIT, -11, false}, {SM_COL_IO, -19, false},     {SM_COL_FAILURE, 0, false},
};
#define NCOLS (sizeof table / sizeof table[0])

static void print_row_json(sm_cli *cli, const sm_fleet_row *r, const char *ts, double now)
{
    const sm_sandbox_info *i = r->info;
    const sm_sample *cur = sm_history_at(&r->st->history, 0);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "ts", ts);
    cJSON_AddStringToObject(o, "id", i->id);
    cJSON_AddStringToObject(o, "provider", i->provider);
    cJSON_AddStringToObject(o, "status", sm_status_name(i->status));
    const char *run = sm_map_get(&i->labels, SM_LABEL_RUN);
    if (run)
        cJSON_AddStringToObject(o, "run", run);
    else
        cJSON_AddNullToObject(o, "run");
    if (i->image)
        cJSON_AddStringToObject(o, "image", i->image);
    else
        cJSON_AddNullToObject(o, "image");
    num(o, "age_s", i->created_at > 0 ? now - i->created_at : -1);
    num(o, "ttl_left_s", sm_sandbox_info_ttl_left(i, now));
    num(o, "cpu_percent", r->rates.cpu_pct);
    num(o, "memory_working_set", cur ? (double)cur->mem_working_set : -1);
    num(o, "memory_limit", cur ? (double)cur->mem_limit : -1);
    num(o, "pids", cur ? (double)cur->pids : -1);
    num(o, "pids_limit", cur && cur->pids_limit > 0 ? (double)cur->pids_limit : -1);
    num(o, "io_read_bps", r->rates.io_read_bps);
    num(o, "io_write_bps", r->rates.io_write_bps);
    num(o, "net_rx_bps", r->rates.net_rx_bps);
    num(o, "net_tx_bps", r->rates.net_tx_bps);
    num(o, "oom_kills", cur ? (double)cur->oom_kills : -1);
    if (r->has_why) {
        cJSON *f = sm_failure_to_json(&r->why);
        cJSON_AddBoolToObject(f, "warning", r->why_warning);
        cJSON_AddItemToObject(o, "failure", f);
    } else {
        cJSON_AddNullToObject(o, "failure");
    }
    cli_print_json_line(cli, o);
}

static void print_tick(sm_cli *cli, const sm_fleet *fleet)
{
    double now = sm_now_wall();
    char ts[40];
    sm_format_time(now, ts, sizeof ts);
    if (!cli->json) {
        fprintf(cli->out, "%s  %zu sandboxes\n", ts, fleet->n);
        cli_table_header(cli->out, table, NCOLS);
    }
    for (size_t i = 0; i < fleet->n; i++) {
        const sm_fleet_row *r = &fleet->rows[i];
        if (cli->json) {
            print_row_json(cli, r, ts, now);
            continue;
        }
        cli_table_row(cli->out, fleet, r, table, NCOLS, now);
    }
    if (!cli->json)
        fprintf(cli->out, "\n");
    fflush(cli->out);
}

static void top_init(void *args)
{
    top_args *a = args;
    a->interval = 1.0;
}

static void top_done(void *args)
{
    sm_map_free(&((top_args *)args)->labels);
}

static int cmd_top(sm_cli *cli, cli_call *c)
{
    top_args *a = c->args;
    sm_provider *p = c->provider;
    int status = CLI_OK;
    if (!(sm_provider_caps(p) & SM_CAP_LIST))
        return cli_error(cli, CLI_FAIL, "provider '%s' cannot list its sandboxes",
                         sm_provider_name(p));
    stop = 0;
    struct sigaction sa = {.sa_handler = on_sigint}, old;
    sigaction(SIGINT, &sa, &old);
    sm_sampler *sampler = sm_sampler_new(p);
    sm_journal_follower *follower = sm_journal_follower_new(1 << 20);
    sm_fleet *fleet = sm_fleet_new(sm_provider_name(p));
    sm_list_filter f = {.labels = &a->labels, .all = true};
    /* tick 0 only primes the rates; each later tick prints */
    for (long tick = 0; !stop && (a->count == 0 || tick <= a->count); tick++) {
        sm_fleet_snapshot *snap = sm_fleet_scan(p, sampler, &f);
        if (sm_fleet_apply(fleet, snap, sm_journal_follower_poll(follower)) != SM_OK) {
            status = cli_fail(cli, &fleet->err);
            break;
        }
        if (tick > 0)
            print_tick(cli, fleet);
        if (a->count == 0 || tick < a->count)
            sm_sleep_s(a->interval, &stop);
    }
    sigaction(SIGINT, &old, NULL);
    sm_fleet_free(fleet);
    sm_journal_follower_free(follower);
    sm_sampler_free(sampler);
    return status;
}

const sm_cmd sm_cmd_top = {
    .name = "top",
    .usage = "[--interval S] [--count N] [-l K=V]... [--run RUN] [--user USER]",
    .summary = "live CPU, memory, pids, IO and failures of every sandbox (JSON lines with -o json)",
    .flags = CLI_PROVIDER,
    .opts = top_opts,
    .args_size = sizeof(top_args),
    .init = top_init,
    .opt = top_opt,
    .run = cmd_top,
    .done = top_done,
};
