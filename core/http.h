/* One libcurl wrapper for every HTTP-speaking provider (DESIGN.md §1): requests over a unix
 * socket or TCP (optionally TLS with client certificates), JSON helpers, streamed request and
 * response bodies, retries with jittered exponential backoff, upgraded (hijacked) connections,
 * and errors that name the target and never carry a secret. Provider-neutral: it knows HTTP,
 * not Docker. A client is safe to use from several threads at once (a pool of curl handles,
 * each keeping its connections alive). */
#ifndef SM_HTTP_H
#define SM_HTTP_H

#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"
#include "core/strbuf.h"

typedef struct cJSON cJSON;
typedef struct sm_http sm_http;

typedef struct sm_http_opts {
    /* "unix:///path/to.sock", "http://host:port" or "https://host:port" (a path prefix is
     * allowed: "https://api.example.com/v1"). */
    const char *url;
    const char *ca_file;      /* TLS: CA bundle to verify the server with (NULL = system) */
    const char *cert_file;    /* TLS client certificate (PEM), NULL = none */
    const char *key_file;     /* its key */
    bool insecure;            /* TLS without verifying the server (never the default) */
    double connect_timeout_s; /* <= 0: 10 s */
    int retries;              /* extra attempts for retryable failures (see sm_http_do) */
    double retry_base_s;      /* first backoff; doubles per attempt, jittered (<= 0: 0.1 s) */
    double retry_max_s;       /* backoff cap (<= 0: 2 s) */
    const char *what;         /* "the Docker engine": used in error messages */
    /* Longest a kept-alive connection may sit idle and still be reused (<= 0: libcurl's
     * default). Keep it below the server's own keep-alive (uvicorn closes after 5 s), so a
     * request never goes out on a socket the server is closing. */
    double max_idle_s;
} sm_http_opts;

/* Builds a client. Errors: a malformed URL (SM_ERR_CONFIG). *out is owned by the caller. */
int sm_http_new(const sm_http_opts *o, sm_http **out, sm_error *err);
void sm_http_free(sm_http *c);
/* The target as shown in messages ("unix:///run/docker.sock", "https://host:2376"), with any
 * user:password part removed. Static for the client's life. */
const char *sm_http_target(const sm_http *c);
/* The host name of a TCP target (NULL for unix sockets). */
const char *sm_http_hostname(const sm_http *c);

typedef struct sm_http_req {
    const char *method;         /* "GET", "POST", ... */
    const char *path;           /* path + query, already escaped; appended to the URL */
    const char *const *headers; /* extra "Name: value" lines, NULL-terminated, may be NULL */
    const char *content_type;   /* of the request body; NULL = none */
    const void *body;           /* request body, or NULL */
    size_t body_len;
    /* A streamed request body instead of `body`: returns bytes written into buf (0 = end),
     * or (size_t)-1 to abort. body_size is the total, -1 when unknown (chunked). */
    size_t (*read_cb)(char *buf, size_t len, void *ud);
    void *read_ud;
    long long body_size;
    /* A streamed response body for 2xx answers (other answers are captured in resp.body so
     * that their error message can be read). Returns false to abort the transfer. */
    bool (*write_cb)(const char *data, size_t len, void *ud);
    void *write_ud;
    double timeout_s; /* whole request; <= 0: no limit */
    /* Safe to repeat: transport failures and 429/502/503/504 answers are retried. A request
     * that never reached the server (connection refused) is retried whatever this says. */
    bool idempotent;
    bool no_body; /* HEAD-style: do not read a response body */
} sm_http_req;

typedef struct sm_http_resp {
    int status;          /* HTTP status; 0 when no answer came */
    sm_strbuf body;      /* the body (always for non-2xx; for 2xx unless write_cb was given) */
    char **headers;      /* "name: value" lines of the final answer (NULL-terminated or NULL) */
    bool timed_out;      /* the request ran past timeout_s */
    bool aborted;        /* a callback asked to stop */
    int transport_error; /* libcurl's code, 0 when an answer came */
    /* The request may have reached the server: false only when the connection itself failed,
     * so a non-idempotent request without an answer may still have taken effect. */
    bool maybe_sent;
} sm_http_resp;

void sm_http_resp_init(sm_http_resp *r);
void sm_http_resp_free(sm_http_resp *r);
/* Value of a response header (case-insensitive name), or NULL. */
const char *sm_http_resp_header(const sm_http_resp *r, const char *name);

/* Performs a request. Returns SM_OK whenever an HTTP answer arrived, whatever its status (the
 * caller judges it); otherwise an error: SM_ERR_TIMEOUT (timed_out), SM_ERR_RUNTIME with kind
 * provider_unreachable naming the target ("cannot reach the Docker engine at unix:///x: ..."),
 * or the callback's abort (SM_ERR_IO). Retries (opts.retries) apply to connection failures and,
 * for idempotent requests, to other transport errors and 429/502/503/504. */
int sm_http_do(sm_http *c, const sm_http_req *r, sm_http_resp *resp, sm_error *err);

/* JSON request and reply: body may be NULL; *reply (may be NULL when not wanted) gets the
 * parsed body of any answer (NULL when empty or not JSON). *status gets the HTTP status. */
int sm_http_json(sm_http *c, const char *method, const char *path, const cJSON *body,
                 double timeout_s, bool idempotent, int *status, cJSON **reply, sm_error *err);

/* Fills err from a non-2xx answer: code, kind (sm_failure_classify_http with `otherwise`),
 * http_status, provider_reason (the body's "message" field, else its first line), and the
 * message "<what>: <provider reason> (HTTP <status>)". Returns code. */
int sm_http_status_error(sm_error *err, int code, sm_failure_kind otherwise, int status,
                         const char *body, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
/* The server's own words from an error body: JSON "message" (or "error"), else the first line. */
void sm_http_body_reason(const char *body, char *buf, size_t len);

/* ---- upgraded connections (HTTP/1.1 "Connection: Upgrade", Docker's hijacked streams) ---- */

typedef struct sm_http_conn sm_http_conn;

/* Sends the request with "Connection: Upgrade" and "Upgrade: <proto>" and, on a 101 (or a
 * 200, which old servers answer before hijacking), hands over the raw bidirectional stream.
 * On another status: SM_OK with *out NULL, *status set and the body in errbody (may be NULL).
 * Nothing past the answer's header is read, so the descriptor is readable exactly when the
 * stream has data. */
int sm_http_upgrade(sm_http *c, const char *method, const char *path, const char *proto,
                    const char *content_type, const void *body, size_t body_len, double timeout_s,
                    sm_http_conn **out, int *status, sm_strbuf *errbody, sm_error *err);
/* Reads what is available, waiting at most timeout_s (< 0 forever, 0 poll). *got = 0 with
 * SM_OK means the peer closed the stream. SM_ERR_TIMEOUT when nothing came in time. */
int sm_http_conn_recv(sm_http_conn *k, void *buf, size_t len, double timeout_s, size_t *got,
                      sm_error *err);
/* Sends everything (waits for the socket to drain). */
int sm_http_conn_send(sm_http_conn *k, const void *data, size_t len, sm_error *err);
/* Half-closes the sending side (the server sees EOF on its input). */
void sm_http_conn_shutdown_write(sm_http_conn *k);
/* A pollable descriptor: readable when sm_http_conn_recv has data (or EOF). */
int sm_http_conn_fd(const sm_http_conn *k);
void sm_http_conn_close(sm_http_conn *k);

/* Percent-encodes s for a query string; caller frees. */
char *sm_http_escape(const char *s);

#endif
