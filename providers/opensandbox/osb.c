/* The opensandbox provider: sandboxes of an OpenSandbox server (spec/opensandbox-api.md),
 * driven over its lifecycle REST API with core/http.c; commands and files go to the sandbox's
 * execd (osb_exec.c). This file is the vtable and the lifecycle: create (its body from osb_body.c,
 * attempt label, lost replies found and deleted, jittered backoff on retryable answers only,
 * readiness probe), status, close, list, endpoint, pause/resume, serialize/connect. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/json.h"
#include "core/redact.h"
#include "core/util.h"
#include "providers/opensandbox/osb.h"
#include "providers/opensandbox/osb_provider.h"

int osb_call(osb *o, const char *method, const char *path, const cJSON *body, double timeout_s,
             bool idempotent, int *status, cJSON **reply, sm_error *err)
{
    char *text = body ? sm_json_print(body) : NULL;
    const char *hdrs[] = {o->key_header, "Accept: application/json", NULL};
    sm_http_req r = {.method = method,
                     .path = path,
                     .headers = o->key_header ? hdrs : hdrs + 1,
                     .content_type = text ? "application/json" : NULL,
                     .body = text,
                     .body_len = text ? strlen(text) : 0,
                     .timeout_s = timeout_s,
                     .idempotent = idempotent,
                     .body_size = -1};
    sm_http_resp resp;
    int rc = sm_http_do(o->api, &r, &resp, err);
    free(text);
    *status = resp.status;
    if (reply) {
        *reply = NULL;
        if (rc == SM_OK && resp.body.len)
            *reply = cJSON_ParseWithLength(resp.body.data, resp.body.len);
        /* an error answer that is not JSON still says something */
        if (rc == SM_OK && !*reply && resp.status >= 300 && resp.body.len) {
            *reply = cJSON_CreateObject();
            char reason[200];
            sm_http_body_reason(resp.body.data, reason, sizeof reason);
            cJSON_AddStringToObject(*reply, "message", reason);
        }
    }
    sm_http_resp_free(&resp);
    return rc;
}

/* An error from an answer: the server's message, FastAPI's 422 detail, or the status. */
static int answer_error(sm_error *err, int status, const cJSON *reply, sm_failure_kind otherwise,
                        const char *what)
{
    char reason[200] = "";
    const char *m = sm_json_str(reply, "message");
    const cJSON *detail = cJSON_GetObjectItemCaseSensitive(reply, "detail");
    if (m)
        snprintf(reason, sizeof reason, "%s", m);
    else if (cJSON_IsArray(detail) && cJSON_GetArraySize(detail) > 0) {
        const cJSON *d = cJSON_GetArrayItem(detail, 0);
        const cJSON *loc = cJSON_GetObjectItemCaseSensitive(d, "loc");
        const cJSON *last = cJSON_GetArrayItem(loc, cJSON_GetArraySize(loc) - 1);
        snprintf(reason, sizeof reason, "%s%s%s", cJSON_IsString(last) ? last->valuestring : "",
                 cJSON_IsString(last) ? ": " : "",
                 sm_json_str(d, "msg") ? sm_json_str(d, "msg") : "invalid");
    }
    const char *code = sm_json_str(reply, "code");
    sm_failure_kind kind = sm_failure_classify_http(status, otherwise);
    int ec = status == 404                    ? SM_ERR_NOT_FOUND
             : status == 422 || status == 400 ? SM_ERR_INVALID
                                              : SM_ERR_RUNTIME;
    sm_error_set(err, ec, kind, "%s: %s%s%s (HTTP %d)", what, reason[0] ? reason : "failed",
                 code ? " " : "", code ? code : "", status);
    if (err) {
        err->failure.http_status = status;
        snprintf(err->failure.provider_reason, sizeof err->failure.provider_reason, "%s",
                 code ? code : reason);
    }
    return ec;
}

osb_box *osb_box_of(sm_handle *h)
{
    if (!h->raw) {
        osb_box *b = xcalloc(1, sizeof *b);
        pthread_mutex_init(&b->lock, NULL);
        b->expires_at = -1;
        h->raw = b;
    }
    return h->raw;
}

static void box_fill(osb_box *b, const cJSON *sb, const char *prefix)
{
    const char *exp = sm_json_str(sb, "expiresAt");
    pthread_mutex_lock(&b->lock);
    b->expires_at = exp ? sm_parse_time(exp) : -1;
    const cJSON *md = cJSON_GetObjectItemCaseSensitive(sb, "metadata");
    char *key = xasprintf("%s" OSB_PORTS_KEY, prefix);
    const char *ports = sm_json_str(md, key);
    free(key);
    key = xasprintf("%s" OSB_WORKDIR_KEY, prefix);
    const char *wd = sm_json_str(md, key);
    free(key);
    if (wd && !b->workdir)
        b->workdir = osb_workdir_unlabel(wd);
    if (ports && !b->ports) {
        for (const char *q = ports; *q;) {
            long v = strtol(q, (char **)&q, 10);
            if (v > 0) {
                b->ports = xrealloc(b->ports, (b->nports + 1) * sizeof(int));
                b->ports[b->nports++] = (int)v;
            }
            while (*q && (*q < '0' || *q > '9'))
                q++;
        }
    }
    pthread_mutex_unlock(&b->lock);
}

/* The server's endpoint for a sandbox's port: its URL (a scheme added when the server leaves it
 * out, as the real one does) into *url, and the reply (headers) into *reply; both the caller's. */
static int endpoint_of(osb *o, sm_handle *h, int port, const char *what, char **url, cJSON **reply,
                       sm_error *err)
{
    *url = NULL;
    *reply = NULL;
    char *path = xasprintf("/sandboxes/%s/endpoints/%d%s", h->id, port,
                           o->cfg.use_server_proxy ? "?use_server_proxy=true" : "");
    int status = 0;
    int rc = osb_call(o, "GET", path, NULL, o->cfg.request_timeout_s, true, &status, reply, err);
    free(path);
    const char *ep = sm_json_str(*reply, "endpoint");
    if (rc == SM_OK && (status != 200 || !ep))
        rc = answer_error(err, status, *reply, SM_FAIL_SANDBOX_ERROR, what);
    if (rc == SM_OK)
        *url = strstr(ep, "://") ? xstrdup(ep) : xasprintf("%s://%s", o->cfg.protocol, ep);
    return rc;
}

int osb_execd(osb *o, sm_handle *h, sm_http **out, sm_error *err)
{
    osb_box *b = osb_box_of(h);
    pthread_mutex_lock(&b->lock);
    sm_http *have = b->execd;
    pthread_mutex_unlock(&b->lock);
    if (have) {
        *out = have;
        return SM_OK;
    }
    char *url;
    cJSON *reply;
    int rc = endpoint_of(o, h, 44772, "execd endpoint", &url, &reply, err);
    if (rc == SM_OK) {
        sm_http_opts ho = {.url = url,
                           .what = "the sandbox's execd",
                           .connect_timeout_s = 10,
                           .retries = (int)o->cfg.op_retries,
                           .retry_base_s = o->cfg.op_retry_delay_s,
                           .retry_max_s = o->cfg.op_retry_max_delay_s,
                           .max_idle_s = o->cfg.keepalive_expiry_s};
        sm_http *c = NULL;
        rc = sm_http_new(&ho, &c, err);
        free(url);
        if (rc == SM_OK) {
            pthread_mutex_lock(&b->lock);
            if (b->execd)
                sm_http_free(c);
            else
                b->execd = c;
            *out = b->execd;
            pthread_mutex_unlock(&b->lock);
        }
    }
    cJSON_Delete(reply);
    return rc;
}

/* ---------------------------------------------------------------- create */

static double backoff(double base, double cap, int attempt)
{
    double d = base * pow(2, attempt);
    if (d > cap)
        d = cap;
    unsigned seed = (unsigned)(sm_now_mono() * 1e6);
    return d * (0.5 + (double)(rand_r(&seed) % 1000) / 1000.0);
}

static void nap(double s)
{
    if (s > 0)
        usleep((useconds_t)(s * 1e6));
}

static int do_list(osb *o, const sm_map *labels, cJSON **items, sm_error *err);

/* A create whose reply was lost: whatever carries its attempt label is deleted. */
static void sweep_attempt(osb *o, const char *attempt)
{
    sm_map f = {0};
    char *k = xasprintf("%s" OSB_ATTEMPT_KEY, o->cfg.key_prefix);
    sm_map_set(&f, k, attempt);
    free(k);
    cJSON *items = NULL;
    if (do_list(o, &f, &items, NULL) == SM_OK) {
        const cJSON *it;
        cJSON_ArrayForEach(it, items)
        {
            const char *id = sm_json_str(it, "id");
            char *path = xasprintf("/sandboxes/%s", id ? id : "");
            int st = 0;
            osb_call(o, "DELETE", path, NULL, o->cfg.close_timeout_s, true, &st, NULL, NULL);
            free(path);
        }
    }
    cJSON_Delete(items);
    sm_map_free(&f);
}

static bool retryable(int status)
{
    return status == 408 || status == 409 || status == 425 || status == 429 || status == 500 ||
           status == 502 || status == 503 || status == 504;
}

static int probe(sm_provider *p, sm_handle *h, double deadline, sm_error *err)
{
    osb *o = p->impl;
    long passes = 0;
    char last[256] = "no answer";
    while (passes < o->cfg.probe_stable_count) {
        sm_exec_request rq;
        sm_exec_request_init(&rq);
        rq.cmd = o->cfg.probe_command;
        rq.user = "root";
        rq.cwd = "/";
        rq.timeout_s = o->cfg.probe_timeout_s;
        sm_exec_result r;
        sm_exec_result_init(&r);
        sm_error e;
        sm_error_clear(&e);
        int rc = osb_exec(p, h, &rq, &r, &e);
        bool ok = rc == SM_OK && r.return_code == 0 && !r.error_type &&
                  (!o->cfg.probe_expected || (r.out && strstr(r.out, o->cfg.probe_expected)));
        if (!ok)
            snprintf(last, sizeof last, "%s", rc != SM_OK ? e.msg : r.err ? r.err : "wrong output");
        sm_exec_result_free(&r);
        passes = ok ? passes + 1 : 0;
        if (passes >= o->cfg.probe_stable_count)
            break;
        if (sm_now_mono() >= deadline)
            return sm_error_set(err, SM_ERR_TIMEOUT, SM_FAIL_CREATE_FAILED,
                                "sandbox %s did not pass its readiness probe: %s", h->id, last);
        nap(ok ? o->cfg.probe_stable_delay_s : 0.2);
    }
    return SM_OK;
}

static int osb_create(sm_provider *p, const sm_spec *spec, sm_handle **out, sm_error *err)
{
    osb *o = p->impl;
    *out = NULL;
    double t0 = sm_now_mono();
    double budget = spec->ready_timeout_s > 0     ? spec->ready_timeout_s
                    : o->cfg.create_timeout_s > 0 ? o->cfg.create_timeout_s
                                                  : 1500;
    for (int attempt = 0;; attempt++) {
        char tag[25];
        sm_random_hex(tag, 24);
        cJSON *body = osb_create_body(o, p, spec, tag, err);
        if (!body)
            return err ? err->code : SM_ERR_INVALID;
        int status = 0;
        cJSON *reply = NULL;
        sm_error e;
        sm_error_clear(&e);
        double rt = o->cfg.create_request_timeout_s > 0 ? o->cfg.create_request_timeout_s : 0;
        int rc = osb_call(o, "POST", "/sandboxes", body, rt, false, &status, &reply, &e);
        cJSON_Delete(body);
        const char *id = sm_json_str(reply, "id");
        if (rc == SM_OK && (status == 202 || status == 200) && id) {
            sm_handle *h = sm_handle_new(id, "opensandbox");
            osb_box *b = osb_box_of(h);
            box_fill(b, reply, "");
            b->ports = spec->nports ? xcalloc(spec->nports, sizeof(int)) : NULL;
            for (size_t i = 0; i < spec->nports; i++)
                b->ports[i] = spec->ports[i];
            b->nports = spec->nports;
            b->workdir = spec->workdir ? xstrdup(spec->workdir) : NULL;
            cJSON_Delete(reply);
            bool skip = o->cfg.skip_health_check ||
                        cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(spec->provider_options,
                                                                      "skip_health_check"));
            double deadline = t0 + budget;
            if (o->cfg.probe_deadline_s > 0 && sm_now_mono() + o->cfg.probe_deadline_s < deadline)
                deadline = sm_now_mono() + o->cfg.probe_deadline_s;
            rc = skip ? SM_OK : probe(p, h, deadline, err);
            if (rc == SM_OK && spec->workdir) {
                /* the image need not have it; commands start there */
                char *q = sm_shell_quote(spec->workdir);
                char *cmd = xasprintf("mkdir -p %s", q);
                sm_exec_request rq;
                sm_exec_request_init(&rq);
                rq.cmd = cmd;
                rq.cwd = "/";
                rq.user = "root";
                rq.timeout_s = o->cfg.probe_timeout_s;
                sm_exec_result r;
                rc = osb_exec(p, h, &rq, &r, err);
                if (rc == SM_OK && r.return_code != 0)
                    rc = sm_error_set(err, SM_ERR_RUNTIME, SM_FAIL_CREATE_FAILED,
                                      "cannot create the workdir %s in sandbox %s: %.*s",
                                      spec->workdir, h->id, (int)r.err_len, r.err ? r.err : "");
                sm_exec_result_free(&r);
                free(cmd);
                free(q);
            }
            if (rc != SM_OK) {
                p->ops->close(p, h, NULL);
                sm_handle_free(p, h);
                return rc;
            }
            if (o->cfg.warnings)
                h->warning = xasprintf("opensandbox: %s", o->cfg.warnings);
            *out = h;
            return SM_OK;
        }
        /* no usable reply: a sandbox may exist all the same */
        bool lost = rc != SM_OK ? e.failure.kind != SM_FAIL_NONE : !id;
        if (lost || retryable(status))
            sweep_attempt(o, tag);
        bool again = (rc != SM_OK || retryable(status) || (status >= 200 && status < 300)) &&
                     attempt < o->cfg.create_retries && sm_now_mono() - t0 < budget;
        if (!again) {
            if (rc != SM_OK) {
                if (err)
                    *err = e;
            } else if (status >= 200 && status < 300) {
                sm_error_set(err, SM_ERR_RUNTIME, SM_FAIL_CREATE_FAILED,
                             "creating a sandbox: the server's answer (HTTP %d) was not a "
                             "sandbox",
                             status);
            } else {
                answer_error(err, status, reply, SM_FAIL_CREATE_FAILED, "creating a sandbox");
            }
            cJSON_Delete(reply);
            return err ? err->code : SM_ERR_RUNTIME;
        }
        cJSON_Delete(reply);
        nap(backoff(o->cfg.create_retry_delay_s, o->cfg.create_retry_max_delay_s, attempt));
    }
}

/* ---------------------------------------------------------------- status, list */

static sm_status map_state(const char *s)
{
    static const char *const run[] = {"running", "active", "ready",
                                      "pausing", "paused", "resuming"};
    static const char *const start[] = {"pending", "creating", "initializing", "starting"};
    static const char *const stop[] = {"stopping", "terminated", "completed",
                                       "deleted",  "exited",     "stopped"};
    static const char *const bad[] = {"failed", "error", "crashed", "unhealthy"};
    for (size_t i = 0; s && i < SM_ARRAY_LEN(run); i++)
        if (!strcasecmp(s, run[i]))
            return SM_STATUS_RUNNING;
    for (size_t i = 0; s && i < SM_ARRAY_LEN(start); i++)
        if (!strcasecmp(s, start[i]))
            return SM_STATUS_STARTING;
    for (size_t i = 0; s && i < SM_ARRAY_LEN(stop); i++)
        if (!strcasecmp(s, stop[i]))
            return SM_STATUS_STOPPED;
    for (size_t i = 0; s && i < SM_ARRAY_LEN(bad); i++)
        if (!strcasecmp(s, bad[i]))
            return SM_STATUS_ERROR;
    return SM_STATUS_UNKNOWN;
}

static void info_from(const cJSON *sb, sm_sandbox_info *info)
{
    sm_sandbox_info_init(info);
    info->id = xstrdup(sm_json_str(sb, "id") ? sm_json_str(sb, "id") : "");
    info->provider = xstrdup("opensandbox");
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(sb, "status");
    const char *state = sm_json_str(st, "state");
    info->status = map_state(state);
    const char *reason = sm_json_str(st, "reason"), *msg = sm_json_str(st, "message");
    if (state && (reason || msg))
        info->detail = xasprintf("%s%s%s%s%s", state, reason ? " " : "", reason ? reason : "",
                                 msg ? ": " : "", msg ? msg : "");
    if (reason && (strstr(reason, "OOM") || (msg && strstr(msg, "OOMKilled"))))
        info->failure.kind = SM_FAIL_OOM;
    else if (info->status == SM_STATUS_ERROR)
        info->failure.kind = SM_FAIL_SANDBOX_ERROR;
    if (reason)
        snprintf(info->failure.provider_reason, sizeof info->failure.provider_reason, "%s", reason);
    const cJSON *im = cJSON_GetObjectItemCaseSensitive(sb, "image");
    if (sm_json_str(im, "uri"))
        info->image = xstrdup(sm_json_str(im, "uri"));
    info->created_at = sm_parse_time(sm_json_str(sb, "createdAt"));
    double exp = sm_parse_time(sm_json_str(sb, "expiresAt"));
    if (exp > 0 && info->created_at > 0)
        info->ttl_s = round(exp - info->created_at);
    const cJSON *md = cJSON_GetObjectItemCaseSensitive(sb, "metadata");
    if (cJSON_IsObject(md))
        sm_map_from_json(md, &info->labels, NULL, 0);
}

static int osb_status(sm_provider *p, sm_handle *h, sm_sandbox_info *info, sm_error *err)
{
    osb *o = p->impl;
    char *path = xasprintf("/sandboxes/%s", h->id);
    int status = 0;
    cJSON *reply = NULL;
    sm_error e;
    sm_error_clear(&e);
    int rc = osb_call(o, "GET", path, NULL, o->cfg.request_timeout_s, true, &status, &reply, &e);
    free(path);
    if (rc == SM_OK && status == 200 && cJSON_IsObject(reply)) {
        info_from(reply, info);
        box_fill(osb_box_of(h), reply, o->cfg.key_prefix);
    } else {
        sm_sandbox_info_init(info);
        info->id = xstrdup(h->id);
        info->provider = xstrdup("opensandbox");
        if (rc == SM_OK && status == 404) {
            osb_box *b = osb_box_of(h);
            info->status = SM_STATUS_STOPPED;
            bool expired = b->expires_at > 0 && sm_now_wall() >= b->expires_at - 1;
            info->failure.kind = expired ? SM_FAIL_TTL_EXPIRED : SM_FAIL_NOT_FOUND;
            snprintf(info->failure.reason, sizeof info->failure.reason, "%s",
                     expired ? "the server removed it at its expiry"
                             : "the server has no such "
                               "sandbox");
        } else {
            info->status = SM_STATUS_UNKNOWN;
            if (rc == SM_OK)
                answer_error(&e, status, reply, SM_FAIL_SANDBOX_ERROR, "status");
            info->failure = e.failure;
            info->detail = xstrdup(e.msg);
        }
    }
    cJSON_Delete(reply);
    return SM_OK;
}

static int do_list(osb *o, const sm_map *labels, cJSON **items, sm_error *err)
{
    *items = cJSON_CreateArray();
    sm_strbuf md = {0};
    for (size_t i = 0; labels && i < labels->n; i++)
        sm_strbuf_printf(&md, "%s%s=%s", i ? "&" : "", labels->items[i].key,
                         labels->items[i].value);
    char *mq = md.len ? sm_http_escape(md.data) : NULL;
    sm_strbuf_free(&md);
    cJSON *seen = cJSON_CreateObject();
    int rc = SM_OK;
    for (long page = 1; page < 10000; page++) {
        char *path = xasprintf("/sandboxes?page=%ld&pageSize=100%s%s", page, mq ? "&metadata=" : "",
                               mq ? mq : "");
        int status = 0;
        cJSON *reply = NULL;
        rc = osb_call(o, "GET", path, NULL, o->cfg.request_timeout_s, true, &status, &reply, err);
        free(path);
        const cJSON *its = cJSON_GetObjectItemCaseSensitive(reply, "items");
        if (rc == SM_OK && (status != 200 || !cJSON_IsArray(its)))
            rc = status == 200
                     ? sm_error_set(err, SM_ERR_RUNTIME, SM_FAIL_SANDBOX_ERROR,
                                    "listing sandboxes: the server's answer is not a "
                                    "list")
                     : answer_error(err, status, reply, SM_FAIL_SANDBOX_ERROR, "listing sandboxes");
        if (rc != SM_OK) {
            cJSON_Delete(reply);
            break;
        }
        const cJSON *it;
        cJSON_ArrayForEach(it, its)
        {
            const char *id = sm_json_str(it, "id");
            if (!id || cJSON_GetObjectItemCaseSensitive(seen, id))
                continue; /* pages shift while sandboxes come and go */
            cJSON_AddTrueToObject(seen, id);
            cJSON_AddItemToArray(*items, cJSON_Duplicate(it, 1));
        }
        const cJSON *pg = cJSON_GetObjectItemCaseSensitive(reply, "pagination");
        bool more = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(pg, "hasNextPage"));
        cJSON_Delete(reply);
        if (!more)
            break;
    }
    free(mq);
    cJSON_Delete(seen);
    return rc;
}

static int osb_list(sm_provider *p, const sm_list_filter *f, sm_sandbox_info **out, size_t *n,
                    sm_error *err)
{
    cJSON *items = NULL;
    *out = NULL;
    *n = 0;
    int rc = do_list(p->impl, f ? f->labels : NULL, &items, err);
    if (rc == SM_OK) {
        size_t cnt = (size_t)cJSON_GetArraySize(items), i = 0;
        *out = xcalloc(cnt ? cnt : 1, sizeof **out);
        const cJSON *it;
        cJSON_ArrayForEach(it, items) info_from(it, &(*out)[i++]);
        *n = cnt;
        sm_sandbox_info_sort(*out, *n);
    }
    cJSON_Delete(items);
    return rc;
}

/* ---------------------------------------------------------------- close, pause, endpoint */

static int osb_close(sm_provider *p, sm_handle *h, sm_error *err)
{
    osb *o = p->impl;
    char *path = xasprintf("/sandboxes/%s", h->id);
    int status = 0;
    cJSON *reply = NULL;
    int rc = osb_call(o, "DELETE", path, NULL, o->cfg.close_timeout_s, true, &status, &reply, err);
    free(path);
    if (rc == SM_OK && status != 204 && status != 200 && status != 404)
        rc = answer_error(err, status, reply, SM_FAIL_SANDBOX_ERROR, "removing the sandbox");
    cJSON_Delete(reply);
    if (rc != SM_OK && err)
        snprintf(err->failure.operation, sizeof err->failure.operation, "close");
    return rc;
}

static int pause_resume(sm_provider *p, sm_handle *h, const char *what, sm_error *err)
{
    osb *o = p->impl;
    char *path = xasprintf("/sandboxes/%s/%s", h->id, what);
    int status = 0;
    cJSON *reply = NULL;
    int rc = osb_call(o, "POST", path, NULL, o->cfg.request_timeout_s, false, &status, &reply, err);
    free(path);
    if (rc == SM_OK && status != 202 && status != 200 && status != 204)
        rc = answer_error(err, status, reply, SM_FAIL_SANDBOX_ERROR, what);
    cJSON_Delete(reply);
    return rc;
}

static int osb_pause(sm_provider *p, sm_handle *h, sm_error *err)
{
    return pause_resume(p, h, "pause", err);
}

static int osb_resume(sm_provider *p, sm_handle *h, sm_error *err)
{
    return pause_resume(p, h, "resume", err);
}

static int osb_endpoint(sm_provider *p, sm_handle *h, int port, sm_endpoint *out, sm_error *err)
{
    osb *o = p->impl;
    osb_box *b = osb_box_of(h);
    pthread_mutex_lock(&b->lock);
    bool declared = false;
    for (size_t i = 0; i < b->nports; i++)
        declared |= b->ports[i] == port;
    char msg[256];
    if (!declared)
        sm_ports_undeclared_msg(port, b->ports, b->nports, msg, sizeof msg);
    pthread_mutex_unlock(&b->lock);
    if (!declared)
        return sm_error_set(err, SM_ERR_INVALID, SM_FAIL_INVALID_REQUEST, "%s", msg);
    char *url;
    cJSON *reply;
    int rc = endpoint_of(o, h, port, "endpoint", &url, &reply, err);
    if (rc == SM_OK) {
        rc = sm_endpoint_set(out, url, err);
        free(url);
        const cJSON *hd;
        cJSON_ArrayForEach(
            hd, cJSON_GetObjectItemCaseSensitive(reply, "headers")) if (cJSON_IsString(hd))
            sm_map_set(&out->headers, hd->string, hd->valuestring);
        if (rc == SM_OK && o->cfg.use_server_proxy && o->cfg.api_key)
            sm_map_set(&out->headers, "OPEN-SANDBOX-API-KEY", o->cfg.api_key);
    }
    cJSON_Delete(reply);
    return rc;
}

/* ---------------------------------------------------------------- handles, provider */

static cJSON *osb_serialize(sm_provider *p, sm_handle *h)
{
    cJSON *d = cJSON_CreateObject();
    cJSON_AddStringToObject(d, "sandbox_id", h->id);
    return d;
}

static int osb_connect(sm_provider *p, const cJSON *desc, sm_handle **out, sm_error *err)
{
    osb *o = p->impl;
    const char *id = sm_json_str(desc, "sandbox_id");
    if (!id || !*id)
        return sm_error_set(err, SM_ERR_INVALID, SM_FAIL_INVALID_REQUEST,
                            "descriptor has no sandbox_id");
    char *path = xasprintf("/sandboxes/%s", id);
    int status = 0;
    cJSON *reply = NULL;
    int rc = osb_call(o, "GET", path, NULL, o->cfg.request_timeout_s, true, &status, &reply, err);
    free(path);
    if (rc == SM_OK && status != 200)
        rc = answer_error(err, status, reply, SM_FAIL_NOT_FOUND, "connecting");
    if (rc == SM_OK) {
        sm_handle *h = sm_handle_new(id, "opensandbox");
        box_fill(osb_box_of(h), reply, o->cfg.key_prefix);
        *out = h;
    }
    cJSON_Delete(reply);
    return rc;
}

static void osb_handle_free(sm_provider *p, sm_handle *h)
{
    osb_box *b = h->raw;
    if (b) {
        sm_http_free(b->execd);
        free(b->ports);
        free(b->workdir);
        pthread_mutex_destroy(&b->lock);
        free(b);
    }
    h->raw = NULL;
}

static int osb_init(sm_provider *p, const cJSON *config, sm_error *err)
{
    osb *o = xcalloc(1, sizeof *o);
    p->impl = o;
    int rc = osb_cfg_parse(config, &o->cfg, err);
    if (rc != SM_OK)
        return rc;
    if (o->cfg.api_key && *o->cfg.api_key) {
        sm_redact_register(o->cfg.api_key);
        o->key_header = xasprintf("OPEN-SANDBOX-API-KEY: %s", o->cfg.api_key);
    }
    const char *d = o->cfg.domain;
    char *url =
        strstr(d, "://") ? xasprintf("%s/v1", d) : xasprintf("%s://%s/v1", o->cfg.protocol, d);
    sm_http_opts ho = {.url = url,
                       .what = "the OpenSandbox server",
                       .retries = (int)(o->cfg.op_retries > o->cfg.connect_retries
                                            ? o->cfg.op_retries
                                            : o->cfg.connect_retries),
                       .retry_base_s = o->cfg.op_retry_delay_s,
                       .retry_max_s = o->cfg.op_retry_max_delay_s,
                       .max_idle_s = o->cfg.disable_pooling ? 1 : o->cfg.keepalive_expiry_s};
    rc = sm_http_new(&ho, &o->api, err);
    free(url);
    return rc;
}

static void osb_destroy(sm_provider *p)
{
    osb *o = p->impl;
    if (!o)
        return;
    sm_http_free(o->api);
    osb_cfg_free(&o->cfg);
    free(o->key_header);
    free(o);
    p->impl = NULL;
}

static char *osb_describe(sm_provider *p)
{
    osb *o = p->impl;
    return xasprintf("server at %s; execd %s%s%s", sm_http_target(o->api),
                     o->cfg.use_server_proxy ? "through the server's proxy" : "direct",
                     o->cfg.warnings ? "; warning: " : "", o->cfg.warnings ? o->cfg.warnings : "");
}

const sm_provider_ops sm_opensandbox_provider_ops = {
    .name = "opensandbox",
    .summary = "sandboxes of an OpenSandbox server (Kubernetes) over its REST API and execd",
    .caps = SM_CAP_ENDPOINT | SM_CAP_LIST | SM_CAP_CONNECT | SM_CAP_PAUSE,
    .config_keys = osb_config_keys,
    .init = osb_init,
    .destroy = osb_destroy,
    .create = osb_create,
    .exec = osb_exec,
    .upload = osb_upload,
    .download = osb_download,
    .status = osb_status,
    .close = osb_close,
    .handle_free = osb_handle_free,
    .endpoint = osb_endpoint,
    .list = osb_list,
    .serialize = osb_serialize,
    .connect = osb_connect,
    .pause = osb_pause,
    .resume = osb_resume,
    .describe = osb_describe,
};
