/* `sandman status ID`: one sandbox's status, resources and why it ended. */
#include "cli/cli.h"
#include "cli/format.h"

static int cmd_status(sm_cli *cli, cli_call *c)
{
    sm_sandbox *s = c->target;
    sm_sandbox_info info;
    sm_error err;
    sm_error_clear(&err);
    sm_sandbox_status(s, &info, &err);
    if (cli->json)
        cli_print_json(cli, sm_sandbox_info_to_json(&info));
    else
        cli_print_info_detail(cli->out, &info);
    sm_sandbox_info_free(&info);
    return CLI_OK;
}

const sm_cmd sm_cmd_status = {
    .name = "status",
    .usage = "ID",
    .summary = "show a sandbox's status and why it ended",
    .flags = CLI_TARGET,
    .max_pos = 1,
    .run = cmd_status,
};
