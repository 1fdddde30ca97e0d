/* Text tables of fleet rows: the shared cells in each verb's columns. */
#include "cli/table.h"

#include <stdint.h>
#include <string.h>

#include "cli/cli.h"
#include "core/text.h"

static void put_cell(FILE *out, const cli_column *c, bool last, const char *text)
{
    size_t w = (size_t)(c->width < 0 ? -c->width : c->width);
    char esc[1024];
    cli_field(text[0] ? text : "-", esc, sizeof esc);
    /* Widths are columns on the terminal, not bytes: a name in CJK or with accents lines up. */
    size_t cut;
    size_t cols = sm_text_cols(esc, c->cut ? w : SIZE_MAX, &cut);
    esc[cut] = '\0';
    if (last) {
        cli_printf(out, "%s\n", esc);
        return;
    }
    int pad = cols < w ? (int)(w - cols) : 0;
    if (c->width < 0)
        cli_printf(out, "%s%*s  ", esc, pad, "");
    else
        cli_printf(out, "%*s%s  ", pad, "", esc);
}

void cli_table_header(FILE *out, const cli_column *cols, size_t ncols)
{
    for (size_t c = 0; c < ncols; c++)
        put_cell(out, &cols[c], c + 1 == ncols, sm_fleet_col_title(cols[c].col));
}

void cli_table_row(FILE *out, const sm_fleet *f, const sm_fleet_row *r, const cli_column *cols,
                   size_t ncols, double now)
{
    for (size_t c = 0; c < ncols; c++) {
        char text[512];
        sm_fleet_cell(f, r, cols[c].col, now, text, sizeof text);
        put_cell(out, &cols[c], c + 1 == ncols, text);
    }
}
