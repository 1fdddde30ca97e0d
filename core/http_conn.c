/* Upgraded HTTP connections (attach streams, websockets' first step): one request sent by hand
 * on a CURLOPT_CONNECT_ONLY handle, then curl_easy_send/recv on the socket, so TLS targets work
 * as unix sockets do. An error answer's body is handed back bounded. Knows no provider API. */
#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/http_internal.h"
#include "core/redact.h"
#include "core/strbuf.h"
#include "core/util.h"

#define MAX_HEADER_LEN (64 * 1024)

struct sm_http_conn {
    CURL *h;
    int fd;
    bool tls;
    pthread_mutex_t lock; /* curl_easy_send/recv on one handle are not thread-safe */
};

static int wait_fd(int fd, short events, double timeout_s)
{
    struct pollfd p = {.fd = fd, .events = events};
    int ms = timeout_s < 0 ? -1 : (int)(timeout_s * 1000 + 0.999);
    int r;
    do {
        r = poll(&p, 1, ms);
    } while (r < 0 && errno == EINTR);
    return r;
}

int sm_http_conn_recv(sm_http_conn *k, void *buf, size_t len, double timeout_s, size_t *got,
                      sm_error *err)
{
    *got = 0;
    double deadline = timeout_s < 0 ? -1 : sm_now_mono() + timeout_s;
    for (;;) {
        size_t n = 0;
        pthread_mutex_lock(&k->lock);
        CURLcode cc = curl_easy_recv(k->h, buf, len, &n);
        pthread_mutex_unlock(&k->lock);
        if (cc == CURLE_OK) {
            *got = n; /* 0 = the peer closed */
            return SM_OK;
        }
        if (cc != CURLE_AGAIN)
            return sm_error_set(err, SM_ERR_IO, SM_FAIL_PROVIDER_UNREACHABLE,
                                "reading the stream: %s", curl_easy_strerror(cc));
        double left = deadline < 0 ? -1 : deadline - sm_now_mono();
        if (deadline >= 0 && left <= 0)
            return sm_error_set(err, SM_ERR_TIMEOUT, SM_FAIL_NONE, "no data in time");
        wait_fd(k->fd, POLLIN, left);
    }
}

int sm_http_conn_send(sm_http_conn *k, const void *data, size_t len, sm_error *err)
{
    const char *p = data;
    while (len > 0) {
        size_t n = 0;
        pthread_mutex_lock(&k->lock);
        CURLcode cc = curl_easy_send(k->h, p, len, &n);
        pthread_mutex_unlock(&k->lock);
        if (cc == CURLE_AGAIN) {
            wait_fd(k->fd, POLLOUT, 30);
            continue;
        }
        if (cc != CURLE_OK)
            return sm_error_set(err, SM_ERR_IO, SM_FAIL_PROVIDER_UNREACHABLE,
                                "writing to the stream: %s", curl_easy_strerror(cc));
        p += n;
        len -= n;
    }
    return SM_OK;
}

void sm_http_conn_shutdown_write(sm_http_conn *k)
{
    if (k && !k->tls && k->fd >= 0)
        shutdown(k->fd, SHUT_WR);
}

int sm_http_conn_fd(const sm_http_conn *k)
{
    return k ? k->fd : -1;
}

void sm_http_conn_close(sm_http_conn *k)
{
    if (!k)
        return;
    curl_easy_cleanup(k->h);
    pthread_mutex_destroy(&k->lock);
    free(k);
}

/* Reads the answer's header one byte at a time so that nothing of the stream after it is
 * taken out of the socket (the caller polls the descriptor). */
static int read_header(sm_http_conn *k, double deadline, sm_strbuf *hdr, sm_error *err)
{
    while (hdr->len < MAX_HEADER_LEN) {
        if (hdr->len >= 4 && !memcmp(hdr->data + hdr->len - 4, "\r\n\r\n", 4))
            return SM_OK;
        char ch;
        size_t got;
        double left = deadline - sm_now_mono();
        int rc = sm_http_conn_recv(k, &ch, 1, left > 0 ? left : 0, &got, err);
        if (rc != SM_OK)
            return rc;
        if (got == 0)
            return sm_error_set(err, SM_ERR_RUNTIME, SM_FAIL_PROVIDER_UNREACHABLE,
                                "the connection closed before the answer's header ended");
        sm_strbuf_append(hdr, &ch, 1);
    }
    return sm_error_set(err, SM_ERR_RUNTIME, SM_FAIL_PROVIDER_UNREACHABLE,
                        "the answer's header is too long");
}

static const char *find_header(const char *hdr, const char *name)
{
    size_t n = strlen(name);
    for (const char *l = strstr(hdr, "\r\n"); l; l = strstr(l, "\r\n")) {
        l += 2;
        if (!strncasecmp(l, name, n) && l[n] == ':') {
            l += n + 1;
            while (*l == ' ')
                l++;
            return l;
        }
    }
    return NULL;
}

static int upgrade(sm_http *c, const char *method, const char *path, const char *proto,
                   const char *content_type, const void *body, size_t body_len, double timeout_s,
                   sm_http_conn **out, int *status, sm_strbuf *errbody, sm_error *err);

int sm_http_upgrade(sm_http *c, const char *method, const char *path, const char *proto,
                    const char *content_type, const void *body, size_t body_len, double timeout_s,
                    sm_http_conn **out, int *status, sm_strbuf *errbody, sm_error *err)
{
    double t_start = sm_now_mono();
    int rc = upgrade(c, method, path, proto, content_type, body, body_len, timeout_s, out, status,
                     errbody, err);
    if (sm_http_trace_on()) {
        char *p = sm_redact_dup(path);
        fprintf(stderr, "http: %s %s -> %d (%.1f ms, upgraded)\n", method, p, *status,
                (sm_now_mono() - t_start) * 1000);
        free(p);
    }
    return rc;
}

static int upgrade(sm_http *c, const char *method, const char *path, const char *proto,
                   const char *content_type, const void *body, size_t body_len, double timeout_s,
                   sm_http_conn **out, int *status, sm_strbuf *errbody, sm_error *err)
{
    *out = NULL;
    *status = 0;
    if (timeout_s <= 0)
        timeout_s = 60;
    double deadline = sm_now_mono() + timeout_s;
    sm_http_conn *k = xcalloc(1, sizeof *k);
    pthread_mutex_init(&k->lock, NULL);
    k->tls = c->tls;
    k->fd = -1;
    k->h = curl_easy_init();
    if (!k->h)
        abort();
    sm_http_common_opts(c, k->h, path);
    curl_easy_setopt(k->h, CURLOPT_CONNECT_ONLY, 1L);
    char errbuf[CURL_ERROR_SIZE] = "";
    curl_easy_setopt(k->h, CURLOPT_ERRORBUFFER, errbuf);
    CURLcode cc = curl_easy_perform(k->h);
    curl_easy_setopt(k->h, CURLOPT_ERRORBUFFER, NULL); /* errbuf does not outlive this call */
    if (cc != CURLE_OK) {
        char ubuf[128];
        sm_error_set(err, SM_ERR_RUNTIME, SM_FAIL_PROVIDER_UNREACHABLE, "cannot reach %s at %s: %s",
                     c->what, c->target,
                     c->unix_path && sm_http_never_reached(cc)
                         ? sm_http_unix_detail(c, ubuf, sizeof ubuf)
                     : errbuf[0] ? errbuf
                                 : curl_easy_strerror(cc));
        sm_http_conn_close(k);
        return SM_ERR_RUNTIME;
    }
    curl_socket_t sock = CURL_SOCKET_BAD;
    curl_easy_getinfo(k->h, CURLINFO_ACTIVESOCKET, &sock);
    k->fd = (int)sock;
    /* A long-lived stream must not stay open in a child this process starts: the peer would
     * not see it close when we do. */
    if (k->fd >= 0)
        fcntl(k->fd, F_SETFD, fcntl(k->fd, F_GETFD) | FD_CLOEXEC);

    sm_strbuf req = {0};
    sm_strbuf_printf(&req,
                     "%s %s%s HTTP/1.1\r\n%s\r\nUser-Agent: sandman\r\nConnection: Upgrade\r\n"
                     "Upgrade: %s\r\n",
                     method, c->base_path ? c->base_path : "", path, c->host_header, proto);
    if (content_type)
        sm_strbuf_printf(&req, "Content-Type: %s\r\n", content_type);
    sm_strbuf_printf(&req, "Content-Length: %zu\r\n\r\n", body ? body_len : 0);
    if (body && body_len)
        sm_strbuf_append(&req, body, body_len);
    int rc = sm_http_conn_send(k, req.data, req.len, err);
    sm_strbuf_free(&req);
    sm_strbuf hdr = {0};
    if (rc == SM_OK)
        rc = read_header(k, deadline, &hdr, err);
    if (rc != SM_OK) {
        if (rc == SM_ERR_TIMEOUT)
            sm_error_set(err, SM_ERR_TIMEOUT, SM_FAIL_PROVIDER_UNREACHABLE,
                         "%s at %s did not answer %s %s within %gs", c->what, c->target, method,
                         path, timeout_s);
        else
            sm_error_prefix(err, "%s %s on %s", method, path, c->target);
        sm_strbuf_free(&hdr);
        sm_http_conn_close(k);
        return rc;
    }
    int code = 0;
    if (sscanf(hdr.data, "HTTP/%*s %d", &code) != 1) {
        sm_strbuf_free(&hdr);
        sm_http_conn_close(k);
        return sm_error_set(err, SM_ERR_RUNTIME, SM_FAIL_PROVIDER_UNREACHABLE,
                            "%s at %s sent a malformed answer", c->what, c->target);
    }
    *status = code;
    if (code == 101 || code == 200) {
        sm_strbuf_free(&hdr);
        *out = k;
        return SM_OK;
    }
    /* An error answer: read its body (Content-Length, else until close, bounded). */
    const char *cl = find_header(hdr.data, "Content-Length");
    long want = cl ? strtol(cl, NULL, 10) : 64 * 1024;
    if (want > 64 * 1024)
        want = 64 * 1024;
    sm_strbuf eb = {0};
    while ((long)eb.len < want) {
        char buf[4096];
        size_t got = 0;
        size_t ask = (size_t)want - eb.len < sizeof buf ? (size_t)want - eb.len : sizeof buf;
        double left = cl ? deadline - sm_now_mono() : 0.5;
        if (sm_http_conn_recv(k, buf, ask, left > 0 ? left : 0, &got, NULL) != SM_OK || got == 0)
            break;
        sm_strbuf_append(&eb, buf, got);
    }
    if (errbody)
        sm_strbuf_append(errbody, eb.data ? eb.data : "", eb.len);
    sm_strbuf_free(&eb);
    sm_strbuf_free(&hdr);
    sm_http_conn_close(k);
    return SM_OK;
}
