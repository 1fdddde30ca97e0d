/* `sandman logs ID [-f] [--since D] [--exec N] [--list]`: the output a sandbox kept (its
 * entrypoint's stdout/stderr and the last part of each exec's), as `docker logs` shows a
 * container's. The text was redacted when kept; it is the commands' own output, printed as is. */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "core/output.h"
#include "core/util.h"

typedef struct logs_args {
    bool follow, list;
    double since; /* seconds back; 0 = everything kept */
    long exec;    /* 0 = the entrypoint and the last exec */
} logs_args;

enum { G_FOLLOW = 1, G_SINCE, G_EXEC, G_LIST };
static const cli_opt logs_opts[] = {
    {"follow", 'f', NULL, "keep printing output as it is kept, until the sandbox ends", G_FOLLOW},
    {"since", 0, "D", "only output kept in the last D (30s, 10m, 2h, 1d)", G_SINCE},
    {"exec", 0, "N", "the output of exec N only (numbers as --list shows them)", G_EXEC},
    {"list", 0, NULL, "list the kept outputs: number, time, exit code, command", G_LIST},
    {NULL, 0, NULL, NULL, 0}};

/* "90", "90s", "10m", "2h", "1d", "1h30m". */
static int logs_opt(sm_cli *cli, void *args, int id, const char *arg)
{
    logs_args *a = args;
    switch (id) {
    case G_FOLLOW: a->follow = true; return 0;
    case G_LIST: a->list = true; return 0;
    case G_SINCE:
        if (sm_parse_duration(arg, &a->since) || !(a->since > 0))
            return cli_usage(cli, "--since wants a duration such as 30s, 10m, 2h or 1d, not '%s'",
                             arg);
        return 0;
    case G_EXEC:
        if (sm_parse_long(arg, &a->exec) || a->exec < 1 || a->exec > 1000000000)
            return cli_usage(cli, "--exec wants an exec number (1 or more, see --list), not '%s'",
                             arg);
        return 0;
    }
    return 0;
}

static cJSON *entry_json(const sm_output_entry *e)
{
    cJSON *o = cJSON_CreateObject();
    char ts[40];
    cJSON_AddNumberToObject(o, "n", e->n);
    cJSON_AddStringToObject(o, "kind", e->n ? "exec" : "entrypoint");
    sm_format_time(e->ts, ts, sizeof ts);
    cJSON_AddStringToObject(o, "ts", ts);
    cJSON_AddStringToObject(o, "cmd", e->cmd ? e->cmd : "");
    if (e->n) {
        cJSON_AddNumberToObject(o, "return_code", e->return_code);
        cJSON_AddNumberToObject(o, "duration_ms", e->duration_ms);
    }
    if (e->out)
        cJSON_AddStringToObject(o, "stdout", e->out);
    if (e->err)
        cJSON_AddStringToObject(o, "stderr", e->err);
    cJSON_AddNumberToObject(o, "dropped", (double)e->dropped);
    return o;
}

static void header(sm_cli *cli, const sm_output_entry *e)
{
    char cmd[600];
    if (e->n == 0) {
        cli_printf(cli->out, "==> entrypoint <==\n");
        return;
    }
    cli_printf(cli->out, "==> exec %d: %s (exit %d) <==\n", e->n,
               cli_field(e->cmd ? e->cmd : "", cmd, sizeof cmd), e->return_code);
}

/* One output's text: stdout on our stdout, stderr on our stderr, as the command wrote them. */
static void print_entry(sm_cli *cli, const sm_output_entry *e, bool with_header)
{
    if (cli->json) {
        cli_print_json_line(cli, entry_json(e));
        return;
    }
    if (with_header)
        header(cli, e);
    if (e->dropped > 0)
        fprintf(cli->err, "(%lld earlier bytes not kept)\n", e->dropped);
    fflush(cli->err);
    fwrite(e->out, 1, e->out_len, cli->out);
    fflush(cli->out);
    fwrite(e->err, 1, e->err_len, cli->err);
    fflush(cli->err);
}

static int list_outputs(sm_cli *cli, const char *prov, const char *id, double since)
{
    sm_output_entry *list;
    size_t n;
    sm_output_list(prov, id, &list, &n);
    cJSON *arr = cli->json ? cJSON_CreateArray() : NULL;
    if (!cli->json)
        fprintf(cli->out, "%-6s  %-24s  %-5s  %s\n", "N", "TIME", "EXIT", "COMMAND");
    for (size_t i = 0; i < n; i++) {
        if (since <= 0 || list[i].ts >= since) {
            if (arr) {
                cJSON_AddItemToArray(arr, entry_json(&list[i]));
            } else {
                char ts[40], code[16], cmd[600];
                sm_format_time(list[i].ts, ts, sizeof ts);
                snprintf(code, sizeof code, "%d", list[i].return_code);
                cli_printf(cli->out, "%-6d  %-24s  %-5s  %s\n", list[i].n, ts,
                           list[i].n ? code : "-", cli_field(list[i].cmd, cmd, sizeof cmd));
            }
        }
        sm_output_entry_free(&list[i]);
    }
    free(list);
    if (arr)
        cli_print_json(cli, arr);
    return CLI_OK;
}

static bool ended(sm_sandbox *s)
{
    sm_error err;
    sm_error_clear(&err);
    sm_status st = sm_sandbox_status(s, NULL, &err);
    return st == SM_STATUS_STOPPED || st == SM_STATUS_ERROR || st == SM_STATUS_UNKNOWN;
}

/* Prints what is kept from now on: the entrypoint's new bytes and each exec as it is kept. */
static void follow(sm_cli *cli, sm_sandbox *s, const char *prov, const char *id, long long off,
                   unsigned long long ino, int last_exec)
{
    for (bool last_round = false;;) {
        sm_sandbox_sync_entry_output(s);
        char *buf = NULL;
        size_t len = 0;
        if (sm_output_follow_entry(prov, id, &off, &ino, &buf, &len) > 0) {
            if (cli->json) {
                cJSON *o = cJSON_CreateObject();
                cJSON_AddNumberToObject(o, "n", 0);
                cJSON_AddStringToObject(o, "kind", "entrypoint");
                cJSON_AddStringToObject(o, "stdout", buf);
                cli_print_json_line(cli, o);
            } else {
                fwrite(buf, 1, len, cli->out);
                fflush(cli->out);
            }
        }
        free(buf);
        sm_output_entry e;
        while (sm_output_read(prov, id, last_exec + 1, &e) == SM_OK) {
            print_entry(cli, &e, true);
            last_exec = e.n;
            sm_output_entry_free(&e);
        }
        if (last_round)
            break;
        last_round = ended(s); /* one more round for what came with the end */
        if (!last_round)
            sm_sleep_s(0.2, NULL);
    }
}

static int cmd_logs(sm_cli *cli, cli_call *c)
{
    logs_args *a = c->args;
    sm_sandbox *s = c->target;
    const char *prov = sm_provider_name(sm_sandbox_provider(s)), *id = sm_sandbox_id(s);
    double since = a->since > 0 ? sm_now_wall() - a->since : 0;
    sm_sandbox_sync_entry_output(s);
    if (a->list)
        return list_outputs(cli, prov, id, since);
    sm_output_entry e;
    if (a->exec > 0) {
        if (sm_output_read(prov, id, (int)a->exec, &e) != SM_OK)
            return cli_error(cli, CLI_FAIL,
                             "sandbox %s has no kept output of exec %ld (sandman logs %s --list "
                             "shows what is kept)",
                             id, a->exec, id);
        print_entry(cli, &e, false);
        sm_output_entry_free(&e);
        return CLI_OK;
    }
    /* The entrypoint's output, then the last exec's: all a sandbox has to say about itself. */
    sm_output_entry entry, last;
    bool have_entry = sm_output_read(prov, id, 0, &entry) == SM_OK;
    bool have_last = sm_output_read(prov, id, -1, &last) == SM_OK;
    if (have_entry && since > 0 && entry.ts < since) {
        sm_output_entry_free(&entry);
        have_entry = false;
    }
    if (have_last && since > 0 && last.ts < since) {
        sm_output_entry_free(&last);
        have_last = false;
    }
    int last_n = 0;
    if (!have_last && a->follow) { /* follow from the newest kept, even when --since hid it */
        sm_output_entry newest;
        if (sm_output_read(prov, id, -1, &newest) == SM_OK) {
            last_n = newest.n;
            sm_output_entry_free(&newest);
        }
    }
    if (have_entry)
        print_entry(cli, &entry, have_last);
    if (have_last) {
        print_entry(cli, &last, have_entry);
        last_n = last.n;
    }
    if (have_entry)
        sm_output_entry_free(&entry);
    if (have_last)
        sm_output_entry_free(&last);
    if (!a->follow)
        return CLI_OK;
    /* Start following where the entrypoint's text just printed ends. */
    long long off = 0;
    unsigned long long ino = 0;
    char *skip = NULL;
    size_t skip_len = 0;
    sm_output_follow_entry(prov, id, &off, &ino, &skip, &skip_len);
    free(skip);
    follow(cli, s, prov, id, off, ino, last_n);
    return CLI_OK;
}

const sm_cmd sm_cmd_logs = {
    .name = "logs",
    .usage = "ID [-f] [--since D] [--exec N] [--list]",
    .summary = "the output a sandbox kept: its entrypoint's and its last exec's (as docker logs)",
    .flags = CLI_TARGET,
    .max_pos = 1,
    .opts = logs_opts,
    .args_size = sizeof(logs_args),
    .opt = logs_opt,
    .run = cmd_logs,
    .stream_opt = G_FOLLOW,
};
