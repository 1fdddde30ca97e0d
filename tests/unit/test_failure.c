/* Unit tests for core/failure.c: the vocabulary, classification rules, labels, evidence text
 * and the JSON round trip of failure events. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <cjson/cJSON.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "core/failure.h"

/* The stable JSON names are part of the output format. */
static const char *const expected_names[SM_FAIL__COUNT] = {
    [SM_FAIL_NONE] = "none",
    [SM_FAIL_EXIT_NONZERO] = "exit_nonzero",
    [SM_FAIL_SIGNALED] = "signaled",
    [SM_FAIL_OOM] = "oom_killed",
    [SM_FAIL_PIDS_LIMIT] = "pids_limit",
    [SM_FAIL_CPU_THROTTLED] = "cpu_throttled",
    [SM_FAIL_TTL_EXPIRED] = "ttl_expired",
    [SM_FAIL_EXEC_TIMEOUT] = "exec_timeout",
    [SM_FAIL_KILLED_BY_USER] = "killed_by_user",
    [SM_FAIL_CREATE_FAILED] = "create_failed",
    [SM_FAIL_PROVIDER_UNREACHABLE] = "provider_unreachable",
    [SM_FAIL_AUTH_REJECTED] = "auth_rejected",
    [SM_FAIL_NOT_FOUND] = "not_found",
    [SM_FAIL_SANDBOX_ERROR] = "sandbox_error",
    [SM_FAIL_PTY_ERROR] = "pty_error",
    [SM_FAIL_TRANSFER_FAILED] = "transfer_failed",
    [SM_FAIL_SUPERVISOR_LOST] = "supervisor_lost",
    [SM_FAIL_INVALID_REQUEST] = "invalid_request",
};

static void test_kind_names(void **state)
{
    for (int k = 0; k < SM_FAIL__COUNT; k++) {
        assert_non_null(expected_names[k]);
        assert_string_equal(sm_failure_kind_name((sm_failure_kind)k), expected_names[k]);
        sm_failure_kind back = SM_FAIL__COUNT;
        assert_int_equal(sm_failure_kind_parse(expected_names[k], &back), 0);
        assert_int_equal(back, k);
    }
    sm_failure_kind out = SM_FAIL_OOM;
    assert_int_equal(sm_failure_kind_parse("bogus", &out), -1);
    assert_int_equal(sm_failure_kind_parse("OOM_KILLED", &out), -1);
    assert_int_equal(sm_failure_kind_parse(NULL, &out), -1);
    assert_int_equal(out, SM_FAIL_OOM); /* untouched on failure */
    assert_string_equal(sm_failure_kind_name(SM_FAIL__COUNT), "none");
    assert_string_equal(sm_failure_kind_name((sm_failure_kind)-1), "none");
}

static void test_kind_is_failure(void **state)
{
    for (int k = 0; k < SM_FAIL__COUNT; k++) {
        bool want = k != SM_FAIL_NONE && k != SM_FAIL_CPU_THROTTLED;
        assert_int_equal(sm_failure_kind_is_failure((sm_failure_kind)k), want);
    }
    assert_false(sm_failure_kind_is_failure(SM_FAIL__COUNT));
}

static void test_init(void **state)
{
    sm_failure f;
    memset(&f, 0x7f, sizeof f);
    sm_failure_init(&f);
    assert_int_equal(f.kind, SM_FAIL_NONE);
    assert_int_equal(f.exit_code, -1);
    assert_int_equal(f.signal, 0);
    assert_int_equal(f.http_status, 0);
    assert_true(f.timeout_s < 0);
    assert_int_equal(f.oom_kills, -1);
    assert_int_equal(f.memory_limit, -1);
    assert_int_equal(f.pids_events, -1);
    assert_int_equal(f.pids_limit, -1);
    assert_int_equal(f.nr_throttled, -1);
    assert_string_equal(f.reason, "");
}

static void test_classify_exit(void **state)
{
    /* timeout wins over everything */
    assert_int_equal(sm_failure_classify_exit(137, SIGKILL, 1, 3, true), SM_FAIL_EXEC_TIMEOUT);
    assert_int_equal(sm_failure_classify_exit(0, 0, -1, -1, true), SM_FAIL_EXEC_TIMEOUT);
    /* OOM counter moved + SIGKILL, or the shell's 137 */
    assert_int_equal(sm_failure_classify_exit(-1, SIGKILL, 1, -1, false), SM_FAIL_OOM);
    assert_int_equal(sm_failure_classify_exit(137, 0, 2, -1, false), SM_FAIL_OOM);
    assert_int_equal(sm_failure_classify_exit(137, 0, 1, 4, false), SM_FAIL_OOM);
    /* a counter that moved during a successful command is not this command's failure */
    assert_int_equal(sm_failure_classify_exit(0, 0, 1, 1, false), SM_FAIL_NONE);
    /* exit 137 without OOM evidence is just a non-zero exit */
    assert_int_equal(sm_failure_classify_exit(137, 0, 0, 0, false), SM_FAIL_EXIT_NONZERO);
    assert_int_equal(sm_failure_classify_exit(137, 0, -1, -1, false), SM_FAIL_EXIT_NONZERO);
    /* pids */
    assert_int_equal(sm_failure_classify_exit(1, 0, 0, 2, false), SM_FAIL_PIDS_LIMIT);
    assert_int_equal(sm_failure_classify_exit(-1, SIGSEGV, -1, 1, false), SM_FAIL_PIDS_LIMIT);
    /* signals */
    assert_int_equal(sm_failure_classify_exit(-1, SIGTERM, 0, 0, false), SM_FAIL_SIGNALED);
    assert_int_equal(sm_failure_classify_exit(-1, SIGKILL, -1, -1, false), SM_FAIL_SIGNALED);
    /* plain exits */
    assert_int_equal(sm_failure_classify_exit(3, 0, 0, 0, false), SM_FAIL_EXIT_NONZERO);
    assert_int_equal(sm_failure_classify_exit(1, 0, -1, -1, false), SM_FAIL_EXIT_NONZERO);
    assert_int_equal(sm_failure_classify_exit(0, 0, 0, 0, false), SM_FAIL_NONE);
    assert_int_equal(sm_failure_classify_exit(0, 0, -1, -1, false), SM_FAIL_NONE);
}

static void test_classify_http(void **state)
{
    assert_int_equal(sm_failure_classify_http(0, SM_FAIL_SANDBOX_ERROR),
                     SM_FAIL_PROVIDER_UNREACHABLE);
    assert_int_equal(sm_failure_classify_http(401, SM_FAIL_SANDBOX_ERROR), SM_FAIL_AUTH_REJECTED);
    assert_int_equal(sm_failure_classify_http(403, SM_FAIL_SANDBOX_ERROR), SM_FAIL_AUTH_REJECTED);
    assert_int_equal(sm_failure_classify_http(404, SM_FAIL_CREATE_FAILED), SM_FAIL_NOT_FOUND);
    assert_int_equal(sm_failure_classify_http(502, SM_FAIL_SANDBOX_ERROR),
                     SM_FAIL_PROVIDER_UNREACHABLE);
    assert_int_equal(sm_failure_classify_http(503, SM_FAIL_SANDBOX_ERROR),
                     SM_FAIL_PROVIDER_UNREACHABLE);
    /* everything else passes through */
    assert_int_equal(sm_failure_classify_http(500, SM_FAIL_SANDBOX_ERROR), SM_FAIL_SANDBOX_ERROR);
    assert_int_equal(sm_failure_classify_http(504, SM_FAIL_CREATE_FAILED), SM_FAIL_CREATE_FAILED);
    assert_int_equal(sm_failure_classify_http(400, SM_FAIL_INVALID_REQUEST),
                     SM_FAIL_INVALID_REQUEST);
    assert_int_equal(sm_failure_classify_http(409, SM_FAIL_TRANSFER_FAILED),
                     SM_FAIL_TRANSFER_FAILED);
}

static void test_signal_name(void **state)
{
    char buf[24];
    assert_string_equal(sm_signal_name(SIGKILL, buf, sizeof buf), "SIGKILL");
    assert_string_equal(sm_signal_name(SIGTERM, buf, sizeof buf), "SIGTERM");
    assert_string_equal(sm_signal_name(SIGINT, buf, sizeof buf), "SIGINT");
    assert_string_equal(sm_signal_name(200, buf, sizeof buf), "SIG200");
    assert_ptr_equal(sm_signal_name(SIGKILL, buf, sizeof buf), buf);
}

static void check_label(const sm_failure *f, const char *want)
{
    char buf[128];
    sm_failure_label(f, buf, sizeof buf);
    assert_string_equal(buf, want);
}

static void test_labels(void **state)
{
    sm_failure f;
    sm_failure_init(&f);
    check_label(&f, "");

    f.kind = SM_FAIL_OOM;
    check_label(&f, "OOM killed");

    sm_failure_init(&f);
    f.kind = SM_FAIL_EXIT_NONZERO;
    f.exit_code = 3;
    check_label(&f, "exit 3");

    sm_failure_init(&f);
    f.kind = SM_FAIL_EXEC_TIMEOUT;
    f.timeout_s = 180;
    check_label(&f, "exec timeout 180s"); /* the unit timeouts are given in */
    f.timeout_s = 42;
    check_label(&f, "exec timeout 42s");
    f.timeout_s = 0.25;
    check_label(&f, "exec timeout 250ms");
    f.timeout_s = 7200;
    check_label(&f, "exec timeout 7200s");
    f.timeout_s = -1;
    check_label(&f, "exec timeout");

    sm_failure_init(&f);
    f.kind = SM_FAIL_SIGNALED;
    f.signal = SIGKILL;
    check_label(&f, "exit 137 (SIGKILL)");
    f.signal = SIGTERM;
    check_label(&f, "exit 143 (SIGTERM)");
    f.signal = 0;
    check_label(&f, "killed");

    sm_failure_init(&f);
    f.kind = SM_FAIL_AUTH_REJECTED;
    f.http_status = 401;
    check_label(&f, "auth rejected (HTTP 401)");
    f.kind = SM_FAIL_PROVIDER_UNREACHABLE;
    f.http_status = 0;
    check_label(&f, "provider unreachable");
    f.http_status = 503;
    check_label(&f, "provider unreachable (HTTP 503)");

    sm_failure_init(&f);
    f.kind = SM_FAIL_TTL_EXPIRED;
    check_label(&f, "TTL expired");
    f.kind = SM_FAIL_PIDS_LIMIT;
    check_label(&f, "pids limit");
    f.kind = SM_FAIL_CPU_THROTTLED;
    check_label(&f, "CPU throttled");
    f.kind = SM_FAIL_SUPERVISOR_LOST;
    check_label(&f, "supervisor lost");

    /* every kind has a label; a small buffer truncates safely */
    for (int k = 1; k < SM_FAIL__COUNT; k++) {
        char buf[128];
        sm_failure_init(&f);
        f.kind = (sm_failure_kind)k;
        sm_failure_label(&f, buf, sizeof buf);
        assert_true(strlen(buf) > 0);
    }
    char small[5];
    sm_failure_init(&f);
    f.kind = SM_FAIL_PROVIDER_UNREACHABLE;
    sm_failure_label(&f, small, sizeof small);
    assert_string_equal(small, "prov");
}

static void check_evidence(const sm_failure *f, const char *want)
{
    char buf[256];
    sm_failure_evidence(f, buf, sizeof buf);
    assert_string_equal(buf, want);
}

static void test_evidence(void **state)
{
    sm_failure f;
    sm_failure_init(&f);
    check_evidence(&f, "");

    f.kind = SM_FAIL_OOM;
    f.oom_kills = 1;
    f.memory_limit = 64LL * 1024 * 1024;
    /* sm_format_bytes prints one decimal below 100 units */
    check_evidence(&f, "memory.oom_kill 1, limit 64MiB");
    f.memory_limit = 512LL * 1024 * 1024;
    check_evidence(&f, "memory.oom_kill 1, limit 512MiB");
    f.exit_code = 137;
    f.signal = SIGKILL;
    check_evidence(&f, "memory.oom_kill 1, limit 512MiB, exit code 137, signal SIGKILL");

    /* the memory limit alone is no evidence */
    sm_failure_init(&f);
    f.kind = SM_FAIL_EXIT_NONZERO;
    f.memory_limit = 1024;
    f.oom_kills = 0;
    f.exit_code = 2;
    check_evidence(&f, "exit code 2");

    sm_failure_init(&f);
    f.kind = SM_FAIL_PIDS_LIMIT;
    f.pids_events = 3;
    f.pids_limit = 64;
    check_evidence(&f, "pids.events max 3, pids limit 64");

    sm_failure_init(&f);
    f.kind = SM_FAIL_EXEC_TIMEOUT;
    f.timeout_s = 180;
    check_evidence(&f, "timeout 3m00s");

    sm_failure_init(&f);
    f.kind = SM_FAIL_CPU_THROTTLED;
    f.nr_throttled = 12;
    check_evidence(&f, "nr_throttled 12");

    sm_failure_init(&f);
    f.kind = SM_FAIL_PROVIDER_UNREACHABLE;
    f.http_status = 503;
    strcpy(f.provider_reason, "overloaded");
    check_evidence(&f, "HTTP 503, provider: overloaded");

    /* exit code 0 on a non-failure says nothing */
    sm_failure_init(&f);
    f.exit_code = 0;
    check_evidence(&f, "");

    /* truncation stays inside the buffer */
    sm_failure_init(&f);
    f.kind = SM_FAIL_OOM;
    f.oom_kills = 1;
    f.memory_limit = 1 << 20;
    f.exit_code = 137;
    char small[12];
    memset(small, 'Z', sizeof small);
    sm_failure_evidence(&f, small, sizeof small);
    assert_string_equal(small, "memory.oom_");
}

static void test_json_round_trip(void **state)
{
    sm_failure f, g;
    sm_failure_init(&f);
    f.kind = SM_FAIL_OOM;
    strcpy(f.operation, "exec");
    strcpy(f.sandbox_id, "sb-0123");
    strcpy(f.provider, "local");
    strcpy(f.reason, "command killed: out of memory");
    strcpy(f.provider_reason, "oom");
    f.exit_code = 137;
    f.signal = SIGKILL;
    f.http_status = 500;
    f.timeout_s = 30;
    f.oom_kills = 2;
    f.memory_limit = 67108864;
    f.pids_events = 1;
    f.pids_limit = 128;
    f.nr_throttled = 9;

    cJSON *j = sm_failure_to_json(&f);
    assert_string_equal(cJSON_GetObjectItem(j, "kind")->valuestring, "oom_killed");
    assert_string_equal(cJSON_GetObjectItem(j, "label")->valuestring, "OOM killed");
    assert_string_equal(cJSON_GetObjectItem(j, "signal")->valuestring, "SIGKILL");
    assert_non_null(
        strstr(cJSON_GetObjectItem(j, "evidence")->valuestring, "memory.oom_kill 2, limit 64MiB"));
    sm_failure_from_json(j, &g);
    cJSON_Delete(j);

    assert_int_equal(g.kind, f.kind);
    assert_string_equal(g.operation, f.operation);
    assert_string_equal(g.sandbox_id, f.sandbox_id);
    assert_string_equal(g.provider, f.provider);
    assert_string_equal(g.reason, f.reason);
    assert_string_equal(g.provider_reason, f.provider_reason);
    assert_int_equal(g.exit_code, 137);
    assert_int_equal(g.signal, SIGKILL);
    assert_int_equal(g.http_status, 500);
    assert_true(g.timeout_s == 30);
    assert_int_equal(g.oom_kills, 2);
    assert_int_equal(g.memory_limit, 67108864);
    assert_int_equal(g.pids_events, 1);
    assert_int_equal(g.pids_limit, 128);
    assert_int_equal(g.nr_throttled, 9);

    /* unknown evidence is omitted and comes back as unknown */
    sm_failure_init(&f);
    f.kind = SM_FAIL_NOT_FOUND;
    j = sm_failure_to_json(&f);
    assert_null(cJSON_GetObjectItem(j, "exit_code"));
    assert_null(cJSON_GetObjectItem(j, "signal"));
    assert_null(cJSON_GetObjectItem(j, "timeout_s"));
    assert_null(cJSON_GetObjectItem(j, "oom_kills"));
    assert_null(cJSON_GetObjectItem(j, "evidence"));
    assert_null(cJSON_GetObjectItem(j, "reason"));
    sm_failure_from_json(j, &g);
    cJSON_Delete(j);
    assert_int_equal(g.kind, SM_FAIL_NOT_FOUND);
    assert_int_equal(g.exit_code, -1);
    assert_true(g.timeout_s < 0);
    assert_int_equal(g.memory_limit, -1);

    /* a signal without a name comes back by number */
    sm_failure_init(&f);
    f.kind = SM_FAIL_SIGNALED;
    f.signal = 200;
    j = sm_failure_to_json(&f);
    assert_string_equal(cJSON_GetObjectItem(j, "signal")->valuestring, "SIG200");
    sm_failure_from_json(j, &g);
    cJSON_Delete(j);
    assert_int_equal(g.signal, 200);

    /* garbage in: a clean, unknown failure */
    memset(&g, 0x33, sizeof g);
    sm_failure_from_json(NULL, &g);
    assert_int_equal(g.kind, SM_FAIL_NONE);
    assert_int_equal(g.exit_code, -1);
    j = cJSON_Parse("{\"kind\": \"nonsense\", \"signal\": \"KILL\", \"exit_code\": \"3\"}");
    sm_failure_from_json(j, &g);
    cJSON_Delete(j);
    assert_int_equal(g.kind, SM_FAIL_NONE);
    assert_int_equal(g.signal, 0);
    assert_int_equal(g.exit_code, -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kind_names),
        cmocka_unit_test(test_kind_is_failure),
        cmocka_unit_test(test_init),
        cmocka_unit_test(test_classify_exit),
        cmocka_unit_test(test_classify_http),
        cmocka_unit_test(test_signal_name),
        cmocka_unit_test(test_labels),
        cmocka_unit_test(test_evidence),
        cmocka_unit_test(test_json_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
