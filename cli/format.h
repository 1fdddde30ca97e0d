/* Text output of the CLI: the sandbox table of `ls` and the detail of `status`. */
#ifndef SM_CLI_FORMAT_H
#define SM_CLI_FORMAT_H

#include <stdio.h>

#include "core/provider.h"

void cli_print_info_table(FILE *out, const sm_sandbox_info *list, size_t n);
void cli_print_info_detail(FILE *out, const sm_sandbox_info *info);

#endif
