/* The opensandbox provider's commands and files, through the sandbox's execd: POST /command
 * and its SSE stream (bare JSON events separated by blank lines), users (uid, or su for a
 * named user), timeouts (execd's own, plus a client bound of timeout + 60 s), the one retried
 * case (a proxy's 502 at submission, then the sandbox's state is checked for an OOM-killed
 * reason); single-file upload (multipart) and download. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/json.h"
#include "core/util.h"
#include "providers/opensandbox/osb.h"

typedef struct stream {
    sm_strbuf line; /* bytes of the event being read */
    sm_strbuf out, err;
    int out_fd, err_fd;
    bool complete, errored;
    int exit_code;
    char ename[64], evalue[256];
} stream;

/* The value of "text" in an event, bytes as sent (\u0000 included). */
static bool event_text(const char *ev, size_t len, sm_strbuf *into)
{
    const char *k = memmem(ev, len, "\"text\":\"", 8);
    if (!k)
        return false;
    const char *p = k + 8, *end = ev + len;
    while (p < end && *p != '"') {
        if (*p == '\\' && p + 1 < end) {
            p++;
            char c = *p;
            if (c == 'u' && p + 4 < end) {
                unsigned v = 0;
                sscanf(p + 1, "%4x", &v);
                p += 4;
                if (v < 0x80) {
                    char b = (char)v;
                    sm_strbuf_append(into, &b, 1);
                } else if (v < 0x800) {
                    char b[2] = {(char)(0xc0 | (v >> 6)), (char)(0x80 | (v & 0x3f))};
                    sm_strbuf_append(into, b, 2);
                } else {
                    char b[3] = {(char)(0xe0 | (v >> 12)), (char)(0x80 | ((v >> 6) & 0x3f)),
                                 (char)(0x80 | (v & 0x3f))};
                    sm_strbuf_append(into, b, 3);
                }
            } else {
                char b = c == 'n'   ? '\n'
                         : c == 't' ? '\t'
                         : c == 'r' ? '\r'
                         : c == 'b' ? '\b'
                         : c == 'f' ? '\f'
                                    : c;
                sm_strbuf_append(into, &b, 1);
            }
            p++;
        } else {
            sm_strbuf_append(into, p, 1);
            p++;
        }
    }
    return true;
}

static void one_event(stream *s, const char *ev, size_t len)
{
    cJSON *j = cJSON_ParseWithLength(ev, len);
    const char *type = sm_json_str(j, "type");
    if (!type) {
        cJSON_Delete(j);
        return;
    }
    bool so = !strcmp(type, "stdout"), se = !strcmp(type, "stderr");
    if (so || se) {
        sm_strbuf t = {0};
        if (event_text(ev, len, &t) && t.len) {
            int fd = so ? s->out_fd : s->err_fd;
            if (fd >= 0)
                sm_write_all(fd, t.data, t.len);
            else
                sm_strbuf_append(so ? &s->out : &s->err, t.data, t.len);
        }
        sm_strbuf_free(&t);
    } else if (!strcmp(type, "execution_complete")) {
        s->complete = true;
    } else if (!strcmp(type, "error")) {
        const cJSON *e = cJSON_GetObjectItemCaseSensitive(j, "error");
        s->errored = true;
        snprintf(s->ename, sizeof s->ename, "%s",
                 sm_json_str(e, "ename") ? sm_json_str(e, "ename") : "");
        snprintf(s->evalue, sizeof s->evalue, "%s",
                 sm_json_str(e, "evalue") ? sm_json_str(e, "evalue") : "");
    }
    cJSON_Delete(j);
}

static bool on_data(const char *data, size_t len, void *ud)
{
    stream *s = ud;
    sm_strbuf_append(&s->line, data, len);
    for (;;) {
        char *sep = s->line.len ? memmem(s->line.data, s->line.len, "\n\n", 2) : NULL;
        if (!sep)
            break;
        size_t n = (size_t)(sep - s->line.data);
        one_event(s, s->line.data, n);
        memmove(s->line.data, sep + 2, s->line.len - n - 2);
        s->line.len -= n + 2;
    }
    return true;
}

static char *take(sm_strbuf *b, size_t *len)
{
    *len = b->len;
    return b->data ? sm_strbuf_take(b) : xstrdup("");
}

static char *wrap_user(const char *cmd, const char *user, long *uid)
{
    *uid = -1;
    if (!user || !*user)
        return xstrdup(cmd);
    long v;
    if (!strcmp(user, "root") || sm_parse_long(user, &v) == 0) {
        *uid = strcmp(user, "root") ? v : 0;
        return xstrdup(cmd);
    }
    char *q = sm_shell_quote(cmd), *u = sm_shell_quote(user);
    char *w = xasprintf("su -s /bin/sh -c %s %s", q, u);
    free(q);
    free(u);
    return w;
}

int osb_exec(sm_provider *p, sm_handle *h, const sm_exec_request *req, sm_exec_result *res,
             sm_error *err)
{
    osb *o = p->impl;
    sm_exec_result_init(res);
    double timeout = req->timeout_s > 0 ? req->timeout_s : SM_DEFAULT_EXEC_TIMEOUT_S;
    double t0 = sm_now_mono();
    sm_http *x = NULL;
    int rc = osb_execd(o, h, &x, err);
    if (rc != SM_OK) {
        sm_exec_result_runtime(res, "sandbox", err ? &err->failure : NULL);
        return rc;
    }
    long uid;
    char *cmd = wrap_user(req->cmd, req->user, &uid);
    cJSON *b = cJSON_CreateObject();
    cJSON_AddStringToObject(b, "command", cmd);
    free(cmd);
    osb_box *box = osb_box_of(h);
    pthread_mutex_lock(&box->lock);
    const char *cwd = req->cwd ? req->cwd : box->workdir;
    if (cwd)
        cJSON_AddStringToObject(b, "cwd", cwd);
    pthread_mutex_unlock(&box->lock);
    cJSON_AddBoolToObject(b, "background", false);
    cJSON_AddNumberToObject(b, "timeout", (double)(long)(timeout * 1000));
    if (uid >= 0)
        cJSON_AddNumberToObject(b, "uid", (double)uid);
    if (req->env && req->env->n)
        cJSON_AddItemToObject(b, "envs", sm_map_to_json(req->env));
    char *text = sm_json_print(b);
    cJSON_Delete(b);
    const char *hdrs[] = {o->key_header, NULL};
    stream s = {.out_fd = req->stdout_fd, .err_fd = req->stderr_fd};
    sm_http_req r = {.method = "POST",
                     .path = "/command",
                     .headers = o->cfg.use_server_proxy && o->key_header ? hdrs : NULL,
                     .content_type = "application/json",
                     .body = text,
                     .body_len = strlen(text),
                     .write_cb = on_data,
                     .write_ud = &s,
                     .timeout_s = timeout + 60,
                     .body_size = -1};
    sm_http_resp resp;
    sm_error e;
    /* a command is never replayed; only the proxy's 502 at submission (nothing ran) is */
    for (long attempt = 0;; attempt++) {
        sm_error_clear(&e);
        rc = sm_http_do(x, &r, &resp, &e);
        if (!(rc == SM_OK && resp.status == 502 && attempt < o->cfg.op_retries + 1))
            break;
        sm_http_resp_free(&resp);
        usleep((useconds_t)(0.25e6 * (1 << (attempt < 3 ? attempt : 3))));
    }
    free(text);
    res->duration_s = sm_now_mono() - t0;
    if (s.line.len)
        one_event(&s, s.line.data, s.line.len);
    res->out = take(&s.out, &res->out_len);
    sm_strbuf_free(&s.line);
    bool timed_out =
        (rc == SM_ERR_TIMEOUT) || !strcmp(s.ename, "TimeoutError") ||
        ((s.errored || (!s.complete && rc == SM_OK)) && res->duration_s >= timeout * 0.98);
    int out_rc = SM_OK;
    if (timed_out) {
        res->err = take(&s.err, &res->err_len);
        sm_exec_result_timed_out(res, timeout);
        snprintf(res->failure.sandbox_id, sizeof res->failure.sandbox_id, "%s", h->id);
    } else if (rc != SM_OK || resp.status != 200) {
        if (rc == SM_OK) {
            rc = sm_http_status_error(&e, SM_ERR_RUNTIME, SM_FAIL_SANDBOX_ERROR, resp.status,
                                      resp.body.data, "running a command in %s", h->id);
        }
        if (err)
            *err = e;
        res->err = take(&s.err, &res->err_len);
        sm_exec_result_runtime(res, "sandbox", &e.failure);
        out_rc = rc;
    } else if (s.errored && !strcmp(s.ename, "CommandExecError")) {
        res->err = take(&s.err, &res->err_len);
        res->return_code = atoi(s.evalue);
        int sig = res->return_code > 128 && res->return_code < 160 ? res->return_code - 128 : 0;
        res->failure.kind = sm_failure_classify_exit(res->return_code, sig, -1, -1, false);
        res->failure.exit_code = res->return_code;
        res->failure.signal = sig;
    } else if (s.errored) {
        sm_strbuf_printf(&s.err, "%s%s: %s\n", s.err.len ? "\n" : "", s.ename, s.evalue);
        res->err = take(&s.err, &res->err_len);
        sm_failure f;
        sm_failure_init(&f);
        f.kind = SM_FAIL_SANDBOX_ERROR;
        snprintf(f.reason, sizeof f.reason, "execd: %s: %s", s.ename, s.evalue);
        sm_exec_result_runtime(res, "sandbox", &f);
    } else {
        res->err = take(&s.err, &res->err_len);
        res->return_code = 0;
    }
    sm_strbuf_free(&s.err);
    sm_http_resp_free(&resp);
    return out_rc;
}

/* ---------------------------------------------------------------- files */

int osb_upload(sm_provider *p, sm_handle *h, const char *local, const char *remote, sm_error *err)
{
    osb *o = p->impl;
    char *data = NULL;
    size_t len = 0;
    if (sm_read_file(local, &data, &len) != 0)
        return sm_error_set(err, SM_ERR_IO, SM_FAIL_TRANSFER_FAILED, "cannot read %s: %s", local,
                            strerror(errno));
    sm_http *x = NULL;
    int rc = osb_execd(o, h, &x, err);
    if (rc != SM_OK) {
        free(data);
        return rc;
    }
    char bnd[33];
    sm_random_hex(bnd, 32);
    cJSON *m = cJSON_CreateObject();
    cJSON_AddStringToObject(m, "path", remote);
    char *mt = sm_json_print(m);
    cJSON_Delete(m);
    sm_strbuf body = {0};
    sm_strbuf_printf(&body,
                     "--%s\r\nContent-Disposition: form-data; name=\"metadata\"; "
                     "filename=\"metadata\"\r\nContent-Type: application/json\r\n\r\n%s\r\n"
                     "--%s\r\nContent-Disposition: form-data; name=\"file\"; filename=\"file\"\r\n"
                     "Content-Type: application/octet-stream\r\n\r\n",
                     bnd, mt, bnd);
    sm_strbuf_append(&body, data, len);
    sm_strbuf_printf(&body, "\r\n--%s--\r\n", bnd);
    free(mt);
    free(data);
    char *ct = xasprintf("multipart/form-data; boundary=%s", bnd);
    const char *hdrs[] = {o->key_header, NULL};
    sm_http_req r = {.method = "POST",
                     .path = "/files/upload",
                     .headers = o->cfg.use_server_proxy && o->key_header ? hdrs : NULL,
                     .content_type = ct,
                     .body = body.data,
                     .body_len = body.len,
                     .timeout_s = o->cfg.request_timeout_s > 0 ? o->cfg.request_timeout_s : 300,
                     .body_size = -1};
    sm_http_resp resp;
    rc = sm_http_do(x, &r, &resp, err);
    if (rc == SM_OK && resp.status != 200)
        rc = sm_http_status_error(err, SM_ERR_RUNTIME, SM_FAIL_TRANSFER_FAILED, resp.status,
                                  resp.body.data, "uploading to %s", remote);
    sm_http_resp_free(&resp);
    sm_strbuf_free(&body);
    free(ct);
    return rc;
}

static bool to_fd(const char *data, size_t len, void *ud)
{
    return sm_write_all(*(int *)ud, data, len) == 0;
}

int osb_download(sm_provider *p, sm_handle *h, const char *remote, const char *local, sm_error *err)
{
    osb *o = p->impl;
    sm_http *x = NULL;
    int rc = osb_execd(o, h, &x, err);
    if (rc != SM_OK)
        return rc;
    char *tmp = xasprintf("%s.sandman-XXXXXX", local);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        rc = sm_error_set(err, SM_ERR_IO, SM_FAIL_TRANSFER_FAILED, "cannot write beside %s: %s",
                          local, strerror(errno));
        free(tmp);
        return rc;
    }
    char *q = sm_http_escape(remote);
    char *path = xasprintf("/files/download?path=%s", q);
    free(q);
    const char *hdrs[] = {o->key_header, NULL};
    sm_http_req r = {.method = "GET",
                     .path = path,
                     .headers = o->cfg.use_server_proxy && o->key_header ? hdrs : NULL,
                     .write_cb = to_fd,
                     .write_ud = &fd,
                     .timeout_s = o->cfg.request_timeout_s > 0 ? o->cfg.request_timeout_s : 300,
                     .idempotent = true,
                     .body_size = -1};
    sm_http_resp resp;
    rc = sm_http_do(x, &r, &resp, err);
    if (rc == SM_OK && resp.status != 200)
        rc = sm_http_status_error(err, resp.status == 404 ? SM_ERR_NOT_FOUND : SM_ERR_RUNTIME,
                                  SM_FAIL_TRANSFER_FAILED, resp.status, resp.body.data,
                                  "downloading %s", remote);
    sm_http_resp_free(&resp);
    free(path);
    if (close(fd) != 0 && rc == SM_OK)
        rc = sm_error_set(err, SM_ERR_IO, SM_FAIL_TRANSFER_FAILED, "writing %s failed", local);
    if (rc == SM_OK) {
        chmod(tmp, 0644);
        if (rename(tmp, local) != 0)
            rc = sm_error_set(err, SM_ERR_IO, SM_FAIL_TRANSFER_FAILED, "cannot write %s: %s", local,
                              strerror(errno));
    }
    if (rc != SM_OK)
        unlink(tmp);
    free(tmp);
    return rc;
}
