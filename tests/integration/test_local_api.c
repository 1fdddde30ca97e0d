/* What only the local provider does, on real local sandboxes: its network rule for endpoints
 * (a port is reached only with network: host, on the host's loopback) and the recorded spec
 * that still limits a handle opened by id to the declared ports. Everything every provider
 * promises is in the contract suite (tests/contract). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sandbox.h"
#include "core/util.h"
#include "tests/testlib.h"

static sm_sandbox *start(const sm_spec *spec)
{
    sm_provider *p;
    sm_error e;
    sm_error_clear(&e);
    assert_int_equal(sm_provider_new("local", NULL, &p, &e), SM_OK);
    sm_sandbox *s = sm_sandbox_new(p, true);
    sm_spec empty;
    sm_spec_init(&empty);
    if (sm_sandbox_start(s, spec ? spec : &empty, &e) != SM_OK)
        fail_msg("start: %s", e.msg);
    return s;
}

static void test_endpoints(void **state)
{
    sm_spec spec;
    sm_spec_init(&spec);
    assert_int_equal(sm_spec_add_port(&spec, "8080", NULL), SM_OK);
    sm_sandbox *s = start(&spec);
    sm_endpoint ep;
    sm_error e;
    sm_error_clear(&e);
    assert_int_equal(sm_sandbox_endpoint(s, 9090, &ep, &e), SM_ERR_INVALID);
    assert_non_null(strstr(e.msg, "not declared"));
    assert_int_equal(sm_sandbox_endpoint(s, 0, &ep, &e), SM_ERR_INVALID);
    assert_int_equal(sm_sandbox_endpoint(s, 8080, &ep, &e), SM_ERR_UNSUPPORTED);
    assert_non_null(strstr(e.msg, "network: host"));
    assert_int_equal(sm_sandbox_stop(s, &e), SM_OK);
    sm_sandbox_free(s);
    sm_spec_free(&spec);

    /* network: host gives a loopback endpoint */
    cJSON *cfg = cJSON_Parse("{\"network\": \"host\"}");
    sm_provider *p;
    assert_int_equal(sm_provider_new("local", cfg, &p, &e), SM_OK);
    cJSON_Delete(cfg);
    s = sm_sandbox_new(p, true);
    sm_spec_init(&spec);
    sm_spec_add_port(&spec, "8080", NULL);
    assert_int_equal(sm_sandbox_start(s, &spec, &e), SM_OK);
    assert_int_equal(sm_sandbox_endpoint(s, 8080, &ep, &e), SM_OK);
    assert_string_equal(ep.url, "http://127.0.0.1:8080");
    sm_endpoint_free(&ep);

    /* A handle opened by id holds no spec: the recorded spec still limits it to 8080. */
    sm_provider *p2;
    cfg = cJSON_Parse("{\"network\": \"host\"}");
    assert_int_equal(sm_provider_new("local", cfg, &p2, &e), SM_OK);
    cJSON_Delete(cfg);
    sm_sandbox *o = sm_sandbox_new(p2, true);
    assert_int_equal(sm_sandbox_open(o, sm_sandbox_id(s), &e), SM_OK);
    sm_error_clear(&e);
    assert_int_equal(sm_sandbox_endpoint(o, 9999, &ep, &e), SM_ERR_INVALID);
    assert_non_null(strstr(e.msg, "port 9999 was not declared"));
    assert_non_null(strstr(e.msg, "declared: 8080"));
    assert_int_equal(sm_sandbox_endpoint(o, 8080, &ep, &e), SM_OK);
    assert_string_equal(ep.url, "http://127.0.0.1:8080");
    sm_endpoint_free(&ep);
    sm_sandbox_free(o);
    sm_sandbox_stop(s, NULL);
    sm_sandbox_free(s);
    sm_spec_free(&spec);

    /* A sandbox that declared no ports has no endpoints, from its own handle or another. */
    cfg = cJSON_Parse("{\"network\": \"host\"}");
    assert_int_equal(sm_provider_new("local", cfg, &p, &e), SM_OK);
    cJSON_Delete(cfg);
    s = sm_sandbox_new(p, true);
    sm_spec_init(&spec);
    assert_int_equal(sm_sandbox_start(s, &spec, &e), SM_OK);
    assert_int_equal(sm_sandbox_endpoint(s, 8080, &ep, &e), SM_ERR_INVALID);
    assert_non_null(strstr(e.msg, "declares none"));
    cfg = cJSON_Parse("{\"network\": \"host\"}");
    assert_int_equal(sm_provider_new("local", cfg, &p2, &e), SM_OK);
    cJSON_Delete(cfg);
    o = sm_sandbox_new(p2, true);
    assert_int_equal(sm_sandbox_open(o, sm_sandbox_id(s), &e), SM_OK);
    assert_int_equal(sm_sandbox_endpoint(o, 8080, &ep, &e), SM_ERR_INVALID);
    assert_non_null(strstr(e.msg, "declares none"));
    sm_sandbox_free(o);
    sm_sandbox_stop(s, NULL);
    sm_sandbox_free(s);
    sm_spec_free(&spec);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_endpoints),
    };
    return cmocka_run_group_tests(tests, sm_test_group_setup, sm_test_group_teardown);
}
