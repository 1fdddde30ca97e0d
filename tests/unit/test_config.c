/* Unit tests for core/config.c: the block rules of NeMo Gym provider files (provider keys,
 * default_metadata, rewrite_image, settings, secrets) and the config file search order. */
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
#include "core/redact.h"
#include "core/util.h"
#include "tests/unit/config_testutil.h"

/* ---------------------------------------------------------------- helpers */

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
        cmocka_unit_test(test_load_explicit_missing),
        cmocka_unit_test_setup_teardown(test_load_search_order, setup_registry, teardown_registry),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
