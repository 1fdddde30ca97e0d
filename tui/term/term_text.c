/* An embedded terminal's cells as text: a line's UTF-8, the column of a byte in it, search
 * over scrollback and screen, and a snapshot of the screen as escape sequences. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"
#include "tui/term/term_impl.h"

#define CELL_UTF8_MAX ((TUI_CELL_COMBINING + 1) * 4)

/* A cell's text as UTF-8: its character (a blank as a space) and the combining ones on it. */
static size_t cell_utf8(const tui_cell *cell, char *out)
{
    size_t n = 0;
    for (int i = -1; i < TUI_CELL_COMBINING; i++) {
        uint32_t ch = i < 0 ? (cell->ch ? cell->ch : ' ') : cell->comb[i];
        if (i >= 0 && (!ch || !cell->ch))
            break;
        char mb[MB_LEN_MAX];
        int k = wctomb(mb, (wchar_t)ch);
        if (k <= 0 || k > 4) {
            mb[0] = '?';
            k = 1;
        }
        memcpy(out + n, mb, (size_t)k);
        n += (size_t)k;
    }
    return n;
}

size_t tui_term_line_text(tui_term *t, size_t line, char *buf, size_t len)
{
    size_t used = 0, last_nonblank = 0;
    for (int c = 0; c < t->cols && used + CELL_UTF8_MAX < len; c++) {
        tui_cell cell;
        if (!tui_term_cell(t, line, c, &cell))
            break;
        if (cell.width == 0 && cell.ch == 0)
            continue; /* right half of a wide character */
        used += cell_utf8(&cell, buf + used);
        if (cell.ch && cell.ch != ' ')
            last_nonblank = used;
    }
    buf[last_nonblank] = '\0';
    return last_nonblank;
}

int tui_term_text_col(tui_term *t, size_t line, size_t offset)
{
    size_t used = 0;
    int c = 0;
    for (; c < t->cols; c++) {
        tui_cell cell;
        if (!tui_term_cell(t, line, c, &cell))
            break;
        if (cell.width == 0 && cell.ch == 0)
            continue;
        if (used >= offset)
            return c;
        char mb[CELL_UTF8_MAX];
        used += cell_utf8(&cell, mb);
    }
    return c;
}

static void sgr_color(sm_strbuf *b, const VTermColor *c, bool fg)
{
    if (fg ? VTERM_COLOR_IS_DEFAULT_FG(c) : VTERM_COLOR_IS_DEFAULT_BG(c))
        sm_strbuf_printf(b, ";%d", fg ? 39 : 49);
    else if (VTERM_COLOR_IS_INDEXED(c))
        sm_strbuf_printf(b, ";%d;5;%d", fg ? 38 : 48, c->indexed.idx);
    else
        sm_strbuf_printf(b, ";%d;2;%d;%d;%d", fg ? 38 : 48, c->rgb.red, c->rgb.green, c->rgb.blue);
}

char *tui_term_snapshot(tui_term *t)
{
    sm_strbuf b = {0};
    sm_strbuf_puts(&b, "\033[0m\033[H\033[2J");
    size_t sb = t->sb_count;
    for (int r = 0; r < t->rows; r++) {
        sm_strbuf_printf(&b, "\033[%d;1H", r + 1);
        tui_cell prev;
        bool have = false;
        for (int c = 0; c < t->cols; c++) {
            tui_cell cell;
            if (!tui_term_cell(t, sb + (size_t)r, c, &cell) || cell.width == 0)
                continue;
            if (!have || cell.attrs != prev.attrs || !vterm_color_is_equal(&cell.fg, &prev.fg) ||
                !vterm_color_is_equal(&cell.bg, &prev.bg) || cell.fg.type != prev.fg.type ||
                cell.bg.type != prev.bg.type) {
                sm_strbuf_puts(&b, "\033[0");
                if (cell.attrs & TUI_A_BOLD)
                    sm_strbuf_puts(&b, ";1");
                if (cell.attrs & TUI_A_ITALIC)
                    sm_strbuf_puts(&b, ";3");
                if (cell.attrs & TUI_A_UNDERLINE)
                    sm_strbuf_puts(&b, ";4");
                if (cell.attrs & TUI_A_BLINK)
                    sm_strbuf_puts(&b, ";5");
                if (cell.attrs & TUI_A_REVERSE)
                    sm_strbuf_puts(&b, ";7");
                if (cell.attrs & TUI_A_STRIKE)
                    sm_strbuf_puts(&b, ";9");
                if (cell.attrs & TUI_A_DIM)
                    sm_strbuf_puts(&b, ";2");
                if (cell.attrs & TUI_A_CONCEAL)
                    sm_strbuf_puts(&b, ";8");
                if (cell.attrs & TUI_A_OVERLINE)
                    sm_strbuf_puts(&b, ";53");
                sgr_color(&b, &cell.fg, true);
                sgr_color(&b, &cell.bg, false);
                sm_strbuf_puts(&b, "m");
                prev = cell;
                have = true;
            }
            char mb[CELL_UTF8_MAX];
            sm_strbuf_append(&b, mb, cell_utf8(&cell, mb));
        }
    }
    VTermPos pos;
    vterm_state_get_cursorpos(vterm_obtain_state(t->vt), &pos);
    sm_strbuf_printf(&b, "\033[0m\033[%d;%dH", pos.row + 1, pos.col + 1);
    return sm_strbuf_take(&b);
}

bool tui_term_search(tui_term *t, const char *needle, size_t line, int col, int dir,
                     size_t *found_line, int *found_col)
{
    size_t total = tui_term_lines(t);
    if (!needle || !*needle || total == 0)
        return false;
    char text[4096];
    for (size_t step = 0; step <= total; step++) {
        size_t l = dir > 0 ? (line + step) % total : (line + total - step % total) % total;
        tui_term_line_text(t, l, text, sizeof text);
        /* byte offsets -> columns: count characters before the hit */
        const char *from = text;
        const char *hit = NULL, *p = text;
        while ((p = strstr(p, needle)) != NULL) {
            int c = 0;
            for (const char *q = text; q < p; q++)
                c += ((unsigned char)*q & 0xC0) != 0x80;
            bool after = step > 0 || (dir > 0 ? c > col : false);
            bool before = step > 0 || (dir < 0 ? c < col : false);
            if (dir > 0 && after) {
                hit = p;
                break;
            }
            if (dir < 0 && before)
                hit = p; /* keep the last one before col */
            p++;
        }
        (void)from;
        if (hit) {
            int c = 0;
            for (const char *q = text; q < hit; q++)
                c += ((unsigned char)*q & 0xC0) != 0x80;
            *found_line = l;
            *found_col = c;
            return true;
        }
    }
    return false;
}
