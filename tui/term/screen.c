/* The screen's cells from libvterm's state callbacks: rows as pointers, O(1)-per-line scroll. */
#include "tui/term/screen.h"

#include <stdlib.h>
#include <string.h>

#include "core/util.h"

#define RIGHT_HALF ((uint32_t)-1) /* the cell behind a wide character, as libvterm marks it */

enum { F_PROTECTED = 1 << 0, F_DWL = 1 << 1, F_DHL_SHIFT = 2 };

typedef struct spen {
    VTermColor fg, bg;
    uint16_t attrs; /* TUI_A_* */
    uint8_t font;
    uint8_t flags; /* F_* and the DECDHL half */
} spen;

typedef struct scell {
    uint32_t chars[VTERM_MAX_CHARS_PER_CELL];
    spen pen;
} scell;

/* Cells [valid, cols) are blank ones like `blank` and not stored: erasing to the end of a row
 * (every scroll brings in such a row) takes no time. */
typedef struct srow {
    scell *c;
    int valid;
    scell blank;
    bool wrapped; /* the text went on in the next row at the right edge (autowrap) */
} srow;

struct tui_screen {
    VTerm *vt;
    VTermState *state;
    const tui_screen_host *host;
    void *ud;
    int rows, cols;
    int info_rows; /* rows libvterm's state has line info for (fewer while a resize shrinks) */
    srow *buf[2];  /* primary, alternate */
    int alt;
    bool global_reverse;
    spen pen;
    tui_cell *packed; /* one row, for scrollback */
    srow *spare;      /* rows rotated by a scroll */
    /* The last character reached the right edge at pend_pos (pend_width columns) and the
     * cursor has not moved since: libvterm waits to wrap there (its "phantom" column), and
     * the next character at column 0 of the row below is the same line going on. */
    bool pend;
    VTermPos pend_pos;
    int pend_width;
    bool autowrap;
    VTermPos alt_cursor; /* the primary screen's cursor while the alternate one is shown */
};

static srow *rows_of(const tui_screen *s)
{
    return s->buf[s->alt];
}

static const scell *cell_r(const srow *r, int col)
{
    return col < r->valid ? &r->c[col] : &r->blank;
}

/* Stores the blank cells of r up to column end. */
static void materialize(srow *r, int end)
{
    for (; r->valid < end; r->valid++)
        r->c[r->valid] = r->blank;
}

/* A cell to write; NULL outside the screen. */
static scell *cell_w(tui_screen *s, int row, int col)
{
    if (row < 0 || row >= s->rows || col < 0 || col >= s->cols)
        return NULL;
    srow *r = &rows_of(s)[row];
    materialize(r, col + 1);
    return &r->c[col];
}

static void damage(tui_screen *s, int start, int end)
{
    if (start < 0)
        start = 0;
    if (end > s->rows)
        end = s->rows;
    if (start < end && s->host->damage)
        s->host->damage(start, end, s->ud);
}

/* Writing with this pen leaves a mark in scrollback even on a blank (see term.c's blank()). */
static bool pen_shows(const spen *p)
{
    return !VTERM_COLOR_IS_DEFAULT_BG(&p->bg) || (p->attrs & (TUI_A_REVERSE | TUI_A_UNDERLINE));
}

static void pack(const tui_screen *s, const srow *r, int col, tui_cell *out)
{
    const scell *c = cell_r(r, col);
    bool right_half = c->chars[0] == RIGHT_HALF;
    out->ch = right_half ? 0 : c->chars[0];
    for (int i = 0; i < TUI_CELL_COMBINING; i++)
        out->comb[i] = !right_half && c->chars[0] && (i == 0 || out->comb[i - 1]) &&
                               i + 1 < VTERM_MAX_CHARS_PER_CELL
                           ? c->chars[i + 1]
                           : 0;
    out->fg = c->pen.fg;
    out->bg = c->pen.bg;
    out->attrs = c->pen.attrs;
    if (s->global_reverse)
        out->attrs ^= TUI_A_REVERSE;
    out->width = right_half                                                        ? 0
                 : col + 1 < s->cols && cell_r(r, col + 1)->chars[0] == RIGHT_HALF ? 2
                                                                                   : 1;
}

uint16_t tui_screen_extra(const tui_screen *s)
{
    return s->pen.attrs & TUI_A_EXTRA;
}

void tui_screen_set_extra(tui_screen *s, uint16_t attrs)
{
    s->pen.attrs = (uint16_t)((s->pen.attrs & ~TUI_A_EXTRA) | (attrs & TUI_A_EXTRA));
}

void tui_screen_set_autowrap(tui_screen *s, bool on)
{
    s->autowrap = on;
}

bool tui_screen_wrapped(const tui_screen *s, int row)
{
    return row >= 0 && row < s->rows && rows_of(s)[row].wrapped;
}

bool tui_screen_cell(const tui_screen *s, int row, int col, tui_cell *out)
{
    if (row < 0 || row >= s->rows || col < 0 || col >= s->cols)
        return false;
    pack(s, &rows_of(s)[row], col, out);
    return true;
}

static scell blank_cell(const tui_screen *s, const VTermLineInfo *info)
{
    scell c;
    memset(&c, 0, sizeof c);
    c.pen = s->pen;
    c.pen.flags =
        info ? (uint8_t)((info->doublewidth ? F_DWL : 0) | (info->doubleheight << F_DHL_SHIFT)) : 0;
    return c;
}

static void erase_rect(tui_screen *s, VTermRect rect, bool selective)
{
    int r0 = rect.start_row < 0 ? 0 : rect.start_row;
    int r1 = rect.end_row > s->rows ? s->rows : rect.end_row;
    int c0 = rect.start_col < 0 ? 0 : rect.start_col;
    int c1 = rect.end_col > s->cols ? s->cols : rect.end_col;
    if (c0 >= c1)
        return;
    for (int row = r0; row < r1; row++) {
        srow *r = &rows_of(s)[row];
        scell blank =
            blank_cell(s, row < s->info_rows ? vterm_state_get_lineinfo(s->state, row) : NULL);
        if (c1 == s->cols)
            r->wrapped = false; /* its last column is blank now: the text no longer goes on */
        if (selective) {
            materialize(r, c1);
            for (int col = c0; col < c1; col++)
                if (!(r->c[col].pen.flags & F_PROTECTED))
                    r->c[col] = blank;
        } else if (c1 == s->cols) {
            materialize(r, c0);
            r->valid = c0;
            r->blank = blank;
        } else {
            materialize(r, c1);
            for (int col = c0; col < c1; col++)
                r->c[col] = blank;
        }
    }
}

/* How many of cells[0, n) are left with trailing blanks trimmed, as scrollback keeps lines. */
static int trimmed(const tui_cell *cells, int n)
{
    while (n > 0) {
        const tui_cell *c = &cells[n - 1];
        if (c->width == 0 || /* the right half of a wide character is part of it */
            !((c->ch == 0 || c->ch == ' ') && VTERM_COLOR_IS_DEFAULT_BG(&c->bg) &&
              !(c->attrs & (TUI_A_REVERSE | TUI_A_UNDERLINE))))
            break;
        n--;
    }
    return n;
}

/* The line leaving the top, trimmed of trailing blanks as scrollback keeps it. */
static void push_row(tui_screen *s, const srow *r)
{
    if (!s->host->push)
        return;
    int n = s->global_reverse || pen_shows(&r->blank.pen) || r->wrapped ? s->cols : r->valid;
    for (int col = 0; col < n; col++)
        pack(s, r, col, &s->packed[col]);
    if (!r->wrapped) /* a wrapped row's blanks are part of the line */
        n = trimmed(s->packed, n);
    s->host->push(s->packed, n, r->wrapped, s->ud);
}

/* A full-width vertical scroll: rows rotate, the ones coming in are cleared. */
static void scroll_rows(tui_screen *s, int start, int end, int downward)
{
    int height = end - start;
    srow *rows = rows_of(s);
    int n = abs(downward);
    if (downward > 0 && start == 0 && !s->alt)
        for (int i = 0; i < n; i++)
            push_row(s, &rows[i]);
    if (downward > 0) {
        memcpy(s->spare, rows + start, (size_t)n * sizeof *rows);
        memmove(rows + start, rows + start + n, (size_t)(height - n) * sizeof *rows);
        memcpy(rows + end - n, s->spare, (size_t)n * sizeof *rows);
    } else {
        memcpy(s->spare, rows + end - n, (size_t)n * sizeof *rows);
        memmove(rows + start + n, rows + start, (size_t)(height - n) * sizeof *rows);
        memcpy(rows + start, s->spare, (size_t)n * sizeof *rows);
    }
    VTermRect in = {.start_row = downward > 0 ? end - n : start,
                    .end_row = downward > 0 ? end : start + n,
                    .start_col = 0,
                    .end_col = s->cols};
    erase_rect(s, in, false);
}

static int cb_putglyph(VTermGlyphInfo *info, VTermPos pos, void *user)
{
    tui_screen *s = user;
    scell *cell = cell_w(s, pos.row, pos.col);
    if (!cell)
        return 0;
    /* libvterm wraps without a word: this character did not fit after the last one (on the
     * row above, or on this one before a scroll moved it up), so it went on at column 0 */
    int width = info->width < 1 ? 1 : info->width;
    if (pos.col == 0 && s->pend && pos.row > 0 &&
        s->pend_pos.col + s->pend_width + width > s->cols &&
        (s->pend_pos.row == pos.row - 1 || (s->pend_pos.row == pos.row && s->pend_pos.col > 0)))
        rows_of(s)[pos.row - 1].wrapped = true;
    s->pend = true;
    s->pend_pos = pos;
    s->pend_width = width;
    int i;
    for (i = 0; i < VTERM_MAX_CHARS_PER_CELL && info->chars[i]; i++) {
        cell->chars[i] = info->chars[i];
        cell->pen = s->pen;
    }
    if (i < VTERM_MAX_CHARS_PER_CELL)
        cell->chars[i] = 0;
    for (int col = 1; col < width; col++) {
        scell *next = cell_w(s, pos.row, pos.col + col);
        if (next)
            next->chars[0] = RIGHT_HALF;
    }
    cell->pen.flags = (uint8_t)((info->protected_cell ? F_PROTECTED : 0) | (info->dwl ? F_DWL : 0) |
                                (info->dhl << F_DHL_SHIFT));
    damage(s, pos.row, pos.row + 1);
    return 1;
}

static int cb_moverect(VTermRect dest, VTermRect src, void *user)
{
    tui_screen *s = user;
    int cols = src.end_col - src.start_col;
    int downward = src.start_row - dest.start_row;
    if (cols <= 0 || dest.start_col < 0 || src.start_col < 0 || dest.start_col + cols > s->cols ||
        src.start_col + cols > s->cols)
        return 1;
    int init = downward < 0 ? dest.end_row - 1 : dest.start_row;
    int test = downward < 0 ? dest.start_row - 1 : dest.end_row;
    int inc = downward < 0 ? -1 : 1;
    for (int row = init; row != test; row += inc) {
        if (row < 0 || row >= s->rows || row + downward < 0 || row + downward >= s->rows)
            continue;
        srow *d = &rows_of(s)[row], *from = &rows_of(s)[row + downward];
        materialize(d, dest.start_col + cols);
        materialize(from, src.start_col + cols);
        memmove(d->c + dest.start_col, from->c + src.start_col, (size_t)cols * sizeof *d->c);
    }
    damage(s, dest.start_row, dest.end_row);
    return 1;
}

static int cb_erase(VTermRect rect, int selective, void *user)
{
    tui_screen *s = user;
    erase_rect(s, rect, selective);
    damage(s, rect.start_row, rect.end_row);
    return 1;
}

static int cb_scrollrect(VTermRect rect, int downward, int rightward, void *user)
{
    tui_screen *s = user;
    if (rightward != 0 || rect.start_col != 0 || rect.end_col != s->cols || rect.start_row < 0 ||
        rect.end_row > s->rows || rect.start_row >= rect.end_row)
        return 0; /* the state moves and erases through cb_moverect and cb_erase */
    if (abs(downward) >= rect.end_row - rect.start_row)
        erase_rect(s, rect, false); /* libvterm pushes nothing to scrollback then */
    else if (downward)
        scroll_rows(s, rect.start_row, rect.end_row, downward);
    damage(s, rect.start_row, rect.end_row);
    return 1;
}

static int cb_movecursor(VTermPos pos, VTermPos old, int visible, void *user)
{
    tui_screen *s = user;
    /* the cursor after the last character, or waiting on it at the edge: text goes on there */
    if (s->pend && (pos.row != s->pend_pos.row ||
                    (pos.col != s->pend_pos.col && pos.col != s->pend_pos.col + s->pend_width)))
        s->pend = false;
    return s->host->movecursor ? s->host->movecursor(pos, old, visible, s->ud) : 1;
}

static int cb_setpenattr(VTermAttr attr, VTermValue *val, void *user)
{
    tui_screen *s = user;
    uint16_t bit = 0;
    switch (attr) {
    case VTERM_ATTR_BOLD: bit = TUI_A_BOLD; break;
    case VTERM_ATTR_UNDERLINE: bit = TUI_A_UNDERLINE; break;
    case VTERM_ATTR_ITALIC: bit = TUI_A_ITALIC; break;
    case VTERM_ATTR_BLINK: bit = TUI_A_BLINK; break;
    case VTERM_ATTR_REVERSE: bit = TUI_A_REVERSE; break;
    case VTERM_ATTR_STRIKE: bit = TUI_A_STRIKE; break;
    case VTERM_ATTR_FONT: s->pen.font = (uint8_t)val->number; return 1;
    case VTERM_ATTR_FOREGROUND: s->pen.fg = val->color; return 1;
    case VTERM_ATTR_BACKGROUND: s->pen.bg = val->color; return 1;
    default: return 0;
    }
    bool on = attr == VTERM_ATTR_UNDERLINE ? val->number != 0 : val->boolean;
    s->pen.attrs = (uint16_t)(on ? s->pen.attrs | bit : s->pen.attrs & ~bit);
    return 1;
}

static int cb_settermprop(VTermProp prop, VTermValue *val, void *user)
{
    tui_screen *s = user;
    switch (prop) {
    case VTERM_PROP_ALTSCREEN:
        if (val->boolean && !s->alt)
            vterm_state_get_cursorpos(s->state, &s->alt_cursor);
        s->alt = val->boolean ? 1 : 0;
        /* enabling erases the alternate screen (which damages it); disabling shows the
         * primary one again */
        if (!val->boolean)
            damage(s, 0, s->rows);
        break;
    case VTERM_PROP_REVERSE:
        s->global_reverse = val->boolean;
        damage(s, 0, s->rows);
        break;
    default: break;
    }
    return s->host->settermprop ? s->host->settermprop(prop, val, s->ud) : 1;
}

static int cb_bell(void *user)
{
    tui_screen *s = user;
    return s->host->bell ? s->host->bell(s->ud) : 1;
}

static void resize_rows(tui_screen *s, int which, int old_rows, int old_cols, int rows, int cols)
{
    srow *old = s->buf[which];
    for (int r = rows; r < old_rows; r++)
        free(old[r].c);
    srow *nr = xcalloc((size_t)rows, sizeof *nr);
    scell blank = blank_cell(s, NULL); /* new cells get the pen, as libvterm's do */
    for (int r = 0; r < rows; r++) {
        if (r < old_rows) {
            nr[r] = old[r];
            materialize(&nr[r], old_cols < cols ? old_cols : cols);
            nr[r].c = xrealloc(nr[r].c, (size_t)cols * sizeof *nr[r].c);
            if (nr[r].valid > cols)
                nr[r].valid = cols;
        } else {
            nr[r].c = xmalloc((size_t)cols * sizeof *nr[r].c);
            nr[r].valid = 0;
        }
        nr[r].blank = blank;
    }
    free(old);
    s->buf[which] = nr;
}

static bool row_blank(const srow *r)
{
    for (int col = 0; col < r->valid; col++)
        if (r->c[col].chars[0] != 0)
            return false;
    return r->blank.chars[0] == 0;
}

/* Row r holds cells[0, n), packed as scrollback keeps them (a line back from scrollback, a
 * rewrapped one). */
static void unpack_row(tui_screen *s, srow *r, const tui_cell *cells, int n)
{
    materialize(r, n);
    for (int col = 0; col < n; col++) {
        const tui_cell *p = &cells[col];
        scell *c = &r->c[col];
        c->chars[0] = p->width == 0 ? RIGHT_HALF : p->ch;
        for (int i = 0; i < TUI_CELL_COMBINING; i++)
            c->chars[i + 1] = p->width == 0 ? 0 : p->comb[i];
        c->chars[TUI_CELL_COMBINING + 1] = 0;
        c->pen.fg = p->fg;
        c->pen.bg = p->bg;
        c->pen.attrs = s->global_reverse ? p->attrs ^ TUI_A_REVERSE : p->attrs;
        c->pen.font = 0;
        c->pen.flags = 0;
        if (p->width == 2 && col + 1 < s->cols && col + 1 >= n) { /* its half not given */
            materialize(r, col + 2);
            r->c[col + 1].chars[0] = RIGHT_HALF;
        }
    }
}

/* The primary screen takes a new width: its rows go to the host as lines, which rewraps them
 * with the scrollback (reflow.c) and hands back the rows to show; the cursor stays on its
 * character (delta moves libvterm's). */
static void reflow_primary(tui_screen *s, int old_rows, int old_cols, int rows, int cols,
                           VTermPos *delta)
{
    tui_line *lines = xcalloc((size_t)(old_rows > rows ? old_rows : rows), sizeof *lines);
    for (int row = 0; row < old_rows; row++) {
        srow *r = &s->buf[0][row];
        int n = s->global_reverse || pen_shows(&r->blank.pen) || r->wrapped ? old_cols : r->valid;
        tui_line *l = &lines[row];
        l->cap = n > 0 ? n : 1;
        l->cells = xmalloc((size_t)l->cap * sizeof *l->cells);
        for (int col = 0; col < n; col++)
            pack(s, r, col, &l->cells[col]);
        l->cols = r->wrapped ? n : trimmed(l->cells, n);
        l->wrapped = r->wrapped;
        free(r->c);
    }
    free(s->buf[0]);
    VTermPos pos;
    vterm_state_get_cursorpos(s->state, &pos);
    bool phantom = !s->alt && s->pend && s->autowrap && pos.row == s->pend_pos.row &&
                   pos.col == s->pend_pos.col && pos.col + s->pend_width >= old_cols;
    tui_reflow_pos cur = {.line = -1};
    VTermPos from = s->alt ? s->alt_cursor : pos;
    if (from.row >= 0 && from.row < old_rows)
        cur =
            (tui_reflow_pos){.line = from.row, .col = phantom ? pos.col + s->pend_width : from.col};
    s->host->reflow(lines, old_rows, rows, cols, &cur, s->ud);
    s->cols = cols; /* for unpack_row */
    srow *nr = xcalloc((size_t)rows, sizeof *nr);
    scell blank;
    memset(&blank, 0, sizeof blank);
    blank.pen.fg.type = VTERM_COLOR_DEFAULT_FG;
    blank.pen.bg.type = VTERM_COLOR_DEFAULT_BG;
    for (int row = 0; row < rows; row++) {
        nr[row].c = xmalloc((size_t)cols * sizeof *nr[row].c);
        nr[row].blank = blank;
        unpack_row(s, &nr[row], lines[row].cells, lines[row].cols < cols ? lines[row].cols : cols);
        nr[row].wrapped = lines[row].wrapped;
        free(lines[row].cells);
    }
    free(lines);
    s->buf[0] = nr;
    s->pend = false;
    if (cur.line < 0)
        return;
    if (s->alt) {
        s->alt_cursor = (VTermPos){.row = (int)cur.line, .col = cur.col};
        return;
    }
    /* libvterm steps a cursor waiting at the edge one column on when the screen gets wider
     * than that, then adds delta */
    int step = phantom && pos.col < cols - 1 ? 1 : 0;
    delta->row = (int)cur.line - pos.row;
    delta->col = cur.col - (pos.col + step);
}

static int cb_resize(int rows, int cols, VTermPos *delta, void *user)
{
    tui_screen *s = user;
    int old_rows = s->rows, old_cols = s->cols;
    s->info_rows = rows; /* the state has resized its line info already */
    bool reflow = cols != old_cols && s->host->reflow;
    if (reflow) {
        reflow_primary(s, old_rows, old_cols, rows, cols, delta);
        s->cols = old_cols;
        resize_rows(s, 1, old_rows, old_cols, rows, cols);
    } else {
        if (!s->alt && rows < old_rows) {
            /* Fewer rows: the lines below the last written one (or the cursor) go first, then
             * the top lines to scrollback, but never so many that the cursor would leave the
             * top. */
            VTermPos cursor;
            vterm_state_get_cursorpos(s->state, &cursor);
            int row = old_rows - 1;
            for (; row >= rows; row--)
                if (!row_blank(&rows_of(s)[row]) || cursor.row == row)
                    break;
            int scroll = row + 1 - rows;
            if (scroll > cursor.row)
                scroll = cursor.row > 0 ? cursor.row : 0;
            if (scroll > 0) {
                scroll_rows(s, 0, old_rows, scroll);
                delta->row -= scroll;
            }
        }
        for (int b = 0; b < 2; b++)
            resize_rows(s, b, old_rows, old_cols, rows, cols);
    }
    s->rows = rows;
    s->cols = cols;
    s->packed = xrealloc(s->packed, (size_t)cols * sizeof *s->packed);
    s->spare = xrealloc(s->spare, (size_t)rows * sizeof *s->spare);
    if (!reflow && rows > old_rows && !s->alt && s->host->pop) {
        for (int n = rows - old_rows; n > 0; n--) {
            bool wrapped = false;
            if (!s->host->pop(s->packed, cols, &wrapped, s->ud))
                break;
            scroll_rows(s, 0, rows, -1);
            unpack_row(s, &rows_of(s)[0], s->packed, cols);
            rows_of(s)[0].wrapped = wrapped;
            delta->row++;
        }
    }
    damage(s, 0, rows);
    return 1;
}

/* DECDWL/DECDHL: the line's cells take the new size; a double-width line keeps only its
 * left half. */
static int cb_setlineinfo(int row, const VTermLineInfo *info, const VTermLineInfo *old, void *user)
{
    tui_screen *s = user;
    if (row < 0 || row >= s->rows ||
        (info->doublewidth == old->doublewidth && info->doubleheight == old->doubleheight))
        return 1;
    srow *r = &rows_of(s)[row];
    uint8_t flags =
        (uint8_t)((info->doublewidth ? F_DWL : 0) | (info->doubleheight << F_DHL_SHIFT));
    materialize(r, s->cols);
    for (int col = 0; col < s->cols; col++)
        r->c[col].pen.flags = (uint8_t)((r->c[col].pen.flags & F_PROTECTED) | flags);
    if (info->doublewidth) {
        VTermRect half = {
            .start_row = row, .end_row = row + 1, .start_col = s->cols / 2, .end_col = s->cols};
        erase_rect(s, half, false);
    }
    damage(s, row, row + 1);
    return 1;
}

static const VTermStateCallbacks state_callbacks = {
    .setlineinfo = cb_setlineinfo,
    .putglyph = cb_putglyph,
    .movecursor = cb_movecursor,
    .scrollrect = cb_scrollrect,
    .moverect = cb_moverect,
    .erase = cb_erase,
    .setpenattr = cb_setpenattr,
    .settermprop = cb_settermprop,
    .bell = cb_bell,
    .resize = cb_resize,
};

tui_screen *tui_screen_new(VTerm *vt, const tui_screen_host *host, void *ud)
{
    tui_screen *s = xcalloc(1, sizeof *s);
    s->vt = vt;
    s->state = vterm_obtain_state(vt);
    s->host = host;
    s->ud = ud;
    vterm_get_size(vt, &s->rows, &s->cols);
    s->info_rows = s->rows;
    s->autowrap = true;
    s->pen.fg.type = VTERM_COLOR_DEFAULT_FG;
    s->pen.bg.type = VTERM_COLOR_DEFAULT_BG;
    for (int b = 0; b < 2; b++) {
        s->buf[b] = xcalloc((size_t)s->rows, sizeof *s->buf[b]);
        for (int r = 0; r < s->rows; r++) {
            s->buf[b][r].c = xmalloc((size_t)s->cols * sizeof *s->buf[b][r].c);
            s->buf[b][r].blank = blank_cell(s, NULL);
        }
    }
    s->packed = xmalloc((size_t)s->cols * sizeof *s->packed);
    s->spare = xmalloc((size_t)s->rows * sizeof *s->spare);
    vterm_state_set_callbacks(s->state, &state_callbacks, s);
    return s;
}

void tui_screen_free(tui_screen *s)
{
    if (!s)
        return;
    for (int b = 0; b < 2; b++) {
        for (int r = 0; r < s->rows; r++)
            free(s->buf[b][r].c);
        free(s->buf[b]);
    }
    free(s->packed);
    free(s->spare);
    free(s);
}
