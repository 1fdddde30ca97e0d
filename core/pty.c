/* PTY session wrapper and the one-shot marker protocol (seed §3.2). */
#include "core/pty.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"
#include "core/util.h"

static int closed_error(sm_error *err)
{
    return sm_error_set(err, SM_ERR_CLOSED, SM_FAIL_PTY_ERROR, "pty session is closed");
}

/* A read while the replay of an attach lasts: its queries are taken out (vtquery.h). Reads at
 * most len - SM_VTQ_HELD bytes so that what the filter held back still fits; never reports 0
 * bytes (EOF) for a chunk that was all query. */
static int read_replay(sm_pty *p, char *buf, size_t len, double timeout_s, size_t *got,
                       sm_error *err)
{
    for (;;) {
        size_t n = 0;
        int rc = p->ops->read(p, buf, len - SM_VTQ_HELD, timeout_s, &n, err);
        if (rc != SM_OK)
            return rc;
        if (n == 0) { /* EOF: what was held back is the end of the output */
            *got = sm_vtq_flush(&p->replay_filter, buf);
            p->replay_end = 0;
            return SM_OK;
        }
        long long start = sm_pty_offset(p) - (long long)n;
        size_t rep = start >= p->replay_end                 ? 0
                     : p->replay_end - start < (long long)n ? (size_t)(p->replay_end - start)
                                                            : n;
        char *chunk = xmalloc(n);
        memcpy(chunk, buf, n);
        size_t w = sm_vtq_filter(&p->replay_filter, chunk, rep, buf);
        if (rep < n) { /* the live output begins in this chunk */
            w += sm_vtq_flush(&p->replay_filter, buf + w);
            memcpy(buf + w, chunk + rep, n - rep);
            w += n - rep;
            p->replay_end = 0;
        }
        free(chunk);
        if (w > 0) {
            *got = w;
            return SM_OK;
        }
    }
}

int sm_pty_read(sm_pty *p, char *buf, size_t len, double timeout_s, size_t *got, sm_error *err)
{
    *got = 0;
    if (p->closed)
        return closed_error(err);
    if (p->replay_end > 0 && p->ops->offset && len > 2 * SM_VTQ_HELD)
        return read_replay(p, buf, len, timeout_s, got, err);
    return p->ops->read(p, buf, len, timeout_s, got, err);
}

int sm_pty_read_stderr(sm_pty *p, char *buf, size_t len, double timeout_s, size_t *got,
                       sm_error *err)
{
    *got = 0;
    if (p->closed)
        return closed_error(err);
    if (p->mode != SM_PTY_MODE_PIPE || !p->ops->read_stderr)
        return SM_OK; /* pty mode: stderr is merged, so it reads as EOF */
    return p->ops->read_stderr(p, buf, len, timeout_s, got, err);
}

int sm_pty_write(sm_pty *p, const void *data, size_t len, sm_error *err)
{
    if (p->closed)
        return closed_error(err);
    return p->ops->write(p, data, len, err);
}

int sm_pty_resize(sm_pty *p, int rows, int cols, sm_error *err)
{
    if (p->closed)
        return closed_error(err);
    if (rows < 1 || cols < 1 || rows > 10000 || cols > 10000)
        return sm_error_set(err, SM_ERR_INVALID, SM_FAIL_INVALID_REQUEST,
                            "pty size %dx%d is out of range (1..10000)", rows, cols);
    if (p->mode == SM_PTY_MODE_PIPE)
        return SM_OK; /* size is meaningless without a terminal */
    return p->ops->resize(p, rows, cols, err);
}

int sm_pty_signal(sm_pty *p, const char *signame, sm_error *err)
{
    static const struct {
        const char *name;
        int sig;
    } allowed[] = {{"SIGINT", SIGINT},
                   {"SIGTERM", SIGTERM},
                   {"SIGKILL", SIGKILL},
                   {"SIGQUIT", SIGQUIT},
                   {"SIGHUP", SIGHUP}};
    if (p->closed)
        return closed_error(err);
    for (size_t i = 0; i < SM_ARRAY_LEN(allowed); i++)
        if (signame && !strcmp(signame, allowed[i].name))
            return p->ops->signal(p, allowed[i].sig, err);
    return sm_error_set(err, SM_ERR_INVALID, SM_FAIL_INVALID_REQUEST,
                        "signal '%s' is not allowed (allowed: SIGHUP, SIGINT, SIGKILL, SIGQUIT, "
                        "SIGTERM)",
                        signame ? signame : "");
}

int sm_pty_wait_exit(sm_pty *p, double timeout_s, int *code, sm_error *err)
{
    if (p->closed)
        return closed_error(err);
    return p->ops->wait_exit(p, timeout_s, code, err);
}

int sm_pty_fd(sm_pty *p)
{
    return (p->closed || !p->ops->fd) ? -1 : p->ops->fd(p);
}

long long sm_pty_offset(sm_pty *p)
{
    return p->ops->offset ? p->ops->offset(p) : 0;
}

void sm_pty_close(sm_pty *p)
{
    if (!p)
        return;
    p->closed = true;
    p->ops->close(p); /* frees p */
}

void sm_pty_detach(sm_pty *p)
{
    if (!p)
        return;
    p->closed = true;
    if (p->ops->detach)
        p->ops->detach(p);
    else
        p->ops->close(p);
}

void sm_pty_marker_token(char token[18])
{
    memcpy(token, "NGPTY", 5);
    sm_random_hex(token + 5, 12);
}

char *sm_pty_marker_script(const char *cmd, const char *token)
{
    /* The token is printed from two separately quoted halves so that the shell's echo of this
     * line can never contain the token itself. */
    size_t half = strlen(token) / 2;
    char first[32], second[32];
    snprintf(first, sizeof first, "%.*s", (int)half, token);
    snprintf(second, sizeof second, "%s", token + half);
    return xasprintf("{ %s\n} </dev/null\nprintf '%%s%%s:%%s\\n' '%s' '%s' \"$?\"\n", cmd, first,
                     second);
}

int sm_pty_marker_parse(const char *buf, size_t len, const char *token, size_t *prefix_len,
                        int *code)
{
    size_t tl = strlen(token);
    const char *hit = NULL;
    for (size_t i = 0; i + tl < len; i++) {
        if (buf[i] == token[0] && memcmp(buf + i, token, tl) == 0 && buf[i + tl] == ':') {
            hit = buf + i;
            break;
        }
    }
    if (!hit)
        return 0;
    const char *p = hit + tl + 1, *end = buf + len;
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    if (!nl)
        return 0; /* the digits may still be on their way */
    const char *q = p;
    long v = 0;
    bool digits = false;
    while (q < nl && *q >= '0' && *q <= '9' && v < 100000) {
        v = v * 10 + (*q - '0');
        q++;
        digits = true;
    }
    while (q < nl && *q == '\r')
        q++;
    *prefix_len = (size_t)(hit - buf);
    *code = (digits && q == nl) ? (int)v : -1;
    return 1;
}

int sm_pty_exec_marker(sm_pty *p, const char *cmd, double timeout_s, sm_exec_result *res,
                       sm_error *err)
{
    char token[18];
    sm_failure f;
    sm_failure_init(&f);
    snprintf(f.operation, sizeof f.operation, "pty_exec");
    sm_exec_result_init(res);
    double start = sm_now_mono();
    if (timeout_s <= 0)
        timeout_s = SM_DEFAULT_EXEC_TIMEOUT_S;
    sm_pty_marker_token(token);
    char *script = sm_pty_marker_script(cmd, token);
    int rc = sm_pty_write(p, script, strlen(script), err);
    free(script);
    if (rc != SM_OK) {
        f.kind = SM_FAIL_PTY_ERROR;
        snprintf(f.reason, sizeof f.reason, "%s", err ? err->msg : "write failed");
        sm_exec_result_runtime(res, "pty", &f);
        return rc;
    }
    sm_strbuf out = {0};
    char buf[8192];
    for (;;) {
        size_t prefix = 0;
        int code = 0;
        if (sm_pty_marker_parse(out.data ? out.data : "", out.len, token, &prefix, &code)) {
            res->out = xstrndup(out.data, prefix);
            res->out_len = prefix;
            if (code < 0) {
                f.kind = SM_FAIL_PTY_ERROR;
                snprintf(f.reason, sizeof f.reason, "unreadable exit status after the marker");
                sm_exec_result_runtime(res, "pty", &f);
            } else {
                res->return_code = code;
                f.exit_code = code;
                f.kind = sm_failure_classify_exit(code, 0, -1, -1, false);
                if (f.kind != SM_FAIL_NONE)
                    res->failure = f;
            }
            break;
        }
        double left = timeout_s - (sm_now_mono() - start);
        if (left <= 0) {
            f.kind = SM_FAIL_EXEC_TIMEOUT;
            f.timeout_s = timeout_s;
            snprintf(f.reason, sizeof f.reason, "PTY command timed out after %gs", timeout_s);
            sm_exec_result_runtime(res, "timeout", &f);
            res->err = xstrdup(f.reason);
            res->err_len = strlen(res->err);
            break;
        }
        size_t got = 0;
        sm_error rerr;
        sm_error_clear(&rerr);
        rc = sm_pty_read(p, buf, sizeof buf, left, &got, &rerr);
        if (rc == SM_ERR_TIMEOUT)
            continue;
        if (rc != SM_OK || got == 0) {
            f.kind = SM_FAIL_PTY_ERROR;
            snprintf(f.reason, sizeof f.reason, "%s",
                     rc != SM_OK ? rerr.msg : "session ended before the command finished");
            sm_exec_result_runtime(res, "pty", &f);
            sm_strbuf_free(&out);
            res->duration_s = sm_now_mono() - start;
            return sm_error_set(err, SM_ERR_RUNTIME, SM_FAIL_PTY_ERROR, "%s", f.reason);
        }
        sm_strbuf_append(&out, buf, got);
    }
    sm_strbuf_free(&out);
    if (p->mode == SM_PTY_MODE_PIPE && res->error_type == NULL) {
        sm_strbuf e = {0};
        size_t got;
        while (sm_pty_read_stderr(p, buf, sizeof buf, 0.05, &got, NULL) == SM_OK && got > 0)
            sm_strbuf_append(&e, buf, got);
        res->err_len = e.len;
        res->err = sm_strbuf_take(&e);
    }
    res->duration_s = sm_now_mono() - start;
    return SM_OK;
}
