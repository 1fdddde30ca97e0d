/* Unit tests for core/config.c: YAML typing and errors, ${oc.env:...} interpolation, the block
 * rules of NeMo Gym provider files, context resolution and the config file search order. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/config.h"
#include "core/json.h"
#include "core/provider_impl.h"
#include "core/redact.h"
#include "core/util.h"

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

static void load_fails(const char *text, const char *expected)
{
    sm_config c;
    sm_error e;
    sm_error_clear(&e);
    int rc = sm_config_load_string(text, "config.yaml", &c, &e);
    assert_int_equal(rc, SM_ERR_CONFIG);
    assert_int_equal(e.code, SM_ERR_CONFIG);
    assert_string_equal(e.msg, expected);
    assert_null(c.contexts);
    assert_int_equal(c.ncontexts, 0);
}

static void load_ok(const char *text, sm_config *c)
{
    sm_error e;
    sm_error_clear(&e);
    int rc = sm_config_load_string(text, "config.yaml", c, &e);
    if (rc != SM_OK)
        fail_msg("unexpected load error: %s", e.msg);
}

/* A block's own error is kept with it: the file loads, selecting the block fails (selecting
 * another block or a bare provider does not). */
static void block_fails(const char *text, const char *block, const char *expected)
{
    sm_config c;
    sm_context ctx;
    sm_error e;
    load_ok(text, &c);
    sm_error_clear(&e);
    assert_int_equal(sm_config_resolve(&c, block, &ctx, &e), SM_ERR_CONFIG);
    assert_int_equal(e.code, SM_ERR_CONFIG);
    assert_null(strchr(e.msg, '\n'));
    assert_string_equal(e.msg, expected);
    assert_null(ctx.name);
    sm_config_free(&c);
}

static const cJSON *get(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v)
        fail_msg("key '%s' missing", key);
    return v;
}

static void assert_str_item(const cJSON *o, const char *key, const char *want)
{
    const cJSON *v = get(o, key);
    assert_true(cJSON_IsString(v));
    assert_string_equal(v->valuestring, want);
}

static void assert_num_item(const cJSON *o, const char *key, double want)
{
    const cJSON *v = get(o, key);
    assert_true(cJSON_IsNumber(v));
    assert_true(v->valuedouble == want);
}

static const sm_context *find_ctx(const sm_config *c, const char *name)
{
    for (size_t i = 0; i < c->ncontexts; i++)
        if (!strcmp(c->contexts[i].name, name))
            return &c->contexts[i];
    fail_msg("context '%s' missing", name);
    return NULL;
}

static char *write_temp(const char *text)
{
    char *path = xstrdup("/tmp/sandman-config-test-XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    size_t n = strlen(text);
    assert_int_equal(write(fd, text, n), (ssize_t)n);
    close(fd);
    return path;
}

static int dummy_init(sm_provider *p, const cJSON *config, sm_error *err)
{
    return SM_OK;
}

static const sm_provider_ops fake_docker = {.name = "docker", .init = dummy_init};
static const sm_provider_ops fake_zeta = {.name = "zeta", .init = dummy_init};

static int setup_registry(void **state)
{
    sm_provider_registry_reset();
    sm_error e;
    sm_error_clear(&e);
    assert_int_equal(sm_provider_register(&fake_zeta, &e), SM_OK);
    assert_int_equal(sm_provider_register(&fake_docker, &e), SM_OK);
    return 0;
}

static int teardown_registry(void **state)
{
    sm_provider_registry_reset();
    return 0;
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

/* ---------------------------------------------------------------- config structure */

static void test_nemo_gym_file(void **state)
{
    unsetenv("MY_TEAM");
    setenv("OPENSANDBOX_API_KEY", "osb-secret-0123456789", 1);
    sm_redact_reset();
    const char *yaml = "sandbox_provider: sandbox\n"
                       "sandbox:\n"
                       "  docker:\n"
                       "    exec: {default_timeout_s: 180}\n"
                       "    probe: {command: \"printf docker-sandbox-ready\", timeout_s: 30}\n"
                       "  default_metadata: {sandbox-api: docker-cli, team: "
                       "\"${oc.env:MY_TEAM,research}\"}\n"
                       "remote:\n"
                       "  opensandbox:\n"
                       "    connection:\n"
                       "      base_url: http://osb.example:8080\n"
                       "      api_key: ${oc.env:OPENSANDBOX_API_KEY}\n"
                       "    image: python:3.12\n";
    sm_config c;
    load_ok(yaml, &c);
    assert_int_equal(c.ncontexts, 2);
    assert_null(c.path);
    assert_string_equal(c.default_context, "sandbox");
    assert_null(c.theme);

    const sm_context *sb = &c.contexts[0];
    assert_string_equal(sb->name, "sandbox");
    assert_string_equal(sb->provider, "docker");
    assert_num_item(get(sb->options, "exec"), "default_timeout_s", 180);
    assert_str_item(get(sb->options, "probe"), "command", "printf docker-sandbox-ready");
    assert_num_item(get(sb->options, "probe"), "timeout_s", 30);
    assert_null(cJSON_GetObjectItemCaseSensitive(sb->options, "default_metadata"));
    assert_int_equal(sb->default_metadata.n, 2);
    assert_string_equal(sm_map_get(&sb->default_metadata, "sandbox-api"), "docker-cli");
    assert_string_equal(sm_map_get(&sb->default_metadata, "team"), "research");
    assert_int_equal(sb->image_rewrites.n, 0);

    const sm_context *osb = &c.contexts[1];
    assert_string_equal(osb->name, "remote");
    assert_string_equal(osb->provider, "opensandbox");
    assert_str_item(get(osb->options, "connection"), "api_key", "osb-secret-0123456789");
    assert_int_equal(osb->default_metadata.n, 0);

    /* the api key was registered for redaction; non-secret values were not */
    char *r = sm_redact_dup("auth failed for osb-secret-0123456789 at http://osb.example:8080");
    assert_string_equal(r, "auth failed for *** at http://osb.example:8080");
    free(r);
    sm_config_free(&c);

    /* with MY_TEAM set, the variable wins over the default */
    setenv("MY_TEAM", "infra", 1);
    load_ok(yaml, &c);
    assert_string_equal(sm_map_get(&find_ctx(&c, "sandbox")->default_metadata, "team"), "infra");
    sm_config_free(&c);
    unsetenv("MY_TEAM");
    sm_redact_reset();
}

static void test_secrets_nested(void **state)
{
    sm_redact_reset();
    sm_config c;
    load_ok("b:\n"
            "  p:\n"
            "    auth: {user: alice-the-user, pass: hunter2-long}\n"
            "    tokens: [tok-aaaa-1111, tok-bbbb-2222]\n"
            "    region: us-east-1\n",
            &c);
    char *r = sm_redact_dup("alice-the-user hunter2-long tok-aaaa-1111 tok-bbbb-2222 us-east-1");
    assert_string_equal(r, "*** *** *** *** us-east-1");
    free(r);
    sm_config_free(&c);
    sm_redact_reset();
}

static void test_secrets_in_default_metadata(void **state)
{
    sm_redact_reset();
    sm_config c;
    load_ok(
        "b:\n"
        "  p: {}\n"
        "  default_metadata: {api_token: tok-meta-4242, Db_Password: pw-meta-99, team: evals}\n",
        &c);
    char *r = sm_redact_dup("tok-meta-4242 pw-meta-99 evals");
    assert_string_equal(r, "*** *** evals");
    free(r);
    sm_config_free(&c);
    sm_redact_reset();
}

static void test_block_provider_key_count(void **state)
{
    block_fails("sandbox:\n  docker: {}\n  local: {}\n", "sandbox",
                "config.yaml: block 'sandbox' holds 2 provider keys (docker, local); a block holds "
                "exactly one provider key plus optional default_metadata and rewrite_image");
    block_fails("sandbox:\n  default_metadata: {a: b}\n", "sandbox",
                "config.yaml: block 'sandbox' holds no provider key; a block holds exactly one "
                "provider key plus optional default_metadata and rewrite_image");
    block_fails("sandbox: {}\n", "sandbox",
                "config.yaml: block 'sandbox' holds no provider key; a block holds exactly one "
                "provider key plus optional default_metadata and rewrite_image");
}

static void test_block_provider_value(void **state)
{
    block_fails("sandbox:\n  docker: 5\n", "sandbox",
                "config.yaml: block 'sandbox': the options of provider 'docker' must be a mapping "
                "(or empty)");
    block_fails("sandbox:\n  docker: [a]\n", "sandbox",
                "config.yaml: block 'sandbox': the options of provider 'docker' must be a mapping "
                "(or empty)");
    sm_config c;
    load_ok("sandbox:\n  docker:\n", &c);
    assert_int_equal(c.ncontexts, 1);
    assert_true(cJSON_IsObject(c.contexts[0].options));
    assert_null(c.contexts[0].options->child);
    sm_config_free(&c);
}

static void test_default_metadata(void **state)
{
    sm_config c;
    load_ok("b:\n  local: {}\n  default_metadata: {n: 3, t: true, z: null, s: x}\n", &c);
    const sm_map *m = &c.contexts[0].default_metadata;
    assert_string_equal(sm_map_get(m, "n"), "3");
    assert_string_equal(sm_map_get(m, "t"), "true");
    assert_null(sm_map_get(m, "z")); /* a null label is left out */
    assert_string_equal(sm_map_get(m, "s"), "x");
    sm_config_free(&c);
    block_fails("b:\n  local: {}\n  default_metadata: [a]\n", "b",
                "config.yaml: block 'b': default_metadata must be a mapping of strings");
    block_fails("b:\n  local: {}\n  default_metadata: {a: [1]}\n", "b",
                "config.yaml: block 'b': default_metadata value of 'a' must be a string, not a "
                "list");
}

static void test_top_level_rules(void **state)
{
    /* a merged run config's top-level values are ignored unless selected */
    block_fails("foo: 3\n", "foo",
                "top-level key 'foo' in config.yaml is not a sandbox block (a scalar); sandbox "
                "blocks: none");
    block_fails("foo: [a]\nb:\n  local: {}\n", "foo",
                "top-level key 'foo' in config.yaml is not a sandbox block (a list); sandbox "
                "blocks: b");
    load_fails("- a\n", "config.yaml: the top level must be a mapping of block names to blocks");
    load_fails("a: b: c\n", "config.yaml:1:5: mapping values are not allowed in this context");

    /* sandbox_provider as a scalar or list is not a block */
    sm_config c;
    load_ok("sandbox_provider: [x]\nb:\n  local: {}\n", &c);
    assert_int_equal(c.ncontexts, 1);
    assert_null(c.default_context);
    sm_config_free(&c);
    /* ...but an inline mapping is one */
    load_ok("sandbox_provider:\n  docker: {image: x}\n", &c);
    assert_int_equal(c.ncontexts, 1);
    assert_string_equal(c.contexts[0].name, "sandbox_provider");
    assert_string_equal(c.contexts[0].provider, "docker");
    sm_config_free(&c);
}

static void test_sandman_settings(void **state)
{
    sm_config c;
    load_ok("sandman: {context: remote, theme: dark}\n"
            "sandbox_provider: sandbox\n"
            "remote:\n  docker: {}\n",
            &c);
    assert_string_equal(c.default_context, "remote"); /* sandman.context beats sandbox_provider */
    assert_string_equal(c.theme, "dark");
    assert_int_equal(c.ncontexts, 1);
    sm_config_free(&c);

    load_ok("sandman:\n", &c);
    assert_null(c.default_context);
    assert_int_equal(c.ncontexts, 0);
    sm_config_free(&c);

    load_fails("sandman: {colour: red}\n",
               "config.yaml: unknown key 'colour' in sandman (allowed: context, theme)");
    load_fails("sandman: {context: [a]}\n", "config.yaml: sandman.context must be a string");
    load_fails("sandman: dark\n", "config.yaml: top-level key 'sandman' must be a mapping "
                                  "(allowed keys: context, theme)");
}

static void test_rewrite_image(void **state)
{
    sm_config c;
    load_ok("b:\n"
            "  docker: {}\n"
            "  rewrite_image:\n"
            "    - {from: docker.io/, to: mirror.local/}\n"
            "    - {from: ghcr.io/org/, to: registry.internal/org/}\n"
            "    - {from: docker.io/, to: ignored/}\n"
            "    - {from: quay.io/, to: ''}\n",
            &c);
    const sm_map *r = &c.contexts[0].image_rewrites;
    assert_int_equal(r->n, 3);
    assert_string_equal(r->items[0].key, "docker.io/");
    assert_string_equal(r->items[0].value, "mirror.local/"); /* the first rule wins */
    assert_string_equal(r->items[1].key, "ghcr.io/org/");
    assert_string_equal(r->items[1].value, "registry.internal/org/");
    assert_string_equal(r->items[2].key, "quay.io/");
    assert_string_equal(r->items[2].value, "");
    sm_config_free(&c);

    block_fails("b:\n  docker: {}\n  rewrite_image:\n    - {from: a, to: b, via: c}\n", "b",
                "config.yaml: unknown key 'via' in block 'b' rewrite_image[0] (allowed: from, "
                "to)");
    block_fails("b:\n  docker: {}\n  rewrite_image:\n    - {from: a}\n", "b",
                "config.yaml: block 'b' rewrite_image[0] needs string values for both 'from' and "
                "'to'");
    block_fails("b:\n  docker: {}\n  rewrite_image: {from: a, to: b}\n", "b",
                "config.yaml: block 'b': rewrite_image must be a list of {from, to} rules");
    block_fails("b:\n  docker: {}\n  rewrite_image: [x]\n", "b",
                "config.yaml: block 'b' rewrite_image[0] must be a mapping {from: PREFIX, to: "
                "PREFIX}");
}

static void test_empty_configs(void **state)
{
    const char *texts[] = {"", "# nothing here\n", "{}\n", "---\n"};
    for (size_t i = 0; i < SM_ARRAY_LEN(texts); i++) {
        sm_config c;
        load_ok(texts[i], &c);
        assert_int_equal(c.ncontexts, 0);
        assert_null(c.default_context);
        sm_config_free(&c);
    }
}

/* ---------------------------------------------------------------- resolution */

static const char *resolve_yaml = "sandman: {context: remote}\n"
                                  "sandbox:\n"
                                  "  docker: {image: python:3.12}\n"
                                  "  default_metadata: {team: research}\n"
                                  "  rewrite_image: [{from: a/, to: b/}]\n"
                                  "remote:\n"
                                  "  opensandbox: {connection: {base_url: http://h}}\n";

static void test_resolve_block(void **state)
{
    sm_config c;
    sm_context ctx;
    sm_error e;
    load_ok(resolve_yaml, &c);
    assert_int_equal(sm_config_resolve(&c, "sandbox", &ctx, &e), SM_OK);
    assert_string_equal(ctx.name, "sandbox");
    assert_string_equal(ctx.provider, "docker");
    assert_str_item(ctx.options, "image", "python:3.12");
    assert_string_equal(sm_map_get(&ctx.default_metadata, "team"), "research");
    assert_string_equal(sm_map_get(&ctx.image_rewrites, "a/"), "b/");
    /* a deep copy: the config can go first */
    assert_ptr_not_equal(ctx.options, c.contexts[0].options);
    sm_config_free(&c);
    assert_str_item(ctx.options, "image", "python:3.12");
    sm_context_free(&ctx);
    assert_null(ctx.name);
}

static void test_resolve_bare_provider(void **state)
{
    sm_config c;
    sm_context ctx;
    sm_error e;
    load_ok(resolve_yaml, &c);
    /* "docker" is not a block name here, but it is a registered provider */
    assert_int_equal(sm_config_resolve(&c, "docker", &ctx, &e), SM_OK);
    assert_string_equal(ctx.name, "docker");
    assert_string_equal(ctx.provider, "docker");
    assert_true(cJSON_IsObject(ctx.options));
    assert_null(ctx.options->child);
    assert_int_equal(ctx.default_metadata.n, 0);
    sm_context_free(&ctx);
    sm_config_free(&c);

    /* no config at all */
    assert_int_equal(sm_config_resolve(NULL, "zeta", &ctx, &e), SM_OK);
    assert_string_equal(ctx.provider, "zeta");
    sm_context_free(&ctx);
}

static void test_resolve_default(void **state)
{
    sm_config c;
    sm_context ctx;
    sm_error e;
    load_ok(resolve_yaml, &c);
    /* the default names a provider this build lacks: said so, never another provider */
    assert_string_equal(sm_config_default_name(&c), "remote");
    sm_error_clear(&e);
    assert_int_equal(sm_config_resolve(&c, NULL, &ctx, &e), SM_ERR_CONFIG);
    assert_string_equal(e.msg, "provider 'opensandbox' (block 'remote' in config.yaml) is not "
                               "built into this sandman; available: docker, zeta");
    sm_config_free(&c);

    load_ok("sandbox_provider: sandbox\nsandbox:\n  docker: {}\nother:\n  zeta: {}\n", &c);
    assert_int_equal(sm_config_resolve(&c, NULL, &ctx, &e), SM_OK);
    assert_string_equal(ctx.name, "sandbox");
    assert_string_equal(ctx.provider, "docker");
    sm_context_free(&ctx);
    sm_config_free(&c);

    /* no default anywhere: "local" -- a block named local wins over the provider */
    load_ok("local:\n  zeta: {x: 1}\n", &c);
    assert_int_equal(sm_config_resolve(&c, NULL, &ctx, &e), SM_OK);
    assert_string_equal(ctx.name, "local");
    assert_string_equal(ctx.provider, "zeta");
    sm_context_free(&ctx);
    sm_config_free(&c);

    /* ...and with neither a block nor a provider called local, an error naming it */
    load_ok("", &c);
    sm_error_clear(&e);
    assert_int_equal(sm_config_resolve(&c, NULL, &ctx, &e), SM_ERR_CONFIG);
    assert_string_equal(e.msg,
                        "unknown provider context 'local' (blocks: none; providers: docker, zeta)");
    sm_config_free(&c);
}

static void test_resolve_unknown(void **state)
{
    sm_config c;
    sm_context ctx;
    sm_error e;
    sm_error_clear(&e);
    load_ok(resolve_yaml, &c);
    assert_int_equal(sm_config_resolve(&c, "nope", &ctx, &e), SM_ERR_CONFIG);
    assert_int_equal(e.code, SM_ERR_CONFIG);
    assert_int_equal(e.failure.kind, SM_FAIL_INVALID_REQUEST);
    assert_string_equal(e.msg, "unknown provider context 'nope' (blocks: sandbox, remote; "
                               "providers: docker, zeta)");
    assert_null(ctx.name);
    sm_config_free(&c);

    sm_provider_registry_reset();
    sm_error_clear(&e);
    assert_int_equal(sm_config_resolve(NULL, "x", &ctx, &e), SM_ERR_CONFIG);
    assert_string_equal(e.msg, "unknown provider context 'x' (blocks: none; providers: none)");
}

/* ---------------------------------------------------------------- NeMo Gym run configs */

/* A merged run config as NeMo Gym builds it: top-level values, a helper mapping with an
 * anchor, a server block whose agent names its sandbox, another mapping, the sandbox block. */
static const char *merged_yaml =
    "config_paths: [agent.yaml, docker.yaml, model.yaml]\n"
    "policy_base_url: http://127.0.0.1:8000/v1\n"
    "policy_model_name: some-model\n"
    "_shared:\n"
    "  resources: &res {cpu: 2, memory_mib: 4096}\n"
    "  retries: 3\n"
    "my_agent:\n"
    "  responses_api_agents:\n"
    "    my_agent:\n"
    "      entrypoint: app.py\n"
    "      model_server: {type: responses_api_models, name: policy_model}\n"
    "      sandbox_provider: sandbox\n"
    "      sandbox_spec:\n"
    "        resources: *res\n"
    "        metadata: {key: \"${oc.env:NG_TEST_UNSET_IN_SERVER}\"}\n"
    "observability:\n"
    "  otel: {enabled: false, api_key: null}\n"
    "sandbox:\n"
    "  default_metadata:\n"
    "    sandbox-api: docker-cli\n"
    "    team: ${oc.env:NG_TEST_TEAM,null}\n"
    "  docker:\n"
    "    create: {start_timeout_s: 600}\n"
    "remote:\n"
    "  opensandbox:\n"
    "    connection: {api_key: \"${oc.env:NG_TEST_OSB_KEY}\"}\n";

static void test_merged_run_config(void **state)
{
    unsetenv("NG_TEST_TEAM");
    unsetenv("NG_TEST_OSB_KEY");
    sm_config c;
    sm_context ctx;
    sm_error e;
    load_ok(merged_yaml, &c);
    /* the sandbox blocks are contexts; the rest is listed, not refused */
    assert_int_equal(c.ncontexts, 2);
    assert_string_equal(c.contexts[0].name, "sandbox");
    assert_string_equal(c.contexts[1].name, "remote");
    assert_int_equal(c.nothers, 6);
    assert_string_equal(c.others[4].name, "my_agent");
    assert_string_equal(c.others[4].kind, "server");
    assert_string_equal(c.others[4].detail, "responses_api_agents");
    assert_string_equal(c.others[4].uses, "sandbox");
    assert_string_equal(c.others[5].name, "observability");
    assert_string_equal(c.others[5].kind, "mapping");

    /* no -p: the block the agent names */
    assert_int_equal(sm_config_resolve(&c, NULL, &ctx, &e), SM_OK);
    assert_string_equal(ctx.name, "sandbox");
    assert_string_equal(ctx.provider, "docker");
    /* ${oc.env:X,null} leaves the label out */
    assert_int_equal(ctx.default_metadata.n, 1);
    assert_null(sm_map_get(&ctx.default_metadata, "team"));
    assert_int_equal(ctx.line, 18);
    sm_context_free(&ctx);

    /* the unset OSB key fails only its own block, with file, line and the variable */
    sm_error_clear(&e);
    assert_int_equal(sm_config_resolve(&c, "remote", &ctx, &e), SM_ERR_CONFIG);
    assert_string_equal(e.msg,
                        "config.yaml:26:18: block 'remote': environment variable "
                        "NG_TEST_OSB_KEY is not set (use ${oc.env:NG_TEST_OSB_KEY,default})");
    /* and never a bare provider's */
    assert_int_equal(sm_config_resolve(&c, "docker", &ctx, &e), SM_OK);
    sm_context_free(&ctx);

    /* selecting what is not a sandbox block says what it is */
    sm_error_clear(&e);
    assert_int_equal(sm_config_resolve(&c, "my_agent", &ctx, &e), SM_ERR_CONFIG);
    assert_string_equal(e.msg, "block 'my_agent' in config.yaml is a NeMo Gym server block "
                               "(responses_api_agents), not a sandbox block; it uses "
                               "sandbox_provider 'sandbox'; sandbox blocks: sandbox, remote");
    sm_error_clear(&e);
    assert_int_equal(sm_config_resolve(&c, "policy_base_url", &ctx, &e), SM_ERR_CONFIG);
    assert_string_equal(e.msg, "top-level key 'policy_base_url' in config.yaml is not a sandbox "
                               "block (a scalar); sandbox blocks: sandbox, remote");
    sm_config_free(&c);

    /* with the variable set, the label is there */
    setenv("NG_TEST_TEAM", "evals", 1);
    load_ok(merged_yaml, &c);
    assert_int_equal(sm_config_resolve(&c, "sandbox", &ctx, &e), SM_OK);
    assert_string_equal(sm_map_get(&ctx.default_metadata, "team"), "evals");
    sm_context_free(&ctx);
    sm_config_free(&c);
    unsetenv("NG_TEST_TEAM");
}

static void test_unsupported_resolvers(void **state)
{
    block_fails("sandbox:\n  docker:\n    create: {network: \"${oc.select:net,bridge}\"}\n",
                "sandbox",
                "config.yaml:3:14: block 'sandbox': '${oc.select:net,bridge}' uses the resolver "
                "'oc.select', which sandman does not support (only ${oc.env:VAR} and "
                "${oc.env:VAR,default}; write \\${ for a literal ${)");
    block_fails("net: bridge\nsandbox:\n  docker:\n    create:\n      network: x-${net}\n",
                "sandbox",
                "config.yaml:5:7: block 'sandbox': '${net}' refers to another config key, which "
                "sandman does not resolve (only ${oc.env:VAR} and ${oc.env:VAR,default}; write "
                "\\${ for a literal ${)");
    /* inside a default too */
    block_fails("b:\n  docker: {host: \"${oc.env:NG_TEST_UNSET_H,${oc.decode:x}}\"}\n", "b",
                "config.yaml:2:12: block 'b': '${oc.decode:x}' uses the resolver 'oc.decode', "
                "which sandman does not support (only ${oc.env:VAR} and ${oc.env:VAR,default}; "
                "write \\${ for a literal ${)");
    /* an escaped one is text */
    sm_config c;
    sm_context ctx;
    sm_error e;
    load_ok("b:\n  docker: {cmd: \"echo \\\\${HOME}\"}\n", &c);
    assert_int_equal(sm_config_resolve(&c, "b", &ctx, &e), SM_OK);
    assert_str_item(ctx.options, "cmd", "echo ${HOME}");
    sm_context_free(&ctx);
    sm_config_free(&c);
}

static void test_missing_provider_never_local(void **state)
{
    sm_config c;
    sm_context ctx;
    sm_error e;
    /* an agent whose inline sandbox_provider names a provider this build lacks */
    load_ok("policy_base_url: http://x\n"
            "my_agent:\n"
            "  responses_api_agents:\n"
            "    my_agent:\n"
            "      sandbox_provider:\n"
            "        apptainer: {create: {extra_start_args: [--containall]}}\n",
            &c);
    assert_string_equal(sm_config_default_name(&c),
                        "my_agent.responses_api_agents.my_agent.sandbox_provider");
    sm_error_clear(&e);
    assert_int_equal(sm_config_resolve(&c, NULL, &ctx, &e), SM_ERR_CONFIG);
    assert_string_equal(e.msg, "provider 'apptainer' (block "
                               "'my_agent.responses_api_agents.my_agent.sandbox_provider' in "
                               "config.yaml) is not built into this sandman; available: docker, "
                               "zeta");
    assert_int_equal(sm_config_resolve(&c, "docker", &ctx, &e), SM_OK); /* -p still works */
    sm_context_free(&ctx);
    sm_config_free(&c);

    /* the agent names a block; the block is apptainer's */
    load_ok("my_agent:\n"
            "  responses_api_agents:\n"
            "    my_agent: {sandbox_provider: sandbox}\n"
            "sandbox:\n"
            "  apptainer: {}\n",
            &c);
    sm_error_clear(&e);
    assert_int_equal(sm_config_resolve(&c, NULL, &ctx, &e), SM_ERR_CONFIG);
    assert_string_equal(e.msg, "provider 'apptainer' (block 'sandbox' in config.yaml) is not "
                               "built into this sandman; available: docker, zeta");
    sm_config_free(&c);

    /* the agent names a block the file does not have */
    load_ok("my_agent:\n  responses_api_agents:\n    my_agent: {sandbox_provider: sandbox}\n", &c);
    sm_error_clear(&e);
    assert_int_equal(sm_config_resolve(&c, NULL, &ctx, &e), SM_ERR_CONFIG);
    assert_string_equal(e.msg,
                        "server block 'my_agent' in config.yaml uses sandbox_provider 'sandbox', "
                        "which the file does not define (add a provider file with a 'sandbox:' "
                        "block, or pick one with -p); sandbox blocks: none");
    sm_config_free(&c);

    /* a provider nobody knows */
    block_fails("b:\n  dockr: {}\n", "b",
                "provider 'dockr' (block 'b' in config.yaml) is not a sandbox provider sandman or "
                "NeMo Gym knows; available: docker, zeta");
}

static int failing_init(sm_provider *p, const cJSON *config, sm_error *err)
{
    if (cJSON_GetObjectItemCaseSensitive(config, "bad"))
        return sm_error_set(err, SM_ERR_CONFIG, SM_FAIL_INVALID_REQUEST,
                            "checky.create.pids_limit must be an integer");
    return SM_OK;
}

static const char *const checky_keys[] = {"create", "bad", NULL};
static const sm_provider_ops fake_checky = {
    .name = "checky", .init = failing_init, .config_keys = checky_keys};

static void test_option_errors_name_file_line_block(void **state)
{
    sm_error e;
    sm_error_clear(&e);
    assert_int_equal(sm_provider_register(&fake_checky, &e), SM_OK);
    sm_config c;
    load_ok("policy_base_url: x\n"
            "sandbox:\n"
            "  checky:\n"
            "    create:\n"
            "      pids_limit: lots\n"
            "    netwrk: none\n",
            &c);
    sm_provider *p = NULL;
    sm_error_clear(&e);
    assert_int_equal(sm_provider_open(&c, "sandbox", &p, &e), SM_ERR_CONFIG);
    assert_string_equal(e.msg, "config.yaml:6: block 'sandbox': unknown key 'netwrk' in checky "
                               "config (allowed: bad, create)");
    sm_config_free(&c);
    load_ok("sandbox:\n"
            "  checky:\n"
            "    bad: 1\n"
            "    create:\n"
            "      pids_limit: lots\n",
            &c);
    sm_error_clear(&e);
    assert_int_equal(sm_provider_open(&c, NULL, &p, &e), SM_ERR_CONFIG);
    assert_string_equal(e.msg, "config.yaml:5: block 'sandbox': checky.create.pids_limit must be "
                               "an integer");
    sm_config_free(&c);
}

/* ---------------------------------------------------------------- loading files */

static void test_load_explicit_missing(void **state)
{
    sm_config c;
    sm_error e;
    sm_error_clear(&e);
    assert_int_equal(sm_config_load("/nonexistent/sandman/x.yaml", &c, &e), SM_ERR_CONFIG);
    assert_string_equal(e.msg,
                        "config file /nonexistent/sandman/x.yaml: No such file or directory");
    assert_int_equal(c.ncontexts, 0);
}

static void test_load_search_order(void **state)
{
    char *a = write_temp("a:\n  docker: {}\n");
    char *b = write_temp("b:\n  docker: {}\n");
    char dir[] = "/tmp/sandman-xdg-XXXXXX";
    assert_non_null(mkdtemp(dir));
    sm_config c;
    sm_error e;

    /* explicit beats $SANDMAN_CONFIG */
    setenv("SANDMAN_CONFIG", b, 1);
    assert_int_equal(sm_config_load(a, &c, &e), SM_OK);
    assert_string_equal(c.path, a);
    assert_string_equal(c.contexts[0].name, "a");
    sm_config_free(&c);

    /* $SANDMAN_CONFIG */
    assert_int_equal(sm_config_load(NULL, &c, &e), SM_OK);
    assert_string_equal(c.path, b);
    assert_string_equal(c.contexts[0].name, "b");
    sm_config_free(&c);

    /* a missing $SANDMAN_CONFIG is an error */
    setenv("SANDMAN_CONFIG", "/nonexistent/env.yaml", 1);
    sm_error_clear(&e);
    assert_int_equal(sm_config_load(NULL, &c, &e), SM_ERR_CONFIG);
    assert_string_equal(e.msg, "config file /nonexistent/env.yaml: No such file or directory");

    /* the implicit default: missing is an empty config */
    unsetenv("SANDMAN_CONFIG");
    setenv("XDG_CONFIG_HOME", dir, 1);
    assert_int_equal(sm_config_load(NULL, &c, &e), SM_OK);
    assert_null(c.path);
    assert_int_equal(c.ncontexts, 0);
    sm_config_free(&c);

    /* ...and present is loaded, with its path in error messages */
    char *sub = xasprintf("%s/sandman", dir);
    char *file = xasprintf("%s/config.yaml", sub);
    assert_int_equal(sm_mkdir_p(sub, 0700), 0);
    FILE *f = fopen(file, "w");
    assert_non_null(f);
    fputs("xdg:\n  zeta: {}\n", f);
    fclose(f);
    assert_int_equal(sm_config_load(NULL, &c, &e), SM_OK);
    assert_string_equal(c.path, file);
    assert_string_equal(c.contexts[0].name, "xdg");
    sm_config_free(&c);

    f = fopen(file, "w");
    fputs("xdg:\n  zeta: {}\n  docker: {}\n", f);
    fclose(f);
    sm_error_clear(&e);
    assert_int_equal(sm_config_load(NULL, &c, &e), SM_OK);
    sm_context ctx;
    assert_int_equal(sm_config_resolve(&c, "xdg", &ctx, &e), SM_ERR_CONFIG);
    assert_true(sm_str_has_prefix(e.msg, file));
    assert_non_null(strstr(e.msg, ": block 'xdg' holds 2 provider keys (zeta, docker)"));
    sm_config_free(&c);

    /* $HOME/.config when XDG_CONFIG_HOME is unset */
    unsetenv("XDG_CONFIG_HOME");
    char *old_home = getenv("HOME") ? xstrdup(getenv("HOME")) : NULL;
    setenv("HOME", dir, 1);
    assert_int_equal(sm_config_load(NULL, &c, &e), SM_OK);
    assert_int_equal(c.ncontexts, 0);
    sm_config_free(&c);
    char *hsub = xasprintf("%s/.config/sandman", dir);
    char *hfile = xasprintf("%s/config.yaml", hsub);
    assert_int_equal(sm_mkdir_p(hsub, 0700), 0);
    f = fopen(hfile, "w");
    fputs("home:\n  zeta: {}\n", f);
    fclose(f);
    assert_int_equal(sm_config_load(NULL, &c, &e), SM_OK);
    assert_string_equal(c.path, hfile);
    assert_string_equal(c.contexts[0].name, "home");
    sm_config_free(&c);
    if (old_home)
        setenv("HOME", old_home, 1);
    free(old_home);

    /* an empty file is an empty config */
    char *empty = write_temp("");
    assert_int_equal(sm_config_load(empty, &c, &e), SM_OK);
    assert_int_equal(c.ncontexts, 0);
    assert_string_equal(c.path, empty);
    sm_config_free(&c);

    unlink(a);
    unlink(b);
    unlink(empty);
    sm_rm_rf(dir);
    free(a);
    free(b);
    free(empty);
    free(sub);
    free(file);
    free(hsub);
    free(hfile);
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
        cmocka_unit_test(test_nemo_gym_file),
        cmocka_unit_test(test_secrets_nested),
        cmocka_unit_test(test_secrets_in_default_metadata),
        cmocka_unit_test(test_block_provider_key_count),
        cmocka_unit_test(test_block_provider_value),
        cmocka_unit_test(test_default_metadata),
        cmocka_unit_test(test_top_level_rules),
        cmocka_unit_test(test_sandman_settings),
        cmocka_unit_test(test_rewrite_image),
        cmocka_unit_test(test_empty_configs),
        cmocka_unit_test_setup_teardown(test_resolve_block, setup_registry, teardown_registry),
        cmocka_unit_test_setup_teardown(test_resolve_bare_provider, setup_registry,
                                        teardown_registry),
        cmocka_unit_test_setup_teardown(test_resolve_default, setup_registry, teardown_registry),
        cmocka_unit_test_setup_teardown(test_resolve_unknown, setup_registry, teardown_registry),
        cmocka_unit_test_setup_teardown(test_merged_run_config, setup_registry, teardown_registry),
        cmocka_unit_test_setup_teardown(test_unsupported_resolvers, setup_registry,
                                        teardown_registry),
        cmocka_unit_test_setup_teardown(test_missing_provider_never_local, setup_registry,
                                        teardown_registry),
        cmocka_unit_test_setup_teardown(test_option_errors_name_file_line_block, setup_registry,
                                        teardown_registry),
        cmocka_unit_test(test_load_explicit_missing),
        cmocka_unit_test_setup_teardown(test_load_search_order, setup_registry, teardown_registry),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
