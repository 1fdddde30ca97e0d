/* The one command table: every verb of the CLI, also the dashboard's `:` palette, in the order
 * `sandman --help` lists them. The program owns it (as git keeps its table in git.c); the
 * verbs live in cli/ and main/tui_verb.c. */
#include "main/commands.h"

extern const sm_cmd sm_cmd_providers, sm_cmd_create, sm_cmd_ls, sm_cmd_exec, sm_cmd_cp,
    sm_cmd_status, sm_cmd_stats, sm_cmd_events, sm_cmd_logs, sm_cmd_pause, sm_cmd_resume, sm_cmd_rm,
    sm_cmd_demo, sm_cmd_tui, sm_cmd_top, sm_cmd_shell, sm_cmd_gc, sm_cmd_endpoint;

const sm_cmd *const sm_command_table[] = {
    &sm_cmd_providers, &sm_cmd_create, &sm_cmd_ls,       &sm_cmd_exec, &sm_cmd_cp,
    &sm_cmd_status,    &sm_cmd_stats,  &sm_cmd_events,   &sm_cmd_logs, &sm_cmd_pause,
    &sm_cmd_resume,    &sm_cmd_rm,     &sm_cmd_demo,     &sm_cmd_tui,  &sm_cmd_top,
    &sm_cmd_shell,     &sm_cmd_gc,     &sm_cmd_endpoint, NULL,
};
