/* `sandman tui` (also what `sandman` with no command runs): the dashboard. The one verb that
 * sees both front ends, so it lives with the program, not in cli/. */
#include <stdlib.h>

#include "cli/cli.h"
#include "core/util.h"
#include "tui/tui.h"

static const cli_opt tui_opts[] = {
    {"theme", 0, "NAME", "default, light, high-contrast, mono or a path", 1},
    {NULL, 0, NULL, NULL, 0},
};

static int tui_opt(sm_cli *cli, void *args, int id, const char *arg)
{
    free(cli->theme);
    cli->theme = xstrdup(arg);
    return 0;
}

static int cmd_tui(sm_cli *cli, cli_call *c)
{
    return tui_run(cli);
}

const sm_cmd sm_cmd_tui = {
    .name = "tui",
    .usage = "[--theme NAME]",
    .summary = "the dashboard: live sandboxes, telemetry, failures (the default)",
    .opts = tui_opts,
    .opt = tui_opt,
    .run = cmd_tui,
};
