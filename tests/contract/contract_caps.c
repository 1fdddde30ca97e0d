/* The contract's capabilities beyond PTY: list by label, stats, endpoints, serialize/connect,
 * pause; each test skips (and says so) when the provider does not claim its bit. */
#include "tests/contract/contract.h"

#include <arpa/inet.h>
#include <cjson/cJSON.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/http.h"
#include "core/json.h"
#include "core/util.h"

/* ---------------------------------------------------------------- list, stats */

void test_list_by_label(void **state)
{
    ct_need(SM_CAP_LIST);
    char a[17], b[17];
    sm_random_hex(a, 16);
    sm_random_hex(b, 16);
    sm_spec sa, sb;
    ct_spec_init(&sa);
    ct_spec_init(&sb);
    sm_map_set(&sa.metadata, "contract-list", a);
    sm_map_set(&sb.metadata, "contract-list", b);
    sm_sandbox *x = ct_start(&sa), *y = ct_start(&sb);
    sm_provider *p = ct_provider();
    sm_map labels = {0};
    sm_map_set(&labels, "contract-list", a);
    sm_list_filter f = {.labels = &labels};
    sm_sandbox_info *list = NULL;
    size_t n = 0;
    sm_error e;
    sm_error_clear(&e);
    assert_int_equal(p->ops->list(p, &f, &list, &n, &e), SM_OK);
    assert_int_equal(n, 1);
    assert_string_equal(list[0].id, sm_sandbox_id(x));
    assert_int_equal(list[0].status, SM_STATUS_RUNNING);
    assert_string_equal(sm_map_get(&list[0].labels, "contract-list"), a);
    sm_sandbox_info_list_free(list, n);
    /* the id resolves, and so does a unique prefix of it */
    char *full = NULL;
    assert_int_equal(sm_provider_resolve_id(p, sm_sandbox_id(y), &full, &e), SM_OK);
    assert_string_equal(full, sm_sandbox_id(y));
    free(full);
    char prefix[9];
    snprintf(prefix, sizeof prefix, "%.8s", sm_sandbox_id(y));
    assert_int_equal(sm_provider_resolve_id(p, prefix, &full, &e), SM_OK);
    assert_string_equal(full, sm_sandbox_id(y));
    free(full);
    /* a closed one is no longer listed as running */
    ct_stop(x);
    assert_int_equal(p->ops->list(p, &f, &list, &n, &e), SM_OK);
    for (size_t i = 0; i < n; i++)
        assert_int_not_equal(list[i].status, SM_STATUS_RUNNING);
    sm_sandbox_info_list_free(list, n);
    ct_stop(y);
    sm_map_free(&labels);
    sm_provider_free(p);
    sm_spec_free(&sa);
    sm_spec_free(&sb);
}

void test_stats(void **state)
{
    ct_need(SM_CAP_STATS);
    sm_sandbox *s = ct_start(NULL);
    sm_sample a, b;
    sm_sample_init(&a);
    sm_sample_init(&b);
    sm_error e;
    sm_error_clear(&e);
    if (sm_sandbox_stats(s, &a, &e) != SM_OK)
        fail_msg("stats: %s", e.msg);
    assert_true(a.ts > 0);
    assert_true(a.wall > 0);
    ct_expect(s, "i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done", 0, "");
    assert_int_equal(sm_sandbox_stats(s, &b, &e), SM_OK);
    assert_true(b.ts >= a.ts);
    if (a.cpu_time_s >= 0 && b.cpu_time_s >= 0)
        assert_true(b.cpu_time_s >= a.cpu_time_s);
    assert_true(b.cpu_time_s >= 0 || b.mem_usage >= 0 || b.pids >= 0); /* it measured something */
    ct_stop(s);
}

/* ---------------------------------------------------------------- endpoint */

/* A TCP port nothing on this host listens on now: a sandbox that shares the host's network
 * must not find its port taken. */
static int free_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof sa;
    if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof sa) < 0 ||
        getsockname(fd, (struct sockaddr *)&sa, &len) < 0)
        fail_msg("no free port for the endpoint test");
    close(fd);
    return ntohs(sa.sin_port);
}

void test_endpoint(void **state)
{
    ct_need(SM_CAP_ENDPOINT);
    int port = free_port();
    sm_spec spec;
    ct_spec_init(&spec);
    char ports[16];
    snprintf(ports, sizeof ports, "%d", port);
    assert_int_equal(sm_spec_add_port(&spec, ports, NULL), SM_OK);
    sm_sandbox *s = ct_start_with(ct_provider_with(ct_netcfg ? ct_netcfg : ct_cfg), &spec);
    sm_endpoint ep;
    memset(&ep, 0, sizeof ep);
    sm_error e;
    sm_error_clear(&e);
    assert_int_equal(sm_sandbox_endpoint(s, port + 1, &ep, &e), SM_ERR_INVALID);
    assert_non_null(strstr(e.msg, "not declared"));
    assert_int_equal(sm_sandbox_endpoint(s, 0, &ep, &e), SM_ERR_INVALID);

    /* a server in the sandbox, reached through the URL */
    char *cmd = xasprintf("mkdir -p /tmp/contract-www && echo endpoint-ok > "
                          "/tmp/contract-www/index.html && "
                          "if command -v httpd >/dev/null 2>&1; then H=httpd; else H='busybox "
                          "httpd'; fi; $H -p %d -h /tmp/contract-www",
                          port);
    ct_expect(s, cmd, 0, NULL);
    free(cmd);
    if (sm_sandbox_endpoint(s, port, &ep, &e) != SM_OK)
        fail_msg("endpoint: %s", e.msg);
    assert_true(sm_str_has_prefix(ep.url, "http://") || sm_str_has_prefix(ep.url, "https://"));
    sm_http_opts o = {.url = ep.url, .what = "the sandbox's server", .retries = 3};
    sm_http *h = NULL;
    assert_int_equal(sm_http_new(&o, &h, &e), SM_OK);
    sm_http_req r = {.method = "GET", .path = "/index.html", .timeout_s = 10, .body_size = -1};
    bool ok = false;
    double until = sm_now_mono() + 20;
    while (!ok && sm_now_mono() < until) {
        sm_http_resp resp;
        if (sm_http_do(h, &r, &resp, NULL) == SM_OK && resp.status == 200 && resp.body.data)
            ok = strstr(resp.body.data, "endpoint-ok") != NULL;
        sm_http_resp_free(&resp);
        if (!ok)
            usleep(100000);
    }
    if (!ok)
        fail_msg("%s never answered with the sandbox's page", ep.url);
    sm_http_free(h);
    sm_endpoint_free(&ep);

    /* another handle on it refuses an undeclared port too, naming it */
    if (ct_caps & SM_CAP_CONNECT) {
        cJSON *d = sm_sandbox_serialize(s);
        sm_sandbox *other = sm_sandbox_new(ct_provider_with(ct_netcfg ? ct_netcfg : ct_cfg), true);
        assert_int_equal(sm_sandbox_connect(other, d, &e), SM_OK);
        cJSON_Delete(d);
        sm_error_clear(&e);
        assert_int_not_equal(sm_sandbox_endpoint(other, port + 1, &ep, &e), SM_OK);
        char want[16];
        snprintf(want, sizeof want, "%d", port + 1);
        if (!strstr(e.msg, want))
            fail_msg("the error does not name port %d: %s", port + 1, e.msg);
        assert_int_equal(sm_sandbox_endpoint(other, port, &ep, &e), SM_OK);
        sm_endpoint_free(&ep);
        sm_sandbox_free(other);
    }
    ct_stop(s);
    sm_spec_free(&spec);
}

/* ---------------------------------------------------------------- serialize/connect */

void test_serialize_connect(void **state)
{
    ct_need(SM_CAP_CONNECT);
    sm_spec spec;
    ct_spec_init(&spec);
    spec.workdir = xstrdup("/tmp/proj");
    sm_sandbox *s = ct_start(&spec);
    cJSON *desc = sm_sandbox_serialize(s);
    assert_non_null(desc);
    char *text = sm_json_print(desc);
    cJSON_Delete(desc);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        /* a separate process with its own provider, given only the descriptor's text */
        sm_provider *p = NULL;
        if (sm_provider_new(ct_name, ct_cfg, &p, NULL) != SM_OK)
            _exit(10);
        sm_sandbox *other = sm_sandbox_new(p, true);
        cJSON *d = cJSON_Parse(text);
        if (sm_sandbox_connect(other, d, NULL) != SM_OK)
            _exit(11);
        cJSON_Delete(d);
        sm_exec_request rq;
        sm_exec_request_init(&rq);
        rq.cmd = "pwd; exit 3";
        sm_exec_result r;
        sm_sandbox_exec(other, &rq, &r, NULL);
        _exit(r.return_code == 3 && r.out && !strcmp(r.out, "/tmp/proj\n") ? 0 : 12);
    }
    int st;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    free(text);
    /* a descriptor of nothing is refused with a reason */
    sm_sandbox *bad = sm_sandbox_new(ct_provider(), true);
    cJSON *empty = cJSON_CreateObject();
    sm_error e;
    sm_error_clear(&e);
    assert_int_not_equal(sm_sandbox_connect(bad, empty, &e), SM_OK);
    assert_true(e.msg[0] != '\0');
    cJSON_Delete(empty);
    sm_sandbox_free(bad);
    ct_stop(s);
    sm_spec_free(&spec);
}

/* ---------------------------------------------------------------- pause */

void test_pause_resume(void **state)
{
    ct_need(SM_CAP_PAUSE);
    sm_sandbox *s = ct_start(NULL);
    sm_provider *p = sm_sandbox_provider(s);
    sm_handle *h = NULL;
    sm_error e;
    sm_error_clear(&e);
    cJSON *d = sm_sandbox_serialize(s);
    assert_int_equal(p->ops->connect(p, d, &h, &e), SM_OK);
    cJSON_Delete(d);
    if (p->ops->pause(p, h, &e) != SM_OK)
        fail_msg("pause: %s", e.msg);
    assert_int_not_equal(sm_sandbox_status(s, NULL, NULL), SM_STATUS_STOPPED);
    if (p->ops->resume(p, h, &e) != SM_OK)
        fail_msg("resume: %s", e.msg);
    ct_expect(s, "echo resumed", 0, "resumed\n");
    sm_handle_free(p, h);
    ct_stop(s);
}
