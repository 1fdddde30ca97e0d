/* The terminal model of an embedded terminal: libvterm's parser and state driving our own
 * screen cells (screen.c) and scrollback ring (recycled in place), changes turned into dirty
 * rows, cursor, title and modes (term.c), the scanner in front of libvterm (filter.c), and
 * text search over scrollback + screen (term_text.c). No curses here: term_render.c draws it
 * and turns curses keys into its input. Code to the libvterm 0.1.4 API (spec/environment.md §2).
 *
 * Lines are addressed absolutely: line 0 is the oldest scrollback line, lines
 * [sb_count, sb_count + rows) are the screen. */
#ifndef TUI_TERM_H
#define TUI_TERM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <vterm.h>

#define TUI_TERM_SCROLLBACK 10000
/* libvterm 0.1.4 writes through a NULL pointer when a wide character meets a one-column
 * screen, and mishandles one-row screens, so a terminal is never smaller than this. */
#define TUI_TERM_MIN_COLS 10
#define TUI_TERM_MIN_ROWS 4

#define TUI_CELL_COMBINING 3 /* combining characters kept after a cell's first code point */

/* A cell as the renderer, scrollback and search see it. */
typedef struct tui_cell {
    uint32_t ch;                       /* first code point; 0 = blank */
    uint32_t comb[TUI_CELL_COMBINING]; /* combining characters on ch (accents, variation
                                        * selectors, joiners); 0 after the last */
    VTermColor fg, bg;
    uint16_t attrs; /* TUI_A_* */
    uint8_t width;
} tui_cell;

enum {
    TUI_A_BOLD = 1 << 0,
    TUI_A_UNDERLINE = 1 << 1,
    TUI_A_ITALIC = 1 << 2,
    TUI_A_BLINK = 1 << 3,
    TUI_A_REVERSE = 1 << 4,
    TUI_A_STRIKE = 1 << 5,
    /* ours, not libvterm 0.1.4's (its SGR parser ignores them; term.c keeps them) */
    TUI_A_DIM = 1 << 6,
    TUI_A_CONCEAL = 1 << 7,
    TUI_A_OVERLINE = 1 << 8,
};
#define TUI_A_EXTRA (TUI_A_DIM | TUI_A_CONCEAL | TUI_A_OVERLINE)

typedef struct tui_term tui_term;

/* Called with bytes the terminal sends back to the program (keys, replies to queries). */
typedef void (*tui_term_output_fn)(const char *data, size_t len, void *ud);

tui_term *tui_term_new(int rows, int cols, size_t scrollback, tui_term_output_fn out, void *ud);
void tui_term_free(tui_term *t);

void tui_term_feed(tui_term *t, const char *data, size_t len);
void tui_term_resize(tui_term *t, int rows, int cols);
void tui_term_size(const tui_term *t, int *rows, int *cols);

/* Keyboard and paste, encoded by libvterm for the program. */
void tui_term_key(tui_term *t, VTermKey key, VTermModifier mod);
void tui_term_paste(tui_term *t, const char *utf8, size_t len);
/* Mouse at screen cell (row, col); button 0 = move only. */
void tui_term_mouse(tui_term *t, int row, int col, int button, bool pressed, VTermModifier mod);
int tui_term_mouse_mode(const tui_term *t); /* VTERM_PROP_MOUSE_*: 0 = the program did not ask */

/* Cells: any absolute line (scrollback or screen). Returns false past the end. */
bool tui_term_cell(tui_term *t, size_t line, int col, tui_cell *out);
size_t tui_term_lines(const tui_term *t); /* sb_count + rows */
size_t tui_term_sb_count(const tui_term *t);
/* The text of a line as UTF-8 (trailing blanks dropped); returns its length. */
size_t tui_term_line_text(tui_term *t, size_t line, char *buf, size_t len);
/* The column where byte offset of tui_term_line_text's text begins (wide characters take two
 * columns); the line's width when past its end. */
int tui_term_text_col(tui_term *t, size_t line, size_t offset);

/* Dirty screen rows since the last clear (a scroll or resize dirties everything). */
bool tui_term_dirty(const tui_term *t, int row);
bool tui_term_any_dirty(const tui_term *t);
void tui_term_clear_dirty(tui_term *t);
void tui_term_mark_all_dirty(tui_term *t);

/* The cursor; shape as DECSCUSR's parameter (1-6), 0 when the program never chose one. */
void tui_term_cursor(const tui_term *t, int *row, int *col, bool *visible, int *shape);
const char *tui_term_title(const tui_term *t);
bool tui_term_altscreen(const tui_term *t);
/* Counts bells since the last call. */
int tui_term_take_bells(tui_term *t);

/* The screen as escape sequences that redraw it from blank (clear, each row's text with its
 * colours and attributes, the cursor): a recording started mid-session begins with it.
 * Returns a malloc'd string. */
char *tui_term_snapshot(tui_term *t);

/* Searches for needle (case-sensitive, UTF-8) starting after (line, col) going forward
 * (dir > 0) or before it going backward (dir < 0), wrapping around. Returns true and the
 * match position when found. */
bool tui_term_search(tui_term *t, const char *needle, size_t line, int col, int dir,
                     size_t *found_line, int *found_col);

#endif
