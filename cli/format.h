/* Text output of the CLI: the detail of `status` (tables of many sandboxes: cli/table.h). */
#ifndef SM_CLI_FORMAT_H
#define SM_CLI_FORMAT_H

#include <stdio.h>

#include "core/provider.h"

void cli_print_info_detail(FILE *out, const sm_sandbox_info *info);

#endif
