/* `sandman ls`: the sandboxes of the context, as a table, ids (-q) or JSON. */
#include <cjson/cJSON.h>
#include <stdlib.h>

#include "cli/cli.h"
#include "cli/format.h"
#include "core/journal.h"

typedef struct ls_args {
    sm_map labels;
    bool all;
    bool quiet;
} ls_args;

enum { L_LABEL = 1, L_ALL, L_QUIET };
static const cli_opt ls_opts[] = {
    {"all", 'a', NULL, "include ended sandboxes", L_ALL},
    {"label", 'l', "K=V", "only sandboxes with this label (repeatable)", L_LABEL},
    {"quiet", 'q', NULL, "ids only", L_QUIET},
    {NULL, 0, NULL, NULL, 0}};

static int ls_opt(sm_cli *cli, void *args, int id, const char *arg)
{
    ls_args *a = args;
    if (id == L_ALL)
        a->all = true;
    else if (id == L_QUIET)
        a->quiet = true;
    else if (sm_map_set_kv(&a->labels, arg) < 0)
        return cli_usage(cli, "--label wants KEY=VALUE, not '%s'", arg);
    return 0;
}

static void ls_done(void *args)
{
    sm_map_free(&((ls_args *)args)->labels);
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
    } else {
        cli_print_info_table(cli->out, list, n);
    }
    sm_sandbox_info_list_free(list, n);
    return CLI_OK;
}

const sm_cmd sm_cmd_ls = {
    .name = "ls",
    .usage = "[-a] [-q] [-l K=V]...",
    .summary = "list sandboxes",
    .flags = CLI_PROVIDER,
    .opts = ls_opts,
    .args_size = sizeof(ls_args),
    .opt = ls_opt,
    .run = cmd_ls,
    .done = ls_done,
};
