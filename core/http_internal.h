/* What core/http.c (client, requests) and core/http_conn.c (upgraded connections) share: the
 * client's fields and the connection setup both paths need. Not for providers, which see
 * core/http.h. */
#ifndef SM_HTTP_INTERNAL_H
#define SM_HTTP_INTERNAL_H

#include <curl/curl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/http.h"

#define POOL_MAX 16

struct sm_http {
    char *base;      /* URL prefix for curl: "http://localhost" for unix sockets */
    char *unix_path; /* NULL for TCP */
    char *target;    /* for messages, without credentials */
    char *hostname;  /* TCP host, NULL for unix */
    char *host_header;
    char *base_path; /* a path prefix of the URL ("" for none) */
    bool tls;
    char *ca_file, *cert_file, *key_file;
    bool insecure;
    long connect_timeout_ms;
    int retries;
    double retry_base_s, retry_max_s;
    long max_idle_s; /* connections older than this are not reused (0: libcurl's default) */
    char *what;
    pthread_mutex_t lock;
    CURL *pool[POOL_MAX];
    size_t npool;
};

/* Options every connection needs: where to connect (base URL + path), TLS, no signals. */
void sm_http_common_opts(const sm_http *c, CURL *h, const char *path);
/* A curl failure that means the target was never reached (connect, resolve). */
bool sm_http_never_reached(CURLcode cc);
/* What connect(2) says about the client's unix socket, in buf (returned). */
const char *sm_http_unix_detail(const sm_http *c, char *buf, size_t len);
/* SANDMAN_HTTP_TRACE=1: one line per request on stderr (method, path, status, time). */
bool sm_http_trace_on(void);

#endif
