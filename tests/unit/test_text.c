/* Terminal-safe text: controls escaped (C0, DEL, C1 as UTF-8 and raw, bidi), ordinary text and
 * UTF-8 untouched, truncation between characters, and JSON kept the same value. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "core/text.h"

static void expect_escape(const char *in, unsigned flags, const char *want)
{
    char *got = sm_text_escape(in, flags);
    assert_string_equal(got, want);
    free(got);
    char buf[256];
    sm_text_escape_into(in, buf, sizeof buf, flags);
    assert_string_equal(buf, want);
}

static void test_escapes_controls(void **state)
{
    (void)state;
    expect_escape("plain text, ünïcödé ✓", 0, "plain text, ünïcödé ✓");
    expect_escape("\x1b]0;title\x07", 0, "\\x1b]0;title\\x07");
    expect_escape("\x1b[2J", 0, "\\x1b[2J");
    expect_escape("a\nb\tc\rd", 0, "a\\nb\\tc\\rd");
    expect_escape("a\nb\tc\rd", SM_TEXT_KEEP_NEWLINES, "a\nb\tc\\rd");
    expect_escape("del\x7f", 0, "del\\x7f");
    expect_escape("c1 \xc2\x9b"
                  "2J \xc2\x80",
                  0, "c1 \\u009b2J \\u0080");
    expect_escape("raw \x9b"
                  "2J",
                  0, "raw \\x9b2J");                      /* 8-bit CSI, not UTF-8 */
    expect_escape("over \xc0\x9b", 0, "over \\xc0\\x9b"); /* overlong ESC */
    expect_escape("bidi \xe2\x80\xae"
                  "cba",
                  0, "bidi \\u202ecba"); /* RIGHT-TO-LEFT OVERRIDE */
    expect_escape("iso \xe2\x81\xa6x", 0, "iso \\u2066x");
    expect_escape("nbsp \xc2\xa0", 0, "nbsp \xc2\xa0"); /* U+00A0 is printable */
    expect_escape(NULL, 0, "");
}

static void test_truncates_between_characters(void **state)
{
    (void)state;
    char buf[8];
    assert_int_equal(sm_text_escape_into("ab\x1b"
                                         "cdef",
                                         buf, sizeof buf, 0),
                     7);
    assert_string_equal(buf, "ab\\x1bc");
    assert_int_equal(sm_text_escape_into("abcdef\x1b", buf, sizeof buf, 0), 6);
    assert_string_equal(buf, "abcdef"); /* the escape does not fit: cut before it, not inside */
    assert_int_equal(sm_text_escape_into("abcde\xe2\x9c\x93", buf, sizeof buf, 0), 5);
    assert_string_equal(buf, "abcde");
}

static void test_json_stays_the_same_value(void **state)
{
    (void)state;
    const char *v = "t\x1b]0;x\x07 \x7f \xc2\x9b \xe2\x80\xae ok ✓";
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "k\xc2\x9b", v);
    char *json = cJSON_PrintUnformatted(o);
    char *safe = sm_text_json_safe(json);
    for (const unsigned char *p = (const unsigned char *)safe; *p; p++) {
        assert_true(*p >= 0x20 && *p != 0x7f);
        assert_false(p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f);
    }
    cJSON *back = cJSON_Parse(safe);
    assert_non_null(back);
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(back, "k\xc2\x9b")->valuestring, v);
    cJSON_Delete(back);
    cJSON_Delete(o);
    free(json);
    free(safe);
}

static void test_predicate(void **state)
{
    (void)state;
    assert_true(sm_text_is_control(0));
    assert_true(sm_text_is_control(0x1b));
    assert_true(sm_text_is_control(0x7f));
    assert_true(sm_text_is_control(0x9b));
    assert_true(sm_text_is_control(0x202e));
    assert_false(sm_text_is_control(' '));
    assert_false(sm_text_is_control(0xa0));
    assert_false(sm_text_is_control(0x2713));
}

/* Table columns are terminal columns: CJK counts 2, a combining accent 0, and a cut never
 * splits a character or leaves half of a wide one. */
static void test_columns(void **state)
{
    (void)state;
    size_t bytes;
    assert_int_equal(sm_text_cols("abc", 10, &bytes), 3);
    assert_int_equal(bytes, 3);
    assert_int_equal(sm_text_cols("\xe4\xb8\xad\xe6\x96\x87", 10, &bytes), 4); /* 中文 */
    assert_int_equal(bytes, 6);
    assert_int_equal(sm_text_cols("\xe4\xb8\xad\xe6\x96\x87", 3, &bytes), 2);
    assert_int_equal(bytes, 3);
    assert_int_equal(sm_text_cols("e\xcc\x81x", 10, &bytes), 2); /* e + U+0301, x */
    assert_int_equal(bytes, 4);
    assert_int_equal(sm_text_cols("\xff\xfe"
                                  "ab",
                                  3, &bytes),
                     3);
    assert_int_equal(bytes, 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_escapes_controls),
        cmocka_unit_test(test_truncates_between_characters),
        cmocka_unit_test(test_json_stays_the_same_value),
        cmocka_unit_test(test_predicate),
        cmocka_unit_test(test_columns),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
