/* The cells of an embedded terminal's screen, kept by us from libvterm's state layer (its
 * VTermState callbacks) instead of libvterm's screen layer. libvterm 0.1.4's screen moves its
 * whole cell buffer on every scrolled line and hands scrollback over cell by cell; here the
 * screen is an array of row pointers, so a scroll moves pointers and clears one row, and a
 * line leaving the top is handed over once, trimmed to what was written. Otherwise it behaves
 * as libvterm's screen does (the unit tests hold it to libvterm as the oracle). Internal to
 * tui/term: term.c owns it. */
#ifndef TUI_TERM_SCREEN_H
#define TUI_TERM_SCREEN_H

#include <stdbool.h>
#include <vterm.h>

#include "tui/term/reflow.h"
#include "tui/term/term.h"

typedef struct tui_screen tui_screen;

/* What the screen tells its owner. */
typedef struct tui_screen_host {
    void (*damage)(int start_row, int end_row, void *ud);
    /* a line left the top of the primary screen: cells [0, n), trailing blanks trimmed
     * unless the text wrapped from it onto the next line */
    void (*push)(const tui_cell *cells, int n, bool wrapped, void *ud);
    /* the screen grew taller: fill cols cells with the newest scrollback line and forget it;
     * false when there is none */
    bool (*pop)(tui_cell *cells, int cols, bool *wrapped, void *ud);
    /* the primary screen changes width: lines[0, old_rows) are its rows (the host takes their
     * cells); rewrap them with the scrollback and put the rows the new screen shows in
     * lines[0, rows) (the array holds both). cursor: a position on the rows (line < 0: none),
     * kept on its character and returned as a row and column of the new screen. */
    void (*reflow)(tui_line *lines, int old_rows, int rows, int cols, tui_reflow_pos *cursor,
                   void *ud);
    int (*movecursor)(VTermPos pos, VTermPos old, int visible, void *ud);
    int (*settermprop)(VTermProp prop, VTermValue *val, void *ud);
    int (*bell)(void *ud);
} tui_screen_host;

/* Takes over vt's state callbacks (never call vterm_obtain_screen on vt). */
tui_screen *tui_screen_new(VTerm *vt, const tui_screen_host *host, void *ud);
void tui_screen_free(tui_screen *s);

/* The pen's TUI_A_EXTRA attributes, which libvterm does not know (set by term.c's SGR filter
 * between libvterm's writes). */
uint16_t tui_screen_extra(const tui_screen *s);
void tui_screen_set_extra(tui_screen *s, uint16_t attrs);

/* Whether DECAWM (autowrap) is on, as term.c's scanner sees it go by: libvterm keeps it to
 * itself, and a resize must know whether the cursor waits after the last column. */
void tui_screen_set_autowrap(tui_screen *s, bool on);

/* Whether a screen row's text goes on in the next row (it wrapped at the right edge). */
bool tui_screen_wrapped(const tui_screen *s, int row);

/* A screen cell packed as scrollback cells are; false outside the screen. */
bool tui_screen_cell(const tui_screen *s, int row, int col, tui_cell *out);

#endif
