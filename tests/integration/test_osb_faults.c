/* The opensandbox provider against the fake server's faults (tests/fakes): 502/503 bursts
 * then success, 401 bodies (the key never in the error), a lost create reply (no sandbox
 * left), idle connections the server drops while the client would reuse them, malformed JSON,
 * a server slower than the request timeout, and the real server's 60 s floor of `timeout`. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <cjson/cJSON.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/http.h"
#include "core/json.h"
#include "core/provider_impl.h"
#include "core/util.h"
#include "providers/builtin.h"

static pid_t server;
static int port;
static char dir[] = "/tmp/sandman-osb-faults-XXXXXX";
#define KEY "fault-test-key-8c1f"

static int setup(void **state)
{
    const char *bin = getenv("SANDMAN_BIN");
    assert_non_null(bin);
    char *b = xstrdup(bin);
    const char *bdir = dirname(b);
    char *srv = xasprintf("%s/tests/osb_fake_server", bdir);
    char *exd = xasprintf("%s/tests/osb_fake_execd", bdir);
    assert_non_null(mkdtemp(dir));
    char *state_dir = xasprintf("%s/state", dir);
    setenv("SANDMAN_STATE_DIR", state_dir, 1);
    char *pf = xasprintf("%s/port", dir);
    server = fork();
    if (server == 0) {
        execl(srv, srv, "--port-file", pf, "--execd", exd, "--api-key", KEY, "--idle-timeout", "2",
              (char *)NULL);
        _exit(127);
    }
    double until = sm_now_mono() + 20;
    char buf[16] = "";
    while (sm_now_mono() < until && sm_read_small(pf, buf, sizeof buf) <= 0)
        usleep(50000);
    port = atoi(buf);
    assert_true(port > 0);
    free(srv);
    free(exd);
    free(b);
    free(pf);
    free(state_dir);
    sm_builtin_register_all();
    return 0;
}

static int teardown(void **state)
{
    kill(server, SIGTERM);
    waitpid(server, NULL, 0);
    sm_rm_rf(dir);
    return 0;
}

static sm_provider *provider(const char *key, const char *extra)
{
    char *text = xasprintf("{\"connection\": {\"domain\": \"127.0.0.1:%d\"%s%s%s, "
                           "\"request_timeout_s\": 20 %s}, \"create\": {\"retry_delay_s\": 0.05, "
                           "\"retry_max_delay_s\": 0.1}, \"operations\": {\"retry_delay_s\": "
                           "0.05, \"retry_max_delay_s\": 0.1}}",
                           port, key ? ", \"api_key\": \"" : "", key ? key : "", key ? "\"" : "",
                           extra ? extra : "");
    cJSON *cfg = cJSON_Parse(text);
    assert_non_null(cfg);
    free(text);
    sm_provider *p = NULL;
    sm_error e;
    sm_error_clear(&e);
    if (sm_provider_new("opensandbox", cfg, &p, &e) != SM_OK)
        fail_msg("provider: %s", e.msg);
    cJSON_Delete(cfg);
    return p;
}

static cJSON *fake(const char *method, const char *path, const char *body)
{
    char *url = xasprintf("http://127.0.0.1:%d", port);
    sm_http_opts o = {.url = url};
    sm_http *h = NULL;
    assert_int_equal(sm_http_new(&o, &h, NULL), SM_OK);
    cJSON *b = body ? cJSON_Parse(body) : NULL, *reply = NULL;
    int st = 0;
    assert_int_equal(sm_http_json(h, method, path, b, 10, false, &st, &reply, NULL), SM_OK);
    cJSON_Delete(b);
    sm_http_free(h);
    free(url);
    return reply;
}

static int live_sandboxes(void)
{
    cJSON *s = fake("GET", "/_fake/stats", NULL);
    int n = (int)sm_json_num(s, "sandboxes", -1);
    cJSON_Delete(s);
    return n;
}

static sm_handle *create(sm_provider *p, sm_error *e)
{
    sm_spec spec;
    sm_spec_init(&spec);
    spec.image = xstrdup("ubuntu:22.04");
    sm_handle *h = NULL;
    sm_error_clear(e);
    p->ops->create(p, &spec, &h, e);
    sm_spec_free(&spec);
    return h;
}

static void destroy(sm_provider *p, sm_handle *h)
{
    assert_int_equal(p->ops->close(p, h, NULL), SM_OK);
    sm_handle_free(p, h);
}

static void test_bursts_then_success(void **state)
{
    sm_provider *p = provider(KEY, NULL);
    cJSON_Delete(fake("POST", "/_fake/faults", "{\"fail\": [503, 502]}"));
    sm_error e;
    sm_handle *h = create(p, &e);
    if (!h)
        fail_msg("create after a 503/502 burst: %s", e.msg);
    assert_int_equal(live_sandboxes(), 1);
    cJSON_Delete(fake("POST", "/_fake/faults", "{\"fail\": [502, 503, 502]}"));
    sm_sandbox_info info;
    assert_int_equal(p->ops->status(p, h, &info, &e), SM_OK);
    assert_int_equal(info.status, SM_STATUS_RUNNING);
    sm_sandbox_info_free(&info);
    destroy(p, h);
    assert_int_equal(p->ops->close(p, h = sm_handle_new("gone-id", "opensandbox"), &e), SM_OK);
    sm_handle_free(p, h);
    assert_int_equal(live_sandboxes(), 0);
    sm_provider_free(p);
}

static void test_auth(void **state)
{
    const char *keys[] = {"wrong-secret-5521", NULL};
    const char *codes[] = {"INVALID_API_KEY", "MISSING_API_KEY"};
    for (int i = 0; i < 2; i++) {
        sm_provider *p = provider(keys[i], NULL);
        sm_error e;
        sm_handle *h = create(p, &e);
        assert_null(h);
        assert_int_equal(e.failure.kind, SM_FAIL_AUTH_REJECTED);
        assert_int_equal(e.failure.http_status, 401);
        if (!strstr(e.msg, codes[i]))
            fail_msg("the error does not say %s: %s", codes[i], e.msg);
        assert_null(strstr(e.msg, "wrong-secret-5521"));
        sm_provider_free(p);
    }
}

static void test_lost_create_reply(void **state)
{
    /* retried: the lost one is found by its attempt label and deleted */
    sm_provider *p = provider(KEY, NULL);
    cJSON_Delete(fake("POST", "/_fake/faults", "{\"drop_create_reply\": 1}"));
    sm_error e;
    sm_handle *h = create(p, &e);
    if (!h)
        fail_msg("create after a lost reply: %s", e.msg);
    assert_int_equal(live_sandboxes(), 1);
    destroy(p, h);
    sm_provider_free(p);
    /* not retried: the error comes after the sandbox is gone */
    p = provider(KEY, NULL);
    char *t = xasprintf("{\"connection\": {\"domain\": \"127.0.0.1:%d\", \"api_key\": \"%s\"}, "
                        "\"create\": {\"retries\": 0}}",
                        port, KEY);
    cJSON *cfg = cJSON_Parse(t);
    free(t);
    sm_provider_free(p);
    assert_int_equal(sm_provider_new("opensandbox", cfg, &p, NULL), SM_OK);
    cJSON_Delete(cfg);
    cJSON_Delete(fake("POST", "/_fake/faults", "{\"drop_create_reply\": 1}"));
    h = create(p, &e);
    assert_null(h);
    assert_true(e.msg[0] != '\0');
    assert_int_equal(live_sandboxes(), 0);
    sm_provider_free(p);
}

static void test_idle_connections(void **state)
{
    /* the client would keep connections 10 s; the server drops them after 2 s */
    sm_provider *p = provider(KEY, ", \"keepalive_expiry_s\": 10");
    sm_error e;
    sm_handle *h = create(p, &e);
    assert_non_null(h);
    for (int i = 0; i < 2; i++) {
        usleep(2600000); /* past the server's idle timeout: the kept socket is closed */
        if (p->ops->pause(p, h, &e) != SM_OK) /* not idempotent: only a safe retry helps */
            fail_msg("pause on a dropped connection: %s", e.msg);
        usleep(2600000);
        if (p->ops->resume(p, h, &e) != SM_OK)
            fail_msg("resume on a dropped connection: %s", e.msg);
    }
    destroy(p, h);
    sm_provider_free(p);
}

static void test_malformed_and_slow(void **state)
{
    sm_provider *p = provider(KEY, NULL);
    cJSON_Delete(fake("POST", "/_fake/faults", "{\"malformed\": 1}"));
    sm_sandbox_info *list = NULL;
    size_t n = 0;
    sm_error e;
    sm_error_clear(&e);
    assert_int_not_equal(p->ops->list(p, NULL, &list, &n, &e), SM_OK);
    if (!strstr(e.msg, "not a list"))
        fail_msg("malformed answer: %s", e.msg);
    assert_int_equal(p->ops->list(p, NULL, &list, &n, &e), SM_OK); /* and then it is fine */
    sm_sandbox_info_list_free(list, n);
    sm_provider_free(p);

    p = provider(KEY, "");
    char *t = xasprintf("{\"connection\": {\"domain\": \"127.0.0.1:%d\", \"api_key\": \"%s\", "
                        "\"request_timeout_s\": 1}}",
                        port, KEY);
    cJSON *cfg = cJSON_Parse(t);
    free(t);
    sm_provider_free(p);
    assert_int_equal(sm_provider_new("opensandbox", cfg, &p, NULL), SM_OK);
    cJSON_Delete(cfg);
    cJSON_Delete(fake("POST", "/_fake/faults", "{\"slow_s\": 4}"));
    double t0 = sm_now_mono();
    sm_error_clear(&e);
    assert_int_equal(p->ops->list(p, NULL, &list, &n, &e), SM_ERR_TIMEOUT);
    assert_true(sm_now_mono() - t0 < 3.5);
    assert_int_equal(e.failure.kind, SM_FAIL_PROVIDER_UNREACHABLE);
    sm_provider_free(p);
}

static void test_timeout_floor(void **state)
{
    sm_provider *p = provider(KEY, NULL);
    sm_spec spec;
    sm_spec_init(&spec);
    spec.image = xstrdup("ubuntu:22.04");
    spec.ttl_s = 5;
    sm_handle *h = NULL;
    sm_error e;
    sm_error_clear(&e);
    assert_int_equal(p->ops->create(p, &spec, &h, &e), SM_ERR_INVALID);
    if (!strstr(e.msg, "timeout") || !strstr(e.msg, "60"))
        fail_msg("the 422 is not explained: %s", e.msg);
    assert_int_equal(live_sandboxes(), 0);
    sm_spec_free(&spec);
    sm_provider_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bursts_then_success), cmocka_unit_test(test_auth),
        cmocka_unit_test(test_lost_create_reply),   cmocka_unit_test(test_idle_connections),
        cmocka_unit_test(test_malformed_and_slow),  cmocka_unit_test(test_timeout_floor),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
