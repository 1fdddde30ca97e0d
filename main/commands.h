/* The program's table of verbs (main/commands.c). */
#ifndef SM_MAIN_COMMANDS_H
#define SM_MAIN_COMMANDS_H

#include "cli/cli.h"

/* NULL-terminated, in `sandman --help` order. */
extern const sm_cmd *const sm_command_table[];

#endif
