/* Exec and PTY sessions of the docker provider. A command is an exec instance: create, start
 * (its stdout and stderr arrive multiplexed in 8-byte-header frames on the hijacked
 * connection), then exec inspect for the exit code; from a handle's second command on it goes
 * to the handle's exec helper instead when the helper can run it the same way
 * (docker_executor.c). The Engine API cannot kill an exec, so
 * every exec carries a marker variable in its environment, inherited by its children; a
 * timeout or a signal runs a second exec (as root) that signals every process whose
 * environment holds the marker. PTY sessions are TTY execs over an upgraded connection whose
 * socket is the session's pollable descriptor. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/json.h"
#include "core/pty.h"
#include "core/util.h"
#include "providers/docker/docker.h"

#define EXIT_WAIT_S 5.0 /* how long an ended exec may still say Running */

/* ---------------------------------------------------------------- demultiplexing */

bool docker_demux_feed(docker_demux *d, const char *data, size_t len)
{
    while (len > 0) {
        if (d->left == 0) {
            size_t need = 8 - d->hdr_len, n = len < need ? len : need;
            memcpy(d->hdr + d->hdr_len, data, n);
            d->hdr_len += n;
            data += n;
            len -= n;
            if (d->hdr_len < 8)
                return true;
            d->hdr_len = 0;
            d->stream = d->hdr[0];
            d->left = ((size_t)d->hdr[4] << 24) | ((size_t)d->hdr[5] << 16) |
                      ((size_t)d->hdr[6] << 8) | (size_t)d->hdr[7];
            continue;
        }
        size_t n = len < d->left ? len : d->left;
        if (d->sink && !d->sink(d->ud, d->stream, data, n))
            return false;
        d->left -= n;
        data += n;
        len -= n;
    }
    return true;
}

/* ---------------------------------------------------------------- one command */

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
    if (fd >= 0)
        write_all(fd, data, len);
    else if (b)
        sm_strbuf_append(b, data, len);
    return true;
}

static bool demux_write(const char *data, size_t len, void *ud)
{
    return docker_demux_feed(ud, data, len);
}

/* "K=V" strings of a map, plus the marker. */
static cJSON *env_json(const sm_map *env, const char *marker, const char *term)
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

static const char *map_user(const char *user)
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

/* GET /exec/{id}/json until it stops running; *code gets ExitCode. A command can close its
 * output and keep running, so this waits up to wait_s; SM_ERR_TIMEOUT if it still runs. */
static int exec_exit_code(docker_provider *dp, const char *eid, double wait_s, int *code,
                          sm_error *err)
{
    char *path = xasprintf("/exec/%s/json", eid);
    double until = sm_now_mono() + wait_s;
    int rc, delay_ms = 2;
    for (;;) {
        int status = 0;
        cJSON *j = NULL;
        rc = docker_call(dp, "GET", path, NULL, 30, true, &status, &j, err);
        if (rc != SM_OK)
            break;
        if (status != 200) {
            rc = docker_http_error(err, status, NULL, j, SM_FAIL_SANDBOX_ERROR,
                                   "reading the exit code of exec %.12s", eid);
            cJSON_Delete(j);
            break;
        }
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

int docker_exec_run(docker_provider *dp, const char *cid, docker_run *r, sm_error *err)
{
    double t0 = sm_now_mono();
    r->code = -1;
    r->timed_out = false;
    char marker[17];
    sm_random_hex(marker, 16);
    cJSON *body = cJSON_CreateObject();
    cJSON_AddBoolToObject(body, "AttachStdin", false);
    cJSON_AddBoolToObject(body, "AttachStdout", true);
    cJSON_AddBoolToObject(body, "AttachStderr", true);
    cJSON_AddBoolToObject(body, "Tty", false);
    cJSON *cmd = cJSON_AddArrayToObject(body, "Cmd");
    for (size_t i = 0; r->argv[i]; i++)
        cJSON_AddItemToArray(cmd, cJSON_CreateString(r->argv[i]));
    cJSON_AddItemToObject(body, "Env", env_json(r->env, marker, NULL));
    if (r->cwd && *r->cwd)
        cJSON_AddStringToObject(body, "WorkingDir", r->cwd);
    const char *user = map_user(r->user);
    if (user)
        cJSON_AddStringToObject(body, "User", user);
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
    /* The output ended; the process may not have (it closed its output): wait for it within
     * the command's budget, then end it as a timeout. */
    double wait = r->timeout_s > 0 ? r->timeout_s - (sm_now_mono() - t0) : 24 * 3600.0;
    rc = exec_exit_code(dp, eid, wait > 0.05 ? wait : 0.05, &r->code, err);
    if (rc == SM_ERR_TIMEOUT && r->timeout_s > 0) {
        r->timed_out = true;
        docker_kill_marked(dp, cid, marker, eid, false, SIGKILL, NULL);
        if (err)
            sm_error_clear(err);
        return SM_OK;
    }
    return rc;
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
    int status = 0;
    cJSON *j = NULL;
    long hostpid = 0, cpid = 0;
    if (docker_call(dp, "GET", path, NULL, 10, true, &status, &j, NULL) == SM_OK && status == 200)
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

/* The container's OOM-kill counter as its own cgroup shows it (v2 memory.events, v1
 * memory.oom_control); -1 when unreadable. */
static long long oom_counter(docker_provider *dp, const char *cid)
{
    const char *argv[] = {dp->cfg.keepalive_shell, "-c",
                          "cat /sys/fs/cgroup/memory.events "
                          "/sys/fs/cgroup/memory/memory.oom_control 2>/dev/null",
                          NULL};
    sm_strbuf out = {0};
    docker_run r = {
        .argv = argv, .user = "0", .timeout_s = 10, .stdout_fd = -1, .stderr_fd = -1, .out = &out};
    long long best = -1;
    if (docker_exec_run(dp, cid, &r, NULL) == SM_OK && !r.timed_out && out.data) {
        for (char *l = out.data; l && *l;) {
            long long v;
            if (sscanf(l, "oom_kill %lld", &v) == 1 && v > best)
                best = v;
            l = strchr(l, '\n');
            if (l)
                l++;
        }
    }
    sm_strbuf_free(&out);
    return best;
}

/* OOM kills already attributed to earlier commands, kept beside the state of other sandman
 * processes (<state>/docker/oom/<id>) so that a later plain SIGKILL is not blamed on memory
 * by the next `sandman exec`. */
static char *oom_file(const char *cid)
{
    return xasprintf("%s/docker/oom/%.64s", sm_state_dir(), cid);
}

static long long oom_recorded(const char *cid)
{
    char *path = oom_file(cid), buf[32];
    long v = -1;
    if (sm_read_small(path, buf, sizeof buf) < 0 || sm_parse_long(buf, &v) < 0)
        v = -1;
    free(path);
    return v;
}

static void oom_record(const char *cid, long long count)
{
    char *path = oom_file(cid), *dir = xasprintf("%s/docker/oom", sm_state_dir()), buf[32];
    snprintf(buf, sizeof buf, "%lld\n", count);
    if (sm_mkdir_p(dir, 0700) == 0)
        sm_write_file_atomic(path, buf, strlen(buf), 0600);
    free(dir);
    free(path);
}

void docker_oom_forget(const char *cid)
{
    char *path = oom_file(cid);
    unlink(path);
    free(path);
}

/* Was a command that ended with 137 (SIGKILL) killed by the OOM killer? Docker sets
 * State.OOMKilled on any OOM event in the container; podman only for the main process, so the
 * container's cgroup counter is read too and compared with the kills already attributed (this
 * handle's count, else the recorded one, else 0). */
static bool exec_was_oom(docker_provider *dp, sm_handle *h, long long *kills, long long *limit)
{
    cJSON *insp = NULL;
    *kills = -1;
    *limit = -1;
    if (docker_inspect(dp, h->id, &insp, NULL) != SM_OK)
        return false;
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(insp, "State");
    const cJSON *hc = cJSON_GetObjectItemCaseSensitive(insp, "HostConfig");
    bool flagged = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(st, "OOMKilled"));
    double mem = sm_json_num(hc, "Memory", 0);
    *limit = mem > 0 ? (long long)mem : -1;
    cJSON_Delete(insp);
    docker_cache *c = docker_cache_get(dp, h, NULL);
    bool oom = false;
    long long now = mem > 0 ? oom_counter(dp, h->id) : -1;
    if (now >= 0) {
        long long base = (c && c->oom_seen >= 0) ? c->oom_seen : oom_recorded(h->id);
        if (base < 0)
            base = 0;
        if (now > base) {
            *kills = now - base;
            oom = true;
            oom_record(h->id, now);
        }
        if (c)
            c->oom_seen = now;
    } else if (flagged) {
        /* no counter to compare with: Docker's flag is the only evidence */
        oom = true;
        *kills = 1;
    }
    return oom;
}

int docker_exec(sm_provider *p, sm_handle *h, const sm_exec_request *req, sm_exec_result *res,
                sm_error *err)
{
    docker_provider *dp = p->impl;
    double t0 = sm_now_mono();
    double timeout = req->timeout_s > 0 ? req->timeout_s : dp->cfg.default_timeout_s;
    const char *argv[] = {dp->cfg.keepalive_shell, "-c", req->cmd, NULL};
    sm_strbuf out = {0}, errb = {0};
    docker_run r = {.argv = argv,
                    .cwd = req->cwd,
                    .env = req->env,
                    .user = req->user,
                    .timeout_s = timeout,
                    .stdout_fd = req->stdout_fd,
                    .stderr_fd = req->stderr_fd,
                    .out = &out,
                    .errb = &errb};
    /* The handle's exec helper when it can run the command as an exec would; else (and for a
     * handle's first command) an exec instance. */
    int rc = docker_executor_run(dp, h, req->cmd, &r, err);
    if (rc == DOCKER_EXECUTOR_DECLINED) {
        r.timeout_s = timeout - (sm_now_mono() - t0);
        if (r.timeout_s < 0.01)
            r.timeout_s = 0.01;
        rc = docker_exec_run(dp, h->id, &r, err);
    }
    sm_failure *f = &res->failure;
    snprintf(f->operation, sizeof f->operation, "exec");
    snprintf(f->sandbox_id, sizeof f->sandbox_id, "%s", h->id);
    snprintf(f->provider, sizeof f->provider, "docker");
    if (req->stdout_fd < 0) {
        res->out_len = out.len;
        res->out = sm_strbuf_take(&out);
    }
    if (req->stderr_fd < 0) {
        res->err_len = errb.len;
        res->err = sm_strbuf_take(&errb);
    }
    sm_strbuf_free(&out);
    sm_strbuf_free(&errb);
    if (rc != SM_OK) {
        if (err)
            snprintf(err->failure.operation, sizeof err->failure.operation, "exec");
        res->duration_s = sm_now_mono() - t0;
        return rc;
    }
    if (r.timed_out) {
        sm_exec_result_timed_out(res, timeout);
        res->duration_s = sm_now_mono() - t0;
        return SM_OK;
    }
    res->return_code = r.code;
    f->exit_code = r.code;
    long long kills = -1, limit = -1;
    bool oom = r.code == 137 && exec_was_oom(dp, h, &kills, &limit);
    f->signal = docker_exit_signal(r.code);
    f->kind = sm_failure_classify_exit(r.code, f->signal, oom ? kills : -1, -1, false);
    if (f->kind == SM_FAIL_OOM) {
        f->oom_kills = kills;
        f->memory_limit = limit;
        snprintf(f->reason, sizeof f->reason,
                 "the command hit the sandbox's memory limit and was OOM killed");
    }
    if (f->kind == SM_FAIL_NONE)
        sm_failure_init(f);
    res->duration_s = sm_now_mono() - t0;
    return SM_OK;
}

/* ---------------------------------------------------------------- PTY sessions */

typedef struct dpty {
    sm_pty base;
    docker_provider *dp;
    char *cid;
    char eid[128];
    char marker[17];
    sm_http_conn *conn;
    bool tty;
    /* pipe mode: frames demultiplexed into two queues */
    docker_demux dm;
    sm_strbuf q[2]; /* 0 stdout, 1 stderr */
    size_t qoff[2];
    bool eof, exited, broken;
    int code;
    long long offset;
    char broken_msg[256];
} dpty;

static bool pty_sink(void *ud, unsigned stream, const char *data, size_t len)
{
    dpty *t = ud;
    sm_strbuf_append(&t->q[stream == 2 || stream == 3 ? 1 : 0], data, len);
    return true;
}

/* At the end of the stream: the exit code from exec inspect, or a broken session. */
static void reached_eof(dpty *t)
{
    t->eof = true;
    sm_error e;
    sm_error_clear(&e);
    if (exec_exit_code(t->dp, t->eid, EXIT_WAIT_S, &t->code, &e) == SM_OK) {
        t->exited = true;
    } else {
        t->broken = true;
        snprintf(t->broken_msg, sizeof t->broken_msg,
                 "the PTY session ended without an exit status: %s", e.msg);
    }
}

static size_t take_queue(dpty *t, int which, char *buf, size_t len)
{
    sm_strbuf *q = &t->q[which];
    size_t avail = q->len - t->qoff[which];
    if (avail == 0)
        return 0;
    size_t n = avail < len ? avail : len;
    memcpy(buf, q->data + t->qoff[which], n);
    t->qoff[which] += n;
    if (t->qoff[which] == q->len) {
        sm_strbuf_reset(q);
        t->qoff[which] = 0;
    }
    return n;
}

static int pty_read_stream(dpty *t, int which, char *buf, size_t len, double timeout_s, size_t *got,
                           sm_error *err)
{
    *got = 0;
    double deadline = timeout_s < 0 ? -1 : sm_now_mono() + timeout_s;
    for (;;) {
        if (!t->tty) {
            size_t n = take_queue(t, which, buf, len);
            if (n) {
                *got = n;
                if (which == 0)
                    t->offset += (long long)n;
                return SM_OK;
            }
        }
        if (t->eof)
            return SM_OK; /* sticky EOF */
        double left = deadline < 0 ? -1 : deadline - sm_now_mono();
        if (deadline >= 0 && left < 0)
            left = 0;
        size_t n = 0;
        char tmp[16384];
        /* In TTY mode read straight into the caller's buffer: nothing stays queued here, so
         * the descriptor is readable exactly when read() has something. */
        char *dst = t->tty ? buf : tmp;
        size_t cap = t->tty ? len : sizeof tmp;
        int rc = sm_http_conn_recv(t->conn, dst, cap, left, &n, err);
        if (rc == SM_ERR_TIMEOUT)
            return sm_error_set(err, SM_ERR_TIMEOUT, SM_FAIL_NONE, "no PTY output in time");
        if (rc != SM_OK || n == 0) {
            reached_eof(t);
            if (t->broken && rc != SM_OK)
                return sm_error_set(err, SM_ERR_RUNTIME, SM_FAIL_PTY_ERROR, "%s", t->broken_msg);
            if (!t->tty)
                continue; /* hand out what is queued, then EOF */
            return SM_OK;
        }
        if (t->tty) {
            *got = n;
            t->offset += (long long)n;
            return SM_OK;
        }
        docker_demux_feed(&t->dm, tmp, n);
    }
}

static int dpty_read(sm_pty *p, char *buf, size_t len, double timeout_s, size_t *got, sm_error *err)
{
    return pty_read_stream(p->impl, 0, buf, len, timeout_s, got, err);
}

static int dpty_read_stderr(sm_pty *p, char *buf, size_t len, double timeout_s, size_t *got,
                            sm_error *err)
{
    dpty *t = p->impl;
    if (t->tty) {
        *got = 0;
        return SM_OK;
    }
    return pty_read_stream(t, 1, buf, len, timeout_s, got, err);
}

static int dpty_write(sm_pty *p, const void *data, size_t len, sm_error *err)
{
    dpty *t = p->impl;
    if (t->eof)
        return sm_error_set(err, SM_ERR_RUNTIME, SM_FAIL_PTY_ERROR, "the PTY session has ended");
    int rc = sm_http_conn_send(t->conn, data, len, err);
    if (rc != SM_OK && err)
        err->failure.kind = SM_FAIL_PTY_ERROR;
    return rc;
}

static int resize_exec(docker_provider *dp, const char *eid, int rows, int cols, sm_error *err)
{
    char *path = xasprintf("/exec/%s/resize?h=%d&w=%d", eid, rows, cols);
    int status = 0;
    cJSON *reply = NULL;
    int rc = docker_call(dp, "POST", path, NULL, 30, false, &status, &reply, err);
    free(path);
    /* Docker answers 200, podman 201. */
    if (rc == SM_OK && status != 200 && status != 201 && status != 204)
        rc = docker_http_error(err, status, NULL, reply, SM_FAIL_PTY_ERROR,
                               "resizing the terminal to %dx%d", rows, cols);
    cJSON_Delete(reply);
    return rc;
}

static int dpty_resize(sm_pty *p, int rows, int cols, sm_error *err)
{
    dpty *t = p->impl;
    if (!t->tty || t->eof)
        return SM_OK;
    return resize_exec(t->dp, t->eid, rows, cols, err);
}

static int dpty_signal(sm_pty *p, int sig, sm_error *err)
{
    dpty *t = p->impl;
    if (t->eof)
        return SM_OK;
    int rc = docker_kill_marked(t->dp, t->cid, t->marker, t->eid, false, sig, err);
    if (rc != SM_OK && err)
        err->failure.kind = SM_FAIL_PTY_ERROR;
    return rc;
}

static int dpty_wait_exit(sm_pty *p, double timeout_s, int *code, sm_error *err)
{
    dpty *t = p->impl;
    double deadline = timeout_s < 0 ? -1 : sm_now_mono() + timeout_s;
    char buf[16384];
    while (!t->eof) {
        /* Output nobody reads is dropped here: waiting must not stall on it. */
        for (int i = 0; i < 2; i++) {
            sm_strbuf_reset(&t->q[i]);
            t->qoff[i] = 0;
        }
        double left = deadline < 0 ? -1 : deadline - sm_now_mono();
        if (deadline >= 0 && left <= 0)
            return sm_error_set(err, SM_ERR_TIMEOUT, SM_FAIL_NONE,
                                "the PTY process did not exit in time");
        size_t got;
        int rc = pty_read_stream(t, 0, buf, sizeof buf, left, &got, err);
        if (rc == SM_ERR_TIMEOUT)
            continue;
        if (rc != SM_OK)
            return rc;
    }
    if (!t->exited)
        return sm_error_set(err, SM_ERR_RUNTIME, SM_FAIL_PTY_ERROR, "%s",
                            t->broken_msg[0] ? t->broken_msg
                                             : "the PTY session ended without an exit status");
    *code = t->code;
    return SM_OK;
}

static int dpty_fd(sm_pty *p)
{
    return sm_http_conn_fd(((dpty *)p->impl)->conn);
}

static long long dpty_offset(sm_pty *p)
{
    return ((dpty *)p->impl)->offset;
}

static void dpty_free(dpty *t)
{
    sm_http_conn_close(t->conn);
    sm_strbuf_free(&t->q[0]);
    sm_strbuf_free(&t->q[1]);
    free(t->cid);
    free(t);
}

/* An owned session ends with its process: if it still runs, its processes are killed. */
static void dpty_close(sm_pty *p)
{
    dpty *t = p->impl;
    if (!t->eof && t->eid[0]) {
        sm_http_conn_shutdown_write(t->conn);
        docker_kill_marked(t->dp, t->cid, t->marker, t->eid, false, SIGKILL, NULL);
    }
    dpty_free(t);
}

static const sm_pty_ops dpty_ops = {
    .read = dpty_read,
    .read_stderr = dpty_read_stderr,
    .write = dpty_write,
    .resize = dpty_resize,
    .signal = dpty_signal,
    .wait_exit = dpty_wait_exit,
    .fd = dpty_fd,
    .close = dpty_close,
    .offset = dpty_offset,
};

int docker_pty_open(sm_provider *p, sm_handle *h, const sm_pty_spec *spec, sm_pty **out,
                    sm_error *err)
{
    docker_provider *dp = p->impl;
    *out = NULL;
    dpty *t = xcalloc(1, sizeof *t);
    t->dp = dp;
    t->cid = xstrdup(h->id);
    t->tty = spec->pty;
    t->dm.sink = pty_sink;
    t->dm.ud = t;
    sm_random_hex(t->marker, 16);
    t->base.ops = &dpty_ops;
    t->base.impl = t;
    t->base.mode = spec->pty ? SM_PTY_MODE_PTY : SM_PTY_MODE_PIPE;

    const char *shell = dp->cfg.keepalive_shell;
    /* No command: the image's bash when it has one (a nicer prompt), else the shell. */
    char *login =
        xasprintf("if command -v bash >/dev/null 2>&1; then exec bash; fi; exec %s", shell);
    int rows = spec->rows > 0 ? spec->rows : 24, cols = spec->cols > 0 ? spec->cols : 80;
    /* The terminal's size, set inside before anything runs: engines below API 1.42 ignore
     * ConsoleSize, and a resize request right after start races with the first output (podman
     * applies it asynchronously through conmon). */
    char *cmdline = spec->pty ? xasprintf("stty rows %d cols %d 2>/dev/null; %s", rows, cols,
                                          spec->command ? spec->command : login)
                              : xstrdup(spec->command ? spec->command : login);
    cJSON *body = cJSON_CreateObject();
    cJSON_AddBoolToObject(body, "AttachStdin", true);
    cJSON_AddBoolToObject(body, "AttachStdout", true);
    cJSON_AddBoolToObject(body, "AttachStderr", true);
    cJSON_AddBoolToObject(body, "Tty", spec->pty);
    cJSON *cmd = cJSON_AddArrayToObject(body, "Cmd");
    cJSON_AddItemToArray(cmd, cJSON_CreateString(shell));
    cJSON_AddItemToArray(cmd, cJSON_CreateString("-c"));
    cJSON_AddItemToArray(cmd, cJSON_CreateString(cmdline));
    cJSON_AddItemToObject(
        body, "Env",
        env_json(spec->env, t->marker,
                 spec->pty ? (spec->term ? spec->term : "xterm-256color") : NULL));
    if (spec->cwd && *spec->cwd)
        cJSON_AddStringToObject(body, "WorkingDir", spec->cwd);
    const char *user = map_user(spec->user);
    if (user)
        cJSON_AddStringToObject(body, "User", user);
    if (spec->pty) {
        cJSON *cs = cJSON_AddArrayToObject(body, "ConsoleSize"); /* API >= 1.42; else resize */
        cJSON_AddItemToArray(cs, cJSON_CreateNumber(rows));
        cJSON_AddItemToArray(cs, cJSON_CreateNumber(cols));
    }
    int rc = docker_exec_create(dp, h->id, body, t->eid, sizeof t->eid, err);
    cJSON_Delete(body);
    free(login);
    free(cmdline);
    if (rc != SM_OK) {
        t->eid[0] = '\0';
        dpty_free(t);
        return rc;
    }
    char *path = docker_path(dp, err, "/exec/%s/start", t->eid);
    if (!path) {
        t->eid[0] = '\0';
        dpty_free(t);
        return err ? err->code : SM_ERR_RUNTIME;
    }
    char *start = xasprintf("{\"Detach\":false,\"Tty\":%s}", spec->pty ? "true" : "false");
    int status = 0;
    sm_strbuf eb = {0};
    rc = sm_http_upgrade(dp->http, "POST", path, "tcp", "application/json", start, strlen(start),
                         60, &t->conn, &status, &eb, err);
    free(start);
    free(path);
    if (rc == SM_OK && !t->conn)
        rc = docker_http_error(err, status, eb.data, NULL, SM_FAIL_PTY_ERROR,
                               "starting a PTY session in %.12s", h->id);
    sm_strbuf_free(&eb);
    if (rc != SM_OK) {
        if (err && err->failure.kind == SM_FAIL_NONE)
            err->failure.kind = SM_FAIL_PTY_ERROR;
        t->eid[0] = '\0';
        dpty_free(t);
        return rc;
    }
    /* and through the API too (seed: fixed-size backends resize right after connecting) */
    if (spec->pty)
        resize_exec(dp, t->eid, rows, cols, NULL);
    snprintf(t->base.session_id, sizeof t->base.session_id, "%.12s", t->eid);
    *out = &t->base;
    return SM_OK;
}
