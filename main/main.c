/* sandman's entry point: registers the providers and the command table, then runs a verb, or
 * the dashboard when none is given. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "main/commands.h"
#include "providers/builtin.h"

char **sm_main_argv;

int main(int argc, char **argv)
{
    sm_main_argv = argv;
    signal(SIGPIPE, SIG_IGN);
    sm_builtin_register_all();
    cli_set_commands(sm_command_table);
    sm_cli cli;
    cli_init(&cli);
    int status;
    int v = cli_parse_global(&cli, argc, argv);
    if (v < 0) {
        status = CLI_USAGE;
    } else if (v >= argc) {
        status = cli_run_command(&cli, cli_find_command("tui"), 1, (char *[]){"tui", NULL});
    } else if (!strcmp(argv[v], "help") || !strcmp(argv[v], "--help") || !strcmp(argv[v], "-h")) {
        cli_print_usage(stdout);
        status = CLI_OK;
    } else if (!strcmp(argv[v], "--version")) {
        printf("sandman 0.1.0\n");
        status = CLI_OK;
    } else {
        const sm_cmd *cmd = cli_find_command(argv[v]);
        if (!cmd)
            status = cli_usage(&cli, "unknown command '%s'", argv[v]);
        else
            status = cli_run_command(&cli, cmd, argc - v, argv + v);
    }
    cli_free(&cli);
    return status;
}
