/* Unit tests for core/config_resolve.c: picking a context (a block, a bare provider, the
 * default), errors for unknown names, merged NeMo Gym run configs, resolvers sandman refuses,
 * a missing provider never replaced by local, and option errors naming file, line and block. */
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
#include "core/provider_impl.h"
#include "core/util.h"
#include "tests/unit/config_testutil.h"

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

int main(void)
{
    unsetenv("SANDMAN_CONFIG");
    const struct CMUnitTest tests[] = {
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
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
