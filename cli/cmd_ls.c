/* `sandman ls`: the sandboxes of the context, as a table, ids (-q) or JSON; a rollout is a
 * run (its attribution label), so runs and users select and group them. */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/format.h"
#include "core/attribution.h"
#include "core/journal.h"
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

/* The table once per value of the group label, in order of first appearance (the list is
 * oldest first), sandboxes without the label last, under "-". JSON stays one array: every
 * element carries its labels. */
static void print_groups(sm_cli *cli, const char *key, sm_sandbox_info *list, size_t n)
{
    sm_sandbox_info *rows = n ? xcalloc(n, sizeof *rows) : NULL;
    bool *done = n ? xcalloc(n, sizeof *done) : NULL;
    bool first = true;
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < n; i++) {
            const char *v = sm_map_get(&list[i].labels, key);
            if (done[i] || (pass == 0) != (v != NULL))
                continue;
            size_t k = 0;
            for (size_t j = i; j < n; j++) {
                const char *w = sm_map_get(&list[j].labels, key);
                if (!done[j] && (v ? w && !strcmp(v, w) : !w)) {
                    rows[k++] = list[j]; /* shallow: printed, never freed */
                    done[j] = true;
                }
            }
            char field[200];
            const char *name = sm_str_has_prefix(key, SM_ATTRIBUTION_PREFIX)
                                   ? key + strlen(SM_ATTRIBUTION_PREFIX)
                                   : key;
            cli_printf(cli->out, "%s%s %s (%zu sandbox%s)\n", first ? "" : "\n", name,
                       cli_field(v ? v : "-", field, sizeof field), k, k == 1 ? "" : "es");
            cli_print_info_table(cli->out, rows, k);
            first = false;
        }
    }
    free(rows);
    free(done);
}

static int cmd_ls(sm_cli *cli, cli_call *c)
{
    ls_args *a = c->args;
    sm_list_filter f = {.labels = &a->labels, .all = a->all};
    sm_sandbox_info *list = NULL;
    size_t n = 0;
    sm_error err;
    sm_error_clear(&err);
    if (sm_provider_list(c->provider, &f, &list, &n, &err) != SM_OK)
        return cli_fail(cli, &err);
    if (cli->json) {
        cJSON *arr = cJSON_CreateArray();
        for (size_t i = 0; i < n; i++) {
            cJSON *o = sm_sandbox_info_to_json(&list[i]);
            sm_failure last; /* the last failing command's, beside the sandbox's own */
            if (sm_journal_last_failure(list[i].provider, list[i].id, &last))
                cJSON_AddItemToObject(o, "last_failure", sm_failure_to_json(&last));
            else
                cJSON_AddNullToObject(o, "last_failure");
            cJSON_AddItemToArray(arr, o);
        }
        cli_print_json(cli, arr);
    } else if (a->quiet) {
        for (size_t i = 0; i < n; i++)
            cli_print_id(cli, list[i].id);
    } else if (a->group && n) {
        print_groups(cli, a->group, list, n);
    } else {
        cli_print_info_table(cli->out, list, n);
    }
    sm_sandbox_info_list_free(list, n);
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
