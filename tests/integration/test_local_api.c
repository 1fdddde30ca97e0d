/* The core facade on real local sandboxes: spec.files and rollback, PTY sessions (read,
 * write, resize, signal, wait_exit, close), the marker protocol over a real shell, a second
 * process reconnecting from a serialized descriptor, endpoints, and stop semantics. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/json.h"
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

static char *run(sm_sandbox *s, const char *cmd, int *rc)
{
    sm_exec_request rq;
    sm_exec_request_init(&rq);
    rq.cmd = cmd;
    sm_exec_result r;
    sm_sandbox_exec(s, &rq, &r, NULL);
    *rc = r.return_code;
    char *out = r.out ? xstrdup(r.out) : NULL;
    sm_exec_result_free(&r);
    return out;
}

static size_t count_sandboxes(void)
{
    sm_provider *p;
    sm_provider_new("local", NULL, &p, NULL);
    sm_list_filter f = {.all = true};
    sm_sandbox_info *list;
    size_t n = 0;
    p->ops->list(p, &f, &list, &n, NULL);
    sm_sandbox_info_list_free(list, n);
    sm_provider_free(p);
    return n;
}

static void test_spec_files(void **state)
{
    sm_spec spec;
    sm_spec_init(&spec);
    sm_map_set(&spec.files, "/tmp/a/b/hello.txt", "hello, sandbox\n");
    sm_map_set(&spec.files, "/workspace/conf.ini", "[x]\ny=1\n");
    spec.workdir = xstrdup("/workspace");
    sm_sandbox *s = start(&spec);
    int rc;
    char *out = run(s, "cat /tmp/a/b/hello.txt conf.ini", &rc);
    assert_int_equal(rc, 0);
    assert_string_equal(out, "hello, sandbox\n[x]\ny=1\n");
    free(out);
    assert_int_equal(sm_sandbox_stop(s, NULL), SM_OK);
    sm_sandbox_free(s);
    sm_spec_free(&spec);
}

static void test_spec_files_rollback(void **state)
{
    size_t before = count_sandboxes();
    sm_spec spec;
    sm_spec_init(&spec);
    sm_map_set(&spec.files, "/tmp/ok.txt", "fine");
    sm_map_set(&spec.files, "/etc/not-writable.txt", "the host root is read-only");
    sm_provider *p;
    sm_provider_new("local", NULL, &p, NULL);
    sm_sandbox *s = sm_sandbox_new(p, true);
    sm_error e;
    sm_error_clear(&e);
    assert_int_not_equal(sm_sandbox_start(s, &spec, &e), SM_OK);
    assert_int_equal(e.failure.kind, SM_FAIL_CREATE_FAILED);
    assert_non_null(strstr(e.msg, "/etc/not-writable.txt"));
    assert_int_equal(count_sandboxes(), before); /* nothing half-made is left */
    /* the facade is permanently closed */
    sm_spec empty;
    sm_spec_init(&empty);
    assert_int_equal(sm_sandbox_start(s, &empty, &e), SM_ERR_CLOSED);
    sm_sandbox_free(s);
    sm_spec_free(&spec);
}

/* Reads from a PTY until `want` shows up after what earlier calls matched (or fails after
 * 10 s). The transcript is kept across calls: one read may bring the answers to several
 * commands. */
static char transcript[65536];
static size_t transcript_len, transcript_seen;

static void read_until(sm_pty *t, const char *want)
{
    double end = sm_now_mono() + 10;
    char *hit;
    while (!(hit = strstr(transcript + transcript_seen, want))) {
        size_t got;
        sm_error e;
        sm_error_clear(&e);
        int rc = sm_pty_read(t, transcript + transcript_len, sizeof transcript - transcript_len - 1,
                             0.5, &got, &e);
        if (rc == SM_OK && got == 0)
            fail_msg("EOF before '%s' (got '%s')", want, transcript + transcript_seen);
        if (rc == SM_OK)
            transcript[transcript_len += got] = '\0';
        else if (rc != SM_ERR_TIMEOUT)
            fail_msg("read: %s", e.msg);
        if (sm_now_mono() > end || transcript_len > sizeof transcript - 2)
            fail_msg("'%s' never appeared; got '%s'", want, transcript + transcript_seen);
    }
    transcript_seen = (size_t)(hit - transcript) + strlen(want);
}

static void test_pty_session(void **state)
{
    sm_sandbox *s = start(NULL);
    sm_pty_spec ps;
    sm_pty_spec_init(&ps);
    ps.rows = 20;
    ps.cols = 70;
    sm_pty *t = NULL;
    sm_error e;
    sm_error_clear(&e);
    assert_int_equal(sm_sandbox_pty_open(s, &ps, &t, &e), SM_OK);
    assert_true(strlen(t->session_id) > 0);
    assert_true(sm_pty_fd(t) >= 0);
    const char *cmd = "stty size; echo $((6*7))ok; tty\n";
    assert_int_equal(sm_pty_write(t, cmd, strlen(cmd), &e), SM_OK);
    read_until(t, "20 70");
    read_until(t, "42ok");
    read_until(t, "/dev/pts/");
    assert_int_equal(sm_pty_resize(t, 33, 101, &e), SM_OK);
    cmd = "stty size\n";
    sm_pty_write(t, cmd, strlen(cmd), &e);
    read_until(t, "33 101");

    /* marker protocol over the live shell */
    sm_exec_result r;
    assert_int_equal(sm_pty_exec_marker(t, "echo marker-out; (exit 6)", 10, &r, &e), SM_OK);
    assert_int_equal(r.return_code, 6);
    assert_non_null(strstr(r.out, "marker-out"));
    sm_exec_result_free(&r);

    /* SIGINT reaches the foreground job; the shell survives */
    cmd = "sleep 30\n";
    sm_pty_write(t, cmd, strlen(cmd), &e);
    int rc = 1;
    for (int i = 0; i < 100 && rc != 0; i++) { /* wait until the job really runs */
        free(run(s, "pgrep -x sleep", &rc));
        if (rc != 0)
            usleep(50000);
    }
    assert_int_equal(rc, 0);
    assert_int_equal(sm_pty_write(t, "\003", 1, &e), SM_OK);
    cmd = "echo after-interrupt\n";
    sm_pty_write(t, cmd, strlen(cmd), &e);
    read_until(t, "after-interrupt");
    assert_int_equal(sm_pty_signal(t, "SIGSTOPX", &e), SM_ERR_INVALID);

    cmd = "exit 5\n";
    sm_pty_write(t, cmd, strlen(cmd), &e);
    int code = -1;
    assert_int_equal(sm_pty_wait_exit(t, 10, &code, &e), SM_OK);
    assert_int_equal(code, 5);
    char buf[16];
    size_t got = 1;
    assert_int_equal(sm_pty_read(t, buf, sizeof buf, 1, &got, &e), SM_OK);
    assert_int_equal(got, 0); /* sticky EOF */
    assert_int_equal(sm_pty_read(t, buf, sizeof buf, 1, &got, &e), SM_OK);
    assert_int_equal(got, 0);
    sm_pty_close(t);

    /* a command session reports its own exit code */
    ps.command = "printf done; exit 9";
    assert_int_equal(sm_sandbox_pty_open(s, &ps, &t, &e), SM_OK);
    read_until(t, "done");
    assert_int_equal(sm_pty_wait_exit(t, 10, &code, &e), SM_OK);
    assert_int_equal(code, 9);
    sm_pty_close(t);

    /* SIGTERM to a session's process group */
    ps.command = "sleep 60";
    assert_int_equal(sm_sandbox_pty_open(s, &ps, &t, &e), SM_OK);
    assert_int_equal(sm_pty_signal(t, "SIGTERM", &e), SM_OK);
    assert_int_equal(sm_pty_wait_exit(t, 10, &code, &e), SM_OK);
    assert_int_equal(code, 128 + 15);
    sm_pty_close(t);
    sm_sandbox_stop(s, NULL);
    sm_sandbox_free(s);
}

static void test_second_process_reconnects(void **state)
{
    sm_spec spec;
    sm_spec_init(&spec);
    spec.workdir = xstrdup("/tmp/proj");
    sm_sandbox *s = start(&spec);
    cJSON *desc = sm_sandbox_serialize(s);
    char *text = sm_json_print(desc);
    cJSON_Delete(desc);
    pid_t pid = fork();
    if (pid == 0) {
        /* A separate process with its own provider, given only the descriptor text. */
        sm_provider *p;
        if (sm_provider_new("local", NULL, &p, NULL) != SM_OK)
            _exit(10);
        sm_sandbox *other = sm_sandbox_new(p, true);
        cJSON *d = cJSON_Parse(text);
        if (sm_sandbox_connect(other, d, NULL) != SM_OK)
            _exit(11);
        cJSON_Delete(d);
        int rc;
        char *out = run(other, "pwd; exit 3", &rc);
        _exit(rc == 3 && out && !strcmp(out, "/tmp/proj\n") ? 0 : 12);
    }
    int st;
    waitpid(pid, &st, 0);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    free(text);
    sm_sandbox_stop(s, NULL);
    sm_sandbox_free(s);
    sm_spec_free(&spec);
}

static void test_endpoint_and_stop(void **state)
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

    assert_int_equal(sm_sandbox_status(s, NULL, NULL), SM_STATUS_RUNNING);
    assert_int_equal(sm_sandbox_stop(s, &e), SM_OK);
    assert_int_equal(sm_sandbox_stop(s, &e), SM_OK); /* idempotent */
    assert_int_equal(sm_sandbox_status(s, NULL, NULL), SM_STATUS_STOPPED);
    sm_exec_request rq;
    sm_exec_request_init(&rq);
    rq.cmd = "true";
    sm_exec_result r;
    assert_int_equal(sm_sandbox_exec(s, &rq, &r, &e), SM_ERR_CLOSED);
    assert_int_equal(r.return_code, 125);
    assert_string_equal(r.error_type, "sandbox");
    sm_exec_result_free(&r);
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

static int setup(void **state)
{
    sm_test_setup_state();
    return 0;
}

static int teardown(void **state)
{
    sm_test_teardown_state();
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spec_files),        cmocka_unit_test(test_spec_files_rollback),
        cmocka_unit_test(test_pty_session),       cmocka_unit_test(test_second_process_reconnects),
        cmocka_unit_test(test_endpoint_and_stop),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
