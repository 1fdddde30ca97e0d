/* `sandman tui` (also what `sandman` with no command runs): the dashboard's verb, its options
 * and help. It lives with the program, not in cli/, because it is the one verb that sees both
 * front ends. The headless `sandman` runs it by executing `sandman-dashboard`
 * (dashboard_exec.c), which runs it in-process (dashboard.c): so a headless verb never loads
 * ncursesw, libvterm or libuv. */
#include <stdlib.h>

#include "core/util.h"
#include "main/commands.h"

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

const sm_cmd sm_cmd_tui = {
    .name = "tui",
    .usage = "[--theme NAME]",
    .summary = "the dashboard: live sandboxes, telemetry, failures (the default)",
    .opts = tui_opts,
    .opt = tui_opt,
    .run = sm_tui_start,
};
