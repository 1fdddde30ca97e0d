/* The logs view's lines (tui/views/logbuf.c): output split at newlines with a line continued
 * across reads, control characters escaped once (an agent's ESC never reaches the terminal),
 * tabs expanded, search wrapping around, and wrapping by display width. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <locale.h>
#include <string.h>

#include "tui/views/logbuf.h"

static void test_lines_escaped_and_continued(void **state)
{
    (void)state;
    tui_logbuf b = {0}, more = {0};
    tui_logbuf_header(&b, 1, "==> exec 1: x <==");
    tui_logbuf_text(&b, 1, false, "one\r\ntw", 7);
    tui_logbuf_text(&more, 1, false, "o\x1b]0;t\x07\n\tx\n", 11);
    tui_logbuf_append(&b, &more);
    assert_int_equal(b.n, 4);
    assert_true(b.lines[0].header);
    assert_string_equal(b.lines[1].text, "one");
    assert_string_equal(b.lines[2].text, "two\\x1b]0;t\\x07");
    assert_false(b.lines[2].partial);
    assert_string_equal(b.lines[3].text, "        x");
    assert_int_equal(tui_logbuf_find_exec(&b, 1), 0);
    assert_int_equal(tui_logbuf_find_exec(&b, 2), -1);
    assert_int_equal(tui_logbuf_search(&b, "TWO", 0, 1), 2);
    assert_int_equal(tui_logbuf_search(&b, "one", 2, 1), 1); /* wraps around */
    assert_int_equal(tui_logbuf_search(&b, "nothing", 0, -1), -1);
    tui_logbuf_free(&b);
}

static void test_wrap_by_width(void **state)
{
    (void)state;
    size_t p[8];
    assert_int_equal(tui_logbuf_wrap("abcdefgh", 3, p, 8), 3);
    assert_int_equal(p[0], 3);
    assert_int_equal(p[2], 2);
    assert_int_equal(tui_logbuf_wrap("", 3, p, 8), 1);
    assert_int_equal(tui_logbuf_wrap("日本語", 4, p, 8), 2); /* two columns each */
    assert_int_equal(p[0], 6);
}

int main(void)
{
    setlocale(LC_ALL, "C.UTF-8");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lines_escaped_and_continued),
        cmocka_unit_test(test_wrap_by_width),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
