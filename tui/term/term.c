/* The terminal model: libvterm with our screen (screen.c) behind it, the scrollback ring,
 * resize, dirty rows, cursor and modes. The scanner in front of libvterm is filter.c, text and
 * search term_text.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "core/util.h"
#include "tui/term/term_impl.h"

static void mark_rows(tui_term *t, int start, int end)
{
    if (start < 0)
        start = 0;
    if (end > t->rows)
        end = t->rows;
    for (int r = start; r < end; r++)
        t->dirty[r] = 1;
    if (start < end)
        t->any_dirty = true;
}

static void cb_damage(int start_row, int end_row, void *user)
{
    mark_rows(user, start_row, end_row);
}

static int cb_movecursor(VTermPos pos, VTermPos old, int visible, void *user)
{
    tui_term *t = user;
    t->cursor = pos;
    t->cursor_visible = visible;
    mark_rows(t, old.row, old.row + 1);
    mark_rows(t, pos.row, pos.row + 1);
    return 1;
}

static int cb_settermprop(VTermProp prop, VTermValue *val, void *user)
{
    tui_term *t = user;
    switch (prop) {
    case VTERM_PROP_CURSORVISIBLE: t->cursor_visible = val->boolean; break;
    case VTERM_PROP_CURSORSHAPE:
        t->cursor_shape = val->number;
        t->shape_chosen = true;
        break;
    case VTERM_PROP_CURSORBLINK:
        t->cursor_blink = val->boolean;
        t->shape_chosen = true;
        break;
    case VTERM_PROP_ALTSCREEN: t->altscreen = val->boolean; break;
    case VTERM_PROP_MOUSE: t->mouse = val->number; break;
    case VTERM_PROP_TITLE:
        /* Titles are shown in our tab bar: keep printable characters only. */
        snprintf(t->title, sizeof t->title, "%s", val->string ? val->string : "");
        for (char *c = t->title; *c; c++)
            if ((unsigned char)*c < 32 || *c == 127)
                *c = ' ';
        break;
    default: break;
    }
    return 1;
}

static int cb_bell(void *user)
{
    ((tui_term *)user)->bells++;
    return 1;
}

/* A line left the top of the screen: keep it (recycling the oldest when full). */
static void cb_push(const tui_cell *cells, int n, bool wrapped, void *user)
{
    tui_term *t = user;
    if (!t->sb_cap)
        return;
    size_t idx;
    if (t->sb_count < t->sb_cap) {
        idx = (t->sb_head + t->sb_count) % t->sb_cap;
        t->sb_count++;
    } else {
        idx = t->sb_head;
        t->sb_head = (t->sb_head + 1) % t->sb_cap;
    }
    tui_line *l = &t->sb[idx];
    if (n > l->cap) {
        l->cells = xrealloc(l->cells, (size_t)n * sizeof *l->cells);
        l->cap = n;
    }
    if (n > 0)
        memcpy(l->cells, cells, (size_t)n * sizeof *cells);
    l->cols = n;
    l->wrapped = wrapped;
}

/* The screen grew taller: give back the newest scrollback line. */
static bool cb_pop(tui_cell *cells, int cols, bool *wrapped, void *user)
{
    tui_term *t = user;
    if (t->sb_count == 0)
        return false;
    size_t idx = (t->sb_head + t->sb_count - 1) % t->sb_cap;
    const tui_line *l = &t->sb[idx];
    for (int c = 0; c < cols; c++) {
        memset(&cells[c], 0, sizeof cells[c]);
        cells[c].width = 1;
        cells[c].fg.type = VTERM_COLOR_DEFAULT_FG;
        cells[c].bg.type = VTERM_COLOR_DEFAULT_BG;
        if (c < l->cols) {
            cells[c] = l->cells[c];
            if (cells[c].width == 2 && c + 1 >= cols) { /* half of it would not fit */
                cells[c].ch = ' ';
                cells[c].width = 1;
            }
        }
    }
    *wrapped = l->wrapped;
    t->sb_count--;
    return true;
}

/* The row below the text and the cursor (0 on a blank screen). */
static long text_end(const tui_line *lines, size_t n, long cursor)
{
    long end = cursor + 1;
    for (size_t i = n; i-- > 0 && (long)i >= end;)
        if (lines[i].cols > 0)
            return (long)i + 1;
    return end;
}

/* The primary screen changes width (screen.c): scrollback and screen rewrapped together
 * (reflow.c). A screen the text filled stays filled to its last row (lines that no longer
 * fit go to scrollback and come back from it when lines get shorter again, as in a tmux
 * pane); one with room below its text keeps its first row. The cursor stays on screen. */
static void cb_reflow(tui_line *screen, int old_rows, int rows, int cols, tui_reflow_pos *cursor,
                      void *user)
{
    tui_term *t = user;
    size_t sb = t->sb_count, n = sb + (size_t)old_rows;
    tui_line *all = xmalloc(n * sizeof *all);
    for (size_t i = 0; i < sb; i++) {
        tui_line *l = &t->sb[(t->sb_head + i) % t->sb_cap];
        all[i] = *l;
        memset(l, 0, sizeof *l);
    }
    memcpy(all + sb, screen, (size_t)old_rows * sizeof *screen);
    bool full = text_end(screen, (size_t)old_rows, cursor->line) >= old_rows;
    tui_reflow_pos pos[2] = {
        {.line = cursor->line < 0 ? -1 : (long)sb + cursor->line, .col = cursor->col},
        {.line = (long)sb, .col = 0}, /* the first row */
    };
    size_t m;
    tui_line *out = tui_reflow(all, n, cols, &m, pos, 2);
    free(all);
    long bottom = text_end(out, m, pos[0].line);
    long top = bottom - rows; /* the text ends on the last row at the latest */
    if (!full && pos[1].line > top)
        top = pos[1].line;
    if (pos[0].line >= 0) {
        if (top > pos[0].line)
            top = pos[0].line;
        if (top < pos[0].line - rows + 1)
            top = pos[0].line - rows + 1;
    }
    if (top < 0)
        top = 0;
    /* scrollback: lines [0, top), the newest sb_cap of them */
    size_t from = (size_t)top > t->sb_cap ? (size_t)top - t->sb_cap : 0;
    for (size_t i = 0; i < from; i++)
        free(out[i].cells);
    t->sb_head = 0;
    t->sb_count = (size_t)top - from;
    for (size_t i = 0; i < t->sb_count; i++) {
        free(t->sb[i].cells);
        t->sb[i] = out[from + i];
    }
    for (int r = 0; r < rows; r++) {
        size_t i = (size_t)top + (size_t)r;
        if (i < m)
            screen[r] = out[i];
        else
            memset(&screen[r], 0, sizeof screen[r]);
    }
    for (size_t i = (size_t)top + (size_t)rows; i < m; i++)
        free(out[i].cells);
    free(out);
    cursor->line = pos[0].line < 0 ? -1 : pos[0].line - top;
    cursor->col = pos[0].col;
}

static const tui_screen_host screen_host = {
    .damage = cb_damage,
    .push = cb_push,
    .pop = cb_pop,
    .reflow = cb_reflow,
    .movecursor = cb_movecursor,
    .settermprop = cb_settermprop,
    .bell = cb_bell,
};

static void output_cb(const char *s, size_t len, void *user)
{
    tui_term *t = user;
    if (t->out)
        t->out(s, len, t->ud);
}

tui_term *tui_term_new(int rows, int cols, size_t scrollback, tui_term_output_fn out, void *ud)
{
    tui_term *t = xcalloc(1, sizeof *t);
    t->rows = rows < TUI_TERM_MIN_ROWS ? TUI_TERM_MIN_ROWS : rows;
    t->cols = cols < TUI_TERM_MIN_COLS ? TUI_TERM_MIN_COLS : cols;
    t->out = out;
    t->ud = ud;
    t->sb_cap = scrollback;
    t->sb = xcalloc(scrollback ? scrollback : 1, sizeof *t->sb);
    t->dirty = xcalloc((size_t)t->rows, 1);
    t->cursor_visible = true;
    t->vt = vterm_new(t->rows, t->cols);
    vterm_set_utf8(t->vt, 1);
    vterm_output_set_callback(t->vt, output_cb, t);
    t->scr = tui_screen_new(t->vt, &screen_host, t);
    vterm_state_reset(vterm_obtain_state(t->vt), 1);
    /* libvterm 0.1.4 loops forever on REP (CSI b) before any character was printed, so a
     * program printing "\033[b" first would hang us: print one blank and return. */
    vterm_input_write(t->vt, " \r", 2);
    t->shape_chosen = false; /* the reset's shape is not the program's choice */
    tui_term_mark_all_dirty(t);
    return t;
}

void tui_term_free(tui_term *t)
{
    if (!t)
        return;
    vterm_free(t->vt);
    tui_screen_free(t->scr);
    free(t->feed_buf);
    for (size_t i = 0; i < t->sb_cap; i++)
        free(t->sb[i].cells);
    free(t->sb);
    free(t->dirty);
    free(t);
}

/* libvterm 0.1.4 moves the cursor up by the lines a shorter screen pushes to scrollback
 * without stopping at the top: a cursor near the top ends on a negative row, and the next
 * erase there writes through a NULL cell. Put it back on the screen where the fixed libvterm
 * does (row 0, same column), and save that as the cursor a DECRC restores (the resize just
 * saved the negative one). The scroll region was just reset, so a CUP is absolute even in
 * origin mode. */
static void clamp_cursor(tui_term *t)
{
    VTermPos pos;
    vterm_state_get_cursorpos(vterm_obtain_state(t->vt), &pos);
    if (pos.row >= 0 && pos.col >= 0)
        return;
    char cup[32];
    int n = snprintf(cup, sizeof cup, "\033[%d;%dH\0337", pos.row < 0 ? 1 : pos.row + 1,
                     pos.col < 0 ? 1 : pos.col + 1);
    tui_term_inject(t, cup, (size_t)n);
}

void tui_term_resize(tui_term *t, int rows, int cols)
{
    if (rows < TUI_TERM_MIN_ROWS)
        rows = TUI_TERM_MIN_ROWS;
    if (cols < TUI_TERM_MIN_COLS)
        cols = TUI_TERM_MIN_COLS;
    if (rows == t->rows && cols == t->cols)
        return;
    bool shorter = rows < t->rows;
    t->dirty = xrealloc(t->dirty, (size_t)rows);
    t->rows = rows;
    t->cols = cols;
    vterm_set_size(t->vt, rows, cols);
    if (shorter) {
        /* libvterm 0.1.4 keeps a scroll region that now lies below the screen, and the next
         * scroll inside it moves a negative number of rows (memory corruption). Reset the
         * region, keeping the cursor; the program redraws after SIGWINCH anyway. */
        static const char reset_region[] = "7[r8";
        tui_term_inject(t, reset_region, sizeof reset_region - 1);
        clamp_cursor(t);
    }
    tui_term_mark_all_dirty(t);
}

void tui_term_size(const tui_term *t, int *rows, int *cols)
{
    *rows = t->rows;
    *cols = t->cols;
}

void tui_term_key(tui_term *t, VTermKey key, VTermModifier mod)
{
    vterm_keyboard_key(t->vt, key, mod);
}

void tui_term_paste(tui_term *t, const char *utf8, size_t len)
{
    vterm_keyboard_start_paste(t->vt);
    mbstate_t st;
    memset(&st, 0, sizeof st);
    size_t i = 0;
    while (i < len) {
        wchar_t wc;
        size_t k = mbrtowc(&wc, utf8 + i, len - i, &st);
        if (k == (size_t)-1 || k == (size_t)-2 || k == 0) {
            memset(&st, 0, sizeof st);
            wc = (unsigned char)utf8[i];
            k = 1;
        }
        /* control characters other than tab and newline never reach the program in a paste */
        if (wc >= 32 || wc == '\t' || wc == '\n' || wc == '\r')
            vterm_keyboard_unichar(t->vt, (uint32_t)(wc == '\n' ? '\r' : wc), VTERM_MOD_NONE);
        i += k;
    }
    vterm_keyboard_end_paste(t->vt);
}

void tui_term_mouse(tui_term *t, int row, int col, int button, bool pressed, VTermModifier mod)
{
    vterm_mouse_move(t->vt, row, col, mod);
    if (button)
        vterm_mouse_button(t->vt, button, pressed, mod);
}

int tui_term_mouse_mode(const tui_term *t)
{
    return t->mouse;
}

size_t tui_term_sb_count(const tui_term *t)
{
    return t->sb_count;
}

size_t tui_term_lines(const tui_term *t)
{
    return t->sb_count + (size_t)t->rows;
}

bool tui_term_cell(tui_term *t, size_t line, int col, tui_cell *out)
{
    memset(out, 0, sizeof *out);
    out->width = 1;
    out->fg.type = VTERM_COLOR_DEFAULT_FG;
    out->bg.type = VTERM_COLOR_DEFAULT_BG;
    if (col < 0 || col >= t->cols)
        return false;
    if (line < t->sb_count) {
        const tui_line *l = &t->sb[(t->sb_head + line) % t->sb_cap];
        if (col < l->cols)
            *out = l->cells[col];
        return true;
    }
    size_t row = line - t->sb_count;
    if (row >= (size_t)t->rows)
        return false;
    return tui_screen_cell(t->scr, (int)row, col, out);
}

bool tui_term_dirty(const tui_term *t, int row)
{
    return row >= 0 && row < t->rows && t->dirty[row];
}

bool tui_term_any_dirty(const tui_term *t)
{
    return t->any_dirty;
}

void tui_term_clear_dirty(tui_term *t)
{
    memset(t->dirty, 0, (size_t)t->rows);
    t->any_dirty = false;
}

void tui_term_mark_all_dirty(tui_term *t)
{
    memset(t->dirty, 1, (size_t)t->rows);
    t->any_dirty = true;
}

void tui_term_cursor(const tui_term *t, int *row, int *col, bool *visible, int *shape)
{
    /* libvterm does not always report a move (DECSLRM homes the cursor silently) */
    VTermPos pos;
    vterm_state_get_cursorpos(vterm_obtain_state(t->vt), &pos);
    *row = pos.row;
    *col = pos.col;
    *visible = t->cursor_visible;
    *shape = 0;
    if (t->shape_chosen) { /* as DECSCUSR: 1-2 block, 3-4 underline, 5-6 bar, odd = blinking */
        int base = t->cursor_shape == VTERM_PROP_CURSORSHAPE_UNDERLINE  ? 3
                   : t->cursor_shape == VTERM_PROP_CURSORSHAPE_BAR_LEFT ? 5
                                                                        : 1;
        *shape = base + (t->cursor_blink ? 0 : 1);
    }
}

const char *tui_term_title(const tui_term *t)
{
    return t->title;
}

bool tui_term_altscreen(const tui_term *t)
{
    return t->altscreen;
}

int tui_term_take_bells(tui_term *t)
{
    int b = t->bells;
    t->bells = 0;
    return b;
}
