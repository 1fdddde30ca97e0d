/* Resizing an embedded terminal reflows it as tmux does: lines the program's text wrapped are
 * cut again at the new width, in scrollback and on the screen, so narrowing loses nothing and
 * widening gives the long lines back; the cursor stays on its character. The reference is a
 * terminal that was that width all along: text written at 40 columns and resized to 23 is
 * what the same text written at 23 columns shows. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "tui/term/term.h"

static void feed(tui_term *t, const char *s)
{
    tui_term_feed(t, s, strlen(s));
}

/* Every line's text (scrollback and screen), one per line, malloc'd. */
static char *all_text(tui_term *t)
{
    size_t cap = 1 << 16, n = 0;
    char *out = xmalloc(cap);
    char line[2048];
    for (size_t l = 0; l < tui_term_lines(t); l++) {
        size_t k = tui_term_line_text(t, l, line, sizeof line);
        if (n + k + 2 > cap) {
            cap = (n + k + 2) * 2;
            out = xrealloc(out, cap);
        }
        memcpy(out + n, line, k);
        n += k;
        out[n++] = '\n';
    }
    out[n] = '\0';
    return out;
}

static char *line_text(tui_term *t, size_t line)
{
    static char buf[2048];
    tui_term_line_text(t, line, buf, sizeof buf);
    return buf;
}

/* The first n cells of a line as ASCII, blanks as spaces. */
static char *row_chars(tui_term *t, size_t line, int n)
{
    static char buf[256];
    for (int c = 0; c < n; c++) {
        tui_cell cell;
        assert_true(tui_term_cell(t, line, c, &cell));
        buf[c] = cell.ch ? (char)cell.ch : ' ';
    }
    buf[n] = '\0';
    return buf;
}

static void cursor(tui_term *t, int *row, int *col)
{
    bool visible;
    int shape;
    tui_term_cursor(t, row, col, &visible, &shape);
}

/* A blank as scrollback trims it (a space's colour or boldness shows nothing). */
static bool blank(const tui_cell *c)
{
    return (c->ch == 0 || c->ch == ' ') && VTERM_COLOR_IS_DEFAULT_BG(&c->bg) &&
           !(c->attrs & (TUI_A_REVERSE | TUI_A_UNDERLINE));
}

static const char long_line[] = "The quick brown fox jumps over the lazy dog, and then it "
                                "runs around the field twice before it lies down to sleep.";

/* A long line and the lines around it, narrowed and widened back: whole again, scrollback
 * kept, the screen and the cursor as they were. */
static void test_narrow_and_widen_back(void **state)
{
    (void)state;
    tui_term *t = tui_term_new(10, 40, 1000, NULL, NULL);
    char buf[64];
    for (int i = 0; i < 30; i++) {
        snprintf(buf, sizeof buf, "line %d\r\n", i);
        feed(t, buf);
    }
    feed(t, long_line);
    feed(t, "\r\nshort\r\n$ ");
    size_t sb = tui_term_sb_count(t);
    char *before = all_text(t);
    int row, col, row0, col0;
    cursor(t, &row0, &col0);
    /* 114 characters: three rows at 40 columns */
    assert_true(strlen(long_line) > 80 && strlen(long_line) <= 120);

    tui_term_resize(t, 10, 20); /* six rows at 20 */
    cursor(t, &row, &col);
    assert_int_equal(row, row0); /* the prompt stays on its row */
    assert_int_equal(col, 2);
    assert_int_equal(tui_term_sb_count(t), sb + 3);
    size_t first = tui_term_sb_count(t) + (size_t)row - 7; /* the long line's first row */
    char joined[256] = "";
    for (int r = 0; r < 6; r++) /* wrapped rows keep their spaces */
        strcat(joined, row_chars(t, first + (size_t)r, r < 5 ? 20 : 14));
    assert_string_equal(joined, long_line);
    assert_string_equal(line_text(t, first + 6), "short");
    assert_string_equal(line_text(t, 0), "line 0"); /* nothing lost at the top */

    tui_term_resize(t, 10, 40);
    char *after = all_text(t);
    assert_string_equal(after, before);
    assert_int_equal(tui_term_sb_count(t), sb);
    cursor(t, &row, &col);
    assert_int_equal(row, row0);
    assert_int_equal(col, col0);

    tui_term_resize(t, 10, 120); /* wider than it was written: one line */
    assert_string_equal(line_text(t, tui_term_sb_count(t) + (size_t)row - 2), long_line);
    free(before);
    free(after);
    tui_term_free(t);
}

/* Lines that ended with a newline stay apart, also a line exactly as wide as the screen. */
static void test_newlines_are_not_joined(void **state)
{
    (void)state;
    tui_term *t = tui_term_new(6, 10, 100, NULL, NULL);
    feed(t, "abc\r\n0123456789\r\ndef\r\n");
    tui_term_resize(t, 6, 30);
    size_t sb = tui_term_sb_count(t);
    assert_string_equal(line_text(t, sb), "abc");
    assert_string_equal(line_text(t, sb + 1), "0123456789");
    assert_string_equal(line_text(t, sb + 2), "def");
    tui_term_free(t);
}

/* The cursor waiting after the last column, and one inside a wrapped line, keep their place:
 * the next character lands where it would have. */
static void test_cursor_keeps_its_character(void **state)
{
    (void)state;
    tui_term *t = tui_term_new(6, 10, 100, NULL, NULL);
    feed(t, "0123456789"); /* the cursor waits at the edge */
    tui_term_resize(t, 6, 15);
    feed(t, "X");
    assert_string_equal(line_text(t, tui_term_sb_count(t)), "0123456789X");
    tui_term_resize(t, 6, 10);
    feed(t, "Y");
    size_t sb = tui_term_sb_count(t);
    assert_string_equal(line_text(t, sb), "0123456789");
    assert_string_equal(line_text(t, sb + 1), "XY");
    /* inside: 25 characters, back 5 (at offset 20: row 2 of 10 columns), 12 columns wide */
    feed(t, "\r\nabcdefghijklmnopqrstuvwxy\033[5D");
    tui_term_resize(t, 6, 12);
    int row, col;
    cursor(t, &row, &col);
    assert_int_equal(col, 20 - 12);
    feed(t, "U");
    char joined[64] = "";
    for (int r = row - 1; r <= row + 1; r++)
        strcat(joined, line_text(t, tui_term_sb_count(t) + (size_t)r));
    assert_string_equal(joined, "abcdefghijklmnopqrstUvwxy");
    tui_term_free(t);
}

/* Wide characters that did not fit the last column are not split, and the blank left at the
 * edge is no part of the text when the line is rewrapped. */
static void test_wide_characters_at_the_edge(void **state)
{
    (void)state;
    static const char wide[] = "a\xe5\xae\xbd\xe5\xad\x97\xe5\xae\xbd\xe5\xad\x97\xe5\xae\xbd"
                               "\xe5\xad\x97\xe5\xae\xbd\xe5\xad\x97\xe5\xae\xbd\xe5\xad\x97";
    tui_term *t = tui_term_new(6, 10, 100, NULL, NULL);
    feed(t, wide); /* a + 10 wide: 1 + 8 + blank, then 2 wide... */
    feed(t, "\r\n");
    tui_term_resize(t, 6, 40);
    assert_string_equal(line_text(t, tui_term_sb_count(t)), wide);
    tui_term_resize(t, 6, 7);
    tui_term_resize(t, 6, 40);
    assert_string_equal(line_text(t, tui_term_sb_count(t)), wide);
    tui_term_free(t);
}

/* Reflowed while a full-screen program has the alternate screen: the shell's screen is
 * rewrapped behind it, the program's own screen is not touched. */
static void test_primary_reflows_behind_the_alternate_screen(void **state)
{
    (void)state;
    tui_term *t = tui_term_new(6, 20, 100, NULL, NULL);
    feed(t, "0123456789abcdefghijKLMNO\r\n$ ");
    feed(t, "\033[?1049h\033[Hin the program");
    tui_term_resize(t, 6, 40);
    assert_string_equal(line_text(t, tui_term_sb_count(t)), "in the program");
    feed(t, "\033[?1049l");
    assert_string_equal(line_text(t, tui_term_sb_count(t)), "0123456789abcdefghijKLMNO");
    assert_string_equal(line_text(t, tui_term_sb_count(t) + 1), "$");
    tui_term_free(t);
}

/* Random words, wide characters, colours and newlines written at 40 columns and resized to
 * 23 (and the other way) give the cells, lines and cursor of the same output written at that
 * width. (No line ends in spaces: the end of a line is trimmed of them, so a space that wrapped
 * alone onto a row of its own at the narrower width is not a row after the reflow.) */
static void test_resized_equals_written_at_that_width(void **state)
{
    (void)state;
    static const char *const pieces[] = {
        " word",
        " longerword",
        "x",
        "\r\n",
        "\xe5\xae\xbd",
        "\033[1;31m",
        "\033[0m",
        "\033[38;5;99m",
        "e\xcc\x81",
        "0123456789012345678901234567890123456789",
        "  x",
    };
    unsigned seed = 99;
    for (int run = 0; run < 60; run++) {
        int from = run % 2 ? 40 : 23, to = run % 2 ? 23 : 40;
        tui_term *a = tui_term_new(8, from, 1000, NULL, NULL);
        tui_term *b = tui_term_new(8, to, 1000, NULL, NULL);
        for (int k = 0; k < 400; k++) {
            seed = seed * 1103515245u + 12345u;
            const char *p = pieces[(seed >> 16) % (sizeof pieces / sizeof pieces[0])];
            feed(a, p);
            feed(b, p);
        }
        feed(a, "\r\n$ ");
        feed(b, "\r\n$ ");
        tui_term_resize(a, 8, to);
        if (tui_term_sb_count(a) != tui_term_sb_count(b) && getenv("REFLOW_DEBUG")) {
            char *x = all_text(a), *y = all_text(b);
            fprintf(stderr, "run %d\n--- resized\n%s--- written\n%s", run, x, y);
            free(x);
            free(y);
        }
        assert_int_equal(tui_term_sb_count(a), tui_term_sb_count(b));
        for (size_t l = 0; l < tui_term_lines(a); l++)
            for (int c = 0; c < to; c++) {
                tui_cell x, y;
                assert_true(tui_term_cell(a, l, c, &x));
                assert_true(tui_term_cell(b, l, c, &y));
                if (blank(&x) && blank(&y))
                    continue; /* trailing blanks are trimmed in scrollback, not on screen */
                if (x.ch != y.ch || x.width != y.width || x.attrs != y.attrs ||
                    x.comb[0] != y.comb[0] || !vterm_color_is_equal(&x.fg, &y.fg))
                    fail_msg("run %d line %zu col %d: resized U+%04X w%d, written U+%04X w%d", run,
                             l, c, x.ch, x.width, y.ch, y.width);
            }
        int ra, ca, rb, cb;
        cursor(a, &ra, &ca);
        cursor(b, &rb, &cb);
        assert_int_equal(ra, rb);
        assert_int_equal(ca, cb);
        tui_term_free(a);
        tui_term_free(b);
    }
}

/* A full scrollback of wrapped lines, narrowed: the ring keeps its newest lines, up to its
 * size. */
static void test_scrollback_stays_within_its_size(void **state)
{
    (void)state;
    tui_term *t = tui_term_new(5, 40, 50, NULL, NULL);
    char buf[64];
    for (int i = 0; i < 200; i++) {
        snprintf(buf, sizeof buf, "%03d-67890123456789012345678901234567890123\r\n", i);
        feed(t, buf);
    }
    tui_term_resize(t, 5, 10);
    assert_int_equal(tui_term_sb_count(t), 50);
    /* those 50 rows of 10 are 10 lines at 80, the last four on the screen above the cursor */
    tui_term_resize(t, 5, 80);
    size_t sb = tui_term_sb_count(t);
    assert_in_range(sb, 6, 7);
    assert_string_equal(line_text(t, sb + 3), "199-67890123456789012345678901234567890123");
    assert_string_equal(line_text(t, sb - 1), "195-67890123456789012345678901234567890123");
    tui_term_free(t);
}

int main(void)
{
    setlocale(LC_ALL, "C.UTF-8");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_narrow_and_widen_back),
        cmocka_unit_test(test_newlines_are_not_joined),
        cmocka_unit_test(test_cursor_keeps_its_character),
        cmocka_unit_test(test_wide_characters_at_the_edge),
        cmocka_unit_test(test_primary_reflows_behind_the_alternate_screen),
        cmocka_unit_test(test_resized_equals_written_at_that_width),
        cmocka_unit_test(test_scrollback_stays_within_its_size),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
