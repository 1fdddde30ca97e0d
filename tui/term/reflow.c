/* Rewrapping lines to a new width (see reflow.h). */
#include "tui/term/reflow.h"

#include <stdlib.h>
#include <string.h>

#include "core/util.h"

typedef struct out_lines {
    tui_line *v;
    size_t n, cap;
} out_lines;

static tui_line *new_line(out_lines *o, int width)
{
    if (o->n == o->cap) {
        o->cap = o->cap ? o->cap * 2 : 64;
        o->v = xrealloc(o->v, o->cap * sizeof *o->v);
    }
    tui_line *l = &o->v[o->n++];
    memset(l, 0, sizeof *l);
    l->cells = xmalloc((size_t)width * sizeof *l->cells);
    l->cap = width;
    return l;
}

static tui_cell blank(void)
{
    tui_cell c;
    memset(&c, 0, sizeof c);
    c.width = 1;
    c.fg.type = VTERM_COLOR_DEFAULT_FG;
    c.bg.type = VTERM_COLOR_DEFAULT_BG;
    return c;
}

/* The blank libvterm leaves in the last column when a wide character does not fit there and
 * goes to the next line: not part of the text. */
static bool is_pad(const tui_cell *c)
{
    return c->ch == 0 && c->width == 1 && VTERM_COLOR_IS_DEFAULT_BG(&c->bg) &&
           !(c->attrs & (TUI_A_REVERSE | TUI_A_UNDERLINE));
}

#define MAX_POS 4

/* Joins lines[a, b] into *buf; returns its length and sets k[i] to where pos[i] falls in it
 * (-1 when on none of them). Frees the lines' cells. */
static size_t join(tui_line *lines, size_t a, size_t b, const tui_reflow_pos *pos, size_t npos,
                   tui_cell **buf, size_t *buf_cap, long *k)
{
    size_t m = 0;
    for (size_t p = 0; p < npos; p++)
        k[p] = -1;
    for (size_t i = a; i <= b; i++) {
        tui_line *l = &lines[i];
        int take = l->cols;
        if (i < b && take > 0 && is_pad(&l->cells[take - 1]) && lines[i + 1].cols > 0 &&
            lines[i + 1].cells[0].width == 2)
            take--;
        for (size_t p = 0; p < npos; p++)
            if (pos[p].line == (long)i) {
                int col = pos[p].col < 0 ? 0 : pos[p].col;
                k[p] = (long)m + (i < b && col > take ? take : col);
            }
        if (m + (size_t)take > *buf_cap) {
            *buf_cap = (m + (size_t)take) * 2;
            *buf = xrealloc(*buf, *buf_cap * sizeof **buf);
        }
        if (take > 0)
            memcpy(*buf + m, l->cells, (size_t)take * sizeof *l->cells);
        m += (size_t)take;
        free(l->cells);
        l->cells = NULL;
        l->cols = l->cap = 0;
    }
    return m;
}

/* Cuts cells[0, m) into lines of width; the character at k[i] (or the blank k[i] - m cells
 * past the end) is where pos[i] goes. */
static void cut(out_lines *o, const tui_cell *cells, size_t m, int width, const long *k,
                tui_reflow_pos *pos, size_t npos)
{
    tui_line *cur = new_line(o, width);
    int col = 0;
    for (size_t i = 0; i < m; i++) {
        tui_cell c = cells[i];
        if (c.width == 0) /* a right half without its character: a blank */
            c = blank();
        int w = c.width == 2 ? 2 : 1;
        if (col + w > width) {
            if (col < width)
                cur->cells[cur->cols++] = blank(); /* as libvterm leaves it */
            cur->wrapped = true;
            cur = new_line(o, width);
            col = 0;
        }
        for (size_t p = 0; p < npos; p++)
            if (k[p] == (long)i || (w == 2 && k[p] == (long)i + 1)) {
                pos[p].line = (long)(o->n - 1);
                pos[p].col = col + (k[p] == (long)i ? 0 : 1);
            }
        cur->cells[cur->cols++] = c;
        if (w == 2) {
            tui_cell half = blank();
            half.width = 0;
            if (i + 1 < m && cells[i + 1].width == 0) {
                half = cells[i + 1];
                i++;
            }
            cur->cells[cur->cols++] = half;
        }
        col += w;
    }
    for (size_t p = 0; p < npos; p++) {
        if (k[p] < (long)m)
            continue;
        /* past the text: on the blanks after it (more rows when it is far right) */
        long at = col + (k[p] - (long)m);
        while (at >= width) {
            cur->wrapped = true;
            cur = new_line(o, width);
            col = 0;
            at -= width;
        }
        pos[p].line = (long)(o->n - 1);
        pos[p].col = (int)at;
    }
    if (cur->cols < cur->cap / 2) { /* the last piece keeps only what it holds */
        cur->cap = cur->cols ? cur->cols : 1;
        cur->cells = xrealloc(cur->cells, (size_t)cur->cap * sizeof *cur->cells);
    }
}

tui_line *tui_reflow(tui_line *lines, size_t n, int width, size_t *out_n, tui_reflow_pos *pos,
                     size_t npos)
{
    out_lines o = {0};
    tui_cell *buf = NULL;
    size_t buf_cap = 0;
    if (npos > MAX_POS)
        npos = MAX_POS;
    tui_reflow_pos moved[MAX_POS];
    long k[MAX_POS];
    for (size_t p = 0; p < npos; p++)
        moved[p] = (tui_reflow_pos){.line = -1, .col = 0};
    for (size_t a = 0; a < n;) {
        size_t b = a;
        while (b + 1 < n && lines[b].wrapped)
            b++;
        bool fits = a == b && lines[a].cols <= width;
        for (size_t p = 0; p < npos; p++)
            if (pos[p].line >= (long)a && pos[p].line <= (long)b && pos[p].col >= width)
                fits = false;
        if (fits) { /* a line of its own that fits: moved, not copied */
            if (o.n == o.cap) {
                o.cap = o.cap ? o.cap * 2 : 64;
                o.v = xrealloc(o.v, o.cap * sizeof *o.v);
            }
            o.v[o.n] = lines[a];
            o.v[o.n].wrapped = false;
            for (size_t p = 0; p < npos; p++)
                if (pos[p].line == (long)a)
                    moved[p] = (tui_reflow_pos){.line = (long)o.n, .col = pos[p].col};
            o.n++;
            memset(&lines[a], 0, sizeof lines[a]);
        } else {
            size_t m = join(lines, a, b, pos, npos, &buf, &buf_cap, k);
            cut(&o, buf, m, width, k, moved, npos);
        }
        a = b + 1;
    }
    free(buf);
    for (size_t p = 0; p < npos; p++)
        pos[p] = moved[p];
    *out_n = o.n;
    return o.v;
}
