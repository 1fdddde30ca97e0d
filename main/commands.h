/* The program's table of verbs (main/commands.c). */
#ifndef SM_MAIN_COMMANDS_H
#define SM_MAIN_COMMANDS_H

#include "cli/cli.h"

/* NULL-terminated, in `sandman --help` order. */
extern const sm_cmd *const sm_command_table[];

/* The program's arguments as main got them (the headless program hands them to the
 * dashboard's). */
extern char **sm_main_argv;

/* The `tui` verb's action: the dashboard program runs the dashboard, the headless one executes
 * the dashboard program (main/dashboard.c, main/dashboard_exec.c). */
int sm_tui_start(sm_cli *cli, cli_call *c);

#endif
