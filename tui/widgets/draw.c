/* Curses drawing helpers: clipped UTF-8 text, boxes, braille sparklines and graphs. */
#include "tui/widgets/draw.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/text.h"

bool tui_unicode = true;

/* Converts UTF-8 to wide characters; invalid bytes become '?'. Returns the count. */
static size_t to_wide(const char *s, wchar_t *out, size_t max)
{
    mbstate_t st;
    memset(&st, 0, sizeof st);
    size_t n = 0;
    while (*s && n + 1 < max) {
        wchar_t wc;
        size_t k = mbrtowc(&wc, s, strlen(s), &st);
        if (k == (size_t)-1 || k == (size_t)-2 || k == 0) {
            memset(&st, 0, sizeof st);
            wc = '?';
            k = 1;
        }
        if (sm_text_is_control((uint32_t)wc))
            wc = ' '; /* control characters (C0, DEL, C1, bidi) never reach the terminal */
        out[n++] = wc;
        s += k;
    }
    out[n] = 0;
    return n;
}

void tui_put_wide(int y, int x, int width, const wchar_t *s, attr_t attr)
{
    int used = 0;
    attron(attr);
    move(y, x);
    for (; *s && used < width; s++) {
        int w = wcwidth(*s);
        if (w < 0)
            w = 1;
        if (used + w > width)
            break;
        wchar_t one[2] = {*s, 0};
        addnwstr(one, 1);
        used += w;
    }
    attroff(attr);
}

int tui_put(int y, int x, int width, const char *s, attr_t attr, bool pad)
{
    if (width <= 0)
        return 0;
    wchar_t buf[1024];
    size_t n = to_wide(s ? s : "", buf, sizeof buf / sizeof buf[0]);
    int used = 0;
    size_t k = 0;
    for (; k < n; k++) {
        int w = wcwidth(buf[k]);
        if (w < 0)
            w = 1;
        if (used + w > width)
            break;
        used += w;
    }
    buf[k] = 0;
    attron(attr);
    mvaddnwstr(y, x, buf, (int)k);
    if (pad)
        for (int i = used; i < width; i++)
            addch(' ');
    attroff(attr);
    return pad ? width : used;
}

int tui_put_right(int y, int x, int width, const char *s, attr_t attr)
{
    wchar_t buf[256];
    size_t n = to_wide(s ? s : "", buf, 256);
    int cols = 0;
    for (size_t k = 0; k < n; k++)
        cols += wcwidth(buf[k]) > 0 ? wcwidth(buf[k]) : 1;
    if (cols > width)
        cols = width;
    tui_fill(y, x, width - cols, attr);
    return tui_put(y, x + width - cols, cols, s, attr, false) + width - cols;
}

void tui_fill(int y, int x, int width, attr_t attr)
{
    if (width <= 0)
        return;
    attron(attr);
    mvhline(y, x, ' ', width);
    attroff(attr);
}

void tui_box(int y, int x, int h, int w, attr_t border, attr_t fill, const char *title)
{
    for (int r = 1; r < h - 1; r++)
        tui_fill(y + r, x + 1, w - 2, fill);
    attron(border);
    mvaddch(y, x, ACS_ULCORNER);
    mvhline(y, x + 1, ACS_HLINE, w - 2);
    mvaddch(y, x + w - 1, ACS_URCORNER);
    mvvline(y + 1, x, ACS_VLINE, h - 2);
    mvvline(y + 1, x + w - 1, ACS_VLINE, h - 2);
    mvaddch(y + h - 1, x, ACS_LLCORNER);
    mvhline(y + h - 1, x + 1, ACS_HLINE, w - 2);
    mvaddch(y + h - 1, x + w - 1, ACS_LRCORNER);
    attroff(border);
    if (title && *title) {
        char t[256];
        snprintf(t, sizeof t, " %s ", title);
        tui_put(y, x + 2, w - 4, t, border | A_BOLD, false);
    }
}

/* Dots of a braille cell filled from the bottom, for the left and right column. */
static const unsigned char left_dots[5] = {0, 0x40, 0x44, 0x46, 0x47};
static const unsigned char right_dots[5] = {0, 0x80, 0xA0, 0xB0, 0xB8};

static int level(double v, double max, int levels)
{
    if (v < 0 || max <= 0)
        return 0;
    int l = (int)lround(v / max * levels);
    if (l == 0 && v > 0)
        l = 1; /* any activity shows */
    return l > levels ? levels : l;
}

void tui_graph(const double *v, size_t n, double max, int width, int height, wchar_t *out)
{
    int per = tui_unicode ? 2 : 1;
    int levels = height * (tui_unicode ? 4 : 1);
    for (int r = 0; r < height; r++) {
        wchar_t *row = out + (size_t)r * (size_t)(width + 1);
        for (int c = 0; c < width; c++) {
            /* the newest values sit at the right edge */
            long idx = (long)n - (long)(width - c) * per;
            int l[2] = {0, 0};
            for (int k = 0; k < per; k++) {
                long i = idx + k;
                l[k] = (i >= 0 && (size_t)i < n) ? level(v[i], max, levels) : 0;
            }
            int base = (height - 1 - r) * (tui_unicode ? 4 : 1);
            if (tui_unicode) {
                int a = l[0] - base, b = l[1] - base;
                a = a < 0 ? 0 : a > 4 ? 4 : a;
                b = b < 0 ? 0 : b > 4 ? 4 : b;
                row[c] = (wchar_t)(0x2800 + (left_dots[a] | right_dots[b]));
            } else if (idx < 0 || (size_t)idx >= n) {
                row[c] = ' ';
            } else if (height == 1) {
                row[c] = (wchar_t) " .:-=+*#"[level(v[idx], max, 7)];
            } else {
                row[c] = l[0] > base ? '#' : ' ';
            }
        }
        row[width] = 0;
    }
}

void tui_sparkline(const double *v, size_t n, double max, int width, wchar_t *out)
{
    tui_graph(v, n, max, width, 1, out);
}

void tui_centered(int rows, int cols, int h, int w, int *y, int *x, int *oh, int *ow)
{
    *oh = h < rows - 2 ? h : rows - 2;
    *ow = w < cols - 2 ? w : cols - 2;
    *y = (rows - *oh) / 2;
    *x = (cols - *ow) / 2;
}
