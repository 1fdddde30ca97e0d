/* Rewrapping an embedded terminal's lines to a new width, as tmux reflows a pane: a run of
 * soft-wrapped lines (the program's text reached the right edge and went on) is one logical
 * line, joined and cut again at the new width, so narrowing loses nothing and widening gives
 * the long line back. Internal to tui/term: term.c runs it over scrollback and screen. */
#ifndef TUI_TERM_REFLOW_H
#define TUI_TERM_REFLOW_H

#include <stdbool.h>
#include <stddef.h>

#include "tui/term/term.h"

/* A line of cells, as scrollback keeps it. */
typedef struct tui_line {
    tui_cell *cells; /* malloc'd; NULL when empty */
    int cols;        /* cells used: trailing blanks trimmed, unless wrapped */
    int cap;
    bool wrapped; /* the text goes on in the next line (a soft wrap, not a newline) */
} tui_line;

/* A position to keep on its character through a reflow: line < 0 = none. col may lie past the
 * line's cells (a cursor after the text, or right of the last column after a character was
 * written there). */
typedef struct tui_reflow_pos {
    long line;
    int col;
} tui_reflow_pos;

/* Rewraps lines[0, n) to width (>= 2) into a new malloc'd array of *out_n lines. The lines
 * given are consumed: their cells are moved into the result or freed (the array itself stays
 * the caller's). A line that is neither wrapped nor longer than width moves as it is. Each of
 * pos[0, npos) is moved to where its character went. */
tui_line *tui_reflow(tui_line *lines, size_t n, int width, size_t *out_n, tui_reflow_pos *pos,
                     size_t npos);

#endif
