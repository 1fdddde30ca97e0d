/* sandman's entry point: dispatches a verb from the command table, or opens the dashboard. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "providers/builtin.h"

int main(int argc, char **argv)
{
    signal(SIGPIPE, SIG_IGN);
    sm_builtin_register_all();
    sm_cli cli;
    cli_init(&cli);
    int status;
    if (argc < 2 || !strcmp(argv[1], "help") || !strcmp(argv[1], "--help") ||
        !strcmp(argv[1], "-h")) {
        cli_print_usage(stdout);
        status = CLI_OK;
    } else if (!strcmp(argv[1], "--version")) {
        printf("sandman 0.1.0\n");
        status = CLI_OK;
    } else {
        const sm_cmd *cmd = cli_find_command(argv[1]);
        if (!cmd)
            status = cli_usage(&cli, "unknown command '%s'", argv[1]);
        else
            status = cli_run_command(&cli, cmd, argc - 1, argv + 1);
    }
    cli_free(&cli);
    return status;
}
