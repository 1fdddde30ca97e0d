/* Helpers the config unit tests share (test_config.c, test_config_resolve.c, test_yaml.c):
 * loading a config that must load, a block whose own error shows when it is selected, JSON
 * item checks, and a registry of two fake providers (docker, zeta). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <cjson/cJSON.h>
#include <string.h>

#include "core/provider_impl.h"
#include "tests/unit/config_testutil.h"

void load_ok(const char *text, sm_config *c)
{
    sm_error e;
    sm_error_clear(&e);
    int rc = sm_config_load_string(text, "config.yaml", c, &e);
    if (rc != SM_OK)
        fail_msg("unexpected load error: %s", e.msg);
}

/* A block's own error is kept with it: the file loads, selecting the block fails (selecting
 * another block or a bare provider does not). */
void block_fails(const char *text, const char *block, const char *expected)
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

const cJSON *get(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v)
        fail_msg("key '%s' missing", key);
    return v;
}

void assert_str_item(const cJSON *o, const char *key, const char *want)
{
    const cJSON *v = get(o, key);
    assert_true(cJSON_IsString(v));
    assert_string_equal(v->valuestring, want);
}

void assert_num_item(const cJSON *o, const char *key, double want)
{
    const cJSON *v = get(o, key);
    assert_true(cJSON_IsNumber(v));
    assert_true(v->valuedouble == want);
}

static int dummy_init(sm_provider *p, const cJSON *config, sm_error *err)
{
    return SM_OK;
}

static const sm_provider_ops fake_docker = {.name = "docker", .init = dummy_init};
static const sm_provider_ops fake_zeta = {.name = "zeta", .init = dummy_init};

int setup_registry(void **state)
{
    sm_provider_registry_reset();
    sm_error e;
    sm_error_clear(&e);
    assert_int_equal(sm_provider_register(&fake_zeta, &e), SM_OK);
    assert_int_equal(sm_provider_register(&fake_docker, &e), SM_OK);
    return 0;
}

int teardown_registry(void **state)
{
    sm_provider_registry_reset();
    return 0;
}
