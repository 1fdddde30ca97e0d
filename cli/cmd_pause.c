/* `sandman pause ID` and `sandman resume ID`: freeze a sandbox's processes and thaw them, on
 * providers with the pause capability (a clear refusal elsewhere). One file for the pair:
 * they are one operation in two directions. */
#include <cjson/cJSON.h>

#include "cli/cli.h"

static int pause_or_resume(sm_cli *cli, cli_call *c, bool pause)
{
    sm_error err;
    sm_error_clear(&err);
    if (sm_sandbox_pause(c->target, pause, &err) != SM_OK)
        return cli_fail(cli, &err);
    if (cli->json) {
        cJSON *doc = cJSON_CreateObject();
        cJSON_AddStringToObject(doc, "sandbox_id", sm_sandbox_id(c->target));
        cJSON_AddBoolToObject(doc, "paused", pause);
        cli_print_json(cli, doc);
    } else {
        cli_print_id(cli, sm_sandbox_id(c->target));
    }
    return CLI_OK;
}

static int cmd_pause(sm_cli *cli, cli_call *c)
{
    return pause_or_resume(cli, c, true);
}

static int cmd_resume(sm_cli *cli, cli_call *c)
{
    return pause_or_resume(cli, c, false);
}

const sm_cmd sm_cmd_pause = {
    .name = "pause",
    .usage = "ID",
    .summary = "freeze every process of a sandbox (providers with the pause capability)",
    .flags = CLI_TARGET,
    .max_pos = 1,
    .run = cmd_pause,
};

const sm_cmd sm_cmd_resume = {
    .name = "resume",
    .usage = "ID",
    .summary = "let a paused sandbox's processes run again",
    .flags = CLI_TARGET,
    .max_pos = 1,
    .run = cmd_resume,
};
