/* `sandman rm ID...`: ends sandboxes and removes every trace of them (already gone = done,
 * exit 0 with a note, as close is idempotent). `rm --run RUN` (or --user, -l K=V) removes every
 * sandbox with those labels: a rollout's. */
#include <cjson/cJSON.h>
#include <stdlib.h>

#include "cli/cli.h"
#include "core/attribution.h"
#include "core/strbuf.h"
#include "core/util.h"

typedef struct rm_args {
    sm_map labels; /* the selection, instead of ids */
} rm_args;

enum { R_RUN = 1, R_USER, R_LABEL };
static const cli_opt rm_opts[] = {
    {"run", 0, "RUN", "every sandbox of this run (label " SM_LABEL_RUN ")", R_RUN},
    {"user", 0, "USER", "every sandbox of this user (label " SM_LABEL_USER ")", R_USER},
    {"label", 'l', "K=V", "every sandbox with this label (repeatable; all must match)", R_LABEL},
    {NULL, 0, NULL, NULL, 0}};

static int rm_opt(sm_cli *cli, void *args, int id, const char *arg)
{
    rm_args *a = args;
    if (id == R_LABEL)
        return sm_map_set_kv(&a->labels, arg) < 0
                   ? cli_usage(cli, "--label wants KEY=VALUE, not '%s'", arg)
                   : 0;
    if (!*arg)
        return cli_usage(cli, "--%s wants a non-empty value", id == R_RUN ? "run" : "user");
    sm_map_set(&a->labels, id == R_RUN ? SM_LABEL_RUN : SM_LABEL_USER, arg);
    return 0;
}

static void rm_done(void *args)
{
    sm_map_free(&((rm_args *)args)->labels);
}

static int rm_check(sm_cli *cli, cli_call *c)
{
    rm_args *a = c->args;
    if (a->labels.n && c->npos)
        return cli_usage(cli, "give sandbox ids or a selection (--run, --user, -l), not both");
    return c->npos == 0 && !a->labels.n
               ? cli_usage(cli, "missing sandbox id (or --run RUN, --user USER, -l K=V)")
               : 0;
}

/* The ids the selection matches, ended sandboxes too. NULL on error (reported). */
static char **selected_ids(sm_cli *cli, cli_call *c, int *count, int *status)
{
    rm_args *a = c->args;
    sm_list_filter f = {.labels = &a->labels, .all = true};
    sm_sandbox_info *list = NULL;
    size_t n = 0;
    sm_error err;
    sm_error_clear(&err);
    if (sm_provider_list(c->provider, &f, &list, &n, &err) != SM_OK) {
        *status = cli_fail(cli, &err);
        return NULL;
    }
    char **ids = xcalloc(n + 1, sizeof *ids);
    for (size_t i = 0; i < n; i++)
        ids[i] = xstrdup(list[i].id);
    sm_sandbox_info_list_free(list, n);
    *count = (int)n;
    return ids;
}

/* "run=r1, user=alice" for the summary line. */
static char *selection_text(const sm_map *labels)
{
    sm_strbuf b = {0};
    for (size_t i = 0; i < labels->n; i++) {
        const char *k = labels->items[i].key;
        if (sm_str_has_prefix(k, SM_ATTRIBUTION_PREFIX))
            k += sizeof SM_ATTRIBUTION_PREFIX - 1;
        sm_strbuf_printf(&b, "%s%s=%s", i ? ", " : "", k, labels->items[i].value);
    }
    return b.data ? b.data : xstrdup("");
}

/* Each id is opened and stopped on its own: one that fails does not keep the others. */
static int cmd_rm(sm_cli *cli, cli_call *c)
{
    int status = CLI_OK;
    rm_args *a = c->args;
    char **ids = c->pos, **sel = NULL;
    int nids = c->npos, nremoved = 0;
    if (a->labels.n && !(ids = sel = selected_ids(cli, c, &nids, &status)))
        return status;
    cJSON *removed = cJSON_CreateArray();
    for (int i = 0; i < nids; i++) {
        int one = CLI_OK;
        sm_sandbox *s = cli_open_sandbox_or_gone(cli, ids[i], &one);
        if (!s) {
            status = status ? status : one;
            continue;
        }
        sm_error err;
        sm_error_clear(&err);
        if (sm_sandbox_stop(s, &err) != SM_OK) {
            one = cli_fail(cli, &err);
            status = status ? status : one;
        } else if (cli->json) {
            cJSON_AddItemToArray(removed, cJSON_CreateString(sm_sandbox_id(s)));
            nremoved++;
        } else {
            cli_print_id(cli, sm_sandbox_id(s));
            nremoved++;
        }
        sm_sandbox_free(s);
    }
    if (sel) {
        char *what = selection_text(&a->labels);
        if (nids == 0)
            cli_printf(cli->err, "sandman: no sandbox has %s: nothing to remove\n", what);
        else
            cli_printf(cli->err, "sandman: removed %d of %d sandbox%s with %s\n", nremoved, nids,
                       nids == 1 ? "" : "es", what);
        free(what);
        for (int i = 0; i < nids; i++)
            free(sel[i]);
        free(sel);
    }
    if (cli->json && !cli->error_printed) { /* else the error object is the one document */
        cJSON *doc = cJSON_CreateObject();
        cJSON_AddItemToObject(doc, "removed", removed);
        cli_print_json(cli, doc);
    } else {
        cJSON_Delete(removed);
    }
    return status;
}

const sm_cmd sm_cmd_rm = {
    .name = "rm",
    .usage = "ID... | --run RUN | --user USER | -l K=V...",
    .summary = "end sandboxes and remove every trace of them",
    .flags = CLI_PROVIDER,
    .max_pos = -1,
    .opts = rm_opts,
    .args_size = sizeof(rm_args),
    .opt = rm_opt,
    .done = rm_done,
    .check = rm_check,
    .run = cmd_rm,
};
