/* The contract's required operations: exec (codes as data, the request, timeouts, concurrent
 * execs, a gone sandbox), spec.files, upload/download, status, close and the TTL. */
#include "tests/contract/contract.h"

#include <cjson/cJSON.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/util.h"

/* ---------------------------------------------------------------- exec */

void test_exec_codes_are_data(void **state)
{
    sm_sandbox *s = ct_start(NULL);
    ct_expect(s, "true", 0, "");
    ct_expect(s, "echo out; exit 7", 7, "out\n");
    ct_expect(s, "exit 300", 300 & 0xff, "");
    ct_expect(s, "nosuchcommand-contract", 127, "");
    ct_run_out o;
    ct_run(s, "echo to-out; printf 'to-err' >&2; kill -9 $$", &o);
    assert_int_equal(o.rc, SM_OK);
    assert_int_equal(o.r.return_code, 137);
    assert_null(o.r.error_type); /* the command ran: a result, not a runtime failure */
    assert_int_equal(o.r.failure.kind, SM_FAIL_SIGNALED);
    assert_string_equal(o.r.out, "to-out\n");
    assert_string_equal(o.r.err, "to-err");
    sm_exec_result_free(&o.r);
    ct_run(s, "exit 3", &o);
    assert_int_equal(o.r.failure.kind, SM_FAIL_EXIT_NONZERO);
    assert_int_equal(o.r.failure.exit_code, 3);
    sm_exec_result_free(&o.r);
    /* binary output, exactly as written */
    ct_run(s, "printf 'a\\000b\\377\\n'", &o);
    assert_int_equal(o.r.out_len, 5);
    assert_memory_equal(o.r.out, "a\0b\377\n", 5);
    sm_exec_result_free(&o.r);
    ct_stop(s);
}

void test_exec_request(void **state)
{
    sm_sandbox *s = ct_start(NULL);
    sm_map env = {0};
    sm_map_set(&env, "CONTRACT_A", "one");
    sm_map_set(&env, "CONTRACT_B", "two words\nand a line");
    sm_exec_request rq;
    sm_exec_request_init(&rq);
    rq.cmd = "pwd; echo \"$CONTRACT_A\"; echo \"$CONTRACT_B\"; cat; echo stdin-closed";
    rq.cwd = "/tmp";
    rq.env = &env;
    ct_run_out o;
    ct_run_req(s, &rq, &o);
    assert_int_equal(o.rc, SM_OK);
    assert_int_equal(o.r.return_code, 0);
    assert_string_equal(o.r.out, "/tmp\none\ntwo words\nand a line\nstdin-closed\n");
    sm_exec_result_free(&o.r);
    /* streamed to descriptors instead of captured */
    int po[2];
    assert_int_equal(pipe(po), 0);
    sm_exec_request_init(&rq);
    rq.cmd = "printf streamed";
    rq.stdout_fd = po[1];
    ct_run_req(s, &rq, &o);
    close(po[1]);
    assert_int_equal(o.rc, SM_OK);
    assert_int_equal(o.r.return_code, 0);
    char buf[64] = "";
    ssize_t n = read(po[0], buf, sizeof buf - 1);
    close(po[0]);
    assert_true(n == 8);
    assert_memory_equal(buf, "streamed", 8);
    sm_exec_result_free(&o.r);
    sm_map_free(&env);
    ct_stop(s);
}

void test_exec_timeout(void **state)
{
    sm_sandbox *s = ct_start(NULL);
    sm_exec_request rq;
    sm_exec_request_init(&rq);
    rq.cmd = "echo started; sleep 60";
    rq.timeout_s = 1;
    double t0 = sm_now_mono();
    ct_run_out o;
    ct_run_req(s, &rq, &o);
    double took = sm_now_mono() - t0;
    assert_int_equal(o.r.return_code, 125);
    assert_non_null(o.r.error_type);
    assert_string_equal(o.r.error_type, "timeout");
    assert_int_equal(o.r.failure.kind, SM_FAIL_EXEC_TIMEOUT);
    assert_non_null(o.r.out);
    assert_non_null(strstr(o.r.out, "started"));
    if (took > 15)
        fail_msg("a 1 s timeout took %.1f s", took);
    sm_exec_result_free(&o.r);
    ct_expect(s, "echo still-usable", 0, "still-usable\n");
    ct_stop(s);
}

/* Several threads exec at once through one provider (the dashboard's way). */
typedef struct conc {
    sm_sandbox *s;
    int n, ok;
    char why[600];
} conc;

static void *conc_thread(void *arg)
{
    conc *c = arg;
    for (int i = 0; i < 4; i++) {
        char cmd[64], want[32];
        snprintf(cmd, sizeof cmd, "echo t%d-$((%d*2)); exit %d", c->n, i, i);
        snprintf(want, sizeof want, "t%d-%d\n", c->n, i * 2);
        ct_run_out o;
        ct_run(c->s, cmd, &o);
        if (o.r.return_code == i && o.r.out && !strcmp(o.r.out, want))
            c->ok++;
        else if (!c->why[0])
            snprintf(c->why, sizeof c->why, "rc %d out '%s' err '%s' (%s)", o.r.return_code,
                     o.r.out ? o.r.out : "", o.r.err ? o.r.err : "", o.e.msg);
        sm_exec_result_free(&o.r);
    }
    return NULL;
}

void test_exec_concurrent(void **state)
{
    ct_need(SM_CAP_CONNECT); /* one facade per thread, on one provider */
    sm_provider *p = ct_provider();
    sm_sandbox *owner = ct_start_with(p, NULL);
    conc c[6];
    pthread_t th[6];
    for (int i = 0; i < 6; i++) {
        cJSON *d = sm_sandbox_serialize(owner);
        c[i] = (conc){.s = sm_sandbox_new(p, false), .n = i};
        assert_int_equal(sm_sandbox_connect(c[i].s, d, NULL), SM_OK);
        cJSON_Delete(d);
        assert_int_equal(pthread_create(&th[i], NULL, conc_thread, &c[i]), 0);
    }
    for (int i = 0; i < 6; i++) {
        pthread_join(th[i], NULL);
        sm_sandbox_free(c[i].s);
        if (c[i].ok != 4)
            fail_msg("thread %d: %d of 4 right; first wrong one: %s", i, c[i].ok, c[i].why);
    }
    ct_stop(owner);
}

/* A sandbox that is gone: exec is a runtime failure (125 + error_type), not a code. */
void test_exec_on_gone_sandbox(void **state)
{
    sm_sandbox *s = ct_start(NULL);
    assert_int_equal(sm_sandbox_stop(s, NULL), SM_OK);
    ct_run_out o;
    ct_run(s, "true", &o);
    assert_int_not_equal(o.rc, SM_OK);
    assert_int_equal(o.r.return_code, 125);
    assert_non_null(o.r.error_type);
    assert_string_equal(o.r.error_type, "sandbox");
    sm_exec_result_free(&o.r);
    sm_sandbox_free(s);

    /* the same through the provider itself, on a handle whose sandbox was removed */
    sm_provider *p = ct_provider();
    sm_handle *h = ct_raw_create(p);
    sm_error e;
    sm_error_clear(&e);
    assert_int_equal(p->ops->close(p, h, &e), SM_OK);
    sm_exec_request rq;
    sm_exec_request_init(&rq);
    rq.cmd = "true";
    sm_exec_result r;
    sm_exec_result_init(&r);
    sm_error_clear(&e);
    assert_int_not_equal(p->ops->exec(p, h, &rq, &r, &e), SM_OK);
    assert_true(e.msg[0] != '\0'); /* it says why */
    sm_exec_result_free(&r);
    sm_handle_free(p, h);
    sm_provider_free(p);
}

/* ---------------------------------------------------------------- spec.files */

void test_spec_files(void **state)
{
    sm_spec spec;
    ct_spec_init(&spec);
    spec.workdir = xstrdup("/tmp/contract/work");
    sm_map_set(&spec.files, "/tmp/contract/a/b/hello.txt", "hello, sandbox\n");
    sm_map_set(&spec.files, "/tmp/contract/work/conf.ini", "[x]\ny=1\n");
    sm_sandbox *s = ct_start(&spec);
    ct_expect(s, "cat /tmp/contract/a/b/hello.txt conf.ini; pwd", 0,
              "hello, sandbox\n[x]\ny=1\n/tmp/contract/work\n");
    ct_stop(s);
    sm_spec_free(&spec);
}

/* A file that cannot be written fails the create and leaves nothing behind. */
void test_spec_files_rollback(void **state)
{
    char tag[17];
    sm_random_hex(tag, 16);
    sm_spec spec;
    ct_spec_init(&spec);
    sm_map_set(&spec.metadata, "contract-rollback", tag);
    sm_map_set(&spec.files, "/tmp/ok.txt", "fine");
    sm_map_set(&spec.files, "/etc/passwd/below-a-file", "x");
    sm_sandbox *s = sm_sandbox_new(ct_provider(), true);
    sm_error e;
    sm_error_clear(&e);
    assert_int_not_equal(sm_sandbox_start(s, &spec, &e), SM_OK);
    assert_int_equal(e.failure.kind, SM_FAIL_CREATE_FAILED);
    if (!strstr(e.msg, "/etc/passwd/below-a-file"))
        fail_msg("the error does not name the file: %s", e.msg);
    int left = ct_count_labelled("contract-rollback", tag);
    if (left >= 0)
        assert_int_equal(left, 0);
    /* the facade stays closed */
    sm_spec empty;
    ct_spec_init(&empty);
    assert_int_equal(sm_sandbox_start(s, &empty, &e), SM_ERR_CLOSED);
    sm_spec_free(&empty);
    sm_sandbox_free(s);
    sm_spec_free(&spec);
}

/* ---------------------------------------------------------------- transfer */

void test_upload_download(void **state)
{
    sm_sandbox *s = ct_start(NULL);
    /* every byte value, and more than one buffer's worth */
    size_t len = 300000;
    char *data = xmalloc(len);
    for (size_t i = 0; i < len; i++)
        data[i] = (char)((i * 7 + i / 256) & 0xff);
    char *local = sm_test_write_temp("");
    assert_int_equal(sm_write_file_atomic(local, data, len, 0644), 0);
    sm_error e;
    sm_error_clear(&e);
    if (sm_sandbox_upload(s, local, "/tmp/contract-up/deeper/data.bin", &e) != SM_OK)
        fail_msg("upload: %s", e.msg);
    ct_expect(s, "wc -c < /tmp/contract-up/deeper/data.bin", 0, "300000\n");
    char *back = xasprintf("%s.back", local);
    if (sm_sandbox_download(s, "/tmp/contract-up/deeper/data.bin", back, &e) != SM_OK)
        fail_msg("download: %s", e.msg);
    char *got = NULL;
    size_t glen = 0;
    assert_int_equal(sm_read_file(back, &got, &glen), 0);
    assert_int_equal(glen, len);
    assert_memory_equal(got, data, len);
    free(got);

    /* an upload replaces what is there; a download replaces the local file */
    char *small = sm_test_write_temp("second\n");
    assert_int_equal(sm_sandbox_upload(s, small, "/tmp/contract-up/deeper/data.bin", &e), SM_OK);
    ct_expect(s, "cat /tmp/contract-up/deeper/data.bin", 0, "second\n");
    assert_int_equal(sm_sandbox_download(s, "/tmp/contract-up/deeper/data.bin", back, &e), SM_OK);
    assert_int_equal(sm_read_file(back, &got, &glen), 0);
    assert_int_equal(glen, 7);
    assert_memory_equal(got, "second\n", 7);
    free(got);

    /* a file that is not there: an error naming it, and the local file stays as it was */
    sm_error_clear(&e);
    assert_int_not_equal(sm_sandbox_download(s, "/tmp/contract-no-such-file", back, &e), SM_OK);
    if (!strstr(e.msg, "contract-no-such-file"))
        fail_msg("the error does not name the file: %s", e.msg);
    assert_int_equal(sm_read_file(back, &got, &glen), 0);
    assert_int_equal(glen, 7);
    free(got);
    sm_error_clear(&e);
    assert_int_not_equal(sm_sandbox_upload(s, "/nonexistent/contract-local", "/tmp/x", &e), SM_OK);
    assert_true(e.msg[0] != '\0');

    unlink(local);
    unlink(back);
    unlink(small);
    free(local);
    free(back);
    free(small);
    free(data);
    ct_stop(s);
}

/* ---------------------------------------------------------------- status, close, TTL */

void test_status_and_close(void **state)
{
    sm_provider *p = ct_provider();
    sm_handle *h = ct_raw_create(p);
    sm_error e;
    sm_error_clear(&e);
    sm_sandbox_info info;
    assert_int_equal(p->ops->status(p, h, &info, &e), SM_OK);
    assert_int_equal(info.status, SM_STATUS_RUNNING);
    assert_string_equal(info.id, h->id);
    assert_string_equal(info.provider, ct_name);
    assert_non_null(sm_map_get(&info.labels, RUN_LABEL));
    assert_string_equal(sm_map_get(&info.labels, RUN_LABEL), ct_run_id);
    sm_sandbox_info_free(&info);

    assert_int_equal(p->ops->close(p, h, &e), SM_OK);
    assert_int_equal(p->ops->close(p, h, &e), SM_OK); /* twice: already gone = success */
    assert_int_equal(p->ops->status(p, h, &info, &e), SM_OK);
    assert_int_equal(info.status, SM_STATUS_STOPPED);
    assert_int_equal(info.failure.kind, SM_FAIL_NOT_FOUND); /* it is gone, and says so */
    sm_sandbox_info_free(&info);
    sm_handle_free(p, h);
    sm_provider_free(p);

    /* through the facade: stop twice, status stopped */
    sm_sandbox *s = ct_start(NULL);
    assert_int_equal(sm_sandbox_status(s, NULL, NULL), SM_STATUS_RUNNING);
    assert_int_equal(sm_sandbox_stop(s, &e), SM_OK);
    assert_int_equal(sm_sandbox_stop(s, &e), SM_OK);
    assert_int_equal(sm_sandbox_status(s, NULL, NULL), SM_STATUS_STOPPED);
    sm_sandbox_free(s);
}

/* Closing a sandbox another process already removed is a success too. */
void test_close_gone(void **state)
{
    ct_need(SM_CAP_CONNECT);
    sm_sandbox *s = ct_start(NULL);
    sm_sandbox *other = ct_connect_to(s);
    ct_stop(s);
    sm_error e;
    sm_error_clear(&e);
    if (sm_sandbox_stop(other, &e) != SM_OK)
        fail_msg("closing a removed sandbox: %s", e.msg);
    assert_int_equal(sm_sandbox_status(other, NULL, NULL), SM_STATUS_STOPPED);
    sm_sandbox_free(other);
}

void test_ttl(void **state)
{
    sm_spec spec;
    ct_spec_init(&spec);
    spec.ttl_s = 2;
    sm_sandbox *s = ct_start(&spec);
    sm_sandbox_info info;
    assert_int_equal(sm_sandbox_status(s, &info, NULL), SM_STATUS_RUNNING);
    assert_true(info.ttl_s == 2);
    sm_sandbox_info_free(&info);
    /* unknown is allowed while the provider removes it (a transient error) */
    sm_status st = SM_STATUS_RUNNING;
    double until = sm_now_mono() + 60;
    while (sm_now_mono() < until) {
        st = sm_sandbox_status(s, &info, NULL);
        if (st == SM_STATUS_STOPPED)
            break;
        sm_sandbox_info_free(&info);
        usleep(100000);
    }
    assert_int_equal(st, SM_STATUS_STOPPED);
    assert_int_equal(info.failure.kind, SM_FAIL_TTL_EXPIRED);
    sm_sandbox_info_free(&info);
    ct_stop(s); /* already ended = success */
    sm_spec_free(&spec);
}
