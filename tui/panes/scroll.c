/* Scroll mode of a pane (Ctrl-b [): a cursor line through the scrollback, paging, search with
 * highlighted matches, and copying a selection of lines to a file and the outer clipboard
 * (OSC 52). */
#include "tui/panes/panes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/strbuf.h"
#include "core/util.h"

/* Copies the selected lines to a file and, unless disabled, to the outer clipboard. */
void tui_scroll_copy(tui_app *app, tui_pane *p)
{
    long from = p->sel_from < 0 ? p->mark : (p->sel_from < p->mark ? p->sel_from : p->mark);
    long to = p->sel_from < 0 ? p->mark : (p->sel_from < p->mark ? p->mark : p->sel_from);
    sm_strbuf b = {0};
    char line[4096];
    for (long l = from; l <= to; l++) {
        tui_term_line_text(p->term, (size_t)l, line, sizeof line);
        sm_strbuf_printf(&b, "%s\n", line);
    }
    char *path = xasprintf("%s/clipboard.txt", sm_state_dir());
    int rc = sm_write_file_atomic(path, b.data ? b.data : "", b.len, 0600);
    const char *osc = getenv("SANDMAN_OSC52");
    if (!osc || strcmp(osc, "0")) {
        /* OSC 52: base64 of the text to the outer terminal's clipboard */
        static const char tbl[] =
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        sm_strbuf e = {0};
        sm_strbuf_puts(&e, "\033]52;c;");
        const unsigned char *s = (const unsigned char *)(b.data ? b.data : "");
        for (size_t i = 0; i < b.len; i += 3) {
            unsigned v = (unsigned)s[i] << 16 | (i + 1 < b.len ? (unsigned)s[i + 1] << 8 : 0) |
                         (i + 2 < b.len ? s[i + 2] : 0);
            char q[4] = {tbl[v >> 18 & 63], tbl[v >> 12 & 63],
                         i + 1 < b.len ? tbl[v >> 6 & 63] : '=', i + 2 < b.len ? tbl[v & 63] : '='};
            sm_strbuf_append(&e, q, 4);
        }
        sm_strbuf_puts(&e, "\a");
        if (write(STDOUT_FILENO, e.data, e.len) < 0) {
        }
        sm_strbuf_free(&e);
    }
    if (rc != 0)
        tui_status(app, true, "cannot write %s", path);
    else
        tui_status(app, false, "copied %ld line%s to %s", to - from + 1, to > from ? "s" : "",
                   path);
    free(path);
    sm_strbuf_free(&b);
    p->sel_from = -1;
}

void tui_scroll_to(tui_pane *p, long line)
{
    int rows, cols;
    tui_term_size(p->term, &rows, &cols);
    long total = (long)tui_term_lines(p->term);
    if (line < 0)
        line = 0;
    if (line >= total)
        line = total - 1;
    p->mark = line;
    long h = p->rect.h > 1 ? p->rect.h - 1 : 1;
    if (line < (long)p->top)
        p->top = (size_t)line;
    if (line >= (long)p->top + h)
        p->top = (size_t)(line - h + 1);
}

void tui_scroll_enter(tui_pane *p)
{
    p->scroll = true;
    p->top = tui_term_sb_count(p->term);
    int row, col, shape;
    bool vis;
    tui_term_cursor(p->term, &row, &col, &vis, &shape);
    p->mark = (long)p->top + row;
    p->sel_from = -1;
}

void tui_panes_search(tui_app *app, const char *needle)
{
    tui_pane *p = tui_focused(app);
    if (!p)
        return;
    if (!p->scroll)
        tui_scroll_enter(p);
    snprintf(p->needle, sizeof p->needle, "%s", needle);
    size_t line;
    int col;
    if (needle[0] && tui_term_search(p->term, needle, (size_t)p->mark, -1, -1, &line, &col))
        tui_scroll_to(p, (long)line);
    else if (needle[0])
        tui_status(app, true, "not found: %s", needle);
    tui_dirty(app);
}

void tui_scroll_leave(tui_pane *p)
{
    p->scroll = false;
    p->needle[0] = '\0';
    p->sel_from = -1;
    tui_term_mark_all_dirty(p->term);
}

void tui_scroll_by(tui_pane *p, long lines)
{
    tui_scroll_to(p, p->mark + lines);
}

void tui_scroll_page(tui_pane *p, int dir)
{
    long page = p->rect.h > 2 ? p->rect.h - 2 : 1;
    tui_scroll_to(p, p->mark + (dir < 0 ? -page : page));
}

void tui_scroll_next(tui_pane *p, int dir)
{
    size_t line;
    int col;
    if (p->needle[0] && tui_term_search(p->term, p->needle, (size_t)p->mark, dir < 0 ? -1 : 100000,
                                        dir < 0 ? -1 : 1, &line, &col))
        tui_scroll_to(p, (long)line);
}

void tui_scroll_select(tui_pane *p)
{
    p->sel_from = p->sel_from < 0 ? p->mark : -1;
}
