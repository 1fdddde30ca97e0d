/* The provider contract suite (DESIGN.md §7): every behaviour a provider promises through the
 * core facade, run against one real provider named on the command line:
 *
 *   contract_suite PROVIDER
 *
 * It never looks at the provider's name: what a provider needs to run here comes from the
 * environment (set by a runner script such as tests/contract/docker.sh), and what it claims
 * comes from its capability bits. A capability it does not claim is a cmocka skip that says so,
 * never a pass.
 *   SANDMAN_CONTRACT_CONFIG      the provider's config block (JSON; default {})
 *   SANDMAN_CONTRACT_NET_CONFIG  a config under which a sandbox's ports can be reached from
 *                                here (JSON; default SANDMAN_CONTRACT_CONFIG), for endpoints
 *   SANDMAN_CONTRACT_IMAGE       the image of every sandbox (default none)
 *   SANDMAN_CONTRACT_LABEL       "k=v" put on every sandbox (so a runner can clean up after it)
 *   SANDMAN_CONTRACT_FILTER      a cmocka pattern: only the matching tests
 * Sandboxes must have a POSIX shell with printf, cat, wc, sleep, stty and an httpd (BusyBox's
 * will do) on PATH. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <cjson/cJSON.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/http.h"
#include "core/json.h"
#include "core/pty.h"
#include "core/sandbox.h"
#include "core/util.h"
#include "providers/builtin.h"
#include "tests/testlib.h"

#define RUN_LABEL "sandman-contract-run"

static const char *g_name;
static cJSON *g_cfg, *g_netcfg;
static const char *g_image;
static unsigned g_caps;
static char g_run[17];

/* ---------------------------------------------------------------- fixtures */

static cJSON *env_json(const char *var)
{
    const char *text = getenv(var);
    if (!text || !*text)
        return NULL;
    cJSON *j = cJSON_Parse(text);
    if (!cJSON_IsObject(j)) {
        fprintf(stderr, "contract_suite: %s is not a JSON object: %s\n", var, text);
        exit(2);
    }
    return j;
}

static sm_provider *provider_with(const cJSON *cfg)
{
    sm_provider *p = NULL;
    sm_error e;
    sm_error_clear(&e);
    if (sm_provider_new(g_name, cfg, &p, &e) != SM_OK)
        fail_msg("provider %s: %s", g_name, e.msg);
    return p;
}

static sm_provider *provider(void)
{
    return provider_with(g_cfg);
}

/* The spec every test starts from: the run's image and labels (this run's, and the runner's
 * SANDMAN_CONTRACT_LABEL). */
static void spec_init(sm_spec *spec)
{
    sm_spec_init(spec);
    if (g_image)
        spec->image = xstrdup(g_image);
    sm_map_set(&spec->metadata, RUN_LABEL, g_run);
    const char *extra = getenv("SANDMAN_CONTRACT_LABEL");
    const char *eq = extra ? strchr(extra, '=') : NULL;
    if (eq) {
        char *k = xstrndup(extra, (size_t)(eq - extra));
        sm_map_set(&spec->metadata, k, eq + 1);
        free(k);
    }
}

/* A started sandbox on its own provider (spec NULL = the default spec). */
static sm_sandbox *start_with(sm_provider *p, const sm_spec *spec_in)
{
    sm_spec spec;
    spec_init(&spec);
    sm_sandbox *s = sm_sandbox_new(p, true);
    sm_error e;
    sm_error_clear(&e);
    if (sm_sandbox_start(s, spec_in ? spec_in : &spec, &e) != SM_OK)
        fail_msg("start: %s", e.msg);
    sm_spec_free(&spec);
    return s;
}

static sm_sandbox *start(const sm_spec *spec)
{
    return start_with(provider(), spec);
}

static void stop(sm_sandbox *s)
{
    sm_error e;
    sm_error_clear(&e);
    if (sm_sandbox_stop(s, &e) != SM_OK)
        fail_msg("stop: %s", e.msg);
    sm_sandbox_free(s);
}

/* A sandbox made through the provider itself, without the facade (default spec). */
static sm_handle *raw_create(sm_provider *p)
{
    sm_spec spec;
    spec_init(&spec);
    sm_handle *h = NULL;
    sm_error e;
    sm_error_clear(&e);
    if (p->ops->create(p, &spec, &h, &e) != SM_OK)
        fail_msg("create: %s", e.msg);
    sm_spec_free(&spec);
    return h;
}

/* A second facade on the same sandbox, rebuilt from its descriptor on a provider of its own. */
static sm_sandbox *connect_to(sm_sandbox *s)
{
    cJSON *d = sm_sandbox_serialize(s);
    sm_sandbox *o = sm_sandbox_new(provider(), true);
    sm_error e;
    sm_error_clear(&e);
    if (sm_sandbox_connect(o, d, &e) != SM_OK)
        fail_msg("connect: %s", e.msg);
    cJSON_Delete(d);
    return o;
}

typedef struct run_out {
    int rc;
    sm_exec_result r;
    sm_error e;
} run_out;

static void run_req(sm_sandbox *s, const sm_exec_request *rq, run_out *o)
{
    sm_error_clear(&o->e);
    o->rc = sm_sandbox_exec(s, rq, &o->r, &o->e);
}

static void run(sm_sandbox *s, const char *cmd, run_out *o)
{
    sm_exec_request rq;
    sm_exec_request_init(&rq);
    rq.cmd = cmd;
    run_req(s, &rq, o);
}

/* Runs cmd and checks that it ran with code and stdout out (NULL: any). */
static void expect(sm_sandbox *s, const char *cmd, int code, const char *out)
{
    run_out o;
    run(s, cmd, &o);
    if (o.rc != SM_OK)
        fail_msg("'%s': %s", cmd, o.e.msg);
    if (o.r.return_code != code || (out && strcmp(o.r.out ? o.r.out : "", out)))
        fail_msg("'%s': code %d out '%s' err '%s'; wanted %d '%s'", cmd, o.r.return_code,
                 o.r.out ? o.r.out : "", o.r.err ? o.r.err : "", code, out ? out : "*");
    sm_exec_result_free(&o.r);
}

static void need(unsigned cap)
{
    if (g_caps & cap)
        return;
    char name[64];
    sm_caps_names(cap, name, sizeof name);
    print_message("SKIPPED: provider %s does not claim %s\n", g_name, name);
    skip();
}

/* Sandboxes of this run carrying label k=v (ended ones too); -1 without list. */
static int count_labelled(const char *k, const char *v)
{
    if (!(g_caps & SM_CAP_LIST))
        return -1;
    sm_provider *p = provider();
    sm_map labels = {0};
    sm_map_set(&labels, k, v);
    sm_map_set(&labels, RUN_LABEL, g_run);
    int n = sm_test_count_labelled(p, &labels);
    sm_map_free(&labels);
    sm_provider_free(p);
    return n;
}

/* ---------------------------------------------------------------- exec */

static void test_exec_codes_are_data(void **state)
{
    sm_sandbox *s = start(NULL);
    expect(s, "true", 0, "");
    expect(s, "echo out; exit 7", 7, "out\n");
    expect(s, "exit 300", 300 & 0xff, "");
    expect(s, "nosuchcommand-contract", 127, "");
    run_out o;
    run(s, "echo to-out; printf 'to-err' >&2; kill -9 $$", &o);
    assert_int_equal(o.rc, SM_OK);
    assert_int_equal(o.r.return_code, 137);
    assert_null(o.r.error_type); /* the command ran: a result, not a runtime failure */
    assert_int_equal(o.r.failure.kind, SM_FAIL_SIGNALED);
    assert_string_equal(o.r.out, "to-out\n");
    assert_string_equal(o.r.err, "to-err");
    sm_exec_result_free(&o.r);
    run(s, "exit 3", &o);
    assert_int_equal(o.r.failure.kind, SM_FAIL_EXIT_NONZERO);
    assert_int_equal(o.r.failure.exit_code, 3);
    sm_exec_result_free(&o.r);
    /* binary output, exactly as written */
    run(s, "printf 'a\\000b\\377\\n'", &o);
    assert_int_equal(o.r.out_len, 5);
    assert_memory_equal(o.r.out, "a\0b\377\n", 5);
    sm_exec_result_free(&o.r);
    stop(s);
}

static void test_exec_request(void **state)
{
    sm_sandbox *s = start(NULL);
    sm_map env = {0};
    sm_map_set(&env, "CONTRACT_A", "one");
    sm_map_set(&env, "CONTRACT_B", "two words\nand a line");
    sm_exec_request rq;
    sm_exec_request_init(&rq);
    rq.cmd = "pwd; echo \"$CONTRACT_A\"; echo \"$CONTRACT_B\"; cat; echo stdin-closed";
    rq.cwd = "/tmp";
    rq.env = &env;
    run_out o;
    run_req(s, &rq, &o);
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
    run_req(s, &rq, &o);
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
    stop(s);
}

static void test_exec_timeout(void **state)
{
    sm_sandbox *s = start(NULL);
    sm_exec_request rq;
    sm_exec_request_init(&rq);
    rq.cmd = "echo started; sleep 60";
    rq.timeout_s = 1;
    double t0 = sm_now_mono();
    run_out o;
    run_req(s, &rq, &o);
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
    expect(s, "echo still-usable", 0, "still-usable\n");
    stop(s);
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
        run_out o;
        run(c->s, cmd, &o);
        if (o.r.return_code == i && o.r.out && !strcmp(o.r.out, want))
            c->ok++;
        else if (!c->why[0])
            snprintf(c->why, sizeof c->why, "rc %d out '%s' err '%s' (%s)", o.r.return_code,
                     o.r.out ? o.r.out : "", o.r.err ? o.r.err : "", o.e.msg);
        sm_exec_result_free(&o.r);
    }
    return NULL;
}

static void test_exec_concurrent(void **state)
{
    need(SM_CAP_CONNECT); /* one facade per thread, on one provider */
    sm_provider *p = provider();
    sm_sandbox *owner = start_with(p, NULL);
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
    stop(owner);
}

/* A sandbox that is gone: exec is a runtime failure (125 + error_type), not a code. */
static void test_exec_on_gone_sandbox(void **state)
{
    sm_sandbox *s = start(NULL);
    assert_int_equal(sm_sandbox_stop(s, NULL), SM_OK);
    run_out o;
    run(s, "true", &o);
    assert_int_not_equal(o.rc, SM_OK);
    assert_int_equal(o.r.return_code, 125);
    assert_non_null(o.r.error_type);
    assert_string_equal(o.r.error_type, "sandbox");
    sm_exec_result_free(&o.r);
    sm_sandbox_free(s);

    /* the same through the provider itself, on a handle whose sandbox was removed */
    sm_provider *p = provider();
    sm_handle *h = raw_create(p);
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

static void test_spec_files(void **state)
{
    sm_spec spec;
    spec_init(&spec);
    spec.workdir = xstrdup("/tmp/contract/work");
    sm_map_set(&spec.files, "/tmp/contract/a/b/hello.txt", "hello, sandbox\n");
    sm_map_set(&spec.files, "/tmp/contract/work/conf.ini", "[x]\ny=1\n");
    sm_sandbox *s = start(&spec);
    expect(s, "cat /tmp/contract/a/b/hello.txt conf.ini; pwd", 0,
           "hello, sandbox\n[x]\ny=1\n/tmp/contract/work\n");
    stop(s);
    sm_spec_free(&spec);
}

/* A file that cannot be written fails the create and leaves nothing behind. */
static void test_spec_files_rollback(void **state)
{
    char tag[17];
    sm_random_hex(tag, 16);
    sm_spec spec;
    spec_init(&spec);
    sm_map_set(&spec.metadata, "contract-rollback", tag);
    sm_map_set(&spec.files, "/tmp/ok.txt", "fine");
    sm_map_set(&spec.files, "/etc/passwd/below-a-file", "x");
    sm_sandbox *s = sm_sandbox_new(provider(), true);
    sm_error e;
    sm_error_clear(&e);
    assert_int_not_equal(sm_sandbox_start(s, &spec, &e), SM_OK);
    assert_int_equal(e.failure.kind, SM_FAIL_CREATE_FAILED);
    if (!strstr(e.msg, "/etc/passwd/below-a-file"))
        fail_msg("the error does not name the file: %s", e.msg);
    int left = count_labelled("contract-rollback", tag);
    if (left >= 0)
        assert_int_equal(left, 0);
    /* the facade stays closed */
    sm_spec empty;
    spec_init(&empty);
    assert_int_equal(sm_sandbox_start(s, &empty, &e), SM_ERR_CLOSED);
    sm_spec_free(&empty);
    sm_sandbox_free(s);
    sm_spec_free(&spec);
}

/* ---------------------------------------------------------------- transfer */

static void test_upload_download(void **state)
{
    sm_sandbox *s = start(NULL);
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
    expect(s, "wc -c < /tmp/contract-up/deeper/data.bin", 0, "300000\n");
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
    expect(s, "cat /tmp/contract-up/deeper/data.bin", 0, "second\n");
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
    stop(s);
}

/* ---------------------------------------------------------------- status, close, TTL */

static void test_status_and_close(void **state)
{
    sm_provider *p = provider();
    sm_handle *h = raw_create(p);
    sm_error e;
    sm_error_clear(&e);
    sm_sandbox_info info;
    assert_int_equal(p->ops->status(p, h, &info, &e), SM_OK);
    assert_int_equal(info.status, SM_STATUS_RUNNING);
    assert_string_equal(info.id, h->id);
    assert_string_equal(info.provider, g_name);
    assert_non_null(sm_map_get(&info.labels, RUN_LABEL));
    assert_string_equal(sm_map_get(&info.labels, RUN_LABEL), g_run);
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
    sm_sandbox *s = start(NULL);
    assert_int_equal(sm_sandbox_status(s, NULL, NULL), SM_STATUS_RUNNING);
    assert_int_equal(sm_sandbox_stop(s, &e), SM_OK);
    assert_int_equal(sm_sandbox_stop(s, &e), SM_OK);
    assert_int_equal(sm_sandbox_status(s, NULL, NULL), SM_STATUS_STOPPED);
    sm_sandbox_free(s);
}

/* Closing a sandbox another process already removed is a success too. */
static void test_close_gone(void **state)
{
    need(SM_CAP_CONNECT);
    sm_sandbox *s = start(NULL);
    sm_sandbox *other = connect_to(s);
    stop(s);
    sm_error e;
    sm_error_clear(&e);
    if (sm_sandbox_stop(other, &e) != SM_OK)
        fail_msg("closing a removed sandbox: %s", e.msg);
    assert_int_equal(sm_sandbox_status(other, NULL, NULL), SM_STATUS_STOPPED);
    sm_sandbox_free(other);
}

static void test_ttl(void **state)
{
    sm_spec spec;
    spec_init(&spec);
    spec.ttl_s = 2;
    sm_sandbox *s = start(&spec);
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
    stop(s); /* already ended = success */
    sm_spec_free(&spec);
}

/* ---------------------------------------------------------------- list, stats */

static void test_list_by_label(void **state)
{
    need(SM_CAP_LIST);
    char a[17], b[17];
    sm_random_hex(a, 16);
    sm_random_hex(b, 16);
    sm_spec sa, sb;
    spec_init(&sa);
    spec_init(&sb);
    sm_map_set(&sa.metadata, "contract-list", a);
    sm_map_set(&sb.metadata, "contract-list", b);
    sm_sandbox *x = start(&sa), *y = start(&sb);
    sm_provider *p = provider();
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
    stop(x);
    assert_int_equal(p->ops->list(p, &f, &list, &n, &e), SM_OK);
    for (size_t i = 0; i < n; i++)
        assert_int_not_equal(list[i].status, SM_STATUS_RUNNING);
    sm_sandbox_info_list_free(list, n);
    stop(y);
    sm_map_free(&labels);
    sm_provider_free(p);
    sm_spec_free(&sa);
    sm_spec_free(&sb);
}

static void test_stats(void **state)
{
    need(SM_CAP_STATS);
    sm_sandbox *s = start(NULL);
    sm_sample a, b;
    sm_sample_init(&a);
    sm_sample_init(&b);
    sm_error e;
    sm_error_clear(&e);
    if (sm_sandbox_stats(s, &a, &e) != SM_OK)
        fail_msg("stats: %s", e.msg);
    assert_true(a.ts > 0);
    assert_true(a.wall > 0);
    expect(s, "i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done", 0, "");
    assert_int_equal(sm_sandbox_stats(s, &b, &e), SM_OK);
    assert_true(b.ts >= a.ts);
    if (a.cpu_time_s >= 0 && b.cpu_time_s >= 0)
        assert_true(b.cpu_time_s >= a.cpu_time_s);
    assert_true(b.cpu_time_s >= 0 || b.mem_usage >= 0 || b.pids >= 0); /* it measured something */
    stop(s);
}

/* ---------------------------------------------------------------- PTY */

/* Output of a session read so far; read_until consumes it up to and including a match, so
 * output that arrives together with an earlier match is not lost. */
static char g_pbuf[65536];
static size_t g_plen;

static void reader_reset(void)
{
    g_plen = 0;
    g_pbuf[0] = '\0';
}

static void read_until(sm_pty *t, const char *want)
{
    double end = sm_now_mono() + 20;
    for (;;) {
        g_pbuf[g_plen] = '\0';
        char *hit = strstr(g_pbuf, want);
        if (hit) {
            size_t used = (size_t)(hit - g_pbuf) + strlen(want);
            memmove(g_pbuf, g_pbuf + used, g_plen - used);
            g_plen -= used;
            g_pbuf[g_plen] = '\0';
            return;
        }
        if (g_plen > sizeof g_pbuf - 4096) { /* keep the tail */
            memmove(g_pbuf, g_pbuf + g_plen - 1024, 1024);
            g_plen = 1024;
        }
        size_t got;
        sm_error e;
        sm_error_clear(&e);
        int rc = sm_pty_read(t, g_pbuf + g_plen, sizeof g_pbuf - g_plen - 1, 0.5, &got, &e);
        if (rc == SM_OK && got == 0)
            fail_msg("EOF before '%s' (got '%s')", want, g_pbuf);
        if (rc == SM_OK)
            g_plen += got;
        else if (rc != SM_ERR_TIMEOUT)
            fail_msg("read: %s", e.msg);
        if (sm_now_mono() > end)
            fail_msg("'%s' never appeared; got '%s'", want, g_pbuf);
    }
}

/* Waits for the session's process to end with want, then closes the session. */
static void expect_exit(sm_pty *t, int want)
{
    int code = -1;
    sm_error e;
    sm_error_clear(&e);
    if (sm_pty_wait_exit(t, 20, &code, &e) != SM_OK)
        fail_msg("wait_exit: %s", e.msg);
    assert_int_equal(code, want);
    sm_pty_close(t);
}

static void type(sm_pty *t, const char *text)
{
    sm_error e;
    sm_error_clear(&e);
    if (sm_pty_write(t, text, strlen(text), &e) != SM_OK)
        fail_msg("write: %s", e.msg);
}

/* A sandbox for a PTY test that needs cap, and a default session spec. */
static sm_sandbox *pty_start(unsigned cap, sm_pty_spec *ps)
{
    need(cap);
    sm_pty_spec_init(ps);
    return start(NULL);
}

/* The wanted text is computed by the shell ($((...))), so the terminal's echo of the typed
 * line never matches it. */
static void test_pty_session(void **state)
{
    sm_pty_spec ps;
    sm_sandbox *s = pty_start(SM_CAP_PTY, &ps);
    ps.rows = 20;
    ps.cols = 70;
    sm_pty *t = NULL;
    sm_error e;
    sm_error_clear(&e);
    if (sm_sandbox_pty_open(s, &ps, &t, &e) != SM_OK)
        fail_msg("pty_open: %s", e.msg);
    reader_reset();
    assert_true(strlen(t->session_id) > 0);
    assert_int_equal(t->mode, SM_PTY_MODE_PTY);
    type(t, "stty size; echo $((6*7))ok; tty; echo TERM=$TERM\n");
    read_until(t, "20 70");
    read_until(t, "42ok");
    read_until(t, "/dev/pts/");
    read_until(t, "TERM=xterm-256color");

    assert_int_equal(sm_pty_resize(t, 33, 101, &e), SM_OK);
    /* a resize may be applied asynchronously: wait for it inside */
    type(t, "for i in 1 2 3 4 5 6 7 8 9 10; do [ \"$(stty size)\" = '33 101' ] && break; "
            "sleep 0.2; done; echo size=$(stty size)\n");
    read_until(t, "size=33 101");

    /* the dashboard's way: poll the descriptor, then read with timeout 0 until TIMEOUT */
    int fd = sm_pty_fd(t);
    assert_true(fd >= 0);
    type(t, "echo polled-$((2+3))\n");
    double end = sm_now_mono() + 20;
    while (!strstr(g_pbuf, "polled-5") && sm_now_mono() < end) {
        struct pollfd pf = {.fd = fd, .events = POLLIN};
        if (poll(&pf, 1, 1000) != 1)
            continue;
        for (;;) {
            size_t got = 0;
            int rc = sm_pty_read(t, g_pbuf + g_plen, sizeof g_pbuf - g_plen - 1, 0, &got, &e);
            if (rc == SM_ERR_TIMEOUT)
                break;
            assert_int_equal(rc, SM_OK);
            assert_true(got > 0);
            g_pbuf[g_plen += got] = '\0';
        }
    }
    read_until(t, "polled-5");
    assert_true(sm_pty_offset(t) > 0);

    /* the marker protocol over the live shell */
    sm_exec_result r;
    assert_int_equal(sm_pty_exec_marker(t, "echo marker-out; (exit 6)", 20, &r, &e), SM_OK);
    assert_int_equal(r.return_code, 6);
    assert_non_null(strstr(r.out, "marker-out"));
    sm_exec_result_free(&r);
    reader_reset();

    /* ^C reaches the foreground job through the terminal; the shell survives */
    type(t, "sh -c 'echo $((1+2))zz; exec sleep 30'\n");
    read_until(t, "3zz");
    type(t, "\003");
    type(t, "echo after-$((1+1))\n");
    read_until(t, "after-2");
    assert_int_equal(sm_pty_signal(t, "SIGSTOPX", &e), SM_ERR_INVALID);

    type(t, "exit 5\n");
    int code = -1;
    assert_int_equal(sm_pty_wait_exit(t, 20, &code, &e), SM_OK);
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
    reader_reset();
    read_until(t, "done");
    expect_exit(t, 9);

    /* SIGTERM to the session's processes */
    ps.command = "echo $((3+4))go; exec sleep 60";
    assert_int_equal(sm_sandbox_pty_open(s, &ps, &t, &e), SM_OK);
    reader_reset();
    read_until(t, "7go");
    assert_int_equal(sm_pty_signal(t, "SIGTERM", &e), SM_OK);
    expect_exit(t, 128 + 15);
    stop(s);
}

/* Pipe mode is not a capability bit: a provider without it says so (unsupported). */
static void test_pty_pipe_mode(void **state)
{
    sm_pty_spec ps;
    sm_sandbox *s = pty_start(SM_CAP_PTY, &ps);
    ps.command = "echo to-out; echo to-err >&2; exit 4";
    ps.pty = false;
    sm_pty *t = NULL;
    sm_error e;
    sm_error_clear(&e);
    int rc = sm_sandbox_pty_open(s, &ps, &t, &e);
    if (rc == SM_ERR_UNSUPPORTED) {
        print_message("SKIPPED: pipe mode: %s\n", e.msg);
        stop(s);
        skip();
    }
    if (rc != SM_OK)
        fail_msg("pty_open (pipe mode): %s", e.msg);
    assert_int_equal(t->mode, SM_PTY_MODE_PIPE);
    reader_reset();
    read_until(t, "to-out");
    char eb[256] = "";
    size_t elen = 0;
    double end = sm_now_mono() + 20;
    while (!strstr(eb, "to-err") && sm_now_mono() < end) {
        size_t got = 0;
        rc = sm_pty_read_stderr(t, eb + elen, sizeof eb - elen - 1, 0.5, &got, &e);
        if (rc == SM_OK && got == 0)
            break;
        if (rc == SM_OK)
            eb[elen += got] = '\0';
    }
    assert_non_null(strstr(eb, "to-err"));
    expect_exit(t, 4);
    stop(s);
}

/* A kept session outlives its client: listed, re-attached with its output replayed. */
static void test_pty_attach(void **state)
{
    sm_pty_spec ps;
    sm_sandbox *s = pty_start(SM_CAP_PTY_ATTACH, &ps);
    ps.keep = true;
    sm_pty *t = NULL;
    sm_error e;
    sm_error_clear(&e);
    if (sm_sandbox_pty_open(s, &ps, &t, &e) != SM_OK)
        fail_msg("pty_open: %s", e.msg);
    char id[64];
    snprintf(id, sizeof id, "%s", t->session_id);
    reader_reset();
    type(t, "echo kept-$((20+1))\n");
    read_until(t, "kept-21");
    assert_true(sm_pty_can_detach(t));
    sm_pty_detach(t);

    sm_pty_session_info *list = NULL;
    size_t n = 0;
    assert_int_equal(sm_sandbox_pty_sessions(s, &list, &n, &e), SM_OK);
    bool found = false;
    for (size_t i = 0; i < n; i++)
        found |= !strcmp(list[i].id, id) && list[i].running;
    free(list);
    assert_true(found);

    if (sm_sandbox_pty_attach(s, id, true, 0, &t, &e) != SM_OK)
        fail_msg("attach: %s", e.msg);
    reader_reset();
    read_until(t, "kept-21"); /* replayed from offset 0 */
    type(t, "exit 3\n");
    expect_exit(t, 3);
    stop(s);
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

static void test_endpoint(void **state)
{
    need(SM_CAP_ENDPOINT);
    int port = free_port();
    sm_spec spec;
    spec_init(&spec);
    char ports[16];
    snprintf(ports, sizeof ports, "%d", port);
    assert_int_equal(sm_spec_add_port(&spec, ports, NULL), SM_OK);
    sm_sandbox *s = start_with(provider_with(g_netcfg ? g_netcfg : g_cfg), &spec);
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
    expect(s, cmd, 0, NULL);
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
    if (g_caps & SM_CAP_CONNECT) {
        cJSON *d = sm_sandbox_serialize(s);
        sm_sandbox *other = sm_sandbox_new(provider_with(g_netcfg ? g_netcfg : g_cfg), true);
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
    stop(s);
    sm_spec_free(&spec);
}

/* ---------------------------------------------------------------- serialize/connect */

static void test_serialize_connect(void **state)
{
    need(SM_CAP_CONNECT);
    sm_spec spec;
    spec_init(&spec);
    spec.workdir = xstrdup("/tmp/proj");
    sm_sandbox *s = start(&spec);
    cJSON *desc = sm_sandbox_serialize(s);
    assert_non_null(desc);
    char *text = sm_json_print(desc);
    cJSON_Delete(desc);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        /* a separate process with its own provider, given only the descriptor's text */
        sm_provider *p = NULL;
        if (sm_provider_new(g_name, g_cfg, &p, NULL) != SM_OK)
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
    sm_sandbox *bad = sm_sandbox_new(provider(), true);
    cJSON *empty = cJSON_CreateObject();
    sm_error e;
    sm_error_clear(&e);
    assert_int_not_equal(sm_sandbox_connect(bad, empty, &e), SM_OK);
    assert_true(e.msg[0] != '\0');
    cJSON_Delete(empty);
    sm_sandbox_free(bad);
    stop(s);
    sm_spec_free(&spec);
}

/* ---------------------------------------------------------------- pause */

static void test_pause_resume(void **state)
{
    need(SM_CAP_PAUSE);
    sm_sandbox *s = start(NULL);
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
    expect(s, "echo resumed", 0, "resumed\n");
    sm_handle_free(p, h);
    stop(s);
}

/* ---------------------------------------------------------------- the run */

/* Removes whatever a failed test left (by this run's label). */
static int teardown(void **state)
{
    sm_provider *p = NULL;
    if ((g_caps & SM_CAP_LIST) && sm_provider_new(g_name, g_cfg, &p, NULL) == SM_OK) {
        sm_map labels = {0};
        sm_map_set(&labels, RUN_LABEL, g_run);
        sm_test_close_labelled(p, &labels);
        sm_map_free(&labels);
        sm_provider_free(p);
    }
    return sm_test_group_teardown(state);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: contract_suite PROVIDER (with SANDMAN_CONTRACT_* set as the "
                        "comment at the top of contract_suite.c says)\n");
        return 2;
    }
    g_name = argv[1];
    g_cfg = env_json("SANDMAN_CONTRACT_CONFIG");
    g_netcfg = env_json("SANDMAN_CONTRACT_NET_CONFIG");
    g_image = getenv("SANDMAN_CONTRACT_IMAGE");
    if (g_image && !*g_image)
        g_image = NULL;
    sm_random_hex(g_run, 16);
    sm_builtin_register_all();
    const sm_provider_ops *ops = sm_provider_lookup(g_name);
    if (!ops) {
        fprintf(stderr, "contract_suite: no provider named '%s'\n", g_name);
        return 2;
    }
    g_caps = ops->caps;
    char caps[256];
    sm_caps_names(g_caps, caps, sizeof caps);
    printf("provider %s claims: %s\n", g_name, caps[0] ? caps : "(nothing optional)");

    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exec_codes_are_data),
        cmocka_unit_test(test_exec_request),
        cmocka_unit_test(test_exec_timeout),
        cmocka_unit_test(test_exec_concurrent),
        cmocka_unit_test(test_exec_on_gone_sandbox),
        cmocka_unit_test(test_spec_files),
        cmocka_unit_test(test_spec_files_rollback),
        cmocka_unit_test(test_upload_download),
        cmocka_unit_test(test_status_and_close),
        cmocka_unit_test(test_close_gone),
        cmocka_unit_test(test_ttl),
        cmocka_unit_test(test_list_by_label),
        cmocka_unit_test(test_stats),
        cmocka_unit_test(test_pty_session),
        cmocka_unit_test(test_pty_pipe_mode),
        cmocka_unit_test(test_pty_attach),
        cmocka_unit_test(test_endpoint),
        cmocka_unit_test(test_serialize_connect),
        cmocka_unit_test(test_pause_resume),
    };
    if (getenv("SANDMAN_CONTRACT_FILTER"))
        cmocka_set_test_filter(getenv("SANDMAN_CONTRACT_FILTER"));
    int rc = cmocka_run_group_tests_name(g_name, tests, sm_test_group_setup, teardown);
    cJSON_Delete(g_cfg);
    cJSON_Delete(g_netcfg);
    return rc;
}
