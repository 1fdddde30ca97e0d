/* What only the docker provider does, against a real engine (a private podman service started
 * by docker_engine.bash, or SANDMAN_DOCKER_HOST): config errors, closing a running PTY session
 * ends its processes, a create whose reply is lost on the way back (a proxy in front of the
 * engine drops it) and whose container is still removed, the exec helper (docker_executor.c)
 * against plain execs of the same commands, OOM attribution, readiness without an exec.
 * Everything every provider promises is in the contract suite (tests/contract/docker.sh runs it
 * for docker). DOCKER_TEST_FILTER (a cmocka pattern) runs only the matching tests.
 * Without podman it fails, unless SANDMAN_SKIP_DOCKER=1 (exit 77 = skipped). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <cjson/cJSON.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/http.h"
#include "core/json.h"
#include "core/sandbox.h"
#include "core/util.h"
#include "tests/testlib.h"

static sm_test_engine E; /* the private engine */

/* A docker provider on host (NULL = the test engine); network none unless bridge. */
static sm_provider *provider(const char *host, bool bridge)
{
    cJSON *cfg = cJSON_CreateObject();
    cJSON_AddStringToObject(cfg, "host", host ? host : E.host);
    if (!bridge) {
        cJSON *cr = cJSON_AddObjectToObject(cfg, "create");
        cJSON_AddStringToObject(cr, "network", "none");
    }
    sm_provider *p = NULL;
    sm_error e;
    sm_error_clear(&e);
    if (sm_provider_new("docker", cfg, &p, &e) != SM_OK)
        fail_msg("provider: %s", e.msg);
    cJSON_Delete(cfg);
    sm_map_set(&p->default_metadata, "sandman-test-run", E.run);
    return p;
}

static void spec_init(sm_spec *spec)
{
    sm_spec_init(spec);
    spec->image = xstrdup(E.image);
}

static sm_sandbox *start(sm_provider *p, const sm_spec *spec_in)
{
    sm_spec spec;
    if (!spec_in)
        spec_init(&spec);
    sm_sandbox *s = sm_sandbox_new(p, false);
    sm_error e;
    sm_error_clear(&e);
    if (sm_sandbox_start(s, spec_in ? spec_in : &spec, &e) != SM_OK)
        fail_msg("start: %s", e.msg);
    if (!spec_in)
        sm_spec_free(&spec);
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

/* Containers of this run carrying label k=v, counted on the engine itself. */
static int count_labelled(const char *k, const char *v)
{
    sm_provider *p = provider(NULL, false);
    sm_map labels = {0};
    sm_map_set(&labels, k, v);
    int n = sm_test_count_labelled(p, &labels);
    sm_map_free(&labels);
    sm_provider_free(p);
    return n;
}

/* ---------------------------------------------------------------- PTY */

/* Waits until a process with exactly these arguments runs in the sandbox (ps -o args). */
static void wait_for_process(sm_sandbox *s, const char *args)
{
    char *cmd = xasprintf("ps -o args | grep -qx '%s'", args);
    int rc = 1;
    double until = sm_now_mono() + 20;
    while (rc != 0 && sm_now_mono() < until) {
        free(run(s, cmd, &rc));
        if (rc != 0)
            usleep(50000);
    }
    free(cmd);
    if (rc != 0)
        fail_msg("'%s' never ran", args);
}

/* Closing an owned session that still runs ends its processes (through the exec marker: the
 * Engine API cannot kill an exec). */
static void test_pty_close_ends_processes(void **state)
{
    sm_provider *p = provider(NULL, false);
    sm_sandbox *s = start(p, NULL);
    sm_pty_spec ps;
    sm_pty_spec_init(&ps);
    ps.command = "sleep 61";
    sm_pty *t = NULL;
    sm_error e;
    sm_error_clear(&e);
    assert_int_equal(sm_sandbox_pty_open(s, &ps, &t, &e), SM_OK);
    wait_for_process(s, "sleep 61");
    sm_pty_close(t);
    int rc;
    char *out = run(s, "ps -o args | grep -c '^sleep 61$'", &rc);
    assert_int_not_equal(rc, 0); /* grep -c found none */
    assert_string_equal(out, "0\n");
    free(out);
    sm_sandbox_stop(s, NULL);
    sm_sandbox_free(s);
    sm_provider_free(p);
}

/* ---------------------------------------------------------------- lost reply */

/* A unix-socket proxy in front of the engine that forwards everything but drops the engine's
 * answer to POST .../containers/create: it closes the client's connection when that answer
 * starts, as a reset or timeout on the way back would. */
typedef struct proxy {
    char path[300];
    char upstream[300];
    int lfd;
    pthread_t th;
    int dropped;
    int live; /* connection threads still running: they read px, which is on the test's stack */
    pthread_mutex_t mu;
    volatile int stop;
} proxy;

typedef struct pconn {
    proxy *px;
    int c;
} pconn;

static void *proxy_conn(void *arg)
{
    pconn *pc = arg;
    int u = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    snprintf(sa.sun_path, sizeof sa.sun_path, "%s", pc->px->upstream);
    if (connect(u, (struct sockaddr *)&sa, sizeof sa) < 0) {
        close(pc->c);
        close(u);
        pthread_mutex_lock(&pc->px->mu);
        pc->px->live--;
        pthread_mutex_unlock(&pc->px->mu);
        free(pc);
        return NULL;
    }
    bool drop = false;
    char buf[65536];
    for (;;) {
        struct pollfd pf[2] = {{.fd = pc->c, .events = POLLIN}, {.fd = u, .events = POLLIN}};
        if (poll(pf, 2, 200) < 0 && errno != EINTR)
            break;
        if (pc->px->stop)
            break;
        if (pf[0].revents & (POLLIN | POLLHUP)) {
            ssize_t n = read(pc->c, buf, sizeof buf);
            if (n <= 0)
                break;
            if (memmem(buf, (size_t)n, "/containers/create", 18) && !strncmp(buf, "POST ", 5))
                drop = true;
            if (write(u, buf, (size_t)n) != n)
                break;
        }
        if (pf[1].revents & (POLLIN | POLLHUP)) {
            ssize_t n = read(u, buf, sizeof buf);
            if (n <= 0)
                break;
            if (drop) {
                pthread_mutex_lock(&pc->px->mu);
                pc->px->dropped++;
                pthread_mutex_unlock(&pc->px->mu);
                break; /* the answer never reaches the client */
            }
            if (write(pc->c, buf, (size_t)n) != n)
                break;
        }
    }
    close(u);
    close(pc->c);
    pthread_mutex_lock(&pc->px->mu);
    pc->px->live--;
    pthread_mutex_unlock(&pc->px->mu);
    free(pc);
    return NULL;
}

static void *proxy_accept(void *arg)
{
    proxy *px = arg;
    while (!px->stop) {
        struct pollfd pf = {.fd = px->lfd, .events = POLLIN};
        if (poll(&pf, 1, 200) <= 0)
            continue;
        int c = accept4(px->lfd, NULL, NULL, SOCK_CLOEXEC);
        if (c < 0)
            continue;
        pconn *pc = xcalloc(1, sizeof *pc);
        pc->px = px;
        pc->c = c;
        pthread_t t;
        pthread_mutex_lock(&px->mu);
        px->live++;
        pthread_mutex_unlock(&px->mu);
        if (pthread_create(&t, NULL, proxy_conn, pc) == 0) {
            pthread_detach(t);
        } else {
            pthread_mutex_lock(&px->mu);
            px->live--;
            pthread_mutex_unlock(&px->mu);
            close(c);
            free(pc);
        }
    }
    return NULL;
}

static void test_lost_create_reply(void **state)
{
    if (!sm_str_has_prefix(E.host, "unix://"))
        skip(); /* the proxy speaks unix sockets only */
    proxy px = {.lfd = -1};
    pthread_mutex_init(&px.mu, NULL);
    snprintf(px.upstream, sizeof px.upstream, "%s", E.host + 7);
    snprintf(px.path, sizeof px.path, "%s/proxy.sock", E.dir);
    px.lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    snprintf(sa.sun_path, sizeof sa.sun_path, "%s", px.path);
    assert_int_equal(bind(px.lfd, (struct sockaddr *)&sa, sizeof sa), 0);
    assert_int_equal(listen(px.lfd, 16), 0);
    assert_int_equal(pthread_create(&px.th, NULL, proxy_accept, &px), 0);

    char tag[17];
    sm_random_hex(tag, 16);
    char *host = xasprintf("unix://%s", px.path);
    sm_provider *p = provider(host, false);
    sm_sandbox *s = sm_sandbox_new(p, true);
    sm_spec spec;
    spec_init(&spec);
    sm_map_set(&spec.metadata, "lost-reply-test", tag);
    sm_error e;
    sm_error_clear(&e);
    int rc = sm_sandbox_start(s, &spec, &e);
    assert_int_not_equal(rc, SM_OK);
    px.stop = 1;
    pthread_join(px.th, NULL);
    for (;;) { /* each connection thread sees stop within its 200 ms poll */
        pthread_mutex_lock(&px.mu);
        int live = px.live;
        pthread_mutex_unlock(&px.mu);
        if (!live)
            break;
        usleep(10000);
    }
    close(px.lfd);
    unlink(px.path);
    print_message("create with a lost reply: %s\n", e.msg);
    assert_true(px.dropped >= 1); /* the proxy really dropped an answer */
    /* The error says what happened and that the attempt's container was removed. */
    assert_int_equal(e.failure.kind, SM_FAIL_PROVIDER_UNREACHABLE);
    if (!strstr(e.msg, "removed 1 container"))
        fail_msg("unexpected error: %s", e.msg);
    /* and the engine really has no container of this attempt */
    assert_int_equal(count_labelled("lost-reply-test", tag), 0);
    sm_sandbox_free(s);
    sm_spec_free(&spec);
    free(host);
}

/* ---------------------------------------------------------------- config */

static void test_config_errors(void **state)
{
    sm_provider *p = NULL;
    sm_error e;
    sm_error_clear(&e);
    cJSON *cfg = cJSON_Parse("{\"create\": {\"bogus\": 1}}");
    assert_int_equal(sm_provider_new("docker", cfg, &p, &e), SM_ERR_CONFIG);
    assert_non_null(strstr(e.msg, "bogus"));
    assert_non_null(strstr(e.msg, "keepalive_shell"));
    cJSON_Delete(cfg);
    cfg = cJSON_Parse("{\"hostname\": \"x\"}");
    assert_int_equal(sm_provider_new("docker", cfg, &p, &e), SM_ERR_CONFIG);
    assert_non_null(strstr(e.msg, "hostname"));
    assert_non_null(strstr(e.msg, "api_version"));
    cJSON_Delete(cfg);
    cfg = cJSON_Parse("{\"host\": \"ssh://me@box\"}");
    assert_int_equal(sm_provider_new("docker", cfg, &p, &e), SM_ERR_CONFIG);
    assert_non_null(strstr(e.msg, "ssh://me@box"));
    cJSON_Delete(cfg);
    cfg = cJSON_Parse("{\"probe\": {\"stable_count\": 0}}");
    assert_int_equal(sm_provider_new("docker", cfg, &p, &e), SM_ERR_CONFIG);
    cJSON_Delete(cfg);

    /* an engine that is not there: a clear create failure naming it */
    char *host = xasprintf("unix://%s/nothing-here.sock", E.dir);
    p = provider(host, false);
    sm_spec spec;
    spec_init(&spec);
    sm_handle *h = NULL;
    assert_int_not_equal(p->ops->create(p, &spec, &h, &e), SM_OK);
    assert_int_equal(e.failure.kind, SM_FAIL_PROVIDER_UNREACHABLE);
    assert_non_null(strstr(e.msg, "nothing-here.sock"));
    sm_spec_free(&spec);
    sm_provider_free(p);
    free(host);
}

/* ---------------------------------------------------------------- the exec helper */

/* One Engine API call through docker_engine.bash (unix socket or TCP+TLS); its body. */
static char *engine_api(const char *method, const char *path)
{
    char *cmd = xasprintf("bash -c '. \"%s\"; DOCKER_TEST_HOST=\"%s\"; docker_engine_api %s %s'",
                          E.script, E.host, method, path);
    FILE *f = popen(cmd, "r");
    free(cmd);
    assert_non_null(f);
    sm_strbuf b = {0};
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        sm_strbuf_append(&b, buf, n);
    pclose(f);
    return sm_strbuf_take(&b);
}

/* A facade bound to a running sandbox by id (no spec: the container's own workdir). */
static sm_sandbox *bind_to(sm_provider *p, const char *id)
{
    sm_sandbox *s = sm_sandbox_new(p, false);
    cJSON *d = cJSON_CreateObject();
    cJSON_AddStringToObject(d, "sandbox_id", id);
    sm_error e;
    sm_error_clear(&e);
    if (sm_sandbox_connect(s, d, &e) != SM_OK)
        fail_msg("connect: %s", e.msg);
    cJSON_Delete(d);
    return s;
}

typedef struct xreq {
    const char *cmd, *cwd, *user;
    const sm_map *env;
    double timeout_s;
} xreq;

static int xrun(sm_sandbox *s, const xreq *q, sm_exec_result *r, sm_error *e)
{
    sm_exec_request rq;
    sm_exec_request_init(&rq);
    rq.cmd = q->cmd;
    rq.cwd = q->cwd;
    rq.user = q->user;
    rq.env = q->env;
    rq.timeout_s = q->timeout_s;
    sm_error_clear(e);
    return sm_sandbox_exec(s, &rq, r, e);
}

/* The same command on a fresh handle (a plain exec: a handle's first command never uses the
 * helper) and on the warm handle (the helper): everything observable must match. */
static void same_both_ways_(sm_provider *p, sm_sandbox *warm, const xreq *q, bool engine_error)
{
    sm_sandbox *fresh = bind_to(p, sm_sandbox_id(warm));
    sm_exec_result a, b;
    sm_error ea, eb;
    int rca = xrun(fresh, q, &a, &ea);
    int rcb = xrun(warm, q, &b, &eb);
    if (rca != rcb || a.return_code != b.return_code || a.out_len != b.out_len ||
        (a.out_len && memcmp(a.out, b.out, a.out_len)) || a.failure.kind != b.failure.kind ||
        (!engine_error &&
         (a.err_len != b.err_len || (a.err_len && memcmp(a.err, b.err, a.err_len)))))
        fail_msg("'%s' differs:\nplain exec: rc %d code %d out '%s' err '%s'\nhelper:     rc %d "
                 "code %d out '%s' err '%s'",
                 q->cmd, rca, a.return_code, a.out ? a.out : "", a.err ? a.err : "", rcb,
                 b.return_code, b.out ? b.out : "", b.err ? b.err : "");
    sm_exec_result_free(&a);
    sm_exec_result_free(&b);
    sm_sandbox_free(fresh);
}

/* engine_error: stderr is the engine's own message, whose wording varies between runs */
static void same_both_ways(sm_provider *p, sm_sandbox *warm, const xreq *q)
{
    same_both_ways_(p, warm, q, false);
}

static void expect_run(sm_sandbox *s, const xreq *q, int code, const char *out, const char *err)
{
    sm_exec_result r;
    sm_error e;
    if (xrun(s, q, &r, &e) != SM_OK)
        fail_msg("'%s': %s", q->cmd, e.msg);
    if (r.return_code != code || (out && strcmp(r.out ? r.out : "", out)) ||
        (err && strcmp(r.err ? r.err : "", err)))
        fail_msg("'%s': code %d out '%s' err '%s'; wanted %d '%s' '%s'", q->cmd, r.return_code,
                 r.out ? r.out : "", r.err ? r.err : "", code, out ? out : "*", err ? err : "*");
    sm_exec_result_free(&r);
}

/* Whether the warm handle's commands run under the helper (their parent is it). */
static void expect_helper(sm_sandbox *s)
{
    xreq q = {.cmd = "grep -q sandman-exec /proc/$PPID/cmdline && echo helper"};
    expect_run(s, &q, 0, "helper\n", "");
}

static void test_exec_helper(void **state)
{
    sm_provider *p = provider(NULL, false);
    sm_sandbox *owner = start(p, NULL);
    sm_sandbox *warm = bind_to(p, sm_sandbox_id(owner));
    xreq q = {.cmd = "true"};
    expect_run(warm, &q, 0, "", ""); /* its first command: a plain exec */
    expect_helper(warm);

    /* what the command sees and returns is what a plain exec gives it */
    const char *cmds[] = {
        "echo out; echo err >&2; exit 7",
        "printf abc; printf def >&2",
        "printf '\\000\\001\\377\\n\\000'; printf '\\377' >&2",
        "tr '\\0' '\\n' </proc/$$/environ | grep -v ^SANDMAN_EXEC_ID= | sort; echo --; "
        "env | grep -v ^SANDMAN_EXEC_ID= | sort",
        "pwd; umask; id; ulimit -n; ulimit -u; grep -E '^Sig(Ign|Blk|Cgt)' /proc/$$/status; "
        "ls /proc/$$/fd; set -- $(cut -d' ' -f1,5,6 /proc/$$/stat); "
        "[ $1 = $2 ] && [ $1 = $3 ] && echo own session; echo \"$SHLVL\" \"${OLDPWD-unset}\"",
        "grep -E '^(Cap|NoNewPrivs|Seccomp|Groups)' /proc/$$/status; cat /proc/$$/cgroup "
        "/proc/$$/oom_score_adj; ulimit -a",
        "kill -TERM $$",
        "kill -9 $$",
        "sleep 5 & kill 0",
        "cat; echo stdin-closed",
        "nosuchcommand",
        "exit 300",
    };
    for (size_t i = 0; i < SM_ARRAY_LEN(cmds); i++) {
        q = (xreq){.cmd = cmds[i]};
        same_both_ways(p, warm, &q);
    }
    sm_map env = {0};
    sm_map_set(&env, "A", "1");
    sm_map_set(&env, "B", "two\nlines 'quoted' $(not run)");
    sm_map_set(&env, "SHLVL", "5");
    sm_map_set(&env, "PATH", "/nowhere");
    const char *envcmd = "/bin/pwd; /usr/bin/env | /bin/grep -v ^SANDMAN_EXEC_ID= | /bin/sort; "
                         "echo \"$SHLVL\" \"${OLDPWD-unset}\" \"$B\"";
    q = (xreq){.cmd = envcmd, .cwd = "/tmp", .env = &env};
    same_both_ways(p, warm, &q);
    q = (xreq){.cmd = envcmd, .cwd = "/etc/../tmp", .env = &env};
    same_both_ways(p, warm, &q);
    q = (xreq){.cmd = "pwd", .cwd = "/no/such/dir"}; /* declined: the engine's own answer */
    same_both_ways_(p, warm, &q, true);
    q = (xreq){.cmd = "pwd", .cwd = "/etc/passwd"};
    same_both_ways_(p, warm, &q, true);
    q = (xreq){.cmd = "pwd", .cwd = "tmp"};
    same_both_ways_(p, warm, &q, true);
    sm_map odd = {0};
    sm_map_set(&odd, "-x", "1");
    sm_map_set(&odd, "A.B", "2");
    q = (xreq){.cmd = "env | grep -c -e '^-x=1$' -e '^A.B=2$'", .env = &odd};
    same_both_ways(p, warm, &q);
    q = (xreq){.cmd = "id -u", .user = "nobody"}; /* another user: a plain exec */
    same_both_ways(p, warm, &q);
    expect_helper(warm);

    /* output that looks like the helper's markers, binary output, big outputs */
    q = (xreq){.cmd = "printf 'SANDMAN-X-END-'; printf 'SANDMAN-X-END-00 0\\n'; "
                      "printf 'SANDMAN-X-GOT-x\\nSANDMAN-X' >&2; printf SANDMAN-X-E"};
    expect_run(warm, &q, 0, "SANDMAN-X-END-SANDMAN-X-END-00 0\nSANDMAN-X-E",
               "SANDMAN-X-GOT-x\nSANDMAN-X");
    q = (xreq){.cmd = "printf 'no newline'"};
    expect_run(warm, &q, 0, "no newline", "");
    q = (xreq){.cmd = "head -c 300000 /dev/urandom > /tmp/rnd; cat /tmp/rnd"};
    sm_exec_result a, b;
    sm_error e;
    assert_int_equal(xrun(warm, &q, &a, &e), SM_OK);
    sm_sandbox *fresh = bind_to(p, sm_sandbox_id(owner));
    q = (xreq){.cmd = "cat /tmp/rnd"};
    assert_int_equal(xrun(fresh, &q, &b, &e), SM_OK);
    assert_int_equal(a.out_len, 300000);
    assert_int_equal(b.out_len, 300000);
    assert_memory_equal(a.out, b.out, a.out_len);
    sm_exec_result_free(&a);
    sm_exec_result_free(&b);
    q = (xreq){.cmd =
                   "head -c 300000 /dev/zero | tr '\\0' x; head -c 200000 /dev/zero | tr '\\0' y "
                   ">&2; exit 3"};
    assert_int_equal(xrun(warm, &q, &a, &e), SM_OK);
    assert_int_equal(a.return_code, 3);
    assert_int_equal(a.out_len, 300000);
    assert_int_equal(a.err_len, 200000);
    sm_exec_result_free(&a);

    /* background processes: the command ends with its main process; later output of what it
     * left behind is dropped and the writer gets SIGPIPE (as when an exec's pipes close), and
     * it never shows up in a later command */
    double t0 = sm_now_mono();
    q = (xreq){.cmd = "sleep 30 & echo started"};
    expect_run(warm, &q, 0, "started\n", "");
    assert_true(sm_now_mono() - t0 < 5);
    q = (xreq){.cmd = "(sleep 1; echo late; echo late >&2; touch /tmp/after-h) & echo early"};
    expect_run(warm, &q, 0, "early\n", "");
    q = (xreq){.cmd = "(sleep 1; echo late; echo late >&2; touch /tmp/after-p) & echo early"};
    expect_run(fresh, &q, 0, "early\n", ""); /* the reference: a plain exec */
    usleep(2000 * 1000);
    q = (xreq){.cmd = "ls /tmp/after-p /tmp/after-h 2>&1 | grep -c 'No such'"};
    expect_run(warm, &q, 0, "2\n", "");
    q = (xreq){.cmd = "echo before; exec >/dev/null 2>&1; sleep 2; exit 4"};
    expect_run(warm, &q, 4, "before\n", "");
    expect_helper(warm);

    /* a timeout kills the command and everything it started */
    q = (xreq){.cmd = "echo started; sleep 41 & sleep 42", .timeout_s = 1};
    t0 = sm_now_mono();
    assert_int_equal(xrun(warm, &q, &a, &e), SM_OK);
    assert_int_equal(a.return_code, 125);
    assert_string_equal(a.error_type, "timeout");
    assert_int_equal(a.failure.kind, SM_FAIL_EXEC_TIMEOUT);
    assert_non_null(strstr(a.out, "started"));
    assert_true(sm_now_mono() - t0 < 3.5);
    sm_exec_result_free(&a);
    q = (xreq){.cmd = "ps -o args | grep -c '^sleep 4[12]$'"};
    expect_run(warm, &q, 1, "0\n", "");
    expect_helper(warm); /* a new helper */
    /* also what dropped the exec's marker with env -i: the command's session goes */
    q = (xreq){.cmd = "env -i sleep 43 & env -i sleep 44", .timeout_s = 1};
    assert_int_equal(xrun(warm, &q, &a, &e), SM_OK);
    assert_int_equal(a.return_code, 125);
    sm_exec_result_free(&a);
    q = (xreq){.cmd = "ps -o args | grep -c '^sleep 4[34]$'"};
    expect_run(warm, &q, 1, "0\n", "");
    expect_helper(warm);

    /* a command that kills the helper: its status is lost, said so; the next one works */
    q = (xreq){.cmd = "kill -9 $PPID; sleep 1"};
    assert_int_not_equal(xrun(warm, &q, &a, &e), SM_OK);
    assert_non_null(strstr(e.msg, "exit status"));
    sm_exec_result_free(&a);
    q = (xreq){.cmd = "echo alive"};
    expect_run(warm, &q, 0, "alive\n", "");

    /* a paused container: the engine's answer, quickly; the withdrawn command never runs */
    expect_helper(warm);
    char *path = xasprintf("/containers/%s/pause", sm_sandbox_id(owner));
    free(engine_api("POST", path));
    free(path);
    q = (xreq){.cmd = "touch /tmp/ran-while-paused"};
    t0 = sm_now_mono();
    int rc = xrun(warm, &q, &a, &e);
    double took = sm_now_mono() - t0;
    sm_exec_result_free(&a);
    path = xasprintf("/containers/%s/unpause", sm_sandbox_id(owner));
    free(engine_api("POST", path));
    free(path);
    assert_int_not_equal(rc, SM_OK);
    print_message("exec in a paused container: %s (%.2f s)\n", e.msg, took);
    assert_true(took < 5);
    usleep(1000 * 1000);
    q = (xreq){.cmd = "ls /tmp/ran-while-paused 2>/dev/null; echo checked"};
    expect_run(warm, &q, 0, "checked\n", "");
    expect_helper(warm);

    sm_sandbox_free(fresh);
    sm_map_free(&env);
    sm_map_free(&odd);
    sm_sandbox_free(warm);
    sm_sandbox_stop(owner, NULL);
    sm_sandbox_free(owner);
    sm_provider_free(p);
}

/* OOM attribution of a command the helper ran. */
static void test_exec_helper_oom(void **state)
{
    sm_provider *p = provider(NULL, false);
    sm_spec spec;
    spec_init(&spec);
    spec.resources.set |= SM_RES_MEMORY;
    spec.resources.memory_mib = 64;
    sm_sandbox *s = start(p, &spec);
    xreq q = {.cmd = "true"};
    expect_run(s, &q, 0, "", "");
    expect_helper(s);
    q = (xreq){.cmd = "dd if=/dev/zero of=/dev/null bs=200M count=1"};
    sm_exec_result r;
    sm_error e;
    assert_int_equal(xrun(s, &q, &r, &e), SM_OK);
    assert_int_equal(r.return_code, 137);
    assert_int_equal(r.failure.kind, SM_FAIL_OOM);
    sm_exec_result_free(&r);
    q = (xreq){.cmd = "kill -9 $$"};
    assert_int_equal(xrun(s, &q, &r, &e), SM_OK);
    assert_int_equal(r.return_code, 137);
    assert_int_equal(r.failure.kind, SM_FAIL_SIGNALED);
    sm_exec_result_free(&r);
    expect_helper(s);
    sm_sandbox_stop(s, NULL);
    sm_sandbox_free(s);
    sm_spec_free(&spec);
    sm_provider_free(p);
}

/* ---------------------------------------------------------------- readiness */

static cJSON *inspect(const char *id)
{
    char *path = xasprintf("/containers/%s/json", id);
    char *text = engine_api("GET", path);
    free(path);
    cJSON *j = cJSON_Parse(text);
    free(text);
    assert_non_null(j);
    return j;
}

static int exec_ids(const cJSON *insp)
{
    const cJSON *ids = cJSON_GetObjectItemCaseSensitive(insp, "ExecIDs");
    return cJSON_IsArray(ids) ? cJSON_GetArraySize(ids) : 0;
}

/* With the default probe, create proves readiness from the keep-alive's first output: no exec
 * runs; a configured probe still runs as an exec. */
static void test_ready_without_exec(void **state)
{
    sm_provider *p = provider(NULL, false);
    sm_sandbox *s = start(p, NULL);
    cJSON *insp = inspect(sm_sandbox_id(s));
    char *cmd = sm_json_print(
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(insp, "Config"), "Cmd"));
    assert_non_null(strstr(cmd, "sandman-ready"));
    assert_int_equal(exec_ids(insp), 0);
    assert_string_equal(sm_json_str(cJSON_GetObjectItemCaseSensitive(insp, "State"), "Status"),
                        "running");
    free(cmd);
    cJSON_Delete(insp);
    sm_sandbox_stop(s, NULL);
    sm_sandbox_free(s);
    sm_provider_free(p);

    cJSON *cfg = cJSON_Parse("{\"create\": {\"network\": \"none\"}, \"probe\": {\"command\": "
                             "\"printf custom-ready\", \"expected_stdout\": \"custom-ready\"}}");
    cJSON_AddStringToObject(cfg, "host", E.host);
    sm_error e;
    sm_error_clear(&e);
    assert_int_equal(sm_provider_new("docker", cfg, &p, &e), SM_OK);
    cJSON_Delete(cfg);
    sm_map_set(&p->default_metadata, "sandman-test-run", E.run);
    s = start(p, NULL);
    insp = inspect(sm_sandbox_id(s));
    cmd = sm_json_print(
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(insp, "Config"), "Cmd"));
    assert_null(strstr(cmd, "sandman-ready"));
    assert_int_equal(exec_ids(insp), 1); /* the configured probe */
    free(cmd);
    cJSON_Delete(insp);
    sm_sandbox_stop(s, NULL);
    sm_sandbox_free(s);
    sm_provider_free(p);
}

int main(void)
{
    sm_test_engine_start("test_docker_api", &E);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_config_errors),     cmocka_unit_test(test_pty_close_ends_processes),
        cmocka_unit_test(test_lost_create_reply), cmocka_unit_test(test_exec_helper),
        cmocka_unit_test(test_exec_helper_oom),   cmocka_unit_test(test_ready_without_exec),
    };
    /* DOCKER_TEST_FILTER=test_exec_helper*: run only matching tests (while working on one) */
    if (getenv("DOCKER_TEST_FILTER"))
        cmocka_set_test_filter(getenv("DOCKER_TEST_FILTER"));
    int rc = cmocka_run_group_tests(tests, sm_test_group_setup, sm_test_group_teardown);
    sm_test_engine_stop();
    return rc;
}
