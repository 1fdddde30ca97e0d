/* `sandman stats ID`: one sandbox's CPU rate, memory working set, pids, IO and failure
 * counters, from two samples a quarter second apart. */
#include <cjson/cJSON.h>
#include <unistd.h>

#include "cli/cli.h"
#include "core/util.h"

static void print_sample(sm_cli *cli, const sm_sample *s, double pct)
{
    char a[32], b[32], c[32];
    /* "49 % of one core (quota 0.5 cores)": a percentage of one core, never of the quota, said
     * in words so that 49 % is not read as half the quota used */
    if (pct >= 0)
        fprintf(cli->out, "cpu:        %.1f %% of one core", pct);
    else
        fprintf(cli->out, "cpu:        -");
    if (s->cpu_limit > 0)
        fprintf(cli->out, " (quota %g core%s)", s->cpu_limit, s->cpu_limit == 1 ? "" : "s");
    else
        fprintf(cli->out, " (no quota)");
    if (s->cpu_time_s >= 0)
        fprintf(cli->out, ", %.2f s of CPU time in all", s->cpu_time_s);
    fprintf(cli->out, "\n");
    if (s->nr_throttled > 0)
        fprintf(cli->out, "throttled:  %lld periods\n", s->nr_throttled);
    if (s->mem_working_set >= 0) {
        sm_format_bytes((double)s->mem_working_set, a, sizeof a);
        sm_format_bytes((double)s->mem_limit, b, sizeof b);
        sm_format_bytes((double)s->mem_usage, c, sizeof c);
        fprintf(cli->out, "memory:     %s / %s (working set; usage incl. cache %s)\n", a,
                s->mem_limit > 0 ? b : "unlimited", c);
    } else {
        fprintf(cli->out, "memory:     -\n");
    }
    if (s->pids >= 0) {
        fprintf(cli->out, "pids:       %lld", s->pids);
        if (s->pids_limit > 0)
            fprintf(cli->out, " / %lld", s->pids_limit);
        fprintf(cli->out, "\n");
    }
    if (s->io_read_bytes >= 0) {
        sm_format_bytes((double)s->io_read_bytes, a, sizeof a);
        sm_format_bytes((double)s->io_write_bytes, b, sizeof b);
        fprintf(cli->out, "block io:   read %s, write %s\n", a, b);
    }
    if (s->net_rx_bytes >= 0) {
        sm_format_bytes((double)s->net_rx_bytes, a, sizeof a);
        sm_format_bytes((double)s->net_tx_bytes, b, sizeof b);
        fprintf(cli->out, "network:    rx %s, tx %s\n", a, b);
    }
    if (s->oom_kills >= 0) /* 0 too: the count is known */
        fprintf(cli->out, "oom kills:  %lld\n", s->oom_kills);
    if (s->pids_events > 0)
        fprintf(cli->out, "pids limit hit: %lld times\n", s->pids_events);
}

static int cmd_stats(sm_cli *cli, cli_call *c)
{
    int status = CLI_OK;
    sm_sandbox *s = c->target;
    sm_sample a, b;
    sm_error err;
    sm_error_clear(&err);
    /* Two samples a quarter second apart give the CPU rate, as `docker stats` does. */
    int rc = sm_sandbox_stats(s, &a, &err);
    if (rc == SM_OK) {
        usleep(250000);
        rc = sm_sandbox_stats(s, &b, &err);
    }
    if (rc != SM_OK) {
        status = cli_fail(cli, &err);
    } else {
        double pct = sm_sample_cpu_percent(&a, &b);
        if (cli->json) {
            cJSON *doc = sm_sample_to_json(&b);
            cJSON_AddStringToObject(doc, "sandbox_id", sm_sandbox_id(s));
            if (pct >= 0)
                cJSON_AddNumberToObject(doc, "cpu_percent", pct);
            else
                cJSON_AddNullToObject(doc, "cpu_percent");
            cli_print_json(cli, doc);
        } else {
            print_sample(cli, &b, pct);
        }
    }
    return status;
}

const sm_cmd sm_cmd_stats = {
    .name = "stats",
    .usage = "ID",
    .summary = "CPU, memory (working set), pids, IO and failure counters",
    .flags = CLI_TARGET,
    .max_pos = 1,
    .run = cmd_stats,
};
