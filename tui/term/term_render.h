/* Drawing an embedded terminal with curses, and turning curses input into terminal input.
 * Runs of cells with the same attributes are drawn together; colour pairs are allocated lazily
 * (ncurses alloc_pair caches them) and mapped down to what the outer terminal can show. */
#ifndef TUI_TERM_RENDER_H
#define TUI_TERM_RENDER_H

#include <curses.h>
#include <stdbool.h>

#include "tui/term/term.h"
#include "tui/theme.h"

typedef struct tui_term_view {
    size_t top;            /* absolute line shown in the first row */
    bool live;             /* following the screen (top == sb_count) */
    const char *needle;    /* search matches to highlight, may be NULL */
    long sel_from, sel_to; /* selected absolute lines (inclusive), -1 = none */
    long mark_line;        /* scroll-mode cursor line, -1 = none */
} tui_term_view;

void tui_term_render_init(tui_color_tier tier);
/* Draws the rows of t visible in the h x w region at (y, x). When only_dirty, rows that did
 * not change since the last draw are left alone (the caller did not erase them). */
void tui_term_draw(tui_term *t, int y, int x, int h, int w, const tui_term_view *v,
                   bool only_dirty);

/* Converts one curses input event to terminal input; returns false when it means nothing to a
 * terminal. Plain characters are written as UTF-8 through out. */
bool tui_term_input(tui_term *t, wint_t ch, bool is_key, void (*out)(const char *, size_t, void *),
                    void *ud);

#endif
