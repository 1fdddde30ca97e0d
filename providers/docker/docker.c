/* The docker provider: sandboxes are containers of a Docker Engine (or anything that speaks its
 * REST API, such as podman's service), driven directly over the API with core/http.c instead of
 * shelling out to the docker CLI. This file holds the settings, create (labels, resources,
 * keep-alive and TTL, published ports, readiness from the keep-alive's first output or the
 * probe, removal of anything half-made), status/list, stats, endpoints, close and pause. It
 * must not know any other provider. */
#include <cjson/cJSON.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/json.h"
#include "core/redact.h"
#include "core/util.h"
#include "providers/docker/docker.h"
#include "providers/docker/docker_provider.h"

#define CREATE_TIMEOUT_S  120.0 /* one create/start request */
#define PULL_TIMEOUT_S    900.0
#define CONTROL_TIMEOUT_S 60.0 /* inspect, list, remove, ... */

#define DEFAULT_PROBE_COMMAND  "printf docker-sandbox-ready"
#define DEFAULT_PROBE_EXPECTED "docker-sandbox-ready"

static const char *const config_keys[] = {"host", "api_version", "create", "exec", "probe", NULL};
static const char *const create_keys[] = {"keepalive_shell",
                                          "keepalive_cmd",
                                          "use_init",
                                          "network",
                                          "read_only",
                                          "cap_drop",
                                          "security_opt",
                                          "pids_limit",
                                          "apply_resource_limits",
                                          "publish_host",
                                          NULL};
static const char *const exec_keys[] = {"default_timeout_s", NULL};
static const char *const probe_keys[] = {"command",    "expected_stdout", "timeout_s",
                                         "deadline_s", "stable_count",    NULL};

/* ---------------------------------------------------------------- settings */

static void strv_free(char **v)
{
    for (size_t i = 0; v && v[i]; i++)
        free(v[i]);
    free(v);
}

static int get_strv(const cJSON *obj, const char *key, char ***out, const char *what, sm_error *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v || cJSON_IsNull(v))
        return SM_OK;
    if (!cJSON_IsArray(v))
        return sm_error_set(err, SM_ERR_CONFIG, SM_FAIL_INVALID_REQUEST,
                            "%s.%s must be a list of strings", what, key);
    size_t n = (size_t)cJSON_GetArraySize(v), i = 0;
    char **list = xcalloc(n + 1, sizeof *list);
    const cJSON *it;
    cJSON_ArrayForEach(it, v)
    {
        if (!cJSON_IsString(it)) {
            strv_free(list);
            return sm_error_set(err, SM_ERR_CONFIG, SM_FAIL_INVALID_REQUEST,
                                "%s.%s must be a list of strings", what, key);
        }
        list[i++] = xstrdup(it->valuestring);
    }
    strv_free(*out);
    *out = list;
    return SM_OK;
}

/* A string option whose explicit null means "none" (network, probe command). */
static int get_nullable_string(const cJSON *obj, const char *key, char **out, const char *what,
                               sm_error *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (v && cJSON_IsNull(v)) {
        free(*out);
        *out = NULL;
        return SM_OK;
    }
    return sm_json_get_string(obj, key, out, what, err);
}

static void cfg_defaults(docker_cfg *c)
{
    memset(c, 0, sizeof *c);
    c->keepalive_shell = xstrdup("/bin/sh");
    c->keepalive_cmd = xstrdup("while :; do sleep 2147483647; done");
    c->use_init = true;
    c->apply_resource_limits = true;
    c->publish_host = xstrdup("127.0.0.1");
    c->default_timeout_s = SM_DEFAULT_EXEC_TIMEOUT_S;
    c->probe_command = xstrdup(DEFAULT_PROBE_COMMAND);
    c->probe_expected = xstrdup(DEFAULT_PROBE_EXPECTED);
    c->probe_timeout_s = 30;
    c->probe_deadline_s = -1;
    c->probe_stable_count = 1;
}

static void cfg_free(docker_cfg *c)
{
    free(c->host);
    free(c->api_version);
    free(c->keepalive_shell);
    free(c->keepalive_cmd);
    free(c->network);
    strv_free(c->cap_drop);
    strv_free(c->security_opt);
    free(c->publish_host);
    free(c->probe_command);
    free(c->probe_expected);
    memset(c, 0, sizeof *c);
}

static int parse_config(const cJSON *config, docker_cfg *c, sm_error *err)
{
    int rc = sm_json_get_string(config, "host", &c->host, "docker", err);
    const cJSON *api = cJSON_GetObjectItemCaseSensitive(config, "api_version");
    if (!rc && cJSON_IsNumber(api)) {
        /* YAML reads 1.41 as a number; API versions always have two minor digits. */
        c->api_version = xasprintf("%.2f", api->valuedouble);
    } else if (!rc) {
        rc = sm_json_get_string(config, "api_version", &c->api_version, "docker", err);
    }
    if (!rc && c->api_version && (!strcmp(c->api_version, "auto") || !*c->api_version)) {
        free(c->api_version);
        c->api_version = NULL;
    }
    if (!rc && c->api_version) {
        unsigned maj, min;
        char extra;
        if (sscanf(c->api_version, "%u.%u%c", &maj, &min, &extra) != 2)
            rc = sm_error_set(err, SM_ERR_CONFIG, SM_FAIL_INVALID_REQUEST,
                              "docker.api_version must look like 1.41 (or auto), not '%s'",
                              c->api_version);
    }
    const cJSON *cr = NULL, *ex = NULL, *pr = NULL;
    if (!rc)
        rc = sm_json_get_object(config, "create", &cr, "docker", err);
    if (!rc)
        rc = sm_json_get_object(config, "exec", &ex, "docker", err);
    if (!rc)
        rc = sm_json_get_object(config, "probe", &pr, "docker", err);
    if (!rc && cr)
        rc = sm_json_check_keys(cr, create_keys, "docker.create config", err);
    if (!rc && ex)
        rc = sm_json_check_keys(ex, exec_keys, "docker.exec config", err);
    if (!rc && pr)
        rc = sm_json_check_keys(pr, probe_keys, "docker.probe config", err);

    const char *w = "docker.create";
    if (!rc)
        rc = sm_json_get_string(cr, "keepalive_shell", &c->keepalive_shell, w, err);
    if (!rc)
        rc = sm_json_get_string(cr, "keepalive_cmd", &c->keepalive_cmd, w, err);
    if (!rc)
        rc = sm_json_get_bool(cr, "use_init", &c->use_init, w, err);
    if (!rc)
        rc = get_nullable_string(cr, "network", &c->network, w, err);
    if (!rc)
        rc = sm_json_get_bool(cr, "read_only", &c->read_only, w, err);
    if (!rc)
        rc = get_strv(cr, "cap_drop", &c->cap_drop, w, err);
    if (!rc)
        rc = get_strv(cr, "security_opt", &c->security_opt, w, err);
    if (!rc)
        rc = sm_json_get_long(cr, "pids_limit", &c->pids_limit, w, err);
    if (!rc)
        rc = sm_json_get_bool(cr, "apply_resource_limits", &c->apply_resource_limits, w, err);
    if (!rc)
        rc = sm_json_get_string(cr, "publish_host", &c->publish_host, w, err);
    if (!rc)
        rc = sm_json_get_number(ex, "default_timeout_s", &c->default_timeout_s, "docker.exec", err);
    w = "docker.probe";
    if (!rc)
        rc = get_nullable_string(pr, "command", &c->probe_command, w, err);
    if (!rc)
        rc = get_nullable_string(pr, "expected_stdout", &c->probe_expected, w, err);
    if (!rc)
        rc = sm_json_get_number(pr, "timeout_s", &c->probe_timeout_s, w, err);
    if (!rc)
        rc = sm_json_get_number(pr, "deadline_s", &c->probe_deadline_s, w, err);
    if (!rc)
        rc = sm_json_get_long(pr, "stable_count", &c->probe_stable_count, w, err);

    if (!rc && (!c->keepalive_shell || !*c->keepalive_shell))
        rc = sm_error_set(err, SM_ERR_CONFIG, SM_FAIL_INVALID_REQUEST,
                          "docker.create.keepalive_shell must not be empty");
    if (!rc && (!c->publish_host || !*c->publish_host))
        rc = sm_error_set(err, SM_ERR_CONFIG, SM_FAIL_INVALID_REQUEST,
                          "docker.create.publish_host must not be empty");
    if (!rc && !(c->default_timeout_s > 0 && c->default_timeout_s <= SM_MAX_EXEC_TIMEOUT_S))
        rc = sm_error_set(err, SM_ERR_CONFIG, SM_FAIL_INVALID_REQUEST,
                          "docker.exec.default_timeout_s must be positive, up to %.0f seconds (1 "
                          "week)",
                          SM_MAX_EXEC_TIMEOUT_S);
    if (!rc && c->probe_timeout_s <= 0)
        rc = sm_error_set(err, SM_ERR_CONFIG, SM_FAIL_INVALID_REQUEST,
                          "docker.probe.timeout_s must be positive");
    if (!rc && c->probe_stable_count < 1)
        rc = sm_error_set(err, SM_ERR_CONFIG, SM_FAIL_INVALID_REQUEST,
                          "docker.probe.stable_count must be at least 1");
    if (!rc && c->probe_command && !*c->probe_command) {
        free(c->probe_command);
        c->probe_command = NULL;
    }
    if (!rc && c->probe_deadline_s == 0)
        c->probe_deadline_s = -1;
    return rc;
}

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

static int docker_init(sm_provider *p, const cJSON *config, sm_error *err)
{
    docker_provider *dp = xcalloc(1, sizeof *dp);
    pthread_mutex_init(&dp->lock, NULL);
    cfg_defaults(&dp->cfg);
    p->impl = dp;
    int rc = parse_config(config, &dp->cfg, err);
    if (rc == SM_OK)
        rc = build_client(dp, err);
    if (rc == SM_OK && dp->cfg.api_version)
        snprintf(dp->api, sizeof dp->api, "%s", dp->cfg.api_version);
    if (rc != SM_OK) {
        if (err)
            err->code = SM_ERR_CONFIG;
        sm_http_free(dp->http);
        cfg_free(&dp->cfg);
        pthread_mutex_destroy(&dp->lock);
        free(dp);
        p->impl = NULL;
        return SM_ERR_CONFIG;
    }
    return SM_OK;
}

static void docker_destroy(sm_provider *p)
{
    docker_provider *dp = p->impl;
    if (!dp)
        return;
    sm_http_free(dp->http);
    cfg_free(&dp->cfg);
    free(dp->tcp_host);
    pthread_mutex_destroy(&dp->lock);
    free(dp);
    p->impl = NULL;
}

static char *docker_describe(sm_provider *p)
{
    docker_provider *dp = p->impl;
    return xasprintf("engine at %s; API %s", sm_http_target(dp->http),
                     dp->api[0] ? dp->api : "negotiated on first use");
}

/* ---------------------------------------------------------------- API helpers */

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

int docker_inspect(docker_provider *dp, const char *id, cJSON **out, sm_error *err)
{
    *out = NULL;
    char *esc = sm_http_escape(id), *path = xasprintf("/containers/%s/json", esc);
    free(esc);
    int status = 0;
    cJSON *reply = NULL;
    int rc = docker_call(dp, "GET", path, NULL, CONTROL_TIMEOUT_S, true, &status, &reply, err);
    free(path);
    if (rc != SM_OK)
        return rc;
    if (status == 200 && cJSON_IsObject(reply)) {
        *out = reply;
        return SM_OK;
    }
    if (status == 404) {
        rc = docker_http_error(err, status, NULL, reply, SM_FAIL_NOT_FOUND,
                               "no container %.64s on the Docker engine", id);
    } else {
        rc = docker_http_error(err, status, NULL, reply, SM_FAIL_SANDBOX_ERROR,
                               "inspecting container %.64s", id);
    }
    cJSON_Delete(reply);
    return rc;
}

int docker_remove(docker_provider *dp, const char *id, sm_error *err)
{
    char *esc = sm_http_escape(id), *path = xasprintf("/containers/%s?force=1&v=1", esc);
    free(esc);
    int status = 0;
    cJSON *reply = NULL;
    int rc = docker_call(dp, "DELETE", path, NULL, CONTROL_TIMEOUT_S, true, &status, &reply, err);
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

static double label_number(const cJSON *labels, const char *key, double dflt)
{
    const char *v = sm_json_str(labels, key);
    double d;
    return (v && sm_parse_double(v, &d) == 0) ? d : dflt;
}

static void cache_fill(docker_cache *c, const cJSON *insp)
{
    const cJSON *cfg = cJSON_GetObjectItemCaseSensitive(insp, "Config");
    const cJSON *hc = cJSON_GetObjectItemCaseSensitive(insp, "HostConfig");
    const cJSON *labels = cJSON_GetObjectItemCaseSensitive(cfg, "Labels");
    c->inspected = true;
    c->created_at = docker_parse_time(sm_json_str(insp, "Created"));
    c->ttl_s = label_number(labels, DOCKER_LABEL_TTL, -1);
    double mem = sm_json_num(hc, "Memory", 0), nano = sm_json_num(hc, "NanoCpus", 0);
    double quota = sm_json_num(hc, "CpuQuota", 0), period = sm_json_num(hc, "CpuPeriod", 0);
    double pids = sm_json_num(hc, "PidsLimit", 0);
    c->mem_limit = mem > 0 ? (long long)mem : -1;
    c->cpu_limit = nano > 0 ? nano / 1e9 : (quota > 0 ? quota / (period > 0 ? period : 1e5) : -1);
    c->pids_limit = pids > 0 ? (long long)pids : -1;
    free(c->workdir);
    const char *wd = sm_json_str(cfg, "WorkingDir");
    c->workdir = wd && *wd ? xstrdup(wd) : NULL;
}

docker_cache *docker_cache_of(sm_handle *h)
{
    docker_cache *c = h->raw;
    if (!c) {
        c = xcalloc(1, sizeof *c);
        c->ttl_s = -1;
        c->created_at = -1;
        c->mem_limit = c->pids_limit = -1;
        c->cpu_limit = -1;
        c->oom_seen = -1;
        h->raw = c;
    }
    return c;
}

docker_cache *docker_cache_get(docker_provider *dp, sm_handle *h, sm_error *err)
{
    docker_cache *c = docker_cache_of(h);
    if (!c->inspected) {
        cJSON *insp = NULL;
        if (docker_inspect(dp, h->id, &insp, err) != SM_OK)
            return NULL;
        cache_fill(c, insp);
        cJSON_Delete(insp);
    }
    return c;
}

static void docker_handle_free(sm_provider *p, sm_handle *h)
{
    docker_cache *c = h->raw;
    if (c) {
        docker_executor_free(c->executor);
        free(c->workdir);
        free(c);
    }
    h->raw = NULL;
}

/* ---------------------------------------------------------------- create */

/* Adds "; <text>" to an error's message (and its failure reason). */
static void err_append(sm_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void err_append(sm_error *err, const char *fmt, ...)
{
    if (!err)
        return;
    char tail[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tail, sizeof tail, fmt, ap);
    va_end(ap);
    size_t n = strlen(err->msg);
    snprintf(err->msg + n, sizeof err->msg - n, "; %s", tail);
    snprintf(err->failure.reason, sizeof err->failure.reason, "%s", err->msg);
}

static void add_strv(cJSON *o, const char *key, char *const *v)
{
    cJSON *a = cJSON_AddArrayToObject(o, key);
    for (size_t i = 0; v && v[i]; i++)
        cJSON_AddItemToArray(a, cJSON_CreateString(v[i]));
}

/* What the keep-alive prints first when create proves readiness from its output. */
#define READY_TOKEN "sandman-ready"

/* The container's JSON: image, labels, env, workdir, process, resources, ports. With
 * ready_token, the keep-alive prints READY_TOKEN before anything else. */
static cJSON *create_body(const docker_provider *dp, sm_provider *p, const sm_spec *spec,
                          const char *attempt, bool ready_token, bool *ttl_enforced)
{
    const docker_cfg *c = &dp->cfg;
    cJSON *b = cJSON_CreateObject();
    cJSON_AddStringToObject(b, "Image", spec->image);
    cJSON *labels = cJSON_AddObjectToObject(b, "Labels");
    for (size_t i = 0; i < spec->metadata.n; i++) {
        /* a secret label reaches the engine redacted (docker inspect shows labels) */
        char *v = sm_redact_dup(spec->metadata.items[i].value);
        cJSON_AddStringToObject(labels, spec->metadata.items[i].key, v);
        free(v);
    }
    /* ours win over the spec's: ls and cleanup rely on them */
    const char *own[][2] = {{DOCKER_LABEL_PROVIDER, "docker"},
                            {DOCKER_LABEL_ATTEMPT, attempt},
                            {DOCKER_LABEL_CONTEXT, p->context}};
    for (size_t i = 0; i < SM_ARRAY_LEN(own); i++) {
        cJSON_DeleteItemFromObjectCaseSensitive(labels, own[i][0]);
        cJSON_AddStringToObject(labels, own[i][0], own[i][1]);
    }
    cJSON *env = cJSON_AddArrayToObject(b, "Env");
    for (size_t i = 0; i < spec->env.n; i++) {
        char *kv = xasprintf("%s=%s", spec->env.items[i].key, spec->env.items[i].value);
        cJSON_AddItemToArray(env, cJSON_CreateString(kv));
        free(kv);
    }
    if (spec->workdir)
        cJSON_AddStringToObject(b, "WorkingDir", spec->workdir);

    /* The main process (seed §4.1): the spec's entrypoint as given (create refuses a TTL with
     * it); else with a TTL a keep-alive `sleep` that ends the container after
     * ttl seconds, which AutoRemove then deletes; else the keep-alive loop. */
    cJSON *ep = cJSON_AddArrayToObject(b, "Entrypoint");
    cJSON *cmd = NULL;
    *ttl_enforced = false;
    if (spec->entrypoint && spec->entrypoint[0]) {
        cJSON_AddItemToArray(ep, cJSON_CreateString(spec->entrypoint[0]));
        if (spec->entrypoint[1]) {
            cmd = cJSON_AddArrayToObject(b, "Cmd");
            for (size_t i = 1; spec->entrypoint[i]; i++)
                cJSON_AddItemToArray(cmd, cJSON_CreateString(spec->entrypoint[i]));
        }
    } else {
        cJSON_AddItemToArray(ep, cJSON_CreateString(c->keepalive_shell));
        cmd = cJSON_AddArrayToObject(b, "Cmd");
        cJSON_AddItemToArray(cmd, cJSON_CreateString("-c"));
        const char *hello = ready_token ? "echo " READY_TOKEN "; " : "";
        if (spec->ttl_s > 0) {
            double secs = ceil(spec->ttl_s);
            char *s = xasprintf("%sexec sleep %.0f", hello, secs < 1 ? 1 : secs);
            cJSON_AddItemToArray(cmd, cJSON_CreateString(s));
            free(s);
            char ttl[32];
            snprintf(ttl, sizeof ttl, "%g", spec->ttl_s);
            cJSON_AddStringToObject(labels, DOCKER_LABEL_TTL, ttl);
            *ttl_enforced = true;
        } else {
            char *s = xasprintf("%s%s", hello, c->keepalive_cmd);
            cJSON_AddItemToArray(cmd, cJSON_CreateString(s));
            free(s);
        }
    }
    cJSON_AddBoolToObject(b, "Tty", false);
    cJSON_AddBoolToObject(b, "OpenStdin", false);
    cJSON_AddBoolToObject(b, "AttachStdin", false);
    cJSON_AddBoolToObject(b, "AttachStdout", false);
    cJSON_AddBoolToObject(b, "AttachStderr", false);

    cJSON *hc = cJSON_AddObjectToObject(b, "HostConfig");
    cJSON_AddBoolToObject(hc, "Init", c->use_init);
    cJSON_AddBoolToObject(hc, "AutoRemove", *ttl_enforced);
    if (c->network)
        cJSON_AddStringToObject(hc, "NetworkMode", c->network);
    cJSON_AddBoolToObject(hc, "ReadonlyRootfs", c->read_only);
    if (c->cap_drop)
        add_strv(hc, "CapDrop", c->cap_drop);
    if (c->security_opt)
        add_strv(hc, "SecurityOpt", c->security_opt);
    if (c->pids_limit > 0)
        cJSON_AddNumberToObject(hc, "PidsLimit", (double)c->pids_limit);
    const sm_resources *res = &spec->resources;
    if (c->apply_resource_limits) {
        if (res->set & SM_RES_CPU)
            cJSON_AddNumberToObject(hc, "NanoCpus", floor(res->cpu * 1e9));
        if (res->set & SM_RES_MEMORY) {
            double bytes = (double)res->memory_mib * 1024.0 * 1024.0;
            cJSON_AddNumberToObject(hc, "Memory", bytes);
            cJSON_AddNumberToObject(hc, "MemorySwap", bytes); /* no swap beyond the limit */
        }
        if (res->set & SM_RES_GPU) {
            cJSON *dr = cJSON_AddArrayToObject(hc, "DeviceRequests");
            cJSON *d = cJSON_CreateObject();
            cJSON_AddStringToObject(d, "Driver", "");
            cJSON_AddNumberToObject(d, "Count", (double)res->gpu);
            cJSON *caps = cJSON_AddArrayToObject(d, "Capabilities");
            cJSON *one = cJSON_CreateArray();
            cJSON_AddItemToArray(one, cJSON_CreateString("gpu"));
            cJSON_AddItemToArray(caps, one);
            cJSON_AddItemToArray(dr, d);
        }
    }
    if (spec->nports) {
        cJSON *exposed = cJSON_AddObjectToObject(b, "ExposedPorts");
        cJSON *bind = cJSON_AddObjectToObject(hc, "PortBindings");
        for (size_t i = 0; i < spec->nports; i++) {
            char key[32];
            snprintf(key, sizeof key, "%d/tcp", spec->ports[i]);
            cJSON_AddItemToObject(exposed, key, cJSON_CreateObject());
            cJSON *arr = cJSON_AddArrayToObject(bind, key);
            cJSON *hb = cJSON_CreateObject();
            cJSON_AddStringToObject(hb, "HostIp", c->publish_host);
            cJSON_AddStringToObject(hb, "HostPort", ""); /* any free port */
            cJSON_AddItemToArray(arr, hb);
        }
    }
    return b;
}

/* GET /containers/json with a label filter (and all=1 for ended ones too). */
static int list_raw(docker_provider *dp, bool all, const sm_map *labels, const char *extra_label,
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
    int status = 0;
    cJSON *reply = NULL;
    int rc = docker_call(dp, "GET", path, NULL, CONTROL_TIMEOUT_S, true, &status, &reply, err);
    free(path);
    if (rc != SM_OK)
        return rc;
    if (status != 200 || !cJSON_IsArray(reply)) {
        rc = docker_http_error(err, status, NULL, reply, SM_FAIL_SANDBOX_ERROR,
                               "listing containers");
        cJSON_Delete(reply);
        return rc;
    }
    *out = reply;
    return SM_OK;
}

/* Finds every container of one create attempt and removes it. Used when the engine's reply to
 * create was lost: the container may exist although we never learnt its id. The engine may
 * still be finishing the create when we look, so an empty answer is checked again briefly. */
static int cleanup_attempt(docker_provider *dp, const char *attempt, int *removed, double settle_s,
                           sm_error *err)
{
    char *label = xasprintf("%s=%s", DOCKER_LABEL_ATTEMPT, attempt);
    *removed = 0;
    int rc = SM_OK;
    double until = sm_now_mono() + settle_s;
    for (;;) {
        cJSON *list = NULL;
        rc = list_raw(dp, true, NULL, label, &list, err);
        if (rc != SM_OK)
            break;
        const cJSON *it;
        cJSON_ArrayForEach(it, list)
        {
            const char *id = sm_json_str(it, "Id");
            if (id && docker_remove(dp, id, NULL) == SM_OK)
                (*removed)++;
        }
        cJSON_Delete(list);
        if (*removed || sm_now_mono() >= until)
            break;
        usleep(200 * 1000);
    }
    free(label);
    return rc;
}

/* Pulls an image that the engine does not have. The reply is a stream of JSON progress
 * objects; a failure is an object with "error"/"errorDetail" (the HTTP status is 200). */
static int pull_image(docker_provider *dp, const char *image, sm_error *err)
{
    char *esc = sm_http_escape(image);
    char *path = docker_path(dp, err, "/images/create?fromImage=%s", esc);
    free(esc);
    if (!path)
        return err ? err->code : SM_ERR_RUNTIME;
    sm_http_req r = {.method = "POST", .path = path, .timeout_s = PULL_TIMEOUT_S, .body_size = -1};
    sm_http_resp resp;
    int rc = sm_http_do(dp->http, &r, &resp, err);
    free(path);
    if (rc != SM_OK) {
        sm_http_resp_free(&resp);
        return rc;
    }
    char reason[256] = "";
    if (resp.status != 200) {
        sm_http_body_reason(resp.body.data, reason, sizeof reason);
        rc = SM_ERR_RUNTIME;
    } else {
        /* the last error line of the progress stream, if any */
        for (char *line = resp.body.data; line && *line;) {
            char *nl = strchr(line, '\n');
            if (nl)
                *nl = '\0';
            cJSON *j = cJSON_Parse(line);
            const char *e = j ? sm_json_str(j, "error") : NULL;
            if (e) {
                snprintf(reason, sizeof reason, "%s", e);
                rc = SM_ERR_RUNTIME;
            }
            cJSON_Delete(j);
            line = nl ? nl + 1 : NULL;
        }
    }
    if (rc != SM_OK) {
        sm_error_set(err, SM_ERR_RUNTIME, SM_FAIL_CREATE_FAILED,
                     "image '%s' is not on the Docker engine and could not be pulled: %s", image,
                     reason[0] ? reason : "unknown error");
        if (err) {
            err->failure.http_status = resp.status;
            snprintf(err->failure.provider_reason, sizeof err->failure.provider_reason, "%s",
                     reason);
        }
    }
    sm_http_resp_free(&resp);
    return rc;
}

/* The last lines a container printed, for "exited before it was ready" messages. */
static void logs_tail(docker_provider *dp, const char *id, char *buf, size_t len);

typedef struct probe_state {
    int passes;
} probe_state;

/* Runs the readiness probe until it passes stable_count times in a row or the deadline
 * passes. Without a deadline it is tried once (seed §5.8). */
static int run_probe(docker_provider *dp, const char *id, const sm_spec *spec, sm_error *err)
{
    const docker_cfg *c = &dp->cfg;
    if (!c->probe_command)
        return SM_OK;
    double deadline_s = c->probe_deadline_s > 0     ? c->probe_deadline_s
                        : spec->ready_timeout_s > 0 ? spec->ready_timeout_s
                                                    : -1;
    double until = deadline_s > 0 ? sm_now_mono() + deadline_s : -1;
    const char *argv[] = {c->keepalive_shell, "-c", c->probe_command, NULL};
    long passes = 0;
    char last[300] = "";
    for (int attempt = 0;; attempt++) {
        sm_strbuf out = {0}, errb = {0};
        docker_run r = {.argv = argv,
                        .timeout_s = c->probe_timeout_s,
                        .stdout_fd = -1,
                        .stderr_fd = -1,
                        .out = &out,
                        .errb = &errb};
        if (until > 0 && until - sm_now_mono() < r.timeout_s)
            r.timeout_s = until - sm_now_mono() > 0.5 ? until - sm_now_mono() : 0.5;
        sm_error e;
        sm_error_clear(&e);
        int rc = docker_exec_run(dp, id, &r, &e);
        bool ok = rc == SM_OK && !r.timed_out && r.code == 0 &&
                  (!c->probe_expected || (out.data && strstr(out.data, c->probe_expected)));
        if (ok) {
            passes++;
        } else {
            passes = 0;
            if (rc != SM_OK)
                snprintf(last, sizeof last, "%s", e.msg);
            else if (r.timed_out)
                snprintf(last, sizeof last, "the probe timed out after %gs", r.timeout_s);
            else
                snprintf(last, sizeof last, "the probe exited %d with output '%.80s%s'", r.code,
                         out.data ? out.data : "", errb.data ? errb.data : "");
        }
        sm_strbuf_free(&out);
        sm_strbuf_free(&errb);
        if (passes >= c->probe_stable_count)
            return SM_OK;
        /* A container that is no longer running will never pass. */
        bool running = true;
        cJSON *insp = NULL;
        if (!ok && docker_inspect(dp, id, &insp, NULL) == SM_OK) {
            const cJSON *st = cJSON_GetObjectItemCaseSensitive(insp, "State");
            running = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(st, "Running"));
            if (!running) {
                char tail[200];
                logs_tail(dp, id, tail, sizeof tail);
                snprintf(last, sizeof last, "the container exited with code %d%s%s%s",
                         (int)sm_json_num(st, "ExitCode", -1),
                         cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(st, "OOMKilled"))
                             ? " (OOM killed)"
                             : "",
                         tail[0] ? ": " : "", tail);
            }
        } else if (!ok) {
            running = false; /* gone (auto-removed) */
        }
        cJSON_Delete(insp);
        if (!running || until < 0 || sm_now_mono() >= until)
            break;
        if (!ok)
            usleep(attempt < 5 ? 100 * 1000 : 500 * 1000);
    }
    return sm_error_set(err, SM_ERR_RUNTIME, SM_FAIL_CREATE_FAILED,
                        "container %.12s did not become ready: %s", id, last);
}

static bool demux_to_strbuf(void *ud, unsigned stream, const char *data, size_t len)
{
    sm_strbuf_append(ud, data, len);
    return true;
}

static void logs_tail(docker_provider *dp, const char *id, char *buf, size_t len)
{
    buf[0] = '\0';
    char *path = docker_path(dp, NULL, "/containers/%s/logs?stdout=1&stderr=1&tail=3", id);
    if (!path)
        return;
    sm_http_req r = {.method = "GET", .path = path, .timeout_s = 10, .body_size = -1};
    sm_http_resp resp;
    if (sm_http_do(dp->http, &r, &resp, NULL) == SM_OK && resp.status == 200 && resp.body.len) {
        sm_strbuf text = {0};
        docker_demux d = {.sink = demux_to_strbuf, .ud = &text};
        /* A container with a TTY has a plain log stream instead of frames. */
        if ((unsigned char)resp.body.data[0] <= 2 && resp.body.len >= 8)
            docker_demux_feed(&d, resp.body.data, resp.body.len);
        else
            sm_strbuf_append(&text, resp.body.data, resp.body.len);
        size_t n = 0;
        for (size_t i = 0; text.data && i < text.len && n + 1 < len; i++)
            buf[n++] = (text.data[i] == '\n' || text.data[i] == '\r') ? ' ' : text.data[i];
        while (n > 0 && buf[n - 1] == ' ')
            n--;
        buf[n] = '\0';
        sm_strbuf_free(&text);
    }
    sm_http_resp_free(&resp);
    free(path);
}

/* Fills err for a failed create and removes what the attempt left behind. */
static int create_failed(docker_provider *dp, const char *id, const char *attempt, sm_error *err)
{
    int removed = 0;
    sm_error e;
    sm_error_clear(&e);
    if (id && docker_remove(dp, id, &e) != SM_OK)
        err_append(err, "could not remove container %.12s: %s", id, e.msg);
    sm_error_clear(&e);
    if (cleanup_attempt(dp, attempt, &removed, 0, &e) != SM_OK)
        err_append(err, "could not check for containers left by this attempt (label %s=%s): %s",
                   DOCKER_LABEL_ATTEMPT, attempt, e.msg);
    if (err) {
        err->failure.kind = err->failure.kind == SM_FAIL_PROVIDER_UNREACHABLE
                                ? SM_FAIL_PROVIDER_UNREACHABLE
                                : SM_FAIL_CREATE_FAILED;
        snprintf(err->failure.operation, sizeof err->failure.operation, "create");
        snprintf(err->failure.provider, sizeof err->failure.provider, "docker");
    }
    return err ? (err->code ? err->code : SM_ERR_RUNTIME) : SM_ERR_RUNTIME;
}

/* POST /containers/create. A lost reply (no answer, or 409 for our own unique name because
 * libcurl re-sent the request on a fresh connection) leaves a container we cannot name: it is
 * found by its attempt label and removed before the error is reported. */
static int create_container(docker_provider *dp, const cJSON *body, const char *name,
                            const char *attempt, const char *image, char **id, sm_error *err)
{
    *id = NULL;
    char *text = sm_json_print(body);
    int rc = SM_OK;
    for (int pulled = 0; pulled < 2; pulled++) {
        char *path = docker_path(dp, err, "/containers/create?name=%s", name);
        if (!path) {
            rc = err ? err->code : SM_ERR_RUNTIME;
            break;
        }
        sm_http_req r = {.method = "POST",
                         .path = path,
                         .content_type = "application/json",
                         .body = text,
                         .body_len = strlen(text),
                         .timeout_s = CREATE_TIMEOUT_S,
                         .body_size = -1};
        sm_http_resp resp;
        rc = sm_http_do(dp->http, &r, &resp, err);
        free(path);
        if (rc != SM_OK || resp.status == 409) {
            /* Did the request reach the engine? A refused connection sent nothing. */
            bool sent = resp.status == 409 || resp.maybe_sent;
            if (resp.status == 409)
                sm_error_set(err, SM_ERR_RUNTIME, SM_FAIL_PROVIDER_UNREACHABLE,
                             "the Docker engine at %s created the container but its reply was "
                             "lost (the request reached it twice)",
                             sm_http_target(dp->http));
            sm_http_resp_free(&resp);
            if (sent) {
                int removed = 0;
                sm_error e;
                sm_error_clear(&e);
                if (cleanup_attempt(dp, attempt, &removed, 2.0, &e) != SM_OK)
                    err_append(err,
                               "could not look for the container of this attempt (label %s=%s): "
                               "%s",
                               DOCKER_LABEL_ATTEMPT, attempt, e.msg);
                else
                    err_append(err, "removed %d container%s left by this attempt", removed,
                               removed == 1 ? "" : "s");
            }
            if (rc == SM_OK)
                rc = SM_ERR_RUNTIME;
            break;
        }
        if (resp.status == 201) {
            cJSON *j = cJSON_ParseWithLength(resp.body.data, resp.body.len);
            const char *cid = j ? sm_json_str(j, "Id") : NULL;
            if (cid && *cid) {
                *id = xstrdup(cid);
            } else {
                rc = sm_error_set(err, SM_ERR_RUNTIME, SM_FAIL_CREATE_FAILED,
                                  "the Docker engine created a container but sent no id");
                int removed = 0;
                cleanup_attempt(dp, attempt, &removed, 0, NULL);
            }
            cJSON_Delete(j);
            sm_http_resp_free(&resp);
            break;
        }
        char reason[256];
        sm_http_body_reason(resp.body.data, reason, sizeof reason);
        if (resp.status == 404 && strcasestr(reason, "image") && pulled == 0) {
            sm_http_resp_free(&resp);
            rc = pull_image(dp, image, err);
            if (rc != SM_OK)
                break;
            continue;
        }
        rc = sm_http_status_error(err, SM_ERR_RUNTIME, SM_FAIL_CREATE_FAILED, resp.status,
                                  resp.body.data, "creating a container from image '%s'", image);
        if (err && resp.status == 404)
            err->failure.kind = SM_FAIL_CREATE_FAILED; /* a missing image, not a sandbox */
        sm_http_resp_free(&resp);
        break;
    }
    free(text);
    return rc;
}

static int start_container(docker_provider *dp, const char *id, sm_error *err)
{
    char *path = xasprintf("/containers/%s/start", id);
    int status = 0;
    cJSON *reply = NULL;
    int rc = docker_call(dp, "POST", path, NULL, CREATE_TIMEOUT_S, false, &status, &reply, err);
    free(path);
    if (rc == SM_OK && status != 204 && status != 304)
        rc = docker_http_error(err, status, NULL, reply, SM_FAIL_CREATE_FAILED,
                               "starting container %.12s", id);
    if (err && rc != SM_OK && err->failure.kind == SM_FAIL_NOT_FOUND)
        err->failure.kind = SM_FAIL_CREATE_FAILED;
    cJSON_Delete(reply);
    return rc;
}

/* Whether create may prove readiness from the keep-alive's first output instead of the probe
 * exec: only for sandman's own keep-alive and the default probe (a configured probe is run as
 * configured). The default probe shows that the container runs a shell; the keep-alive printing
 * the token from that shell shows the same, and costs no exec (an exec is most of a create's
 * time on podman). */
static bool token_readiness(const docker_cfg *c, const sm_spec *spec)
{
    return !(spec->entrypoint && spec->entrypoint[0]) && c->probe_command &&
           !strcmp(c->probe_command, DEFAULT_PROBE_COMMAND) && c->probe_expected &&
           !strcmp(c->probe_expected, DEFAULT_PROBE_EXPECTED) && c->probe_stable_count == 1;
}

/* Attaches to the created container's output before it starts (so that nothing it prints is
 * missed). NULL when the engine refuses: create then falls back to the probe exec. */
static sm_http_conn *attach_output(docker_provider *dp, const char *id)
{
    char *path = docker_path(dp, NULL, "/containers/%s/attach?stream=1&stdout=1&stderr=1", id);
    if (!path)
        return NULL;
    sm_http_conn *conn = NULL;
    int status = 0;
    if (sm_http_upgrade(dp->http, "POST", path, "tcp", NULL, NULL, 0, CREATE_TIMEOUT_S, &conn,
                        &status, NULL, NULL) != SM_OK)
        conn = NULL;
    free(path);
    return conn;
}

static bool token_sink(void *ud, unsigned stream, const char *data, size_t len)
{
    if (stream == 1)
        sm_strbuf_append(ud, data, len);
    return true;
}

/* Waits for the keep-alive's READY_TOKEN line on the attached stream. false on EOF (it exited),
 * a timeout, or anything else first: the caller then runs the probe, which says why. */
static bool wait_token(sm_http_conn *conn, double wait_s)
{
    sm_strbuf out = {0};
    docker_demux dm = {.sink = token_sink, .ud = &out};
    double until = sm_now_mono() + wait_s;
    bool ok = false;
    while (!ok && out.len < sizeof READY_TOKEN) {
        double left = until - sm_now_mono();
        char buf[256];
        size_t got = 0;
        if (left <= 0 || sm_http_conn_recv(conn, buf, sizeof buf, left, &got, NULL) != SM_OK ||
            got == 0)
            break;
        docker_demux_feed(&dm, buf, got);
        ok = out.len >= sizeof READY_TOKEN &&
             !memcmp(out.data, READY_TOKEN "\n", sizeof READY_TOKEN);
    }
    sm_strbuf_free(&out);
    return ok;
}

static int docker_create(sm_provider *p, const sm_spec *spec, sm_handle **out, sm_error *err)
{
    docker_provider *dp = p->impl;
    *out = NULL;
    if (!spec->image || !*spec->image)
        return sm_error_set(err, SM_ERR_INVALID, SM_FAIL_CREATE_FAILED,
                            "the docker provider needs an image (for example --image busybox)");
    if (spec->resources.set & SM_RES_GPU_TYPE)
        return sm_error_set(err, SM_ERR_INVALID, SM_FAIL_CREATE_FAILED,
                            "the docker provider cannot choose a GPU type (gpu_type '%s'); ask for "
                            "a GPU count only",
                            spec->resources.gpu_type ? spec->resources.gpu_type : "");
    /* A TTL is enforced by the keep-alive (its `sleep` is the main process and AutoRemove
     * deletes the container when it ends). A custom entrypoint replaces the keep-alive, and the
     * engine has no run deadline of its own; a timer beside the entrypoint (an exec, a shell
     * wrapper) needs a shell in the image and can be killed from inside the sandbox. So the
     * combination is refused rather than accepted and not enforced. */
    if (spec->ttl_s > 0 && spec->entrypoint && spec->entrypoint[0])
        return sm_error_set(err, SM_ERR_INVALID, SM_FAIL_INVALID_REQUEST,
                            "ttl_s needs the keep-alive: the docker provider cannot enforce a TTL "
                            "(%gs) on a custom entrypoint ('%s'); drop --ttl or the entrypoint "
                            "(or make the entrypoint end itself, e.g. with timeout)",
                            spec->ttl_s, spec->entrypoint[0]);
    /* Published ports need a network: with none the engine drops them without a word. */
    if (spec->nports && dp->cfg.network && !strcmp(dp->cfg.network, "none")) {
        char list[200] = "";
        for (size_t i = 0, n = 0; i < spec->nports && n + 8 < sizeof list; i++)
            n += (size_t)snprintf(list + n, sizeof list - n, "%s%d", i ? ", " : "", spec->ports[i]);
        return sm_error_set(err, SM_ERR_INVALID, SM_FAIL_INVALID_REQUEST,
                            "port%s %s cannot be published: this context's docker.create.network "
                            "is 'none'; drop --port or use a context with a network (bridge or a "
                            "network name)",
                            spec->nports == 1 ? "" : "s", list);
    }
    const char *image = spec->image;
    if (sm_str_has_prefix(image, "docker://"))
        image = image + strlen("docker://");
    sm_spec s = *spec; /* shallow: only the image differs */
    s.image = (char *)image;

    char attempt[33], name[64];
    sm_random_hex(attempt, 32);
    snprintf(name, sizeof name, "sandman-%.24s", attempt);
    bool ttl_enforced = false;
    bool token = token_readiness(&dp->cfg, &s);
    cJSON *body = create_body(dp, p, &s, attempt, token, &ttl_enforced);
    char *id = NULL;
    int rc = create_container(dp, body, name, attempt, image, &id, err);
    cJSON_Delete(body);
    if (rc != SM_OK) {
        if (err) {
            if (err->failure.kind != SM_FAIL_PROVIDER_UNREACHABLE)
                err->failure.kind = SM_FAIL_CREATE_FAILED;
            snprintf(err->failure.operation, sizeof err->failure.operation, "create");
        }
        return rc;
    }
    double created = sm_now_wall();
    sm_http_conn *attached = token ? attach_output(dp, id) : NULL;
    rc = start_container(dp, id, err);
    if (rc == SM_OK) {
        double wait = dp->cfg.probe_timeout_s;
        if (dp->cfg.probe_deadline_s > wait)
            wait = dp->cfg.probe_deadline_s;
        if (spec->ready_timeout_s > wait)
            wait = spec->ready_timeout_s;
        /* No token (the engine sent no output, the keep-alive died): the probe decides and
         * explains, as it would have without the token. */
        if (!attached || !wait_token(attached, wait))
            rc = run_probe(dp, id, &s, err);
    }
    sm_http_conn_close(attached);
    if (rc != SM_OK) {
        rc = create_failed(dp, id, attempt, err);
        free(id);
        return rc;
    }
    sm_handle *h = sm_handle_new(id, "docker");
    free(id);
    docker_cache *c = docker_cache_of(h); /* not "inspected": limits are read on first use */
    c->created_at = created;
    c->ttl_s = ttl_enforced ? spec->ttl_s : -1;
    c->oom_seen = 0; /* a new container has had no OOM kill */
    *out = h;
    return SM_OK;
}

/* ---------------------------------------------------------------- status and list */

static sm_status map_state(const char *state)
{
    if (!state)
        return SM_STATUS_UNKNOWN;
    if (!strcmp(state, "running") || !strcmp(state, "paused"))
        return SM_STATUS_RUNNING;
    if (!strcmp(state, "created") || !strcmp(state, "restarting") || !strcmp(state, "configured") ||
        !strcmp(state, "initialized"))
        return SM_STATUS_STARTING;
    if (!strcmp(state, "exited") || !strcmp(state, "removing") || !strcmp(state, "dead") ||
        !strcmp(state, "stopped"))
        return SM_STATUS_STOPPED;
    return SM_STATUS_UNKNOWN;
}

/* Why a container ended: OOM, TTL (the keep-alive sleep ran out), exit code, engine error. */
static void ended_failure(sm_sandbox_info *info, int exit_code, bool oom, const char *error,
                          double finished)
{
    sm_failure *f = &info->failure;
    sm_failure_init(f);
    snprintf(f->provider, sizeof f->provider, "docker");
    snprintf(f->sandbox_id, sizeof f->sandbox_id, "%s", info->id ? info->id : "");
    f->exit_code = exit_code;
    if (oom) {
        f->kind = SM_FAIL_OOM;
        snprintf(f->operation, sizeof f->operation, "run");
        snprintf(f->reason, sizeof f->reason,
                 "the container's main process was OOM killed (State.OOMKilled)");
    } else if (info->ttl_s > 0 && info->created_at > 0 && finished > 0 && exit_code == 0 &&
               finished + 1.0 >= info->created_at + info->ttl_s) {
        f->kind = SM_FAIL_TTL_EXPIRED;
        snprintf(f->operation, sizeof f->operation, "ttl");
        snprintf(f->reason, sizeof f->reason, "the sandbox reached its ttl of %gs", info->ttl_s);
    } else if (exit_code != 0) {
        f->signal = docker_exit_signal(exit_code);
        f->kind = sm_failure_classify_exit(exit_code, f->signal, -1, -1, false);
        snprintf(f->operation, sizeof f->operation, "run");
        char sig[24];
        if (f->signal)
            snprintf(f->reason, sizeof f->reason,
                     "the container's main process was killed by %s (exit %d)",
                     sm_signal_name(f->signal, sig, sizeof sig), exit_code);
        else
            snprintf(f->reason, sizeof f->reason, "the container's main process exited with %d",
                     exit_code);
    }
    if (error && *error) {
        snprintf(f->provider_reason, sizeof f->provider_reason, "%s", error);
        if (f->kind == SM_FAIL_NONE) {
            f->kind = SM_FAIL_SANDBOX_ERROR;
            snprintf(f->reason, sizeof f->reason, "the engine reported: %s", error);
        }
    }
}

int docker_exit_signal(int code)
{
    return code > 128 && code <= 128 + 64 ? code - 128 : 0;
}

static void labels_into(const cJSON *labels, sm_map *m)
{
    const cJSON *it;
    cJSON_ArrayForEach(it, labels)
    {
        if (cJSON_IsString(it) && it->string)
            sm_map_set(m, it->string, it->valuestring);
    }
}

static void info_from_inspect(const cJSON *insp, sm_sandbox_info *info)
{
    const cJSON *cfg = cJSON_GetObjectItemCaseSensitive(insp, "Config");
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(insp, "State");
    const cJSON *hc = cJSON_GetObjectItemCaseSensitive(insp, "HostConfig");
    const cJSON *labels = cJSON_GetObjectItemCaseSensitive(cfg, "Labels");
    info->id = xstrdup(sm_json_str(insp, "Id") ? sm_json_str(insp, "Id") : "");
    info->provider = xstrdup("docker");
    const char *state = sm_json_str(st, "Status");
    info->status = map_state(state);
    const char *image = sm_json_str(cfg, "Image");
    info->image = image ? xstrdup(image) : NULL;
    info->created_at = docker_parse_time(sm_json_str(insp, "Created"));
    info->ready_at = docker_parse_time(sm_json_str(st, "StartedAt"));
    double finished = docker_parse_time(sm_json_str(st, "FinishedAt"));
    if (info->status == SM_STATUS_STOPPED)
        info->ended_at = finished;
    info->ttl_s = label_number(labels, DOCKER_LABEL_TTL, -1);
    const char *wd = sm_json_str(cfg, "WorkingDir");
    info->workdir = wd && *wd ? xstrdup(wd) : NULL;
    labels_into(labels, &info->labels);
    const cJSON *env = cJSON_GetObjectItemCaseSensitive(cfg, "Env"), *it;
    cJSON_ArrayForEach(it, env)
    {
        if (!cJSON_IsString(it))
            continue;
        char *name = xstrndup(it->valuestring, strcspn(it->valuestring, "="));
        sm_map_set(&info->env_names, name, "");
        free(name);
    }
    double nano = sm_json_num(hc, "NanoCpus", 0), mem = sm_json_num(hc, "Memory", 0);
    if (nano > 0) {
        info->resources.set |= SM_RES_CPU;
        info->resources.cpu = nano / 1e9;
    }
    if (mem > 0) {
        info->resources.set |= SM_RES_MEMORY;
        info->resources.memory_mib = (long)(mem / (1024 * 1024));
    }
    const cJSON *exposed = cJSON_GetObjectItemCaseSensitive(cfg, "ExposedPorts");
    cJSON_ArrayForEach(it, exposed)
    {
        int port = atoi(it->string ? it->string : "");
        if (port > 0) {
            info->ports = xrealloc(info->ports, (info->nports + 1) * sizeof *info->ports);
            info->ports[info->nports++] = port;
        }
    }
    bool oom = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(st, "OOMKilled"));
    if (info->status == SM_STATUS_STOPPED || oom) {
        ended_failure(info, (int)sm_json_num(st, "ExitCode", 0), oom, sm_json_str(st, "Error"),
                      finished);
        /* The limit is evidence beside a SIGKILL, not proof of an OOM kill: podman sets
         * OOMKilled less often than Docker, and a stopped container's cgroup is gone. */
        if (mem > 0 && (oom || info->failure.signal == SIGKILL))
            info->failure.memory_limit = (long long)mem;
    }
    if (state && !strcmp(state, "paused"))
        info->detail = xstrdup("paused");
    info->extra = cJSON_CreateObject();
    const char *name = sm_json_str(insp, "Name");
    if (name)
        cJSON_AddStringToObject(info->extra, "name", name[0] == '/' ? name + 1 : name);
    cJSON_AddStringToObject(info->extra, "state", state ? state : "");
    if (state && strcmp(state, "running"))
        cJSON_AddNumberToObject(info->extra, "exit_code", sm_json_num(st, "ExitCode", 0));
    if (hc && sm_json_str(hc, "NetworkMode"))
        cJSON_AddStringToObject(info->extra, "network", sm_json_str(hc, "NetworkMode"));
}

static void info_from_list(const cJSON *c, sm_sandbox_info *info)
{
    info->id = xstrdup(sm_json_str(c, "Id") ? sm_json_str(c, "Id") : "");
    info->provider = xstrdup("docker");
    const char *state = sm_json_str(c, "State");
    info->status = map_state(state);
    const char *image = sm_json_str(c, "Image");
    info->image = image ? xstrdup(image) : NULL;
    info->created_at = sm_json_num(c, "Created", -1);
    const cJSON *labels = cJSON_GetObjectItemCaseSensitive(c, "Labels");
    labels_into(labels, &info->labels);
    info->ttl_s = label_number(labels, DOCKER_LABEL_TTL, -1);
    const cJSON *ports = cJSON_GetObjectItemCaseSensitive(c, "Ports"), *it;
    cJSON_ArrayForEach(it, ports)
    {
        int port = (int)sm_json_num(it, "PrivatePort", 0);
        bool dup = false;
        for (size_t i = 0; i < info->nports; i++)
            dup |= info->ports[i] == port;
        if (port > 0 && !dup) {
            info->ports = xrealloc(info->ports, (info->nports + 1) * sizeof *info->ports);
            info->ports[info->nports++] = port;
        }
    }
    const char *status = sm_json_str(c, "Status");
    if (info->status == SM_STATUS_STOPPED && status) {
        /* "Exited (137) 3 seconds ago": the list has no OOM flag; status() inspects. */
        int code = 0;
        const char *paren = strchr(status, '(');
        if (paren)
            code = atoi(paren + 1);
        ended_failure(info, code, false, NULL, -1);
    }
    info->extra = cJSON_CreateObject();
    const cJSON *names = cJSON_GetObjectItemCaseSensitive(c, "Names");
    const cJSON *n0 = cJSON_GetArrayItem(names, 0);
    if (cJSON_IsString(n0))
        cJSON_AddStringToObject(info->extra, "name",
                                n0->valuestring[0] == '/' ? n0->valuestring + 1 : n0->valuestring);
    cJSON_AddStringToObject(info->extra, "state", state ? state : "");
    if (status)
        cJSON_AddStringToObject(info->extra, "status", status);
    if (!sm_json_str(labels, DOCKER_LABEL_PROVIDER))
        cJSON_AddBoolToObject(info->extra, "foreign", true); /* not made by sandman */
}

static int docker_status(sm_provider *p, sm_handle *h, sm_sandbox_info *info, sm_error *err)
{
    docker_provider *dp = p->impl;
    sm_sandbox_info_init(info);
    cJSON *insp = NULL;
    sm_error e;
    sm_error_clear(&e);
    int rc = docker_inspect(dp, h->id, &insp, &e);
    if (rc == SM_OK) {
        info_from_inspect(insp, info);
        docker_cache *c = docker_cache_of(h); /* remember the TTL in case it expires later */
        if (!c->inspected)
            cache_fill(c, insp);
        cJSON_Delete(insp);
        return SM_OK;
    }
    info->id = xstrdup(h->id);
    info->provider = xstrdup("docker");
    if (rc == SM_ERR_NOT_FOUND) {
        /* Gone. A container with a TTL is auto-removed when its keep-alive sleep ends, so its
         * record disappears with it: when this handle knows the TTL (it made the container, or
         * looked at it while it existed) and the TTL has run out, that is why; otherwise all
         * we know is that it does not exist. */
        docker_cache *c = h->raw;
        info->status = SM_STATUS_STOPPED;
        sm_failure_init(&info->failure);
        snprintf(info->failure.provider, sizeof info->failure.provider, "docker");
        snprintf(info->failure.sandbox_id, sizeof info->failure.sandbox_id, "%s", h->id);
        if (c && c->ttl_s > 0 && c->created_at > 0 &&
            sm_now_wall() + 1.0 >= c->created_at + c->ttl_s) {
            info->ttl_s = c->ttl_s;
            info->created_at = c->created_at;
            info->failure.kind = SM_FAIL_TTL_EXPIRED;
            snprintf(info->failure.operation, sizeof info->failure.operation, "ttl");
            snprintf(info->failure.reason, sizeof info->failure.reason,
                     "the sandbox reached its ttl of %gs and was removed", c->ttl_s);
        } else {
            info->failure.kind = SM_FAIL_NOT_FOUND;
            snprintf(info->failure.operation, sizeof info->failure.operation, "status");
            snprintf(info->failure.reason, sizeof info->failure.reason,
                     "the container no longer exists");
        }
        return SM_OK;
    }
    /* Transient (engine unreachable, 5xx): unknown, not an error (seed §2.1). */
    info->status = SM_STATUS_UNKNOWN;
    info->failure = e.failure;
    info->detail = xstrdup(e.msg);
    if (err)
        *err = e;
    return SM_OK;
}

/* Without `all`: running (and starting) sandman containers. With `all`: every container of the
 * engine, whoever made it and whatever its state (the dashboard shows them all; foreign ones
 * are marked in provider_info). */
static int docker_list(sm_provider *p, const sm_list_filter *f, sm_sandbox_info **out, size_t *n,
                       sm_error *err)
{
    docker_provider *dp = p->impl;
    *out = NULL;
    *n = 0;
    bool all = f && f->all;
    cJSON *list = NULL;
    char *mine = xasprintf("%s=docker", DOCKER_LABEL_PROVIDER);
    int rc = list_raw(dp, all, f ? f->labels : NULL, all ? NULL : mine, &list, err);
    free(mine);
    if (rc != SM_OK)
        return rc;
    size_t cnt = (size_t)cJSON_GetArraySize(list);
    *out = cnt ? xcalloc(cnt, sizeof **out) : NULL;
    const cJSON *it;
    cJSON_ArrayForEach(it, list)
    {
        sm_sandbox_info *info = &(*out)[*n];
        sm_sandbox_info_init(info);
        info_from_list(it, info);
        (*n)++;
    }
    cJSON_Delete(list);
    sm_sandbox_info_sort(*out, *n);
    return SM_OK;
}

/* ---------------------------------------------------------------- the rest */

static int docker_close(sm_provider *p, sm_handle *h, sm_error *err)
{
    docker_provider *dp = p->impl;
    int rc = docker_remove(dp, h->id, err);
    if (rc == SM_OK)
        docker_oom_forget(h->id);
    if (rc != SM_OK && err) {
        snprintf(err->failure.operation, sizeof err->failure.operation, "close");
        sm_error_prefix(err, "removing sandbox %.12s", h->id);
    }
    return rc;
}

static bool wildcard_ip(const char *ip)
{
    return !ip || !*ip || !strcmp(ip, "0.0.0.0") || !strcmp(ip, "::") || !strcmp(ip, "[::]");
}

static int docker_endpoint(sm_provider *p, sm_handle *h, int port, sm_endpoint *out, sm_error *err)
{
    docker_provider *dp = p->impl;
    cJSON *insp = NULL;
    int rc = docker_inspect(dp, h->id, &insp, err);
    if (rc != SM_OK)
        return rc;
    char key[32];
    snprintf(key, sizeof key, "%d/tcp", port);
    const cJSON *ns = cJSON_GetObjectItemCaseSensitive(insp, "NetworkSettings");
    const cJSON *ports = cJSON_GetObjectItemCaseSensitive(ns, "Ports");
    const cJSON *binds = cJSON_GetObjectItemCaseSensitive(ports, key);
    const char *state = sm_json_str(cJSON_GetObjectItemCaseSensitive(insp, "State"), "Status");
    const char *host = NULL, *hport = NULL;
    const cJSON *b;
    /* Prefer a loopback binding (seed §5.10), then any. */
    cJSON_ArrayForEach(b, binds)
    {
        const char *ip = sm_json_str(b, "HostIp"), *hp = sm_json_str(b, "HostPort");
        if (!hp || !*hp)
            continue;
        if (!hport || (ip && (!strcmp(ip, "127.0.0.1") || !strcmp(ip, "::1")))) {
            host = ip;
            hport = hp;
        }
    }
    if (!hport) {
        rc = sm_error_set(err, SM_ERR_NOT_FOUND, SM_FAIL_INVALID_REQUEST,
                          "port %d of sandbox %.12s is not published%s (declare it with --port "
                          "when creating the sandbox)",
                          port, h->id,
                          state && strcmp(state, "running") ? " (the container is not running)"
                                                            : "");
        cJSON_Delete(insp);
        return rc;
    }
    /* A wildcard binding is reached through publish_host, or the engine's own host when it
     * is remote. */
    char hostbuf[256];
    if (wildcard_ip(host)) {
        const char *via = dp->cfg.publish_host;
        if (wildcard_ip(via))
            via = dp->tcp_host ? dp->tcp_host : "127.0.0.1";
        snprintf(hostbuf, sizeof hostbuf, "%s", via);
    } else {
        snprintf(hostbuf, sizeof hostbuf, "%s", host);
    }
    char url[320];
    if (strchr(hostbuf, ':') && hostbuf[0] != '[')
        snprintf(url, sizeof url, "http://[%s]:%s", hostbuf, hport);
    else
        snprintf(url, sizeof url, "http://%s:%s", hostbuf, hport);
    cJSON_Delete(insp);
    return sm_endpoint_set(out, url, err);
}

static long long num_ll(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) ? (long long)v->valuedouble : -1;
}

/* Whether the container exists and is not running (nor paused); its state goes to state. */
static bool not_running(docker_provider *dp, const char *id, char *state, size_t len)
{
    cJSON *insp = NULL;
    if (docker_inspect(dp, id, &insp, NULL) != SM_OK)
        return false;
    const char *st = sm_json_str(cJSON_GetObjectItemCaseSensitive(insp, "State"), "Status");
    snprintf(state, len, "%s", st ? st : "unknown");
    bool stopped = !st || (strcmp(st, "running") && strcmp(st, "paused"));
    cJSON_Delete(insp);
    return stopped;
}

/* The stats endpoint mapped to the sample the local provider gives: memory working set =
 * usage minus inactive file pages (cgroup v2 "inactive_file", v1 "total_inactive_file"), as
 * `docker stats` computes it. */
static int docker_stats(sm_provider *p, sm_handle *h, sm_sample *s, sm_error *err)
{
    docker_provider *dp = p->impl;
    docker_cache *c = docker_cache_get(dp, h, err);
    if (!c)
        return err ? err->code : SM_ERR_RUNTIME;
    char *path = xasprintf("/containers/%s/stats?stream=false&one-shot=true", h->id);
    int status = 0;
    cJSON *j = NULL;
    int rc = docker_call(dp, "GET", path, NULL, CONTROL_TIMEOUT_S, true, &status, &j, err);
    free(path);
    if (rc != SM_OK)
        return rc;
    /* A container that is not running has no stats: podman answers 200 with an empty body,
     * Docker 200 with zeroed figures read at time zero. Its state says why. */
    const char *read = cJSON_IsObject(j) ? sm_json_str(j, "read") : NULL;
    if (status == 200 && (!cJSON_IsObject(j) || (read && sm_str_has_prefix(read, "0001-01-01")))) {
        char state[32] = "";
        if (not_running(dp, h->id, state, sizeof state)) {
            cJSON_Delete(j);
            return sm_error_set(err, SM_ERR_STATE, SM_FAIL_INVALID_REQUEST,
                                "container %.12s is not running (state %s): it has no stats to "
                                "read%s",
                                h->id, state,
                                !strcmp(state, "created") ? " until it is started" : "");
        }
    }
    if (status != 200 || !cJSON_IsObject(j)) {
        rc = docker_http_error(err, status, NULL, j, SM_FAIL_SANDBOX_ERROR,
                               "reading the stats of %.12s", h->id);
        cJSON_Delete(j);
        return rc;
    }
    s->ts = sm_now_mono();
    s->wall = sm_now_wall();
    const cJSON *cpu = cJSON_GetObjectItemCaseSensitive(j, "cpu_stats");
    const cJSON *usage = cJSON_GetObjectItemCaseSensitive(cpu, "cpu_usage");
    long long total = num_ll(usage, "total_usage");
    if (total >= 0)
        s->cpu_time_s = (double)total / 1e9;
    s->cpu_limit = c->cpu_limit;
    const cJSON *thr = cJSON_GetObjectItemCaseSensitive(cpu, "throttling_data");
    if (thr) {
        s->nr_throttled = num_ll(thr, "throttled_periods");
        long long tt = num_ll(thr, "throttled_time");
        if (tt >= 0)
            s->throttled_s = (double)tt / 1e9;
    }
    const cJSON *mem = cJSON_GetObjectItemCaseSensitive(j, "memory_stats");
    long long mu = num_ll(mem, "usage");
    if (mu >= 0) {
        const cJSON *ms = cJSON_GetObjectItemCaseSensitive(mem, "stats");
        long long inactive = num_ll(ms, "inactive_file");
        if (inactive < 0)
            inactive = num_ll(ms, "total_inactive_file");
        s->mem_usage = mu;
        s->mem_working_set = (inactive > 0 && inactive < mu) ? mu - inactive : mu;
    }
    s->mem_limit = c->mem_limit;
    const cJSON *pids = cJSON_GetObjectItemCaseSensitive(j, "pids_stats");
    s->pids = num_ll(pids, "current");
    long long pl = num_ll(pids, "limit");
    s->pids_limit = (pl > 0 && pl < (1LL << 62)) ? pl : c->pids_limit;
    const cJSON *blk = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(j, "blkio_stats"), "io_service_bytes_recursive");
    if (cJSON_IsArray(blk)) {
        s->io_read_bytes = s->io_write_bytes = 0;
        const cJSON *e;
        cJSON_ArrayForEach(e, blk)
        {
            const char *op = sm_json_str(e, "op");
            long long v = num_ll(e, "value");
            if (!op || v < 0)
                continue;
            if (!strcasecmp(op, "read"))
                s->io_read_bytes += v;
            else if (!strcasecmp(op, "write"))
                s->io_write_bytes += v;
        }
    }
    const cJSON *nets = cJSON_GetObjectItemCaseSensitive(j, "networks"), *nif;
    if (cJSON_IsObject(nets)) {
        s->net_rx_bytes = s->net_tx_bytes = 0;
        cJSON_ArrayForEach(nif, nets)
        {
            long long rx = num_ll(nif, "rx_bytes"), tx = num_ll(nif, "tx_bytes");
            if (rx > 0)
                s->net_rx_bytes += rx;
            if (tx > 0)
                s->net_tx_bytes += tx;
        }
    }
    if (c->oom_seen > 0)
        s->oom_kills = c->oom_seen;
    cJSON_Delete(j);
    return SM_OK;
}

static cJSON *docker_serialize(sm_provider *p, sm_handle *h)
{
    cJSON *d = cJSON_CreateObject();
    cJSON_AddStringToObject(d, "sandbox_id", h->id);
    return d;
}

/* Rebuilds a handle from {"sandbox_id": id-or-unique-prefix}; the id becomes the full one. */
static int docker_connect(sm_provider *p, const cJSON *desc, sm_handle **out, sm_error *err)
{
    docker_provider *dp = p->impl;
    const char *id = sm_json_str(desc, "sandbox_id");
    if (!id || !*id)
        return sm_error_set(err, SM_ERR_INVALID, SM_FAIL_INVALID_REQUEST,
                            "descriptor has no sandbox_id");
    cJSON *insp = NULL;
    int rc = docker_inspect(dp, id, &insp, err);
    if (rc != SM_OK)
        return rc;
    const char *full = sm_json_str(insp, "Id");
    sm_handle *h = sm_handle_new(full ? full : id, "docker");
    cache_fill(docker_cache_of(h), insp);
    cJSON_Delete(insp);
    *out = h;
    return SM_OK;
}

static int pause_resume(sm_provider *p, sm_handle *h, bool pause, sm_error *err)
{
    docker_provider *dp = p->impl;
    char *path = xasprintf("/containers/%s/%s", h->id, pause ? "pause" : "unpause");
    int status = 0;
    cJSON *reply = NULL;
    int rc = docker_call(dp, "POST", path, NULL, CONTROL_TIMEOUT_S, false, &status, &reply, err);
    free(path);
    if (rc == SM_OK && status != 204 && status != 200)
        rc = docker_http_error(err, status, NULL, reply, SM_FAIL_SANDBOX_ERROR, "%s %.12s",
                               pause ? "pausing" : "resuming", h->id);
    cJSON_Delete(reply);
    return rc;
}

static int docker_pause(sm_provider *p, sm_handle *h, sm_error *err)
{
    return pause_resume(p, h, true, err);
}

static int docker_resume(sm_provider *p, sm_handle *h, sm_error *err)
{
    return pause_resume(p, h, false, err);
}

const sm_provider_ops sm_docker_provider_ops = {
    .name = "docker",
    .summary = "containers of a Docker engine (or podman's service) over its REST API",
    .caps =
        SM_CAP_PTY | SM_CAP_ENDPOINT | SM_CAP_LIST | SM_CAP_STATS | SM_CAP_CONNECT | SM_CAP_PAUSE,
    .config_keys = config_keys,
    .init = docker_init,
    .destroy = docker_destroy,
    .create = docker_create,
    .exec = docker_exec,
    .upload = docker_upload,
    .download = docker_download,
    .status = docker_status,
    .close = docker_close,
    .handle_free = docker_handle_free,
    .pty_open = docker_pty_open,
    .endpoint = docker_endpoint,
    .list = docker_list,
    .stats = docker_stats,
    .serialize = docker_serialize,
    .connect = docker_connect,
    .pause = docker_pause,
    .resume = docker_resume,
    .describe = docker_describe,
};
