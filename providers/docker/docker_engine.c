/* The docker provider's Engine API client (docker_engine.h): the HTTP client built from the host
 * setting and Docker's environment variables, version negotiation, JSON calls and their errors,
 * and the engine's formats (times, exit codes, multiplexed streams). It runs no container
 * operation of its own beyond inspect, list and remove. */
#include "providers/docker/docker_engine.h"

#include <cjson/cJSON.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>

#include "core/json.h"
#include "core/util.h"

/* DOCKER_HOST semantics of Docker's own client: tcp:// is TLS when DOCKER_CERT_PATH or
 * DOCKER_TLS_VERIFY is set (verifying the server only with DOCKER_TLS_VERIFY). */
static int build_client(docker_provider *dp, sm_error *err)
{
    const char *host = dp->cfg.host;
    if (!host || !*host)
        host = getenv("DOCKER_HOST");
    if (!host || !*host)
        host = "unix:///var/run/docker.sock";
    if (host != dp->cfg.host) {
        free(dp->cfg.host);
        dp->cfg.host = xstrdup(host);
        host = dp->cfg.host;
    }
    const char *verify = getenv("DOCKER_TLS_VERIFY");
    const char *certs = getenv("DOCKER_CERT_PATH");
    bool want_tls = (verify && *verify) || (certs && *certs);
    char *url = NULL, *ca = NULL, *cert = NULL, *key = NULL;
    if (sm_str_has_prefix(host, "unix://")) {
        url = xstrdup(host);
    } else if (sm_str_has_prefix(host, "tcp://")) {
        url = xasprintf("%s://%s", want_tls ? "https" : "http", host + 6);
        dp->tls = want_tls;
    } else if (sm_str_has_prefix(host, "http://") || sm_str_has_prefix(host, "https://")) {
        url = xstrdup(host);
        dp->tls = sm_str_has_prefix(host, "https://");
    } else {
        return sm_error_set(err, SM_ERR_CONFIG, SM_FAIL_INVALID_REQUEST,
                            "docker host '%s' is not supported (use unix:///path/docker.sock or "
                            "tcp://host:port)",
                            host);
    }
    if (dp->tls) {
        char *dir = NULL;
        if (certs && *certs)
            dir = xstrdup(certs);
        else if (getenv("HOME"))
            dir = xasprintf("%s/.docker", getenv("HOME"));
        struct stat st;
        if (dir) {
            ca = xasprintf("%s/ca.pem", dir);
            cert = xasprintf("%s/cert.pem", dir);
            key = xasprintf("%s/key.pem", dir);
            if (stat(ca, &st) < 0) {
                free(ca);
                ca = NULL;
            }
            if (stat(cert, &st) < 0 || stat(key, &st) < 0) {
                free(cert);
                free(key);
                cert = key = NULL;
            }
        }
        free(dir);
    }
    sm_http_opts o = {
        .url = url,
        .ca_file = ca,
        .cert_file = cert,
        .key_file = key,
        .insecure = dp->tls && !(verify && *verify),
        .connect_timeout_s = 10,
        .retries = 2,
        .retry_base_s = 0.05,
        .retry_max_s = 1,
        .what = "the Docker engine",
    };
    int rc = sm_http_new(&o, &dp->http, err);
    if (rc == SM_OK && sm_http_hostname(dp->http))
        dp->tcp_host = xstrdup(sm_http_hostname(dp->http));
    free(url);
    free(ca);
    free(cert);
    free(key);
    return rc;
}

int docker_engine_new(const cJSON *config, docker_provider **out, sm_error *err)
{
    docker_provider *dp = xcalloc(1, sizeof *dp);
    pthread_mutex_init(&dp->lock, NULL);
    int rc = docker_cfg_parse(config, &dp->cfg, err);
    sem_init(&dp->slots, 0, rc == SM_OK ? (unsigned)dp->cfg.concurrency : 1);
    if (rc == SM_OK)
        rc = build_client(dp, err);
    if (rc == SM_OK && dp->cfg.api_version)
        snprintf(dp->api, sizeof dp->api, "%s", dp->cfg.api_version);
    if (rc != SM_OK) {
        if (err)
            err->code = SM_ERR_CONFIG;
        docker_engine_free(dp);
        *out = NULL;
        return SM_ERR_CONFIG;
    }
    *out = dp;
    return SM_OK;
}

void docker_engine_free(docker_provider *dp)
{
    if (!dp)
        return;
    sm_http_free(dp->http);
    docker_cfg_free(&dp->cfg);
    free(dp->tcp_host);
    pthread_mutex_destroy(&dp->lock);
    sem_destroy(&dp->slots);
    free(dp);
}

static _Thread_local docker_provider *slot_of; /* the provider whose slot this thread holds */
static _Thread_local int slot_depth;

void docker_slot_enter(docker_provider *dp)
{
    if (slot_of == dp && slot_depth > 0) {
        slot_depth++;
        return;
    }
    if (slot_depth > 0) /* another provider's slot: one level only (nothing nests deeper) */
        return;
    while (sem_wait(&dp->slots) != 0)
        ;
    slot_of = dp;
    slot_depth = 1;
}

void docker_slot_leave(docker_provider *dp)
{
    if (slot_of != dp || slot_depth == 0)
        return;
    if (--slot_depth == 0) {
        slot_of = NULL;
        sem_post(&dp->slots);
    }
}

/* The API version: the configured one, else what the engine says in /_ping's Api-Version
 * header (as Docker's client negotiates; engines reject versions below their minimum). */
static int negotiate(docker_provider *dp, sm_error *err)
{
    pthread_mutex_lock(&dp->lock);
    int rc = SM_OK;
    if (!dp->api[0]) {
        sm_http_req r = {.method = "GET", .path = "/_ping", .timeout_s = 30, .idempotent = true};
        sm_http_resp resp;
        rc = sm_http_do(dp->http, &r, &resp, err);
        if (rc == SM_OK && resp.status != 200) {
            rc = sm_http_status_error(
                err, SM_ERR_RUNTIME, SM_FAIL_PROVIDER_UNREACHABLE, resp.status, resp.body.data,
                "the Docker engine at %s is not ready", sm_http_target(dp->http));
        } else if (rc == SM_OK) {
            const char *v = sm_http_resp_header(&resp, "Api-Version");
            unsigned maj, min;
            if (v && sscanf(v, "%u.%u", &maj, &min) == 2)
                snprintf(dp->api, sizeof dp->api, "%u.%u", maj, min);
            else
                snprintf(dp->api, sizeof dp->api, "1.41");
        }
        sm_http_resp_free(&resp);
    }
    pthread_mutex_unlock(&dp->lock);
    return rc;
}

char *docker_path(docker_provider *dp, sm_error *err, const char *fmt, ...)
{
    if (negotiate(dp, err) != SM_OK)
        return NULL;
    va_list ap;
    va_start(ap, fmt);
    char *rest = xvasprintf(fmt, ap);
    va_end(ap);
    char *path = xasprintf("/v%s%s", dp->api, rest);
    free(rest);
    return path;
}

int docker_call(docker_provider *dp, const char *method, const char *path, const cJSON *body,
                double timeout_s, bool idempotent, int *status, cJSON **reply, sm_error *err)
{
    char *full = docker_path(dp, err, "%s", path);
    if (!full) {
        if (reply)
            *reply = NULL;
        *status = 0;
        return err ? err->code : SM_ERR_RUNTIME;
    }
    int rc = sm_http_json(dp->http, method, full, body, timeout_s, idempotent, status, reply, err);
    free(full);
    return rc;
}

int docker_http_error(sm_error *err, int status, const char *body, const cJSON *reply,
                      sm_failure_kind otherwise, const char *fmt, ...)
{
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    char *text = (!body && reply) ? sm_json_print(reply) : NULL;
    int code = status == 404 ? SM_ERR_NOT_FOUND : SM_ERR_RUNTIME;
    sm_http_status_error(err, code, otherwise, status, body ? body : text, "%s", what);
    free(text);
    return code;
}

int docker_get_json(docker_provider *dp, const char *path, int type, double timeout_s,
                    const char *what, const char *gone, cJSON **out, sm_error *err)
{
    *out = NULL;
    int status = 0;
    cJSON *reply = NULL;
    int rc = docker_call(dp, "GET", path, NULL, timeout_s, true, &status, &reply, err);
    if (rc != SM_OK)
        return rc;
    if (status == 200 && (type == cJSON_Array ? cJSON_IsArray(reply) : cJSON_IsObject(reply))) {
        *out = reply;
        return SM_OK;
    }
    if (status == 404 && gone)
        rc = docker_http_error(err, status, NULL, reply, SM_FAIL_NOT_FOUND, "%s", gone);
    else
        rc = docker_http_error(err, status, NULL, reply, SM_FAIL_SANDBOX_ERROR, "%s", what);
    cJSON_Delete(reply);
    return rc;
}

int docker_inspect(docker_provider *dp, const char *id, cJSON **out, sm_error *err)
{
    char *esc = sm_http_escape(id), *path = xasprintf("/containers/%s/json", esc);
    free(esc);
    char what[128], gone[128];
    snprintf(what, sizeof what, "inspecting container %.64s", id);
    snprintf(gone, sizeof gone, "no container %.64s on the Docker engine", id);
    int rc =
        docker_get_json(dp, path, cJSON_Object, DOCKER_CONTROL_TIMEOUT_S, what, gone, out, err);
    free(path);
    return rc;
}

int docker_remove(docker_provider *dp, const char *id, sm_error *err)
{
    char *esc = sm_http_escape(id), *path = xasprintf("/containers/%s?force=1&v=1", esc);
    free(esc);
    int status = 0;
    cJSON *reply = NULL;
    int rc =
        docker_call(dp, "DELETE", path, NULL, DOCKER_CONTROL_TIMEOUT_S, true, &status, &reply, err);
    free(path);
    if (rc == SM_OK && status != 204 && status != 200 && status != 404) {
        char reason[256];
        char *text = reply ? sm_json_print(reply) : NULL;
        sm_http_body_reason(text, reason, sizeof reason);
        free(text);
        /* 409 "removal already in progress": someone else is removing it. */
        if (!(status == 409 && strcasestr(reason, "in progress")))
            rc = docker_http_error(err, status, NULL, reply, SM_FAIL_SANDBOX_ERROR,
                                   "removing container %.64s", id);
    }
    cJSON_Delete(reply);
    return rc;
}

double docker_parse_time(const char *s)
{
    if (!s || !*s || sm_str_has_prefix(s, "0001-01-01"))
        return -1;
    struct tm tm = {0};
    int consumed = 0;
    if (sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
               &tm.tm_min, &tm.tm_sec, &consumed) < 6)
        return -1;
    const char *p = s + consumed;
    double frac = 0;
    if (*p == '.') {
        double scale = 0.1;
        for (p++; *p >= '0' && *p <= '9'; p++, scale /= 10)
            frac += (*p - '0') * scale;
    }
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    double t = (double)timegm(&tm) + frac;
    if (*p == '+' || *p == '-') {
        int hh = 0, mm = 0;
        if (sscanf(p + 1, "%2d:%2d", &hh, &mm) >= 1)
            t -= (*p == '+' ? 1 : -1) * (hh * 3600.0 + mm * 60.0);
    }
    return t;
}

int docker_list_raw(docker_provider *dp, bool all, const sm_map *labels, const char *extra_label,
                    cJSON **out, sm_error *err)
{
    *out = NULL;
    cJSON *filters = cJSON_CreateObject();
    cJSON *lab = cJSON_CreateArray();
    for (size_t i = 0; labels && i < labels->n; i++) {
        char *kv = xasprintf("%s=%s", labels->items[i].key, labels->items[i].value);
        cJSON_AddItemToArray(lab, cJSON_CreateString(kv));
        free(kv);
    }
    if (extra_label)
        cJSON_AddItemToArray(lab, cJSON_CreateString(extra_label));
    char *path;
    if (cJSON_GetArraySize(lab) > 0) {
        cJSON_AddItemToObject(filters, "label", lab);
        char *text = sm_json_print(filters), *esc = sm_http_escape(text);
        path = xasprintf("/containers/json?all=%d&filters=%s", all ? 1 : 0, esc);
        free(text);
        free(esc);
    } else {
        cJSON_Delete(lab);
        path = xasprintf("/containers/json?all=%d", all ? 1 : 0);
    }
    cJSON_Delete(filters);
    int rc = docker_get_json(dp, path, cJSON_Array, DOCKER_CONTROL_TIMEOUT_S, "listing containers",
                             NULL, out, err);
    free(path);
    return rc;
}

int docker_exit_signal(int code)
{
    return code > 128 && code <= 128 + 64 ? code - 128 : 0;
}

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

static bool demux_to_strbuf(void *ud, unsigned stream, const char *data, size_t len)
{
    (void)stream;
    sm_strbuf_append(ud, data, len);
    return true;
}

int docker_logs(docker_provider *dp, const char *id, const char *tail, sm_strbuf *out,
                sm_error *err)
{
    char *path = docker_path(dp, err, "/containers/%s/logs?stdout=1&stderr=1&tail=%s", id,
                             tail ? tail : "all");
    if (!path)
        return err ? err->code : SM_ERR_INVALID;
    sm_http_req r = {.method = "GET", .path = path, .timeout_s = 10, .body_size = -1};
    sm_http_resp resp;
    int rc = sm_http_do(dp->http, &r, &resp, err);
    if (rc == SM_OK && resp.status != 200)
        rc = docker_http_error(err, resp.status, resp.body.data, NULL, SM_FAIL_SANDBOX_ERROR,
                               "reading the logs of %.12s", id);
    if (rc == SM_OK && resp.body.len) {
        docker_demux d = {.sink = demux_to_strbuf, .ud = out};
        /* A container with a TTY has a plain log stream instead of frames. */
        if ((unsigned char)resp.body.data[0] <= 2 && resp.body.len >= 8)
            docker_demux_feed(&d, resp.body.data, resp.body.len);
        else
            sm_strbuf_append(out, resp.body.data, resp.body.len);
    }
    sm_http_resp_free(&resp);
    free(path);
    return rc;
}
