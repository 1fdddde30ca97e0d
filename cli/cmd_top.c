/* `sandman top`: the dashboard's rows headlessly, one table (or JSON lines) per interval,
 * from the same sampler, histories and failure attribution. */
#include <cjson/cJSON.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "core/attribution.h"
#include "core/diagnose.h"
#include "core/journal.h"
#include "core/json.h"
#include "core/sampler.h"
#include "core/strtab.h"
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

/* What top keeps per sandbox between ticks. */
typedef struct top_state {
    sm_history history;
    sm_failure last;
    double last_at;
} top_state;

static void free_state(void *v, void *ud)
{
    free(v);
}

static top_state *state_of(sm_strtab *t, const char *id)
{
    top_state *s = sm_strtab_get(t, id);
    if (!s) {
        s = xcalloc(1, sizeof *s);
        sm_failure_init(&s->last);
        sm_strtab_put(t, id, s);
    }
    return s;
}

static void fold_events(sm_strtab *t, cJSON *events)
{
    const cJSON *ev;
    cJSON_ArrayForEach(ev, events)
    {
        const char *id = sm_json_str(ev, "sandbox_id");
        const cJSON *fj = cJSON_GetObjectItemCaseSensitive(ev, "failure");
        top_state *s = id ? sm_strtab_get(t, id) : NULL;
        if (s && fj) {
            sm_failure f;
            sm_failure_from_json(fj, &f);
            sm_failure_note(&s->last, &s->last_at, &f, sm_parse_time(sm_json_str(ev, "ts")));
        }
    }
    cJSON_Delete(events);
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

static void print_tick(sm_cli *cli, sm_sandbox_info *list, size_t n, sm_strtab *states)
{
    double now = sm_now_wall();
    char ts[40];
    sm_format_time(now, ts, sizeof ts);
    if (!cli->json)
        fprintf(cli->out,
                "%s  %zu sandboxes\n%-12s  %-8s  %-8s  %-12s  %-16s  %6s  %6s  %6s  %-17s  %-11s  "
                "%-19s  %s\n",
                ts, n, "ID", "PROVIDER", "STATUS", "RUN", "IMAGE", "AGE", "TTL", "CPU%",
                "MEM/LIMIT", "PIDS/LIMIT", "IO R/W per s", "FAILURE");
    for (size_t i = 0; i < n; i++) {
        top_state *s = state_of(states, list[i].id);
        const sm_sample *cur = sm_history_at(&s->history, 0);
        sm_rates r;
        sm_history_rates(&s->history, &r);
        sm_failure why;
        bool warning = false;
        bool has = sm_diagnose(&list[i], &s->last, &r, &why, &warning);
        char label[160] = "-";
        bool live = list[i].status == SM_STATUS_RUNNING || list[i].status == SM_STATUS_STARTING;
        double ttl_left = sm_sandbox_info_ttl_left(&list[i], now);
        const char *run = sm_map_get(&list[i].labels, SM_LABEL_RUN);
        if (has)
            sm_failure_label(&why, label, sizeof label);
        if (cli->json) {
            cJSON *o = cJSON_CreateObject();
            cJSON_AddStringToObject(o, "ts", ts);
            cJSON_AddStringToObject(o, "id", list[i].id);
            cJSON_AddStringToObject(o, "provider", list[i].provider);
            cJSON_AddStringToObject(o, "status", sm_status_name(list[i].status));
            if (run)
                cJSON_AddStringToObject(o, "run", run);
            else
                cJSON_AddNullToObject(o, "run");
            if (list[i].image)
                cJSON_AddStringToObject(o, "image", list[i].image);
            else
                cJSON_AddNullToObject(o, "image");
            num(o, "age_s", list[i].created_at > 0 ? now - list[i].created_at : -1);
            num(o, "ttl_left_s", ttl_left);
            num(o, "cpu_percent", r.cpu_pct);
            num(o, "memory_working_set", cur ? (double)cur->mem_working_set : -1);
            num(o, "memory_limit", cur ? (double)cur->mem_limit : -1);
            num(o, "pids", cur ? (double)cur->pids : -1);
            num(o, "pids_limit", cur && cur->pids_limit > 0 ? (double)cur->pids_limit : -1);
            num(o, "io_read_bps", r.io_read_bps);
            num(o, "io_write_bps", r.io_write_bps);
            num(o, "net_rx_bps", r.net_rx_bps);
            num(o, "net_tx_bps", r.net_tx_bps);
            num(o, "oom_kills", cur ? (double)cur->oom_kills : -1);
            if (has) {
                cJSON *f = sm_failure_to_json(&why);
                cJSON_AddBoolToObject(f, "warning", warning);
                cJSON_AddItemToObject(o, "failure", f);
            } else {
                cJSON_AddNullToObject(o, "failure");
            }
            cli_print_json_line(cli, o);
            continue;
        }
        char cpu[16] = "-", mem[48] = "-", pids[48] = "-", io[48] = "-", a[24], b[24];
        if (r.cpu_pct >= 0)
            snprintf(cpu, sizeof cpu, "%.1f", r.cpu_pct);
        if (cur && cur->mem_working_set >= 0) {
            sm_format_bytes((double)cur->mem_working_set, a, sizeof a);
            sm_format_bytes((double)cur->mem_limit, b, sizeof b);
            snprintf(mem, sizeof mem, "%s/%s", a, cur->mem_limit > 0 ? b : "-");
        }
        if (cur && cur->pids >= 0 && cur->pids_limit > 0)
            snprintf(pids, sizeof pids, "%lld/%lld", cur->pids, cur->pids_limit);
        else if (cur && cur->pids >= 0)
            snprintf(pids, sizeof pids, "%lld/-", cur->pids);
        char age[24] = "-", ttl[24] = "-";
        if (list[i].created_at > 0)
            sm_format_duration(now - list[i].created_at, age, sizeof age);
        if (ttl_left >= 0 && !live)
            snprintf(ttl, sizeof ttl, "ended");
        else if (ttl_left >= 0)
            sm_format_duration(ttl_left, ttl, sizeof ttl);
        if (r.io_read_bps >= 0) {
            sm_format_bytes(r.io_read_bps, a, sizeof a);
            sm_format_bytes(r.io_write_bps, b, sizeof b);
            snprintf(io, sizeof io, "%s/%s", a, b);
        }
        char id[13], prov[9], img[17], e_label[640], runf[13];
        cli_printf(cli->out,
                   "%-12.12s  %-8.8s  %-8s  %-12s  %-16.16s  %6s  %6s  %6s  %-17s  %-11s  %-19s  "
                   "%s\n",
                   cli_field(list[i].id, id, sizeof id),
                   cli_field(list[i].provider, prov, sizeof prov), sm_status_name(list[i].status),
                   cli_field(run ? run : "-", runf, sizeof runf),
                   cli_field(list[i].image ? list[i].image : "-", img, sizeof img), age, ttl, cpu,
                   mem, pids, io, cli_field(label, e_label, sizeof e_label));
    }
    if (!cli->json)
        fprintf(cli->out, "\n");
    fflush(cli->out);
}

static void sleep_s(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    while (!stop && nanosleep(&ts, &ts) < 0) {
    }
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
    sm_strtab states;
    sm_strtab_init(&states, free_state, NULL);
    sm_list_filter f = {.labels = &a->labels, .all = true};
    /* tick 0 only primes the rates; each later tick prints */
    for (long tick = 0; !stop && (a->count == 0 || tick <= a->count); tick++) {
        sm_sandbox_info *list = NULL;
        size_t n = 0;
        sm_error err;
        sm_error_clear(&err);
        if (sm_provider_list(p, &f, &list, &n, &err) != SM_OK) {
            status = cli_fail(cli, &err);
            break;
        }
        sm_sample *samples = xcalloc(n ? n : 1, sizeof *samples);
        bool *ok = xcalloc(n ? n : 1, sizeof *ok);
        sm_sampler_collect(sampler, list, n, samples, ok);
        const char **ids = xcalloc(n ? n : 1, sizeof *ids);
        for (size_t i = 0; i < n; i++) {
            ids[i] = list[i].id;
            top_state *s = state_of(&states, list[i].id);
            if (!ok[i])
                continue;
            sm_failure_observe_sample(&s->history, &samples[i], &list[i], sm_provider_name(p),
                                      &s->last, &s->last_at);
        }
        sm_strtab_retain(&states, ids, n);
        fold_events(&states, sm_journal_follower_poll(follower));
        if (tick > 0)
            print_tick(cli, list, n, &states);
        free(ids);
        free(ok);
        free(samples);
        sm_sandbox_info_list_free(list, n);
        if (a->count == 0 || tick < a->count)
            sleep_s(a->interval);
    }
    sigaction(SIGINT, &old, NULL);
    sm_strtab_clear(&states);
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
