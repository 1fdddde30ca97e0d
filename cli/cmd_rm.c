/* `sandman rm ID...`: ends sandboxes and removes every trace of them (already gone = done,
 * exit 0 with a note, as close is idempotent). */
#include <cjson/cJSON.h>

#include "cli/cli.h"

static int rm_check(sm_cli *cli, cli_call *c)
{
    return c->npos == 0 ? cli_usage(cli, "missing sandbox id") : 0;
}

/* Each id is opened and stopped on its own: one that fails does not keep the others. */
static int cmd_rm(sm_cli *cli, cli_call *c)
{
    int status = CLI_OK;
    cJSON *removed = cJSON_CreateArray();
    for (int i = 0; i < c->npos; i++) {
        int one = CLI_OK;
        sm_sandbox *s = cli_open_sandbox_or_gone(cli, c->pos[i], &one);
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
        } else {
            cli_print_id(cli, sm_sandbox_id(s));
        }
        sm_sandbox_free(s);
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
    .usage = "ID...",
    .summary = "end sandboxes and remove every trace of them",
    .flags = CLI_PROVIDER,
    .max_pos = -1,
    .check = rm_check,
    .run = cmd_rm,
};
