/* The terminal model: libvterm screen, scrollback ring, dirty rows, search. */
#include "tui/term/term.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "core/util.h"

typedef struct sb_line {
    tui_cell *cells;
    int cols; /* cells used (trailing blanks trimmed) */
    int cap;
} sb_line;

struct tui_term {
    VTerm *vt;
    VTermScreen *vs;
    int rows, cols;
    sb_line *sb; /* ring */
    size_t sb_cap, sb_head, sb_count;
    unsigned char *dirty; /* per screen row */
    bool any_dirty;
    VTermPos cursor;
    bool cursor_visible;
    int cursor_shape;
    bool altscreen;
    int mouse;
    int bells;
    char title[256];
    tui_term_output_fn out;
    void *ud;
};

static uint16_t pack_attrs(const VTermScreenCellAttrs *a)
{
    return (uint16_t)((a->bold ? TUI_A_BOLD : 0) | (a->underline ? TUI_A_UNDERLINE : 0) |
                      (a->italic ? TUI_A_ITALIC : 0) | (a->blink ? TUI_A_BLINK : 0) |
                      (a->reverse ? TUI_A_REVERSE : 0) | (a->strike ? TUI_A_STRIKE : 0));
}

static void pack_cell(const VTermScreenCell *c, tui_cell *out)
{
    out->ch = c->chars[0] == (uint32_t)-1 ? 0 : c->chars[0];
    out->fg = c->fg;
    out->bg = c->bg;
    out->attrs = pack_attrs(&c->attrs);
    out->width = (uint8_t)(c->width > 0 ? c->width : 0);
}

static bool blank(const tui_cell *c)
{
    return (c->ch == 0 || c->ch == ' ') && VTERM_COLOR_IS_DEFAULT_BG(&c->bg) &&
           !(c->attrs & (TUI_A_REVERSE | TUI_A_UNDERLINE));
}

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

static int cb_damage(VTermRect rect, void *user)
{
    mark_rows(user, rect.start_row, rect.end_row);
    return 1;
}

static int cb_moverect(VTermRect dest, VTermRect src, void *user)
{
    mark_rows(user, dest.start_row, dest.end_row);
    return 1;
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
    case VTERM_PROP_CURSORSHAPE: t->cursor_shape = val->number; break;
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

static int cb_resize(int rows, int cols, void *user)
{
    return 1;
}

/* libvterm is about to forget the top line: keep it (recycling the oldest when full). */
static int cb_sb_pushline(int cols, const VTermScreenCell *cells, void *user)
{
    tui_term *t = user;
    if (!t->sb_cap)
        return 1;
    size_t idx;
    if (t->sb_count < t->sb_cap) {
        idx = (t->sb_head + t->sb_count) % t->sb_cap;
        t->sb_count++;
    } else {
        idx = t->sb_head;
        t->sb_head = (t->sb_head + 1) % t->sb_cap;
    }
    sb_line *l = &t->sb[idx];
    int used = cols;
    tui_cell tmp;
    while (used > 0) {
        pack_cell(&cells[used - 1], &tmp);
        if (!blank(&tmp))
            break;
        used--;
    }
    if (used > l->cap) {
        l->cells = xrealloc(l->cells, (size_t)used * sizeof *l->cells);
        l->cap = used;
    }
    for (int c = 0; c < used; c++)
        pack_cell(&cells[c], &l->cells[c]);
    l->cols = used;
    return 1;
}

/* The screen grew taller: give back the newest scrollback line. */
static int cb_sb_popline(int cols, VTermScreenCell *cells, void *user)
{
    tui_term *t = user;
    if (t->sb_count == 0)
        return 0;
    size_t idx = (t->sb_head + t->sb_count - 1) % t->sb_cap;
    sb_line *l = &t->sb[idx];
    for (int c = 0; c < cols; c++) {
        memset(&cells[c], 0, sizeof cells[c]);
        cells[c].width = 1;
        if (c < l->cols) {
            cells[c].chars[0] = l->cells[c].ch;
            cells[c].width = (char)(l->cells[c].width ? l->cells[c].width : 1);
            cells[c].fg = l->cells[c].fg;
            cells[c].bg = l->cells[c].bg;
            cells[c].attrs.bold = !!(l->cells[c].attrs & TUI_A_BOLD);
            cells[c].attrs.underline = !!(l->cells[c].attrs & TUI_A_UNDERLINE);
            cells[c].attrs.italic = !!(l->cells[c].attrs & TUI_A_ITALIC);
            cells[c].attrs.reverse = !!(l->cells[c].attrs & TUI_A_REVERSE);
        } else {
            vterm_color_indexed(&cells[c].fg, 7);
            cells[c].fg.type |= VTERM_COLOR_DEFAULT_FG;
            vterm_color_indexed(&cells[c].bg, 0);
            cells[c].bg.type |= VTERM_COLOR_DEFAULT_BG;
        }
    }
    t->sb_count--;
    return 1;
}

static const VTermScreenCallbacks callbacks = {
    .damage = cb_damage,
    .moverect = cb_moverect,
    .movecursor = cb_movecursor,
    .settermprop = cb_settermprop,
    .bell = cb_bell,
    .resize = cb_resize,
    .sb_pushline = cb_sb_pushline,
    .sb_popline = cb_sb_popline,
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
    t->rows = rows < 1 ? 1 : rows;
    t->cols = cols < 1 ? 1 : cols;
    t->out = out;
    t->ud = ud;
    t->sb_cap = scrollback;
    t->sb = xcalloc(scrollback ? scrollback : 1, sizeof *t->sb);
    t->dirty = xcalloc((size_t)t->rows, 1);
    t->cursor_visible = true;
    t->vt = vterm_new(t->rows, t->cols);
    vterm_set_utf8(t->vt, 1);
    vterm_output_set_callback(t->vt, output_cb, t);
    t->vs = vterm_obtain_screen(t->vt);
    vterm_screen_enable_altscreen(t->vs, 1);
    vterm_screen_set_callbacks(t->vs, &callbacks, t);
    vterm_screen_set_damage_merge(t->vs, VTERM_DAMAGE_SCROLL);
    vterm_screen_reset(t->vs, 1);
    tui_term_mark_all_dirty(t);
    return t;
}

void tui_term_free(tui_term *t)
{
    if (!t)
        return;
    vterm_free(t->vt);
    for (size_t i = 0; i < t->sb_cap; i++)
        free(t->sb[i].cells);
    free(t->sb);
    free(t->dirty);
    free(t);
}

void tui_term_feed(tui_term *t, const char *data, size_t len)
{
    vterm_input_write(t->vt, data, len);
    vterm_screen_flush_damage(t->vs);
}

void tui_term_resize(tui_term *t, int rows, int cols)
{
    if (rows < 1)
        rows = 1;
    if (cols < 1)
        cols = 1;
    if (rows == t->rows && cols == t->cols)
        return;
    t->dirty = xrealloc(t->dirty, (size_t)rows);
    t->rows = rows;
    t->cols = cols;
    vterm_set_size(t->vt, rows, cols);
    vterm_screen_flush_damage(t->vs);
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

void tui_term_char(tui_term *t, uint32_t ch, VTermModifier mod)
{
    vterm_keyboard_unichar(t->vt, ch, mod);
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
        const sb_line *l = &t->sb[(t->sb_head + line) % t->sb_cap];
        if (col < l->cols)
            *out = l->cells[col];
        return true;
    }
    size_t row = line - t->sb_count;
    if (row >= (size_t)t->rows)
        return false;
    VTermScreenCell c;
    VTermPos pos = {.row = (int)row, .col = col};
    if (!vterm_screen_get_cell(t->vs, pos, &c))
        return false;
    pack_cell(&c, out);
    return true;
}

size_t tui_term_line_text(tui_term *t, size_t line, char *buf, size_t len)
{
    size_t used = 0, last_nonblank = 0;
    for (int c = 0; c < t->cols && used + 8 < len; c++) {
        tui_cell cell;
        if (!tui_term_cell(t, line, c, &cell))
            break;
        if (cell.width == 0 && cell.ch == 0)
            continue; /* right half of a wide character */
        uint32_t ch = cell.ch ? cell.ch : ' ';
        char mb[8];
        int n = wctomb(mb, (wchar_t)ch);
        if (n <= 0) {
            mb[0] = '?';
            n = 1;
        }
        memcpy(buf + used, mb, (size_t)n);
        used += (size_t)n;
        if (ch != ' ')
            last_nonblank = used;
    }
    buf[last_nonblank] = '\0';
    return last_nonblank;
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
    *row = t->cursor.row;
    *col = t->cursor.col;
    *visible = t->cursor_visible;
    *shape = t->cursor_shape;
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
