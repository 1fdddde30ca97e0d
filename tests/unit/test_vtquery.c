/* The query filter for replayed terminal output: queries go, everything else stays byte for
 * byte, whatever the chunking. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/vtquery.h"

/* Filters s in chunks of `step` bytes (then flushes); returns the output (static). */
static const char *filtered(const char *s, size_t step)
{
    static char out[4096];
    sm_vtq q;
    sm_vtq_init(&q);
    size_t len = strlen(s), w = 0;
    for (size_t i = 0; i < len; i += step) {
        size_t n = len - i < step ? len - i : step;
        w += sm_vtq_filter(&q, s + i, n, out + w);
    }
    w += sm_vtq_flush(&q, out + w);
    out[w] = '\0';
    return out;
}

static void expect(const char *in, const char *want)
{
    for (size_t step = 1; step <= strlen(in) + 1; step++)
        assert_string_equal(filtered(in, step), want);
}

static void test_queries_removed(void **state)
{
    (void)state;
    expect("a\033[6nb", "ab");           /* cursor position report */
    expect("a\033[5nb", "ab");           /* status report */
    expect("a\033[?6nb", "ab");          /* DEC cursor position */
    expect("a\033[cb\033[0cc", "abc");   /* primary device attributes */
    expect("a\033[>cb\033[>0cc", "abc"); /* secondary */
    expect("a\033[=cb", "ab");           /* tertiary */
    expect("a\033[?2004$pb", "ab");      /* DECRQM */
    expect("a\033[4$pb", "ab");
    expect("a\033[>qb", "ab");            /* XTVERSION */
    expect("a\033[?ub", "ab");            /* keyboard protocol flags */
    expect("a\033[14tb\033[18tc", "abc"); /* window size reports */
    expect("a\033Zb", "ab");              /* DECID */
    expect("a\033]11;?\007b", "ab");      /* background colour, BEL */
    expect("a\033]10;?\033\\b", "ab");    /* foreground colour, ST */
    expect("a\033]4;1;?\007b", "ab");     /* palette entry */
    expect("a\033]52;c;?\007b", "ab");    /* clipboard read */
    expect("a\033P$qm\033\\b", "ab");     /* DECRQSS */
    expect("a\033P+q544e\033\\b", "ab");  /* XTGETTCAP */
}

static void test_everything_else_kept(void **state)
{
    (void)state;
    const char *keep[] = {
        "plain text\r\n",
        "\033[1;31mred\033[0m \033[38;2;1;2;3mx\033[m",
        "\033[2J\033[H\033[?1049h\033[?2004h\033[?1000l",
        "\033[>4;1m",              /* modifyOtherKeys set, not a query */
        "\033[>1u\033[<u",         /* keyboard protocol push/pop */
        "\033[22;0t\033[8;24;80t", /* title stack and resize, not reports */
        "\033[?62;22c",            /* a DA answer itself is no query */
        "\033]0;title\007\033]2;t2\033\\",
        "\033]52;c;aGVsbG8=\007", /* clipboard write */
        "\033(B\033)0\033#8\0337\0338\033=\033>",
        "\033[ q\033[6 q", /* cursor shapes */
        "中文 ✓ é",
    };
    for (size_t i = 0; i < sizeof keep / sizeof keep[0]; i++)
        expect(keep[i], keep[i]);
}

static void test_odd_input(void **state)
{
    (void)state;
    /* CAN abandons a sequence: it and what came before go on unchanged */
    expect("a\033[6\030b", "a\033[6\030b");
    /* an ESC inside a CSI starts a new sequence */
    expect("\033[1\033[6n", "\033[1");
    /* a string ended by an ESC that starts another sequence */
    expect("\033]0;t\033[6nx", "\033]0;tx");
    /* a sequence longer than what is held back passes on whole */
    char big[400];
    strcpy(big, "\033]0;");
    memset(big + 4, 'x', 300);
    strcpy(big + 304, "\007\033[6nend");
    char want[400];
    memcpy(want, big, 305);
    strcpy(want + 305, "end");
    expect(big, want);
    /* a query cut off by the end of the stream is flushed as it came */
    expect("ab\033[6", "ab\033[6");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_queries_removed),
        cmocka_unit_test(test_everything_else_kept),
        cmocka_unit_test(test_odd_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
