/* Read-only commands: providers, stats, events. */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "core/journal.h"
#include "core/json.h"
#include "core/util.h"

static int cmd_providers(sm_cli *cli, int argc, char **argv)
{
    char *pos[1];
    int npos;
    int rc = cli_parse(cli, cli_find_command("providers"), NULL, NULL, NULL, argc, argv, pos, 0,
                       &npos, 0, NULL, NULL);
    if (rc != 0)
        return rc < 0 ? CLI_OK : rc;
    const char *names[32];
    size_t n = sm_provider_names(names, 32);
    cJSON *arr = cJSON_CreateArray();
    if (!cli->json)
        fprintf(cli->out, "%-12s  %-44s  %s\n", "PROVIDER", "CAPABILITIES", "NOTES");
    for (size_t i = 0; i < n; i++) {
        const sm_provider_ops *ops = sm_provider_lookup(names[i]);
        char caps[256];
        sm_caps_names(ops->caps, caps, sizeof caps);
        char *note = NULL;
        sm_provider *p = NULL;
        if (ops->describe && sm_provider_new(names[i], NULL, &p, NULL) == SM_OK) {
            note = ops->describe(p);
            sm_provider_free(p);
        }
        if (cli->json) {
            cJSON *o = cJSON_CreateObject();
            cJSON_AddStringToObject(o, "name", ops->name);
            cJSON_AddStringToObject(o, "summary", ops->summary ? ops->summary : "");
            cJSON *ca = cJSON_AddArrayToObject(o, "capabilities");
            char *save = NULL;
            for (char *c = strtok_r(caps, ",", &save); c; c = strtok_r(NULL, ",", &save))
                cJSON_AddItemToArray(ca, cJSON_CreateString(c));
            if (note)
                cJSON_AddStringToObject(o, "notes", note);
            cJSON_AddItemToArray(arr, o);
        } else {
            cli_printf(cli->out, "%-12s  %-44s  %s%s%s\n", ops->name, caps,
                       ops->summary ? ops->summary : "", note ? "; " : "", note ? note : "");
        }
        free(note);
    }
    if (cli->json)
        cli_print_json(cli, arr);
    else
        cJSON_Delete(arr);
    return CLI_OK;
}

static void print_sample(sm_cli *cli, const sm_sample *s, double pct)
{
    char a[32], b[32], c[32];
    if (pct >= 0)
        fprintf(cli->out, "cpu:        %.1f%%", pct);
    else
        fprintf(cli->out, "cpu:        -");
    if (s->cpu_limit > 0)
        fprintf(cli->out, " of %g cores", s->cpu_limit);
    if (s->cpu_time_s >= 0)
        fprintf(cli->out, " (%.2fs total)", s->cpu_time_s);
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
    if (s->oom_kills > 0)
        fprintf(cli->out, "oom kills:  %lld\n", s->oom_kills);
    if (s->pids_events > 0)
        fprintf(cli->out, "pids limit hit: %lld times\n", s->pids_events);
}

static int cmd_stats(sm_cli *cli, int argc, char **argv)
{
    int status = CLI_OK;
    sm_sandbox *s = cli_parse_one_sandbox(cli, argc, argv, &status);
    if (!s)
        return status;
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
    sm_sandbox_free(s);
    return status;
}

static int cmd_events(sm_cli *cli, int argc, char **argv)
{
    int status = CLI_OK;
    sm_sandbox *s = cli_parse_one_sandbox(cli, argc, argv, &status);
    if (!s)
        return status;
    cJSON *events = NULL;
    sm_journal_read(sm_sandbox_provider(s)->ops->name, sm_sandbox_id(s), &events);
    if (cli->json) {
        cli_print_json(cli, events);
    } else {
        const cJSON *ev;
        cJSON_ArrayForEach(ev, events)
        {
            char line[1024], e_line[4096], e_ts[160], e_type[160];
            sm_journal_event_summary(ev, line, sizeof line);
            const char *ts = sm_json_str(ev, "ts"), *type = sm_json_str(ev, "type");
            cli_printf(cli->out, "%s  %-9s  %s\n", cli_field(ts ? ts : "", e_ts, sizeof e_ts),
                       cli_field(type ? type : "", e_type, sizeof e_type),
                       cli_field(line, e_line, sizeof e_line));
        }
        cJSON_Delete(events);
    }
    sm_sandbox_free(s);
    return CLI_OK;
}

const sm_cmd sm_cmd_providers = {"providers", "", "list providers and their capabilities", NULL,
                                 cmd_providers};
const sm_cmd sm_cmd_stats = {
    "stats", "ID", "CPU, memory (working set), pids, IO and failure counters", NULL, cmd_stats};
const sm_cmd sm_cmd_events = {"events", "ID",
                              "a sandbox's journal: lifecycle, exec, transfer and failure events",
                              NULL, cmd_events};
