/* `sandman ls`: the sandboxes of the context, as a table, ids (-q) or JSON; a rollout is a
 * run (its attribution label), so runs and users select and group them. The rows and cells are
 * the fleet's (core/fleet.h), one scan without samples. */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/table.h"
#include "core/attribution.h"
#include "core/fleet.h"
#include "core/util.h"

typedef struct ls_args {
    sm_map labels;
    bool all;
    bool quiet;
    char *group; /* the label key rows are grouped by, or NULL */
} ls_args;

enum { L_LABEL = 1, L_ALL, L_QUIET, L_RUN, L_USER, L_GROUP };
static const cli_opt ls_opts[] = {
    {"all", 'a', NULL, "include ended sandboxes", L_ALL},
    {"label", 'l', "K=V", "only sandboxes with this label (repeatable)", L_LABEL},
    {"run", 0, "RUN", "only the sandboxes of this run (label " SM_LABEL_RUN ")", L_RUN},
    {"user", 0, "USER", "only this user's sandboxes (label " SM_LABEL_USER ")", L_USER},
    {"group-by", 'g', "KEY", "one table per value of run, user, team, workload or any label key",
     L_GROUP},
    {"quiet", 'q', NULL, "ids only", L_QUIET},
    {NULL, 0, NULL, NULL, 0}};

/* run/user/team/workload name the attribution labels; anything else is a label key. */
static char *group_key(const char *arg)
{
    static const char *const fields[] = {"run", "user", "team", "workload"};
    for (size_t i = 0; i < SM_ARRAY_LEN(fields); i++)
        if (!strcmp(arg, fields[i]))
            return xasprintf("%s%s", SM_ATTRIBUTION_PREFIX, arg);
    return xstrdup(arg);
}

static int ls_opt(sm_cli *cli, void *args, int id, const char *arg)
{
    ls_args *a = args;
    switch (id) {
    case L_ALL: a->all = true; break;
    case L_QUIET: a->quiet = true; break;
    case L_RUN:
    case L_USER:
        if (!*arg)
            return cli_usage(cli, "--%s wants a non-empty value", id == L_RUN ? "run" : "user");
        sm_map_set(&a->labels, id == L_RUN ? SM_LABEL_RUN : SM_LABEL_USER, arg);
        break;
    case L_GROUP:
        if (!*arg)
            return cli_usage(cli, "--group-by wants run, user, team, workload or a label key");
        free(a->group);
        a->group = group_key(arg);
        break;
    default:
        if (sm_map_set_kv(&a->labels, arg) < 0)
            return cli_usage(cli, "--label wants KEY=VALUE, not '%s'", arg);
    }
    return 0;
}

static void ls_done(void *args)
{
    ls_args *a = args;
    sm_map_free(&a->labels);
    free(a->group);
}

/* The fleet's columns, so they say what `top` and the dashboard say. */
static const cli_column table[] = {
    {SM_COL_ID, -12, true},  {SM_COL_PROVIDER, -9, false}, {SM_COL_STATUS, -8, false},
    {SM_COL_RUN, -14, true}, {SM_COL_IMAGE, -24, true},    {SM_COL_AGE, -7, false},
    {SM_COL_TTL, -7, false}, {SM_COL_FAILURE, 0, false},
};
#define NCOLS (sizeof table / sizeof table[0])

/* The rows whose group label is v (NULL: without the label) and not printed yet, as a table
 * under its heading. */
static void print_group(sm_cli *cli, const sm_fleet *f, const char *key, const char *v, bool *done,
                        bool first, double now)
{
    size_t k = 0;
    for (size_t j = 0; j < f->n; j++) {
        const char *w = sm_map_get(&f->infos[j].labels, key);
        k += !done[j] && (v ? w && !strcmp(v, w) : !w);
    }
    char field[200];
    const char *name =
        sm_str_has_prefix(key, SM_ATTRIBUTION_PREFIX) ? key + strlen(SM_ATTRIBUTION_PREFIX) : key;
    cli_printf(cli->out, "%s%s %s (%zu sandbox%s)\n", first ? "" : "\n", name,
               cli_field(v ? v : "-", field, sizeof field), k, k == 1 ? "" : "es");
    cli_table_header(cli->out, table, NCOLS);
    for (size_t j = 0; j < f->n; j++) {
        const char *w = sm_map_get(&f->infos[j].labels, key);
        if (!done[j] && (v ? w && !strcmp(v, w) : !w)) {
            cli_table_row(cli->out, f, &f->rows[j], table, NCOLS, now);
            done[j] = true;
        }
    }
}

/* The table once per value of the group label, in order of first appearance (the list is
 * oldest first), sandboxes without the label last, under "-". JSON stays one array: every
 * element carries its labels. */
static void print_groups(sm_cli *cli, const sm_fleet *f, const char *key)
{
    bool *done = xcalloc(f->n ? f->n : 1, sizeof *done);
    bool first = true;
    double now = sm_now_wall();
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < f->n; i++) {
            const char *v = sm_map_get(&f->infos[i].labels, key);
            if (done[i] || (pass == 0) != (v != NULL))
                continue;
            print_group(cli, f, key, v, done, first, now);
            first = false;
        }
    }
    free(done);
}

static int cmd_ls(sm_cli *cli, cli_call *c)
{
    ls_args *a = c->args;
    sm_list_filter lf = {.labels = &a->labels, .all = a->all};
    sm_fleet *f = sm_fleet_new(sm_provider_name(c->provider));
    if (sm_fleet_apply(f, sm_fleet_scan(c->provider, NULL, &lf), NULL) != SM_OK) {
        int rc = cli_fail(cli, &f->err);
        sm_fleet_free(f);
        return rc;
    }
    if (!a->quiet)
        sm_fleet_read_failures(f);
    if (cli->json) {
        cJSON *arr = cJSON_CreateArray();
        for (size_t i = 0; i < f->n; i++) {
            const sm_fleet_row *r = &f->rows[i];
            cJSON *o = sm_sandbox_info_to_json(r->info);
            /* the last failing command's, beside the sandbox's own */
            if (r->st->last_failure.kind != SM_FAIL_NONE)
                cJSON_AddItemToObject(o, "last_failure", sm_failure_to_json(&r->st->last_failure));
            else
                cJSON_AddNullToObject(o, "last_failure");
            cJSON_AddItemToArray(arr, o);
        }
        cli_print_json(cli, arr);
    } else if (a->quiet) {
        for (size_t i = 0; i < f->n; i++)
            cli_print_id(cli, f->infos[i].id);
    } else if (a->group && f->n) {
        print_groups(cli, f, a->group);
    } else {
        double now = sm_now_wall();
        cli_table_header(cli->out, table, NCOLS);
        for (size_t i = 0; i < f->n; i++)
            cli_table_row(cli->out, f, &f->rows[i], table, NCOLS, now);
    }
    sm_fleet_free(f);
    return CLI_OK;
}

const sm_cmd sm_cmd_ls = {
    .name = "ls",
    .usage = "[-a] [-q] [-l K=V]... [--run RUN] [--user USER] [--group-by KEY]",
    .summary = "list sandboxes",
    .flags = CLI_PROVIDER,
    .opts = ls_opts,
    .args_size = sizeof(ls_args),
    .opt = ls_opt,
    .run = cmd_ls,
    .done = ls_done,
};
