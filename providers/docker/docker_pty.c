/* The docker provider's PTY sessions (docker_pty.h): an exec with a TTY (or, in pipe mode,
 * without one, its two streams demultiplexed into queues) over a hijacked connection. Signals
 * reach the session's processes through its exec marker (docker_run.h). */
#include "providers/docker/docker_pty.h"

#include <cjson/cJSON.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/pty.h"
#include "core/util.h"
#include "providers/docker/docker_args.h"
#include "providers/docker/docker_run.h"

#define EXIT_WAIT_S 5.0 /* how long an ended exec may still say Running */

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
    docker_slot_enter(t->dp);
    int rc = docker_exec_exit_code(t->dp, t->eid, EXIT_WAIT_S, &t->code, &e);
    docker_slot_leave(t->dp);
    if (rc == SM_OK) {
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
    docker_slot_enter(dp);
    int rc = docker_call(dp, "POST", path, NULL, 30, false, &status, &reply, err);
    docker_slot_leave(dp);
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
    docker_slot_enter(t->dp);
    int rc = docker_kill_marked(t->dp, t->cid, t->marker, t->eid, false, sig, err);
    docker_slot_leave(t->dp);
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
        docker_slot_enter(t->dp);
        docker_kill_marked(t->dp, t->cid, t->marker, t->eid, false, SIGKILL, NULL);
        docker_slot_leave(t->dp);
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

    /* The shell as a plain exec has it: exec.exec_shell when set (the session's shell, and the
     * shell of a given command), else bash when the image has it, else sh (a command) or the
     * keep-alive shell (an interactive session). */
    const char *pinned = dp->cfg.exec_shell;
    const char *shell = pinned ? pinned : dp->cfg.keepalive_shell;
    char *qsh = sm_shell_quote(shell);
    char *login =
        pinned ? xasprintf("exec %s", qsh)
               : xasprintf("if command -v bash >/dev/null 2>&1; then exec bash; fi; exec %s", qsh);
    char *qcmd = spec->command ? sm_shell_quote(spec->command) : NULL;
    char *run = !spec->command ? xstrdup(login)
                : pinned       ? xstrdup(spec->command)
                               : xasprintf("set -- %s; " DOCKER_AUTO_SHELL, qcmd);
    free(qcmd);
    free(qsh);
    int rows = spec->rows > 0 ? spec->rows : 24, cols = spec->cols > 0 ? spec->cols : 80;
    /* The terminal's size, set inside before anything runs: engines below API 1.42 ignore
     * ConsoleSize, and a resize request right after start races with the first output (podman
     * applies it asynchronously through conmon). */
    char *cmdline = spec->pty ? xasprintf("stty rows %d cols %d 2>/dev/null; %s", rows, cols, run)
                              : xstrdup(run);
    free(run);
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
        docker_exec_env(spec->env, t->marker,
                        spec->pty ? (spec->term ? spec->term : "xterm-256color") : NULL));
    if (spec->cwd && *spec->cwd)
        cJSON_AddStringToObject(body, "WorkingDir", spec->cwd);
    const char *user = docker_exec_user(spec->user);
    if (user)
        cJSON_AddStringToObject(body, "User", user);
    if (spec->pty) {
        cJSON *cs = cJSON_AddArrayToObject(body, "ConsoleSize"); /* API >= 1.42; else resize */
        cJSON_AddItemToArray(cs, cJSON_CreateNumber(rows));
        cJSON_AddItemToArray(cs, cJSON_CreateNumber(cols));
    }
    /* exec.extra_exec_args after the session's own fields, as for a plain exec */
    int rc = SM_OK;
    if (dp->cfg.extra_exec_args &&
        docker_args_exec(dp->cfg.extra_exec_args, "docker.exec.extra_exec_args", body, NULL, err) !=
            SM_OK)
        rc = SM_ERR_INVALID;
    if (rc == SM_OK)
        rc = docker_exec_create(dp, h->id, body, t->eid, sizeof t->eid, err);
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
