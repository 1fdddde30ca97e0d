/* Embedded terminal: cells to curses, curses keys to terminal input. */
#include "tui/term/term_render.h"

#include <string.h>

#include "core/text.h"
#include "tui/widgets/draw.h"

static tui_color_tier g_tier = TUI_TIER_256;

/* alloc_pair searches a tree on every call; runs repeat the same few colour combinations, so a
 * small direct-mapped cache in front of it saves most of that. */
#define PAIR_CACHE 1024

static struct {
    int fg, bg, pair;
} pair_cache[PAIR_CACHE];

static int cached_pair(int fg, int bg)
{
    unsigned h = ((unsigned)(fg + 2) * 2654435761u ^ (unsigned)(bg + 2) * 40503u) % PAIR_CACHE;
    int f, b;
    /* alloc_pair reuses the least recently allocated pair when the table is full, so a cached
     * pair is checked to still hold these colours */
    if (pair_cache[h].pair > 0 && pair_cache[h].fg == fg && pair_cache[h].bg == bg &&
        extended_pair_content(pair_cache[h].pair, &f, &b) == OK && f == fg && b == bg)
        return pair_cache[h].pair;
    int pair = alloc_pair(fg, bg);
    if (pair > 0)
        pair_cache[h] = (typeof(pair_cache[0])){fg, bg, pair};
    return pair;
}

void tui_term_render_init(tui_color_tier tier)
{
    g_tier = tier;
    memset(pair_cache, 0, sizeof pair_cache);
}

static int map_color(const VTermColor *c, bool fg)
{
    if (fg ? VTERM_COLOR_IS_DEFAULT_FG(c) : VTERM_COLOR_IS_DEFAULT_BG(c))
        return -1;
    tui_color tc = {0};
    if (VTERM_COLOR_IS_INDEXED(c)) {
        tc.kind = 1;
        tc.index = c->indexed.idx;
    } else {
        tc.kind = 2;
        tc.r = c->rgb.red;
        tc.g = c->rgb.green;
        tc.b = c->rgb.blue;
    }
    return tui_color_for_tier(&tc, g_tier);
}

/* The curses attributes of a cell: attributes, then a colour pair from ncurses' pair cache. */
static attr_t cell_attr(const tui_cell *c, short *pair_out)
{
    attr_t a = A_NORMAL;
    if (c->attrs & TUI_A_BOLD)
        a |= A_BOLD;
    if (c->attrs & TUI_A_UNDERLINE)
        a |= A_UNDERLINE;
    if (c->attrs & TUI_A_ITALIC)
        a |= A_ITALIC;
    if (c->attrs & TUI_A_BLINK)
        a |= A_BLINK;
    if (c->attrs & TUI_A_REVERSE)
        a |= A_REVERSE;
    if (c->attrs & TUI_A_DIM)
        a |= A_DIM;
    *pair_out = 0;
    if (g_tier != TUI_TIER_MONO) {
        int fg = map_color(&c->fg, true), bg = map_color(&c->bg, false);
        a |= tui_color_fold8(&fg, &bg, g_tier);
        if (fg != -1 || bg != -1) {
            int pair = cached_pair(fg, bg);
            if (pair > 0)
                *pair_out = (short)pair;
        }
    }
    return a;
}

static bool same_style(const tui_cell *a, const tui_cell *b)
{
    return a->attrs == b->attrs && a->fg.type == b->fg.type && a->bg.type == b->bg.type &&
           vterm_color_is_equal(&a->fg, &b->fg) && vterm_color_is_equal(&a->bg, &b->bg);
}

#define HL_COLS 1024 /* search matches are highlighted in the first HL_COLS columns */

/* One line of the terminal; highlight marks it whole, hl (when given) the columns of matches. */
static void draw_row(tui_term *t, size_t line, int y, int x, int w, bool highlight,
                     const unsigned char *hl_cols)
{
    wchar_t run[1024];
    int nrun = 0, run_x = x;
    tui_cell style = {0}, c;
    bool have_style = false;
    bool style_hl = false;
    int col = 0, sx = x;
    int rows, cols;
    tui_term_size(t, &rows, &cols);
    while (col < cols && sx < x + w) {
        if (!tui_term_cell(t, line, col, &c))
            break;
        bool hl = highlight || (hl_cols && col < HL_COLS && hl_cols[col]);
        if (c.width == 0) { /* the right half of a wide character was drawn with it */
            col++;
            continue;
        }
        int cw = c.width == 2 ? 2 : 1;
        if (sx + cw > x + w)
            break;
        if (!have_style || !same_style(&style, &c) || style_hl != hl || nrun >= 1000) {
            if (nrun) {
                short pair;
                attr_t a = cell_attr(&style, &pair);
                if (style_hl)
                    a ^= A_REVERSE;
                attr_set(a, pair, NULL);
                mvaddnwstr(y, run_x, run, nrun);
            }
            style = c;
            style_hl = hl;
            have_style = true;
            nrun = 0;
            run_x = sx;
        }
        wchar_t wc = c.ch ? (wchar_t)c.ch : L' ';
        /* concealed text is not shown (its background is); controls (C0, C1, bidi overrides
         * that would reorder the user's line) never reach the outer terminal */
        if (sm_text_is_control((uint32_t)wc) || (c.attrs & TUI_A_CONCEAL))
            wc = L' ';
        if (wc == L' ' && cw == 2)
            run[nrun++] = L' '; /* a blank for each column */
        run[nrun++] = wc;
        for (int i = 0; i < TUI_CELL_COMBINING && c.comb[i] && wc != L' '; i++)
            if (!sm_text_is_control(c.comb[i]))
                run[nrun++] = (wchar_t)c.comb[i]; /* curses puts them on the cell before */
        sx += cw;
        col += cw;
    }
    if (nrun) {
        short pair;
        attr_t a = cell_attr(&style, &pair);
        if (style_hl)
            a ^= A_REVERSE;
        attr_set(a, pair, NULL);
        mvaddnwstr(y, run_x, run, nrun);
    }
    attr_set(A_NORMAL, 0, NULL);
    if (sx < x + w)
        mvhline(y, sx, ' ', x + w - sx); /* the rest of the pane line */
}

void tui_term_draw(tui_term *t, int y, int x, int h, int w, const tui_term_view *v, bool only_dirty)
{
    size_t sb = tui_term_sb_count(t);
    size_t top = v && !v->live ? v->top : sb;
    char text[4096];
    unsigned char hl[HL_COLS];
    for (int r = 0; r < h; r++) {
        size_t line = top + (size_t)r;
        bool is_screen = line >= sb;
        if (only_dirty && (!is_screen || !tui_term_dirty(t, (int)(line - sb))))
            continue;
        if (line >= tui_term_lines(t)) {
            mvhline(y + r, x, ' ', w);
            continue;
        }
        bool sel = v && v->sel_from >= 0 && (long)line >= v->sel_from && (long)line <= v->sel_to;
        bool mark = v && v->mark_line == (long)line;
        bool any = false;
        if (v && v->needle && *v->needle) { /* every match, by the columns it covers */
            size_t len = tui_term_line_text(t, line, text, sizeof text), nlen = strlen(v->needle);
            memset(hl, 0, sizeof hl);
            for (const char *hit = strstr(text, v->needle); hit && (size_t)(hit - text) < len;
                 hit = strstr(hit + nlen, v->needle)) {
                int from = tui_term_text_col(t, line, (size_t)(hit - text));
                int to = tui_term_text_col(t, line, (size_t)(hit - text) + nlen);
                for (int c = from; c < to && c < HL_COLS; c++)
                    hl[c] = 1;
                any = true;
            }
        }
        draw_row(t, line, y + r, x, w, sel || mark, any ? hl : NULL);
    }
}

static void put_utf8(uint32_t ch, void (*out)(const char *, size_t, void *), void *ud)
{
    char mb[8];
    int n = wctomb(mb, (wchar_t)ch);
    if (n > 0)
        out(mb, (size_t)n, ud);
}

/* Modifiers of an extended key from its terminfo name (kUP5 = ctrl+up, kRIT3 = alt+right). */
static VTermModifier mods_from_name(const char *name)
{
    size_t n = name ? strlen(name) : 0;
    if (n < 2 || name[n - 1] < '2' || name[n - 1] > '8')
        return VTERM_MOD_NONE;
    int m = name[n - 1] - '1'; /* xterm: 2 shift, 3 alt, 5 ctrl: value-1 is a bit mask */
    VTermModifier mod = VTERM_MOD_NONE;
    if (m & 1)
        mod |= VTERM_MOD_SHIFT;
    if (m & 2)
        mod |= VTERM_MOD_ALT;
    if (m & 4)
        mod |= VTERM_MOD_CTRL;
    return mod;
}

bool tui_term_input(tui_term *t, wint_t ch, bool is_key, void (*out)(const char *, size_t, void *),
                    void *ud)
{
    if (!is_key) {
        /* characters (controls included) go to the program as they are */
        put_utf8((uint32_t)ch, out, ud);
        return true;
    }
    VTermKey key = VTERM_KEY_NONE;
    VTermModifier mod = VTERM_MOD_NONE;
    switch (ch) {
    case KEY_UP: key = VTERM_KEY_UP; break;
    case KEY_DOWN: key = VTERM_KEY_DOWN; break;
    case KEY_LEFT: key = VTERM_KEY_LEFT; break;
    case KEY_RIGHT: key = VTERM_KEY_RIGHT; break;
    case KEY_SR:
        key = VTERM_KEY_UP;
        mod = VTERM_MOD_SHIFT;
        break;
    case KEY_SF:
        key = VTERM_KEY_DOWN;
        mod = VTERM_MOD_SHIFT;
        break;
    case KEY_SLEFT:
        key = VTERM_KEY_LEFT;
        mod = VTERM_MOD_SHIFT;
        break;
    case KEY_SRIGHT:
        key = VTERM_KEY_RIGHT;
        mod = VTERM_MOD_SHIFT;
        break;
    case KEY_HOME: key = VTERM_KEY_HOME; break;
    case KEY_END: key = VTERM_KEY_END; break;
    case KEY_PPAGE: key = VTERM_KEY_PAGEUP; break;
    case KEY_NPAGE: key = VTERM_KEY_PAGEDOWN; break;
    case KEY_IC: key = VTERM_KEY_INS; break;
    case KEY_DC: key = VTERM_KEY_DEL; break;
    case KEY_BACKSPACE: out("\x7f", 1, ud); return true;
    case KEY_ENTER: key = VTERM_KEY_ENTER; break;
    case KEY_BTAB:
        key = VTERM_KEY_TAB;
        mod = VTERM_MOD_SHIFT;
        break;
    default:
        if (ch >= KEY_F(1) && ch <= KEY_F(63)) {
            key = VTERM_KEY_FUNCTION((int)(ch - KEY_F0));
            break;
        }
        {
            const char *name = keyname((int)ch);
            if (!name)
                return false;
            mod = mods_from_name(name);
            if (!strncmp(name, "kUP", 3))
                key = VTERM_KEY_UP;
            else if (!strncmp(name, "kDN", 3))
                key = VTERM_KEY_DOWN;
            else if (!strncmp(name, "kLFT", 4))
                key = VTERM_KEY_LEFT;
            else if (!strncmp(name, "kRIT", 4))
                key = VTERM_KEY_RIGHT;
            else if (!strncmp(name, "kHOM", 4))
                key = VTERM_KEY_HOME;
            else if (!strncmp(name, "kEND", 4))
                key = VTERM_KEY_END;
            else if (!strncmp(name, "kDC", 3))
                key = VTERM_KEY_DEL;
            else if (!strncmp(name, "kPRV", 4))
                key = VTERM_KEY_PAGEUP;
            else if (!strncmp(name, "kNXT", 4))
                key = VTERM_KEY_PAGEDOWN;
        }
        break;
    }
    if (key == VTERM_KEY_NONE)
        return false;
    tui_term_key(t, key, mod);
    return true;
}
