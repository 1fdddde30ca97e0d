/* The one command table, shared by the CLI and the dashboard's `:` palette. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

extern const sm_cmd sm_cmd_providers, sm_cmd_create, sm_cmd_ls, sm_cmd_exec, sm_cmd_cp,
    sm_cmd_status, sm_cmd_stats, sm_cmd_events, sm_cmd_rm, sm_cmd_demo, sm_cmd_tui, sm_cmd_top, sm_cmd_shell;

const sm_cmd *const sm_command_table[] = {
    &sm_cmd_providers, &sm_cmd_create, &sm_cmd_ls, &sm_cmd_exec, &sm_cmd_cp,  &sm_cmd_status,
    &sm_cmd_stats,     &sm_cmd_events, &sm_cmd_rm, &sm_cmd_demo, &sm_cmd_tui, &sm_cmd_top, &sm_cmd_shell, NULL,
};

const sm_cmd *cli_find_command(const char *name)
{
    for (size_t i = 0; name && sm_command_table[i]; i++)
        if (!strcmp(sm_command_table[i]->name, name))
            return sm_command_table[i];
    return NULL;
}

int cli_run_command(sm_cli *cli, const sm_cmd *cmd, int argc, char **argv)
{
    cli->verb = cmd->name;
    int rc = cmd->run(cli, argc, argv);
    fflush(cli->out);
    return rc;
}

void cli_print_usage(FILE *f)
{
    fprintf(f, "usage: sandman [COMMAND] [options]\n\n"
               "With no command, sandman opens the dashboard.\n\ncommands:\n");
    for (size_t i = 0; sm_command_table[i]; i++)
        fprintf(f, "  %-10s %s\n", sm_command_table[i]->name, sm_command_table[i]->summary);
    fprintf(f, "\nEvery command takes -c FILE (config), -p NAME (provider context) and -o json.\n"
               "Run 'sandman COMMAND --help' for its options.\n");
}
