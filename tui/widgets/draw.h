/* Small curses drawing helpers shared by the views: clipped UTF-8 text, filled spans, boxes,
 * and sparklines/graphs in braille with an ASCII fallback. */
#ifndef TUI_DRAW_H
#define TUI_DRAW_H

#include <curses.h>
#include <stdbool.h>
#include <stddef.h>
#include <wchar.h>

/* True when the terminal's locale is UTF-8 (set once at start). */
extern bool tui_unicode;

/* Draws s at (y, x) in at most width columns (UTF-8 aware, wide characters counted);
 * pads with spaces to width when pad. Returns the columns used. */
int tui_put(int y, int x, int width, const char *s, attr_t attr, bool pad);
/* Same, right-aligned within width. */
int tui_put_right(int y, int x, int width, const char *s, attr_t attr);
void tui_fill(int y, int x, int width, attr_t attr);
/* Where a centered box of at most h x w goes on a rows x cols screen (clamped to it). */
void tui_centered(int rows, int cols, int h, int w, int *y, int *x, int *oh, int *ow);
/* A box with an optional title in its top border; the inside is cleared. */
void tui_box(int y, int x, int h, int w, attr_t border, attr_t fill, const char *title);

/* One-line sparkline: the last values (0..max) in width cells (braille: two values per cell;
 * ASCII: one). out holds width + 1 wide characters. */
void tui_sparkline(const double *v, size_t n, double max, int width, wchar_t *out);
/* A height x width graph; row r of the result starts at out + r * (width + 1). */
void tui_graph(const double *v, size_t n, double max, int width, int height, wchar_t *out);
/* Draws a wide string clipped to width. */
void tui_put_wide(int y, int x, int width, const wchar_t *s, attr_t attr);

#endif
