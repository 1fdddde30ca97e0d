/* Text tables of fleet rows (core/fleet.h) for `ls` and `top`: each verb names its columns and
 * widths, the fleet gives every cell's text, so a column says the same in both and in the
 * dashboard. */
#ifndef CLI_TABLE_H
#define CLI_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "core/fleet.h"

typedef struct cli_column {
    sm_fleet_col col;
    int width; /* negative: left-aligned; 0 for the last, free column */
    bool cut;  /* free text cut to the width; figures are never cut */
} cli_column;

void cli_table_header(FILE *out, const cli_column *cols, size_t ncols);
/* One row: cells escaped (their text comes from the sandbox or its creator), an empty one
 * printed as "-". */
void cli_table_row(FILE *out, const sm_fleet *f, const sm_fleet_row *r, const cli_column *cols,
                   size_t ncols, double now);

#endif
