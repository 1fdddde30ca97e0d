/* The dashboard program's `tui` verb: runs the dashboard in this process. */
#include "main/commands.h"
#include "tui/tui.h"

int sm_tui_start(sm_cli *cli, cli_call *c)
{
    (void)c;
    return tui_run(cli);
}
