/* The docker provider's one-exec primitives (docker_run.h). A command is an exec instance:
 * create, start (its stdout and stderr arrive multiplexed in 8-byte-header frames on the
 * hijacked connection), then exec inspect for the exit code. The Engine API cannot kill an
 * exec, so every exec carries a marker variable in its environment, inherited by its children;
 * a timeout or a signal runs a second exec (as root) that signals every process whose
 * environment holds the marker. */
#include "providers/docker/docker_run.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/json.h"
#include "core/util.h"
#include "providers/docker/docker_args.h"

static void write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return; /* the reader went away; keep draining the stream */
        p += w;
        n -= (size_t)w;
    }
}

bool docker_run_sink(void *ud, unsigned stream, const char *data, size_t len)
{
    docker_run *r = ud;
    bool out = stream == 1 || stream == 0;
    int fd = out ? r->stdout_fd : r->stderr_fd;
    sm_strbuf *b = out ? r->out : r->errb;
    if (fd >= 0) {
        write_all(fd, data, len);
    } else if (b) {
        size_t keep = b->len < DOCKER_CAPTURE_MAX ? DOCKER_CAPTURE_MAX - b->len : 0;
        if (keep > len)
            keep = len;
        sm_strbuf_append(b, data, keep);
        r->dropped[out ? 0 : 1] += len - keep;
    }
    return true;
}

static bool demux_write(const char *data, size_t len, void *ud)
{
    return docker_demux_feed(ud, data, len);
}

cJSON *docker_exec_env(const sm_map *env, const char *marker, const char *term)
{
    cJSON *a = cJSON_CreateArray();
    char *kv;
    if (term) {
        kv = xasprintf("TERM=%s", term);
        cJSON_AddItemToArray(a, cJSON_CreateString(kv));
        free(kv);
    }
    for (size_t i = 0; env && i < env->n; i++) {
        kv = xasprintf("%s=%s", env->items[i].key, env->items[i].value);
        cJSON_AddItemToArray(a, cJSON_CreateString(kv));
        free(kv);
    }
    if (marker) {
        kv = xasprintf("%s=%s", DOCKER_EXEC_MARKER, marker);
        cJSON_AddItemToArray(a, cJSON_CreateString(kv));
        free(kv);
    }
    return a;
}

const char *docker_exec_user(const char *user)
{
    if (!user || !*user)
        return NULL;
    return !strcmp(user, "root") ? "0" : user;
}

int docker_exec_create(docker_provider *dp, const char *cid, cJSON *body, char *eid, size_t len,
                       sm_error *err)
{
    char *path = xasprintf("/containers/%s/exec", cid);
    int status = 0;
    cJSON *reply = NULL;
    int rc = docker_call(dp, "POST", path, body, 60, false, &status, &reply, err);
    free(path);
    if (rc != SM_OK)
        return rc;
    const char *id = sm_json_str(reply, "Id");
    if (status == 201 && id) {
        snprintf(eid, len, "%s", id);
    } else if (status == 404) {
        rc = docker_http_error(err, status, NULL, reply, SM_FAIL_NOT_FOUND,
                               "sandbox %.12s does not exist", cid);
    } else if (status == 409) {
        rc = docker_http_error(err, status, NULL, reply, SM_FAIL_SANDBOX_ERROR,
                               "sandbox %.12s is not running", cid);
    } else {
        rc = docker_http_error(err, status, NULL, reply, SM_FAIL_SANDBOX_ERROR,
                               "starting a command in %.12s", cid);
    }
    cJSON_Delete(reply);
    return rc;
}

int docker_exec_exit_code(docker_provider *dp, const char *eid, double wait_s, int *code,
                          sm_error *err)
{
    char *path = xasprintf("/exec/%s/json", eid);
    double until = sm_now_mono() + wait_s;
    char what[80];
    snprintf(what, sizeof what, "reading the exit code of exec %.12s", eid);
    int rc, delay_ms = 2;
    for (;;) {
        cJSON *j = NULL;
        rc = docker_get_json(dp, path, cJSON_Object, 30, what, NULL, &j, err);
        if (rc != SM_OK)
            break;
        const cJSON *ec = cJSON_GetObjectItemCaseSensitive(j, "ExitCode");
        bool running = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "Running"));
        if (!running && cJSON_IsNumber(ec)) {
            *code = ec->valueint;
            cJSON_Delete(j);
            break;
        }
        cJSON_Delete(j);
        if (sm_now_mono() >= until) {
            rc = sm_error_set(err, SM_ERR_TIMEOUT, SM_FAIL_SANDBOX_ERROR,
                              "the command's output ended but the engine still reports it "
                              "running after %gs",
                              wait_s);
            break;
        }
        usleep((useconds_t)delay_ms * 1000);
        if (delay_ms < 100)
            delay_ms *= 2;
    }
    free(path);
    return rc;
}

/* The output ended; the process may not have (it closed its output): wait for it within the
 * command's budget, then end it as a timeout. */
static int wait_exit(docker_provider *dp, const char *cid, const char *marker, const char *eid,
                     docker_run *r, double t0, sm_error *err)
{
    double wait = r->timeout_s > 0 ? r->timeout_s - (sm_now_mono() - t0) : 24 * 3600.0;
    int rc = docker_exec_exit_code(dp, eid, wait > 0.05 ? wait : 0.05, &r->code, err);
    if (rc == SM_ERR_TIMEOUT && r->timeout_s > 0) {
        r->timed_out = true;
        docker_kill_marked(dp, cid, marker, eid, false, SIGKILL, NULL);
        if (err)
            sm_error_clear(err);
        return SM_OK;
    }
    return rc;
}

/* With stdin, the command runs under a wrapper that, once the command ended, writes a marker (a
 * nonce, $0) on stderr and then reads what is left of the input until it ends: podman loses
 * the command's output (the stream ends with "read unixpacket ...: connection reset by peer")
 * when the exec ends while input that nobody read is still queued at conmon, which is what an
 * endless input (`yes | sandman exec ID -- head -2`) always left. Seeing the marker, sandman
 * stops sending and half-closes; the exit status is still the command's (exec inspect). */
#define STDIN_WRAP                                                                                 \
    "\"$@\"; r=$?; printf %s \"$0\" >&2; cat >/dev/null 2>&1 || while read -r _; do :; done; "     \
    "exit $r"

typedef struct stdin_end {
    docker_run *r;
    char mark[48];
    size_t mlen;
    sm_strbuf held; /* stderr not yet passed on: it may be the start of the marker */
    bool seen;
} stdin_end;

static bool stdin_end_sink(void *ud, unsigned stream, const char *data, size_t len)
{
    stdin_end *se = ud;
    if (se->seen || (stream != 2 && stream != 3))
        return docker_run_sink(se->r, stream, data, len);
    sm_strbuf_append(&se->held, data, len);
    const char *hit = memmem(se->held.data, se->held.len, se->mark, se->mlen);
    size_t emit;
    if (hit) {
        docker_run_sink(se->r, 2, se->held.data, (size_t)(hit - se->held.data));
        emit = (size_t)(hit - se->held.data) + se->mlen;
        se->seen = true;
        size_t rest = se->held.len - emit;
        if (rest)
            docker_run_sink(se->r, 2, se->held.data + emit, rest);
        sm_strbuf_reset(&se->held);
        return true;
    }
    emit = se->held.len > se->mlen - 1 ? se->held.len - (se->mlen - 1) : 0;
    if (emit) {
        docker_run_sink(se->r, 2, se->held.data, emit);
        memmove(se->held.data, se->held.data + emit, se->held.len - emit);
        se->held.len -= emit;
        se->held.data[se->held.len] = '\0';
    }
    return true;
}

/* An exec with stdin: the start call hijacks the connection; the caller's input goes up it
 * (our copy: the caller's descriptor never leaves this process) and its end half-closes the
 * stream, which the command reads as end of file; output comes down multiplexed until the
 * engine closes it. left: the budget (0 = none); running out sets r->timed_out. */
static int run_with_stdin(docker_provider *dp, const char *cid, const char *path, const char *start,
                          docker_demux *dm, stdin_end *se, docker_run *r, double left,
                          sm_error *err)
{
    sm_http_conn *k = NULL;
    int status = 0;
    sm_strbuf eb = {0};
    int rc = sm_http_upgrade(dp->http, "POST", path, "tcp", "application/json", start,
                             strlen(start), 60, &k, &status, &eb, err);
    if (rc == SM_OK && !k)
        rc = docker_http_error(err, status, eb.data, NULL, SM_FAIL_SANDBOX_ERROR,
                               "running a command in %.12s", cid);
    sm_strbuf_free(&eb);
    if (rc != SM_OK)
        return rc;
    double deadline = left > 0 ? sm_now_mono() + left : -1;
    bool in_open = true;
    char buf[65536];
    for (;;) {
        double now = sm_now_mono();
        if (deadline > 0 && now >= deadline) {
            r->timed_out = true;
            break;
        }
        struct pollfd pf[2] = {{.fd = sm_http_conn_fd(k), .events = POLLIN},
                               {.fd = in_open ? r->stdin_fd : -1, .events = POLLIN}};
        int ms = deadline > 0 ? (int)((deadline - now) * 1000) + 1 : -1;
        if (poll(pf, 2, ms) < 0 && errno != EINTR)
            break;
        if (pf[1].revents) {
            ssize_t n = read(r->stdin_fd, buf, sizeof buf);
            if (n > 0 && sm_http_conn_send(k, buf, (size_t)n, NULL) != SM_OK)
                n = 0; /* the stream is gone: what comes down still counts */
            if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) {
                in_open = false;
                sm_http_conn_shutdown_write(k);
            }
        }
        if (pf[0].revents) {
            size_t got = 0;
            int rr = sm_http_conn_recv(k, buf, sizeof buf, 0, &got, NULL);
            if ((rr == SM_OK && got == 0) || (rr != SM_OK && rr != SM_ERR_TIMEOUT))
                break; /* the end, or a broken stream (which would otherwise spin here) */
            if (got)
                docker_demux_feed(dm, buf, got);
            if (se->seen && in_open) {
                /* the command ended: what it did not read is not sent */
                in_open = false;
                sm_http_conn_shutdown_write(k);
            }
        }
    }
    if (se->held.len) /* never the marker: the command's own stderr */
        docker_run_sink(r, 2, se->held.data, se->held.len);
    sm_strbuf_reset(&se->held);
    sm_http_conn_close(k);
    return SM_OK;
}

int docker_exec_run(docker_provider *dp, const char *cid, docker_run *r, sm_error *err)
{
    double t0 = sm_now_mono();
    r->code = -1;
    r->timed_out = false;
    r->dropped[0] = r->dropped[1] = 0;
    char marker[17];
    sm_random_hex(marker, 16);
    cJSON *body = cJSON_CreateObject();
    cJSON_AddBoolToObject(body, "AttachStdin", r->with_stdin);
    cJSON_AddBoolToObject(body, "AttachStdout", true);
    cJSON_AddBoolToObject(body, "AttachStderr", true);
    cJSON_AddBoolToObject(body, "Tty", false);
    cJSON *cmd = cJSON_AddArrayToObject(body, "Cmd");
    stdin_end se = {.r = r};
    if (r->with_stdin) {
        char nonce[17];
        sm_random_hex(nonce, 16);
        se.mlen = (size_t)snprintf(se.mark, sizeof se.mark, "<sandman-input-done-%s>", nonce);
        cJSON_AddItemToArray(cmd, cJSON_CreateString(dp->cfg.keepalive_shell));
        cJSON_AddItemToArray(cmd, cJSON_CreateString("-c"));
        cJSON_AddItemToArray(cmd, cJSON_CreateString(STDIN_WRAP));
        cJSON_AddItemToArray(cmd, cJSON_CreateString(se.mark));
    }
    for (size_t i = 0; r->argv[i]; i++)
        cJSON_AddItemToArray(cmd, cJSON_CreateString(r->argv[i]));
    cJSON_AddItemToObject(body, "Env", docker_exec_env(r->env, marker, NULL));
    if (r->cwd && *r->cwd)
        cJSON_AddStringToObject(body, "WorkingDir", r->cwd);
    const char *user = docker_exec_user(r->user);
    if (user)
        cJSON_AddStringToObject(body, "User", user);
    /* after the request's own, as the seed puts them after its flags (checked at config time) */
    if (r->extra_args &&
        docker_args_exec(r->extra_args, "docker.exec.extra_exec_args", body, NULL, err) != SM_OK) {
        cJSON_Delete(body);
        return SM_ERR_INVALID;
    }
    char eid[128];
    int rc = docker_exec_create(dp, cid, body, eid, sizeof eid, err);
    cJSON_Delete(body);
    if (rc != SM_OK)
        return rc;

    char *path = docker_path(dp, err, "/exec/%s/start", eid);
    if (!path)
        return err ? err->code : SM_ERR_RUNTIME;
    docker_demux dm = {.sink = docker_run_sink, .ud = r};
    static const char start_body[] = "{\"Detach\":false,\"Tty\":false}";
    double left = r->timeout_s > 0 ? r->timeout_s - (sm_now_mono() - t0) : 0;
    if (r->timeout_s > 0 && left < 0.01)
        left = 0.01;
    if (r->with_stdin) {
        dm.sink = stdin_end_sink;
        dm.ud = &se;
        rc = run_with_stdin(dp, cid, path, start_body, &dm, &se, r, left, err);
        sm_strbuf_free(&se.held);
        free(path);
        if (rc != SM_OK || r->timed_out) {
            if (r->timed_out)
                docker_kill_marked(dp, cid, marker, eid, false, SIGKILL, NULL);
            return rc;
        }
        return wait_exit(dp, cid, marker, eid, r, t0, err);
    }
    sm_http_req req = {.method = "POST",
                       .path = path,
                       .content_type = "application/json",
                       .body = start_body,
                       .body_len = sizeof start_body - 1,
                       .write_cb = demux_write,
                       .write_ud = &dm,
                       .timeout_s = left,
                       .body_size = -1};
    sm_http_resp resp;
    sm_error e;
    sm_error_clear(&e);
    rc = sm_http_do(dp->http, &req, &resp, &e);
    free(path);
    if (resp.timed_out) {
        r->timed_out = true;
        sm_http_resp_free(&resp);
        /* The command may still run inside: end it and everything it started. */
        docker_kill_marked(dp, cid, marker, eid, false, SIGKILL, NULL);
        return SM_OK;
    }
    if (rc != SM_OK) {
        sm_http_resp_free(&resp);
        if (err)
            *err = e;
        return rc;
    }
    if (resp.status != 200 && resp.status != 101) {
        rc = docker_http_error(err, resp.status, resp.body.data, NULL, SM_FAIL_SANDBOX_ERROR,
                               "running a command in %.12s", cid);
        sm_http_resp_free(&resp);
        return rc;
    }
    sm_http_resp_free(&resp);
    return wait_exit(dp, cid, marker, eid, r, t0, err);
}

/* The first process of exec eid as the container sees it: its pid there and its start time
 * (clock ticks since boot: the same inside the container and outside). The engine's exec
 * inspect gives its pid on the engine's host; /proc/<pid>/status (NSpid, readable by anyone)
 * gives the pid in the container. 0 when any of it is unknown; when sandman does not share
 * the engine's PID namespace (a remote engine), /proc/<pid> is some other process, and the
 * killer's check of the start time inside the container refuses it. */
static long exec_container_pid(docker_provider *dp, const char *eid, unsigned long long *start)
{
    *start = 0;
    char *path = xasprintf("/exec/%s/json", eid);
    cJSON *j = NULL;
    long hostpid = 0, cpid = 0;
    if (docker_get_json(dp, path, cJSON_Object, 10, "inspecting an exec", NULL, &j, NULL) == SM_OK)
        hostpid = (long)sm_json_num(j, "Pid", 0);
    cJSON_Delete(j);
    free(path);
    if (hostpid <= 0)
        return 0;
    char fn[64], buf[4096];
    snprintf(fn, sizeof fn, "/proc/%ld/status", hostpid);
    FILE *f = fopen(fn, "r");
    while (f && fgets(buf, sizeof buf, f)) {
        if (strncmp(buf, "NSpid:", 6))
            continue;
        for (char *t = strtok(buf + 6, " \t\n"); t; t = strtok(NULL, " \t\n"))
            cpid = atol(t); /* the last one: the innermost namespace */
    }
    if (f)
        fclose(f);
    snprintf(fn, sizeof fn, "/proc/%ld/stat", hostpid);
    f = fopen(fn, "r");
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f)
        fclose(f);
    buf[n] = '\0';
    char *rp = strrchr(buf, ')'); /* the command name may hold spaces and parentheses */
    int field = 2;
    for (char *t = rp ? strtok(rp + 1, " ") : NULL; t; t = strtok(NULL, " "))
        if (++field == 22)
            *start = strtoull(t, NULL, 10);
    return cpid > 1 && *start ? cpid : 0;
}

int docker_kill_marked(docker_provider *dp, const char *cid, const char *marker, const char *eid,
                       bool children, int sig, sm_error *err)
{
    /* Signals every process (but this script) whose environment holds the marker, and every
     * process of the exec's session: `env -i CMD` drops the marker, and the shell may exec
     * into it, but a process keeps its session unless it makes a new one. The session is the
     * exec's first process's (an exec runs in a session of its own), or with children, those
     * of the helper's children (each command of the exec helper is one). The pid is used only
     * if the process with it in the container has the start time seen from the host. For
     * SIGKILL it repeats until none is left, so that children forked meanwhile go too.
     * NUL-separated environ goes through tr: BusyBox grep stops reading a line at its first
     * NUL. */
    unsigned long long start = 0;
    long pid = eid && *eid ? exec_container_pid(dp, eid, &start) : 0;
    char *script = xasprintf(
        "m='%s=%s' r=%ld t=%llu k=%d; st() { x=; read -r x <\"/proc/$1/stat\" 2>/dev/null; "
        "x=${x##*) }; set -f; set -- $x; set +f; P=$2 D=$4 T=${20}; }; s=' '\n"
        "if [ $r -gt 1 ]; then st $r; if [ \"$T\" = \"$t\" ]; then if [ $k = 0 ]; then "
        "[ \"$D\" = $r ] && s=\" $r \"; else for d in /proc/[0-9]*; do p=${d#/proc/}; st $p; "
        "[ \"$P\" = $r ] && [ \"$D\" = $p ] && s=\"$s$p \"; done; fi; fi; fi\n"
        "n=0; while [ $n -lt 40 ]; do f=0; for d in /proc/[0-9]*; do "
        "p=${d#/proc/}; [ \"$p\" = \"$$\" ] && continue; st $p; "
        "case $s in *\" $D \"*) kill -%d \"$p\" 2>/dev/null && f=1; continue;; esac; "
        "if tr '\\0' '\\n' <\"$d/environ\" 2>/dev/null | grep -qxF \"$m\"; then "
        "kill -%d \"$p\" 2>/dev/null && f=1; "
        "fi; done; [ $f = 0 ] && break; [ %d = 9 ] || break; n=$((n+1)); sleep 0.05; done",
        DOCKER_EXEC_MARKER, marker, pid, start, children ? 1 : 0, sig, sig, sig);
    const char *argv[] = {dp->cfg.keepalive_shell, "-c", script, NULL};
    docker_run r = {.argv = argv, .user = "0", .timeout_s = 20, .stdout_fd = -1, .stderr_fd = -1};
    int rc = docker_exec_run(dp, cid, &r, err);
    free(script);
    if (rc == SM_OK && r.timed_out)
        rc = sm_error_set(err, SM_ERR_TIMEOUT, SM_FAIL_SANDBOX_ERROR,
                          "signalling the processes of an exec in %.12s timed out", cid);
    return rc;
}
