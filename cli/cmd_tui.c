/* `sandman tui` (also what `sandman` with no command runs): the dashboard. */
#include "cli/cli.h"
#include "tui/tui.h"

static int cmd_tui(sm_cli *cli, int argc, char **argv)
{
    char *pos[1];
    int npos;
    int rc = cli_parse(cli, cli_find_command("tui"), NULL, NULL, NULL, argc, argv, pos, 0, &npos, 0,
                       NULL, NULL);
    if (rc != 0)
        return rc < 0 ? CLI_OK : rc;
    return tui_run(cli);
}

const sm_cmd sm_cmd_tui = {
    "tui", "[--theme NAME]", "the dashboard: live sandboxes, telemetry, failures (the default)",
    "      --theme NAME   default, light, high-contrast, mono or a path\n", cmd_tui};
