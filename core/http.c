/* The libcurl wrapper: a pool of easy handles per client (each keeps its connections alive, so
 * consecutive calls reuse one socket), requests with retries and jittered backoff, streamed
 * bodies, and the error helpers providers share. Upgraded connections are core/http_conn.c.
 * It must not know any provider's API. */
#include "core/http.h"
#include "core/curl_lazy.h"

#include <cjson/cJSON.h>
#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "core/http_internal.h"
#include "core/json.h"
#include "core/redact.h"
#include "core/util.h"

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;

static void curl_init_once(void)
{
    curl_global_init(CURL_GLOBAL_DEFAULT);
}

/* ---------------------------------------------------------------- client */

/* Splits "scheme://[user:pass@]host[:port][/path]" into display target and host. */
static int parse_tcp_url(sm_http *c, const char *url, sm_error *err)
{
    const char *sep = strstr(url, "://");
    const char *auth = sep + 3;
    const char *end = auth + strcspn(auth, "/?#");
    const char *at = memchr(auth, '@', (size_t)(end - auth));
    const char *hoststart = at ? at + 1 : auth;
    if (hoststart == end)
        return sm_error_set(err, SM_ERR_CONFIG, SM_FAIL_INVALID_REQUEST, "URL '%s' has no host",
                            url);
    char *hostport = xstrndup(hoststart, (size_t)(end - hoststart));
    /* host without port: [v6]:port, host:port */
    if (hostport[0] == '[') {
        char *rb = strchr(hostport, ']');
        c->hostname = rb ? xstrndup(hostport + 1, (size_t)(rb - hostport - 1)) : xstrdup(hostport);
    } else {
        char *colon = strchr(hostport, ':');
        c->hostname = colon ? xstrndup(hostport, (size_t)(colon - hostport)) : xstrdup(hostport);
    }
    c->host_header = xasprintf("Host: %s", hostport);
    size_t plen = strlen(end);
    while (plen > 0 && end[plen - 1] == '/')
        plen--;
    c->target = xasprintf("%.*s://%s%.*s", (int)(sep - url), url, hostport, (int)plen, end);
    c->base_path = xstrndup(end, plen);
    free(hostport);
    /* curl gets the URL with credentials (if any); only messages use target. */
    size_t ulen = strlen(url);
    while (ulen > 0 && url[ulen - 1] == '/')
        ulen--;
    c->base = xstrndup(url, ulen);
    return SM_OK;
}

int sm_http_new(const sm_http_opts *o, sm_http **out, sm_error *err)
{
    *out = NULL;
    const char *why;
    if (!sm_curl_load(&why))
        return sm_error_set(err, SM_ERR_RUNTIME, SM_FAIL_PROVIDER_UNREACHABLE, "%s", why);
    pthread_once(&curl_once, curl_init_once);
    if (!o || !o->url || !*o->url)
        return sm_error_set(err, SM_ERR_CONFIG, SM_FAIL_INVALID_REQUEST, "empty URL");
    sm_http *c = xcalloc(1, sizeof *c);
    pthread_mutex_init(&c->lock, NULL);
    c->what = xstrdup(o->what ? o->what : "the server");
    int rc = SM_OK;
    if (sm_str_has_prefix(o->url, "unix://")) {
        const char *path = o->url + strlen("unix://");
        if (path[0] != '/')
            rc = sm_error_set(err, SM_ERR_CONFIG, SM_FAIL_INVALID_REQUEST,
                              "unix socket URL '%s' must hold an absolute path (unix:///path)",
                              o->url);
        c->unix_path = xstrdup(path);
        c->base = xstrdup("http://localhost");
        c->host_header = xstrdup("Host: localhost");
        c->base_path = xstrdup("");
        c->target = xstrdup(o->url);
    } else if (sm_str_has_prefix(o->url, "http://") || sm_str_has_prefix(o->url, "https://")) {
        c->tls = sm_str_has_prefix(o->url, "https://");
        rc = parse_tcp_url(c, o->url, err);
    } else {
        rc = sm_error_set(err, SM_ERR_CONFIG, SM_FAIL_INVALID_REQUEST,
                          "unsupported URL '%s' (use unix:///path, http://host:port or "
                          "https://host:port)",
                          o->url);
    }
    if (rc != SM_OK) {
        sm_http_free(c);
        return rc;
    }
    c->ca_file = o->ca_file ? xstrdup(o->ca_file) : NULL;
    c->cert_file = o->cert_file ? xstrdup(o->cert_file) : NULL;
    c->key_file = o->key_file ? xstrdup(o->key_file) : NULL;
    c->insecure = o->insecure;
    c->connect_timeout_ms = (long)((o->connect_timeout_s > 0 ? o->connect_timeout_s : 10) * 1000);
    c->retries = o->retries > 0 ? o->retries : 0;
    c->retry_base_s = o->retry_base_s > 0 ? o->retry_base_s : 0.1;
    c->retry_max_s = o->retry_max_s > 0 ? o->retry_max_s : 2;
    c->max_idle_s = o->max_idle_s > 0 ? (o->max_idle_s < 1 ? 1 : (long)o->max_idle_s) : 0;
    *out = c;
    return SM_OK;
}

void sm_http_free(sm_http *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->npool; i++)
        curl_easy_cleanup(c->pool[i]);
    pthread_mutex_destroy(&c->lock);
    free(c->base);
    free(c->unix_path);
    free(c->target);
    free(c->hostname);
    free(c->host_header);
    free(c->base_path);
    free(c->ca_file);
    free(c->cert_file);
    free(c->key_file);
    free(c->what);
    free(c);
}

const char *sm_http_target(const sm_http *c)
{
    return c->target;
}

const char *sm_http_hostname(const sm_http *c)
{
    return c->hostname;
}

static CURL *pool_get(sm_http *c)
{
    CURL *h = NULL;
    pthread_mutex_lock(&c->lock);
    if (c->npool)
        h = c->pool[--c->npool];
    pthread_mutex_unlock(&c->lock);
    if (!h)
        h = curl_easy_init();
    if (!h)
        abort(); /* out of memory, as xmalloc would */
    return h;
}

static void pool_put(sm_http *c, CURL *h)
{
    pthread_mutex_lock(&c->lock);
    if (c->npool < POOL_MAX) {
        c->pool[c->npool++] = h;
        h = NULL;
    }
    pthread_mutex_unlock(&c->lock);
    if (h)
        curl_easy_cleanup(h);
}

/* Options every connection needs: where to connect, TLS, no signals. */
void sm_http_common_opts(const sm_http *c, CURL *h, const char *path)
{
    char *url = xasprintf("%s%s", c->base, path ? path : "");
    curl_easy_setopt(h, CURLOPT_URL, url);
    free(url);
    if (c->unix_path)
        curl_easy_setopt(h, CURLOPT_UNIX_SOCKET_PATH, c->unix_path);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, c->connect_timeout_ms);
    curl_easy_setopt(h, CURLOPT_TCP_NODELAY, 1L);
    if (c->max_idle_s > 0)
        curl_easy_setopt(h, CURLOPT_MAXAGE_CONN, c->max_idle_s);
    if (c->tls) {
        if (c->ca_file)
            curl_easy_setopt(h, CURLOPT_CAINFO, c->ca_file);
        if (c->cert_file)
            curl_easy_setopt(h, CURLOPT_SSLCERT, c->cert_file);
        if (c->key_file)
            curl_easy_setopt(h, CURLOPT_SSLKEY, c->key_file);
        if (c->insecure) {
            curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 0L);
            curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 0L);
        }
    }
}

/* ---------------------------------------------------------------- responses */

void sm_http_resp_init(sm_http_resp *r)
{
    memset(r, 0, sizeof *r);
}

static void headers_free(char **h)
{
    for (size_t i = 0; h && h[i]; i++)
        free(h[i]);
    free(h);
}

void sm_http_resp_free(sm_http_resp *r)
{
    sm_strbuf_free(&r->body);
    headers_free(r->headers);
    sm_http_resp_init(r);
}

const char *sm_http_resp_header(const sm_http_resp *r, const char *name)
{
    size_t n = strlen(name);
    for (size_t i = 0; r->headers && r->headers[i]; i++) {
        const char *h = r->headers[i];
        if (!strncasecmp(h, name, n) && h[n] == ':') {
            h += n + 1;
            while (*h == ' ' || *h == '\t')
                h++;
            return h;
        }
    }
    return NULL;
}

typedef struct xfer {
    CURL *h;
    const sm_http_req *req;
    sm_http_resp *resp;
    size_t nheaders;
    bool delivered; /* the caller's write_cb saw data: not safe to retry */
    bool consumed;  /* the read_cb was called: not safe to retry */
    bool aborted;
} xfer;

static size_t on_header(char *data, size_t size, size_t n, void *ud)
{
    xfer *x = ud;
    size_t len = size * n;
    if (len >= 5 && !strncmp(data, "HTTP/", 5)) { /* a new answer (after 100 Continue) */
        headers_free(x->resp->headers);
        x->resp->headers = NULL;
        x->nheaders = 0;
        return len;
    }
    size_t l = len;
    while (l > 0 && (data[l - 1] == '\r' || data[l - 1] == '\n'))
        l--;
    if (l == 0 || !memchr(data, ':', l))
        return len;
    x->resp->headers = xrealloc(x->resp->headers, (x->nheaders + 2) * sizeof(char *));
    x->resp->headers[x->nheaders++] = xstrndup(data, l);
    x->resp->headers[x->nheaders] = NULL;
    return len;
}

static size_t on_write(char *data, size_t size, size_t n, void *ud)
{
    xfer *x = ud;
    size_t len = size * n;
    long code = 0;
    curl_easy_getinfo(x->h, CURLINFO_RESPONSE_CODE, &code);
    if (x->req->write_cb && code >= 200 && code < 300) {
        x->delivered = true;
        if (!x->req->write_cb(data, len, x->req->write_ud)) {
            x->aborted = true;
            return 0;
        }
        return len;
    }
    if (x->resp->body.len < 4 * 1024 * 1024)
        sm_strbuf_append(&x->resp->body, data, len);
    return len;
}

static size_t on_read(char *buf, size_t size, size_t n, void *ud)
{
    xfer *x = ud;
    x->consumed = true;
    size_t got = x->req->read_cb(buf, size * n, x->req->read_ud);
    if (got == (size_t)-1) {
        x->aborted = true;
        return CURL_READFUNC_ABORT;
    }
    return got;
}

static double backoff(const sm_http *c, int attempt)
{
    double d = c->retry_base_s;
    for (int i = 0; i < attempt; i++)
        d *= 2;
    if (d > c->retry_max_s)
        d = c->retry_max_s;
    unsigned seed = (unsigned)(sm_now_mono() * 1e6) ^ (unsigned)(uintptr_t)c;
    double jitter = 0.5 + (double)(rand_r(&seed) % 1000) / 1000.0; /* 0.5 .. 1.5 */
    return d * jitter;
}

bool sm_http_never_reached(CURLcode cc)
{
    return cc == CURLE_COULDNT_CONNECT || cc == CURLE_COULDNT_RESOLVE_HOST ||
           cc == CURLE_COULDNT_RESOLVE_PROXY;
}

/* curl words a failed unix-socket connect as "Failed to connect to localhost port 80": say
 * what connect(2) says about the socket instead. */
const char *sm_http_unix_detail(const sm_http *c, char *buf, size_t len)
{
    int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    if (s < 0 || strlen(c->unix_path) >= sizeof sa.sun_path) {
        if (s >= 0)
            close(s);
        snprintf(buf, len, "the socket path is too long");
        return buf;
    }
    snprintf(sa.sun_path, sizeof sa.sun_path, "%s", c->unix_path);
    int rc = connect(s, (struct sockaddr *)&sa, sizeof sa);
    int e = errno;
    close(s);
    snprintf(buf, len, "%s", rc == 0 ? "the connection failed" : strerror(e));
    return buf;
}

static int perform_once(sm_http *c, CURL *h, const sm_http_req *r, sm_http_resp *resp, xfer *x,
                        char *errbuf)
{
    curl_easy_reset(h);
    sm_http_common_opts(c, h, r->path);
    errbuf[0] = '\0';
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
    struct curl_slist *hdrs = NULL;
    hdrs = curl_slist_append(hdrs, "Expect:");
    char *ct = NULL;
    if (r->content_type) {
        ct = xasprintf("Content-Type: %s", r->content_type);
        hdrs = curl_slist_append(hdrs, ct);
    }
    for (size_t i = 0; r->headers && r->headers[i]; i++)
        hdrs = curl_slist_append(hdrs, r->headers[i]);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdrs);
    const char *method = r->method ? r->method : "GET";
    if (r->read_cb) {
        curl_easy_setopt(h, CURLOPT_UPLOAD, 1L);
        curl_easy_setopt(h, CURLOPT_READFUNCTION, on_read);
        curl_easy_setopt(h, CURLOPT_READDATA, x);
        if (r->body_size >= 0)
            curl_easy_setopt(h, CURLOPT_INFILESIZE_LARGE, (curl_off_t)r->body_size);
        curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, method);
    } else if (r->body || !strcmp(method, "POST") || !strcmp(method, "PUT")) {
        curl_easy_setopt(h, CURLOPT_POST, 1L);
        curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)(r->body ? r->body_len : 0));
        curl_easy_setopt(h, CURLOPT_POSTFIELDS, r->body ? (const char *)r->body : "");
        if (strcmp(method, "POST"))
            curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, method);
    } else if (!strcmp(method, "HEAD") || r->no_body) {
        curl_easy_setopt(h, CURLOPT_NOBODY, 1L);
        if (strcmp(method, "HEAD"))
            curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, method);
    } else if (strcmp(method, "GET")) {
        curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, method);
    }
    if (r->timeout_s > 0)
        curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, (long)(r->timeout_s * 1000) + 1);
    curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(h, CURLOPT_HEADERDATA, x);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_write);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, x);
    CURLcode cc = curl_easy_perform(h);
    long code = 0;
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
    curl_slist_free_all(hdrs);
    free(ct);
    resp->transport_error = cc;
    /* An answer whose body was cut short by the caller's abort still counts as an answer. */
    resp->status = (cc == CURLE_OK || (x->aborted && code > 0)) ? (int)code : 0;
    resp->timed_out = cc == CURLE_OPERATION_TIMEDOUT;
    resp->aborted = x->aborted;
    resp->maybe_sent = cc == CURLE_OK || !sm_http_never_reached(cc);
    return (int)cc;
}

/* SANDMAN_HTTP_TRACE=1: one line per request on stderr (method, path, status, time). */
bool sm_http_trace_on(void)
{
    static int on = -1;
    if (on < 0) {
        const char *v = getenv("SANDMAN_HTTP_TRACE");
        on = v && *v && strcmp(v, "0");
    }
    return on;
}

int sm_http_do(sm_http *c, const sm_http_req *r, sm_http_resp *resp, sm_error *err)
{
    sm_http_resp_init(resp);
    double t_start = sm_now_mono();
    CURL *h = pool_get(c);
    char errbuf[CURL_ERROR_SIZE];
    int cc = 0;
    for (int attempt = 0;; attempt++) {
        sm_http_resp_free(resp);
        xfer x = {.h = h, .req = r, .resp = resp};
        cc = perform_once(c, h, r, resp, &x, errbuf);
        bool safe = !x.delivered && !x.consumed && !x.aborted;
        bool retry = false;
        if (attempt < c->retries && safe) {
            if (cc != CURLE_OK && sm_http_never_reached((CURLcode)cc))
                retry = true;
            else if (r->idempotent && cc != CURLE_OK && !resp->timed_out)
                retry = true;
            else if (r->idempotent && (resp->status == 429 || resp->status == 502 ||
                                       resp->status == 503 || resp->status == 504))
                retry = true;
        }
        if (!retry)
            break;
        sm_sleep_s(backoff(c, attempt), NULL);
    }
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, NULL); /* errbuf is about to go out of scope */
    pool_put(c, h);
    if (sm_http_trace_on()) {
        char *path = sm_redact_dup(r->path);
        fprintf(stderr, "http: %s %s -> %d (%.1f ms)\n", r->method ? r->method : "GET", path,
                resp->status, (sm_now_mono() - t_start) * 1000);
        free(path);
    }
    if (resp->status > 0)
        return SM_OK;
    const char *detail = errbuf[0] ? errbuf : curl_easy_strerror((CURLcode)cc);
    if (resp->aborted)
        return sm_error_set(err, SM_ERR_IO, SM_FAIL_NONE, "%s %s: transfer stopped: %s",
                            r->method ? r->method : "GET", r->path, detail);
    int code = resp->timed_out ? SM_ERR_TIMEOUT : SM_ERR_RUNTIME;
    if (resp->timed_out)
        sm_error_set(err, code, SM_FAIL_PROVIDER_UNREACHABLE,
                     "%s at %s did not answer %s %s within %gs", c->what, c->target,
                     r->method ? r->method : "GET", r->path, r->timeout_s);
    else if (sm_http_never_reached((CURLcode)cc)) {
        char ubuf[128];
        sm_error_set(err, code, SM_FAIL_PROVIDER_UNREACHABLE, "cannot reach %s at %s: %s", c->what,
                     c->target, c->unix_path ? sm_http_unix_detail(c, ubuf, sizeof ubuf) : detail);
    } else
        sm_error_set(err, code, SM_FAIL_PROVIDER_UNREACHABLE,
                     "%s at %s gave no answer to %s %s: %s", c->what, c->target,
                     r->method ? r->method : "GET", r->path, detail);
    if (err)
        err->failure.http_status = 0;
    return code;
}

int sm_http_json(sm_http *c, const char *method, const char *path, const cJSON *body,
                 double timeout_s, bool idempotent, int *status, cJSON **reply, sm_error *err)
{
    char *text = body ? sm_json_print(body) : NULL;
    sm_http_req r = {
        .method = method,
        .path = path,
        .content_type = text ? "application/json" : NULL,
        .body = text,
        .body_len = text ? strlen(text) : 0,
        .timeout_s = timeout_s,
        .idempotent = idempotent,
        .body_size = -1,
    };
    sm_http_resp resp;
    int rc = sm_http_do(c, &r, &resp, err);
    free(text);
    if (reply)
        *reply = NULL;
    if (status)
        *status = resp.status;
    if (rc == SM_OK && reply && resp.body.len)
        *reply = cJSON_ParseWithLength(resp.body.data, resp.body.len);
    sm_http_resp_free(&resp);
    return rc;
}

void sm_http_body_reason(const char *body, char *buf, size_t len)
{
    buf[0] = '\0';
    if (!body || !*body)
        return;
    cJSON *j = cJSON_Parse(body);
    const char *m = j ? sm_json_str(j, "message") : NULL;
    if (!m && j)
        m = sm_json_str(j, "error");
    if (m) {
        snprintf(buf, len, "%s", m);
    } else {
        size_t n = strcspn(body, "\r\n");
        snprintf(buf, len, "%.*s", (int)n, body);
    }
    cJSON_Delete(j);
}

int sm_http_status_error(sm_error *err, int code, sm_failure_kind otherwise, int status,
                         const char *body, const char *fmt, ...)
{
    char what[256], reason[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    sm_http_body_reason(body, reason, sizeof reason);
    sm_failure_kind kind = sm_failure_classify_http(status, otherwise);
    if (reason[0])
        sm_error_set(err, code, kind, "%s: %s (HTTP %d)", what, reason, status);
    else
        sm_error_set(err, code, kind, "%s: HTTP %d", what, status);
    if (err) {
        err->failure.http_status = status;
        snprintf(err->failure.provider_reason, sizeof err->failure.provider_reason, "%s", reason);
    }
    return code;
}

char *sm_http_escape(const char *s)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t n = strlen(s);
    char *out = xmalloc(n * 3 + 1), *o = out;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
            *p == '-' || *p == '.' || *p == '_' || *p == '~' || *p == '/') {
            *o++ = (char)*p;
        } else {
            *o++ = '%';
            *o++ = hex[*p >> 4];
            *o++ = hex[*p & 15];
        }
    }
    *o = '\0';
    return out;
}
