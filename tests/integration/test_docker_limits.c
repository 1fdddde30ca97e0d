/* The docker provider's bounds and exec settings against a real engine (the private podman
 * service of docker_engine.bash, or SANDMAN_DOCKER_HOST): exec.concurrency bounds every engine
 * call, not only execs (observed inside the containers, on the host's uptime clock, which every
 * container shares); PTY sessions run exec.exec_shell with exec.extra_exec_args as a plain exec
 * does; a flooding command's captured output stays bounded. Exit 77 = skipped. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <cjson/cJSON.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/pty.h"
#include "core/sandbox.h"
#include "core/strbuf.h"
#include "core/util.h"
#include "tests/testlib.h"

static sm_test_engine E;

/* A provider on the test engine with the block's exec keys (JSON text), network none. */
static sm_provider *provider(const char *exec_json)
{
    char *text = xasprintf("{\"create\": {\"network\": \"none\"}, \"exec\": %s}",
                           exec_json ? exec_json : "{}");
    cJSON *cfg = cJSON_Parse(text);
    free(text);
    assert_non_null(cfg);
    cJSON_AddStringToObject(cfg, "host", E.host);
    sm_provider *p = NULL;
    sm_error e;
    sm_error_clear(&e);
    if (sm_provider_new("docker", cfg, &p, &e) != SM_OK)
        fail_msg("provider: %s", e.msg);
    cJSON_Delete(cfg);
    sm_map_set(&p->default_metadata, "sandman-test-run", E.run);
    return p;
}

static sm_sandbox *start(sm_provider *p)
{
    sm_spec spec;
    sm_spec_init(&spec);
    spec.image = xstrdup(E.image);
    sm_sandbox *s = sm_sandbox_new(p, false);
    sm_error e;
    sm_error_clear(&e);
    if (sm_sandbox_start(s, &spec, &e) != SM_OK)
        fail_msg("start: %s", e.msg);
    sm_spec_free(&spec);
    return s;
}

static void stop(sm_sandbox *s)
{
    sm_sandbox_stop(s, NULL);
    sm_sandbox_free(s);
}

/* The host's uptime (the clock /proc/uptime shows in every container too). */
static double host_uptime(void)
{
    char buf[64];
    FILE *f = fopen("/proc/uptime", "r");
    assert_non_null(f);
    assert_non_null(fgets(buf, sizeof buf, f));
    fclose(f);
    return atof(buf);
}

/* ---------------------------------------------------------------- concurrency */

typedef struct job {
    sm_sandbox *s;
    double begin, end; /* uptime inside the container: when the command ran */
    int rc;
} job;

static void *exec_job(void *arg)
{
    job *j = arg;
    sm_exec_request rq;
    sm_exec_request_init(&rq);
    rq.cmd = "cut -d' ' -f1 /proc/uptime; sleep 1; cut -d' ' -f1 /proc/uptime";
    sm_exec_result r;
    sm_sandbox_exec(j->s, &rq, &r, NULL);
    j->rc = r.return_code;
    if (r.out)
        sscanf(r.out, "%lf %lf", &j->begin, &j->end);
    sm_exec_result_free(&r);
    return NULL;
}

typedef struct status_job {
    sm_sandbox *s;
    double done; /* host uptime when status returned */
    int rc;
} status_job;

static void *status_job_run(void *arg)
{
    status_job *j = arg;
    sm_sandbox_info info;
    sm_error e;
    sm_error_clear(&e);
    sm_status st = sm_sandbox_status(j->s, &info, &e);
    j->done = host_uptime();
    j->rc = st == SM_STATUS_RUNNING ? SM_OK : -1;
    sm_sandbox_info_free(&info);
    return NULL;
}

/* exec.concurrency 2, three commands of 1 s at once: inside the containers, never more than
 * two run at the same time, and the third starts after one of the first two ended. Then with
 * concurrency 1, a status call waits for the command that holds the only slot. */
static void test_concurrency_bounds_every_call(void **state)
{
    sm_provider *p = provider("{\"concurrency\": 2}");
    sm_sandbox *s[3];
    for (int i = 0; i < 3; i++)
        s[i] = start(p);
    job j[3] = {{0}};
    pthread_t th[3];
    for (int i = 0; i < 3; i++) {
        j[i].s = s[i];
        pthread_create(&th[i], NULL, exec_job, &j[i]);
    }
    for (int i = 0; i < 3; i++)
        pthread_join(th[i], NULL);
    int most = 0;
    for (int i = 0; i < 3; i++) {
        assert_int_equal(j[i].rc, 0);
        assert_true(j[i].end > j[i].begin);
        int overlap = 0; /* commands running when command i began */
        for (int k = 0; k < 3; k++)
            overlap += j[k].begin <= j[i].begin && j[i].begin < j[k].end;
        most = overlap > most ? overlap : most;
    }
    print_message("commands in flight at most: %d (bound 2)\n", most);
    assert_int_equal(most, 2);
    for (int i = 0; i < 3; i++)
        stop(s[i]);
    sm_provider_free(p);

    /* a non-exec call waits for the slot too */
    p = provider("{\"concurrency\": 1}");
    sm_sandbox *a = start(p);
    job hold = {.s = a};
    pthread_t t1, t2;
    pthread_create(&t1, NULL, exec_job, &hold);
    /* wait until the command runs (seen inside the container by another provider) */
    double until = sm_now_mono() + 20;
    bool running = false;
    while (!running && sm_now_mono() < until) {
        char *cmd = xasprintf("ps -o args | grep -q '^sleep 1$' && echo run");
        sm_provider *q = provider(NULL); /* another provider: slots of its own */
        sm_sandbox *probe = sm_sandbox_new(q, false);
        sm_error e;
        sm_error_clear(&e);
        cJSON *d = cJSON_CreateObject();
        cJSON_AddStringToObject(d, "sandbox_id", sm_sandbox_id(a));
        if (sm_sandbox_connect(probe, d, &e) == SM_OK) {
            sm_exec_request rq;
            sm_exec_request_init(&rq);
            rq.cmd = cmd;
            sm_exec_result r;
            sm_sandbox_exec(probe, &rq, &r, NULL);
            running = r.out && strstr(r.out, "run");
            sm_exec_result_free(&r);
        }
        sm_sandbox_free(probe);
        cJSON_Delete(d);
        sm_provider_free(q);
        free(cmd);
    }
    assert_true(running);
    status_job sj = {.s = a};
    pthread_create(&t2, NULL, status_job_run, &sj);
    pthread_join(t1, NULL);
    pthread_join(t2, NULL);
    assert_int_equal(hold.rc, 0);
    assert_int_equal(sj.rc, SM_OK);
    print_message("command ended at %.2f, status returned at %.2f\n", hold.end, sj.done);
    assert_true(sj.done >= hold.end);
    stop(a);
    sm_provider_free(p);
}

/* ---------------------------------------------------------------- PTY shell */

/* Reads the session until want appears (or 20 s pass); returns whether it did. */
static bool pty_wait_for(sm_pty *t, const char *want)
{
    sm_strbuf seen = {0};
    double until = sm_now_mono() + 20;
    bool ok = false;
    while (!ok && sm_now_mono() < until) {
        char buf[4096];
        size_t got = 0;
        sm_error e;
        sm_error_clear(&e);
        int rc = sm_pty_read(t, buf, sizeof buf, 0.5, &got, &e);
        if (rc != SM_OK && rc != SM_ERR_TIMEOUT)
            break;
        if (rc == SM_OK && got == 0)
            break;
        sm_strbuf_append(&seen, buf, got);
        ok = seen.data && strstr(seen.data, want);
    }
    if (!ok)
        print_message("PTY output: [%s]\n", seen.data ? seen.data : "");
    sm_strbuf_free(&seen);
    return ok;
}

/* exec.exec_shell is the session's shell and the shell of its command; exec.extra_exec_args
 * apply to it as to a plain exec. */
static void test_pty_honours_exec_settings(void **state)
{
    sm_provider *p =
        provider("{\"exec_shell\": \"/bin/ash\", \"extra_exec_args\": [\"-e\", \"PTYX=extra\"]}");
    sm_sandbox *s = start(p);
    sm_pty_spec ps;
    sm_pty_spec_init(&ps);
    ps.command = "echo \"shell=$0 x=$PTYX\"";
    sm_pty *t = NULL;
    sm_error e;
    sm_error_clear(&e);
    assert_int_equal(sm_sandbox_pty_open(s, &ps, &t, &e), SM_OK);
    assert_true(pty_wait_for(t, "shell=/bin/ash x=extra"));
    sm_pty_close(t);

    sm_pty_spec_init(&ps); /* no command: the interactive shell is exec_shell */
    t = NULL;
    assert_int_equal(sm_sandbox_pty_open(s, &ps, &t, &e), SM_OK);
    const char *line = "echo \"i$((6*7)) $(readlink /proc/$$/exe) $0 $PTYX\"\n";
    assert_int_equal(sm_pty_write(t, line, strlen(line), &e), SM_OK);
    assert_true(pty_wait_for(t, "i42 /bin/busybox /bin/ash extra"));
    sm_pty_close(t);

    /* the plain exec path agrees */
    sm_exec_request rq;
    sm_exec_request_init(&rq);
    rq.cmd = "echo \"shell=$0 x=$PTYX\"";
    sm_exec_result r;
    sm_sandbox_exec(s, &rq, &r, NULL);
    assert_string_equal(r.out, "shell=/bin/ash x=extra\n");
    sm_exec_result_free(&r);
    stop(s);
    sm_provider_free(p);
}

/* ---------------------------------------------------------------- output cap */

/* A command that prints 40 MiB to each stream: what is captured stays at 16 MiB per stream
 * (as the local provider keeps it), the rest is counted in a note on stderr, and the exit
 * status is the command's. */
static void test_exec_output_is_capped(void **state)
{
    sm_provider *p = provider(NULL);
    sm_sandbox *s = start(p);
    for (int pass = 0; pass < 2; pass++) { /* a plain exec, then the exec helper */
        sm_exec_request rq;
        sm_exec_request_init(&rq);
        rq.cmd = "head -c 41943040 /dev/zero; head -c 41943040 /dev/zero >&2; exit 3";
        rq.timeout_s = 120;
        sm_exec_result r;
        sm_sandbox_exec(s, &rq, &r, NULL);
        assert_int_equal(r.return_code, 3);
        print_message("pass %d: stdout %zu bytes, stderr %zu bytes\n", pass, r.out_len, r.err_len);
        assert_int_equal(r.out_len, 16u << 20);
        assert_true(r.err_len > 16u << 20 && r.err_len < (16u << 20) + 1024);
        char note[160];
        snprintf(note, sizeof note,
                 "sandman: the command's stdout was cut at 16 MiB (%d bytes dropped)",
                 41943040 - (16 << 20));
        assert_non_null(memmem(r.err, r.err_len, note, strlen(note)));
        sm_exec_result_free(&r);
    }
    stop(s);
    sm_provider_free(p);
}

int main(void)
{
    sm_test_engine_start("test_docker_limits", &E);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_concurrency_bounds_every_call),
        cmocka_unit_test(test_pty_honours_exec_settings),
        cmocka_unit_test(test_exec_output_is_capped),
    };
    if (getenv("DOCKER_TEST_FILTER"))
        cmocka_set_test_filter(getenv("DOCKER_TEST_FILTER"));
    int rc = cmocka_run_group_tests(tests, sm_test_group_setup, sm_test_group_teardown);
    sm_test_engine_stop();
    return rc;
}
