/* Unit tests for core/yaml.c and core/config_interp.c: YAML typing, shapes, errors and
 * anchors, and ${oc.env:...} interpolation, direct and inside YAML. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/config.h"
#include "core/json.h"
#include "core/util.h"
#include "tests/unit/config_testutil.h"

/* ---------------------------------------------------------------- helpers */

static cJSON *parse_ok(const char *text)
{
    sm_error e;
    sm_error_clear(&e);
    cJSON *j = sm_yaml_parse(text, strlen(text), "t.yaml", &e);
    if (!j)
        fail_msg("unexpected parse error: %s", e.msg);
    return j;
}

/* Parses text that must fail; checks the exact one-line message. */
static void parse_fails(const char *text, const char *expected)
{
    sm_error e;
    sm_error_clear(&e);
    cJSON *j = sm_yaml_parse(text, strlen(text), "t.yaml", &e);
    if (j) {
        char *s = sm_json_print(j);
        cJSON_Delete(j);
        fail_msg("parse of %s should fail, got %s", text, s);
    }
    assert_int_equal(e.code, SM_ERR_CONFIG);
    assert_null(strchr(e.msg, '\n'));
    assert_string_equal(e.msg, expected);
}

/* ---------------------------------------------------------------- YAML */

static void test_yaml_typing(void **state)
{
    cJSON *j = parse_ok("n1: null\n"
                        "n2: ~\n"
                        "n3:\n"
                        "n4: NULL\n"
                        "t1: true\n"
                        "t2: True\n"
                        "f1: FALSE\n"
                        "yes_is_text: yes\n"
                        "no_is_text: no\n"
                        "i: 42\n"
                        "neg: -7\n"
                        "plus: +3\n"
                        "zero: 0\n"
                        "octal_looking: 0755\n"
                        "hex_looking: 0x1f\n"
                        "fl: 1.5\n"
                        "exp: 1e3\n"
                        "half: .5\n"
                        "negexp: -2.5e-1\n"
                        "inf: .inf\n"
                        "huge: 12345678901234567890\n"
                        "s: hello world\n"
                        "ver: 1.2.3\n"
                        "q1: \"42\"\n"
                        "q2: 'true'\n"
                        "q3: ''\n"
                        "tagged: !!str 12\n"
                        "lit: |\n"
                        "  a\n"
                        "  b\n"
                        "seq: [1, two, 3.0, null]\n"
                        "nested: {a: {b: [x]}}\n");
    assert_true(cJSON_IsObject(j));
    assert_true(cJSON_IsNull(get(j, "n1")));
    assert_true(cJSON_IsNull(get(j, "n2")));
    assert_true(cJSON_IsNull(get(j, "n3")));
    assert_true(cJSON_IsNull(get(j, "n4")));
    assert_true(cJSON_IsTrue(get(j, "t1")));
    assert_true(cJSON_IsTrue(get(j, "t2")));
    assert_true(cJSON_IsFalse(get(j, "f1")));
    assert_str_item(j, "yes_is_text", "yes");
    assert_str_item(j, "no_is_text", "no");
    assert_num_item(j, "i", 42);
    assert_num_item(j, "neg", -7);
    assert_num_item(j, "plus", 3);
    assert_num_item(j, "zero", 0);
    assert_str_item(j, "octal_looking", "0755");
    assert_str_item(j, "hex_looking", "0x1f");
    assert_num_item(j, "fl", 1.5);
    assert_num_item(j, "exp", 1000);
    assert_num_item(j, "half", 0.5);
    assert_num_item(j, "negexp", -0.25);
    assert_str_item(j, "inf", ".inf");
    assert_str_item(j, "huge", "12345678901234567890");
    assert_str_item(j, "s", "hello world");
    assert_str_item(j, "ver", "1.2.3");
    assert_str_item(j, "q1", "42");
    assert_str_item(j, "q2", "true");
    assert_str_item(j, "q3", "");
    assert_str_item(j, "tagged", "12");
    assert_str_item(j, "lit", "a\nb\n");
    const cJSON *seq = get(j, "seq");
    assert_true(cJSON_IsArray(seq));
    assert_int_equal(cJSON_GetArraySize(seq), 4);
    assert_true(cJSON_GetArrayItem(seq, 0)->valuedouble == 1);
    assert_string_equal(cJSON_GetArrayItem(seq, 1)->valuestring, "two");
    assert_true(cJSON_GetArrayItem(seq, 2)->valuedouble == 3.0);
    assert_true(cJSON_IsNull(cJSON_GetArrayItem(seq, 3)));
    const cJSON *b = get(get(get(j, "nested"), "a"), "b");
    assert_string_equal(cJSON_GetArrayItem(b, 0)->valuestring, "x");
    /* Key order is file order. */
    assert_string_equal(j->child->string, "n1");
    cJSON_Delete(j);
}

static void test_yaml_top_level_shapes(void **state)
{
    cJSON *j = parse_ok("");
    assert_true(cJSON_IsNull(j));
    cJSON_Delete(j);
    j = parse_ok("# only a comment\n\n");
    assert_true(cJSON_IsNull(j));
    cJSON_Delete(j);
    j = parse_ok("- a\n- 2\n");
    assert_true(cJSON_IsArray(j));
    assert_int_equal(cJSON_GetArraySize(j), 2);
    cJSON_Delete(j);
    j = parse_ok("just text");
    assert_true(cJSON_IsString(j));
    cJSON_Delete(j);
}

static void test_yaml_malformed(void **state)
{
    parse_fails("a: b: c\n", "t.yaml:1:5: mapping values are not allowed in this context");
    parse_fails("ok: 1\nlist: [1, 2\nnext: c\n", "t.yaml:3:5: did not find expected ',' or ']'");
    parse_fails("a:\n\tb: 1\n", "t.yaml:2:1: found character that cannot start any token");
    parse_fails("a: \xff\n", "t.yaml:1:4: invalid leading UTF-8 octet");
    parse_fails("a: 1\n---\nb: 2\n", "t.yaml:2:1: only one YAML document per file is supported");
    parse_fails("a: !custom x\n", "t.yaml:1:4: unsupported YAML tag '!custom'");
}

static void test_yaml_duplicate_and_bad_keys(void **state)
{
    parse_fails("a: 1\nb: 2\na: 3\n", "t.yaml:3:1: duplicate key 'a'");
    parse_fails("outer:\n  x: 1\n  x: 2\n", "t.yaml:3:3: duplicate key 'x'");
    /* the same key in different mappings is fine */
    cJSON *j = parse_ok("a: {x: 1}\nb: {x: 2}\n");
    cJSON_Delete(j);
    parse_fails("80: http\n", "t.yaml:1:1: mapping key '80' must be a string (quote it)");
    parse_fails("true: 1\n", "t.yaml:1:1: mapping key 'true' must be a string (quote it)");
    parse_fails("? [a, b]\n: c\n", "t.yaml:1:3: mapping keys must be strings");
    /* quoted keys that look like numbers are strings */
    j = parse_ok("\"80\": http\n");
    assert_str_item(j, "80", "http");
    cJSON_Delete(j);
}

static void test_yaml_anchors_aliases(void **state)
{
    cJSON *j = parse_ok("base: &b {image: python, env: {A: 1}}\n"
                        "copy: *b\n"
                        "merged:\n"
                        "  <<: *b\n"
                        "  image: ubuntu\n"
                        "scalar: &s hi\n"
                        "again: *s\n");
    const cJSON *copy = get(j, "copy");
    assert_str_item(copy, "image", "python");
    assert_num_item(get(copy, "env"), "A", 1);
    const cJSON *merged = get(j, "merged");
    assert_str_item(merged, "image", "ubuntu"); /* explicit keys win over merged ones */
    assert_num_item(get(merged, "env"), "A", 1);
    assert_null(cJSON_GetObjectItemCaseSensitive(merged, "<<"));
    assert_str_item(j, "again", "hi");
    /* the copy is independent of the original */
    assert_ptr_not_equal(get(j, "base"), copy);
    cJSON_Delete(j);

    /* an anchor defined inside a merge source stays usable afterwards */
    j = parse_ok("m:\n  <<: &x {a: 1, b: 2}\n  c: 3\nlater: *x\n");
    assert_num_item(get(j, "later"), "b", 2);
    assert_num_item(get(j, "m"), "a", 1);
    cJSON_Delete(j);

    parse_fails("a: *nope\n", "t.yaml:1:4: alias '*nope' names no anchor defined before it");
    parse_fails("a: &x [1]\nb:\n  <<: *x\n",
                "t.yaml:3:7: the value of '<<' must be a mapping or a list of mappings");

    /* exponential alias expansion is bounded */
    const char *bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
                       "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
                       "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
                       "d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
                       "e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\n"
                       "f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]\n";
    sm_error e;
    sm_error_clear(&e);
    j = sm_yaml_parse(bomb, strlen(bomb), "t.yaml", &e);
    assert_null(j);
    assert_non_null(strstr(e.msg, "document too large"));
    assert_true(sm_str_has_prefix(e.msg, "t.yaml:5:"));
}

/* ---------------------------------------------------------------- interpolation */

static void test_interpolate_direct(void **state)
{
    sm_error e;
    int is_null = -1;
    setenv("SM_T_A", "hello", 1);
    setenv("SM_T_EMPTY", "", 1);
    unsetenv("SM_T_UNSET");

    char *s = sm_config_interpolate("${oc.env:SM_T_A}", &is_null, &e);
    assert_string_equal(s, "hello");
    assert_int_equal(is_null, 0);
    free(s);

    s = sm_config_interpolate("${oc.env:SM_T_UNSET,fallback}", &is_null, &e);
    assert_string_equal(s, "fallback");
    free(s);

    s = sm_config_interpolate("${oc.env:SM_T_A,fallback}", &is_null, &e);
    assert_string_equal(s, "hello"); /* a set variable beats its default */
    free(s);

    s = sm_config_interpolate("${oc.env:SM_T_EMPTY,fallback}", &is_null, &e);
    assert_string_equal(s, ""); /* empty counts as set */
    free(s);

    s = sm_config_interpolate("${oc.env:SM_T_UNSET,null}", &is_null, &e);
    assert_non_null(s);
    assert_int_equal(is_null, 1);
    free(s);

    s = sm_config_interpolate("a-${oc.env:SM_T_UNSET,b}-c", &is_null, &e);
    assert_string_equal(s, "a-b-c");
    assert_int_equal(is_null, 0);
    free(s);

    s = sm_config_interpolate("a-${oc.env:SM_T_UNSET,null}-c", &is_null, &e);
    assert_string_equal(s, "a--c");
    assert_int_equal(is_null, 0); /* only a whole-value interpolation becomes null */
    free(s);

    s = sm_config_interpolate("${oc.env:SM_T_A}/${oc.env:SM_T_UNSET,x}", &is_null, &e);
    assert_string_equal(s, "hello/x");
    free(s);

    s = sm_config_interpolate("${oc.env:SM_T_UNSET,'a,b }'}", &is_null, &e);
    assert_string_equal(s, "a,b }");
    free(s);

    s = sm_config_interpolate("${oc.env:SM_T_UNSET, \"x y\" }", &is_null, &e);
    assert_string_equal(s, "x y");
    free(s);

    s = sm_config_interpolate("${oc.env:SM_T_UNSET,'null'}", &is_null, &e);
    assert_string_equal(s, "null");
    assert_int_equal(is_null, 0); /* a quoted null is text */
    free(s);

    s = sm_config_interpolate("${oc.env:SM_T_UNSET,${oc.env:SM_T_A}}", &is_null, &e);
    assert_string_equal(s, "hello");
    free(s);

    s = sm_config_interpolate("${oc.env:SM_T_UNSET,}", &is_null, &e);
    assert_string_equal(s, "");
    free(s);

    s = sm_config_interpolate("echo ${HOME} $x \\${oc.env:SM_T_A}", &is_null, &e);
    assert_string_equal(s, "echo ${HOME} $x ${oc.env:SM_T_A}");
    free(s);

    sm_error_clear(&e);
    s = sm_config_interpolate("x ${oc.env:SM_T_UNSET} y", &is_null, &e);
    assert_null(s);
    assert_int_equal(e.code, SM_ERR_CONFIG);
    assert_string_equal(e.msg, "environment variable SM_T_UNSET is not set (use "
                               "${oc.env:SM_T_UNSET,default})");

    sm_error_clear(&e);
    s = sm_config_interpolate("${oc.env:SM_T_A", &is_null, &e);
    assert_null(s);
    assert_string_equal(e.msg, "unterminated ${oc.env:...} interpolation");

    sm_error_clear(&e);
    s = sm_config_interpolate("${oc.env:,x}", &is_null, &e);
    assert_null(s);
    assert_string_equal(e.msg, "empty variable name in ${oc.env:...}");
}

static void test_interpolate_in_yaml(void **state)
{
    setenv("SM_T_A", "hello", 1);
    setenv("SM_T_NUM", "8080", 1);
    unsetenv("SM_T_UNSET");
    cJSON *j = parse_ok("a: ${oc.env:SM_T_A}\n"
                        "quoted: \"${oc.env:SM_T_A}-q\"\n"
                        "n: ${oc.env:SM_T_UNSET,null}\n"
                        "emb: pre-${oc.env:SM_T_UNSET,mid}-post\n"
                        "port: ${oc.env:SM_T_NUM}\n"
                        "flag: ${oc.env:SM_T_UNSET,true}\n"
                        "list:\n  - ${oc.env:SM_T_A}\n  - plain\n"
                        "shell: echo ${HOME}\n"
                        "typed: 12\n");
    assert_str_item(j, "a", "hello");
    assert_str_item(j, "quoted", "hello-q");
    assert_true(cJSON_IsNull(get(j, "n")));
    assert_str_item(j, "emb", "pre-mid-post");
    /* interpolated values are strings; the json getters coerce them */
    assert_str_item(j, "port", "8080");
    long port = 0;
    bool flag = false;
    assert_int_equal(sm_json_get_long(j, "port", &port, "t", NULL), SM_OK);
    assert_int_equal(port, 8080);
    assert_str_item(j, "flag", "true");
    assert_int_equal(sm_json_get_bool(j, "flag", &flag, "t", NULL), SM_OK);
    assert_true(flag);
    assert_string_equal(cJSON_GetArrayItem(get(j, "list"), 0)->valuestring, "hello");
    assert_str_item(j, "shell", "echo ${HOME}");
    assert_num_item(j, "typed", 12);
    cJSON_Delete(j);

    parse_fails("ok: 1\nkey: ${oc.env:SM_T_UNSET}\n",
                "t.yaml:2:6: environment variable SM_T_UNSET is not set (use "
                "${oc.env:SM_T_UNSET,default})");
    parse_fails("deep:\n  - x: \"a ${oc.env:SM_T_A\"\n",
                "t.yaml:2:8: unterminated ${oc.env:...} interpolation");
}

int main(void)
{
    unsetenv("SANDMAN_CONFIG");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_yaml_typing),
        cmocka_unit_test(test_yaml_top_level_shapes),
        cmocka_unit_test(test_yaml_malformed),
        cmocka_unit_test(test_yaml_duplicate_and_bad_keys),
        cmocka_unit_test(test_yaml_anchors_aliases),
        cmocka_unit_test(test_interpolate_direct),
        cmocka_unit_test(test_interpolate_in_yaml),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
