/* The docker provider's create (docker_create.h): the container's JSON (labels, resources,
 * keep-alive and TTL, published ports), pulling a missing image, readiness from the
 * keep-alive's first output or the probe, and removal of anything half-made, including a
 * container whose create reply was lost on the way back (found by its attempt label). */
#include "providers/docker/docker_create.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "core/json.h"
#include "core/redact.h"
#include "core/util.h"
#include "providers/docker/docker_args.h"
#include "providers/docker/docker_cache.h"
#include "providers/docker/docker_fs.h"
#include "providers/docker/docker_run.h"

#define PULL_TIMEOUT_S 900.0

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
                            {DOCKER_LABEL_CONTEXT, p->context},
                            {DOCKER_LABEL_NEMO_GYM, "1"}};
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
        rc = docker_list_raw(dp, true, NULL, label, &list, err);
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
        if (ok) { /* the next of stable_count passes in a row, after stable_delay_s */
            if (until > 0 && sm_now_mono() >= until)
                break;
            if (c->probe_stable_delay_s > 0)
                usleep((useconds_t)(c->probe_stable_delay_s * 1e6));
            continue;
        }
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

static void logs_tail(docker_provider *dp, const char *id, char *buf, size_t len)
{
    buf[0] = '\0';
    sm_strbuf text = {0};
    if (docker_logs(dp, id, "3", &text, NULL) == SM_OK) {
        size_t n = 0;
        for (size_t i = 0; text.data && i < text.len && n + 1 < len; i++)
            buf[n++] = (text.data[i] == '\n' || text.data[i] == '\r') ? ' ' : text.data[i];
        while (n > 0 && buf[n - 1] == ' ')
            n--;
        buf[n] = '\0';
    }
    sm_strbuf_free(&text);
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
                         .timeout_s = dp->cfg.start_timeout_s,
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
    int rc =
        docker_call(dp, "POST", path, NULL, dp->cfg.start_timeout_s, false, &status, &reply, err);
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
           !strcmp(c->probe_command, DOCKER_DEFAULT_PROBE_COMMAND) && c->probe_expected &&
           !strcmp(c->probe_expected, DOCKER_DEFAULT_PROBE_EXPECTED) && c->probe_stable_count == 1;
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
    if (sm_http_upgrade(dp->http, "POST", path, "tcp", NULL, NULL, 0, dp->cfg.start_timeout_s,
                        &conn, &status, NULL, NULL) != SM_OK)
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

/* provider_options.volumes: ["host:container[:mode]", ...] or {host: container} or
 * {host: {bind: container, mode: ro}} (docker-py's form), as `docker run -v`. */
static int volume_args(const cJSON *v, char ***out, sm_error *err)
{
    static const char what[] = "provider_options.volumes";
    if (cJSON_IsString(v) || cJSON_IsArray(v)) {
        *out = docker_args_from_json(v, what, err);
        return *out ? SM_OK : SM_ERR_INVALID;
    }
    if (!cJSON_IsObject(v))
        return sm_error_set(err, SM_ERR_INVALID, SM_FAIL_INVALID_REQUEST,
                            "%s must be a list of host:container[:mode] strings or a mapping",
                            what);
    size_t n = 0;
    char **list = xcalloc((size_t)cJSON_GetArraySize(v) + 1, sizeof *list);
    const cJSON *it;
    cJSON_ArrayForEach(it, v)
    {
        const char *bind = cJSON_IsString(it) ? it->valuestring : sm_json_str(it, "bind");
        const char *mode = cJSON_IsObject(it) ? sm_json_str(it, "mode") : NULL;
        if (!bind || !*bind) {
            docker_args_free(list);
            return sm_error_set(err, SM_ERR_INVALID, SM_FAIL_INVALID_REQUEST,
                                "%s['%s'] needs a container path (a string, or {bind: PATH})", what,
                                it->string);
        }
        list[n++] = mode ? xasprintf("%s:%s:%s", it->string, bind, mode)
                         : xasprintf("%s:%s", it->string, bind);
    }
    *out = list;
    return SM_OK;
}

/* The container's docker run flags, in the seed's order: provider_options.volumes (-v), the
 * context's create.extra_run_args, provider_options.run_args. What has no API field is named
 * in *warn, as are provider options this provider does not use. */
static int apply_run_args(const docker_provider *dp, const sm_spec *spec, cJSON *body,
                          sm_strbuf *warn, sm_error *err)
{
    const cJSON *po = spec->provider_options;
    char **vols = NULL, **run = NULL;
    int rc = SM_OK;
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(po, "volumes");
    if (v && !cJSON_IsNull(v))
        rc = volume_args(v, &vols, err);
    if (!rc) {
        run = docker_args_from_json(cJSON_GetObjectItemCaseSensitive(po, "run_args"),
                                    "provider_options.run_args", err);
        rc = run ? SM_OK : SM_ERR_INVALID;
    }
    sm_strbuf skipped = {0};
    for (size_t i = 0; !rc && vols && vols[i]; i++) {
        char *const one[] = {"-v", vols[i], NULL};
        rc = docker_args_run(one, "provider_options.volumes", body, NULL, err);
    }
    const struct {
        char *const *args;
        const char *what;
    } sets[] = {{dp->cfg.extra_run_args, "docker.create.extra_run_args"},
                {run, "provider_options.run_args"}};
    for (size_t i = 0; !rc && i < SM_ARRAY_LEN(sets); i++) {
        skipped.len = 0;
        if (skipped.data)
            skipped.data[0] = '\0';
        /* the context's own were named once, when it was read (dp->cfg.warnings) */
        rc = docker_args_run(sets[i].args, sets[i].what, body, i ? &skipped : NULL, err);
        if (!rc && skipped.len)
            sm_strbuf_printf(warn, "%s%s ignores %s (no Docker Engine API equivalent)",
                             warn->len ? "; " : "", sets[i].what, skipped.data);
    }
    const cJSON *it;
    cJSON_ArrayForEach(it, po)
    {
        if (strcmp(it->string, "volumes") && strcmp(it->string, "run_args"))
            sm_strbuf_printf(warn, "%sprovider_options.%s is not used by the docker provider",
                             warn->len ? "; " : "", it->string);
    }
    sm_strbuf_free(&skipped);
    docker_args_free(vols);
    docker_args_free(run);
    if (rc && err)
        err->failure.kind = SM_FAIL_INVALID_REQUEST;
    return rc;
}

int docker_create(sm_provider *p, const sm_spec *spec, sm_handle **out, sm_error *err)
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
    sm_strbuf warn = {0};
    if (dp->cfg.warnings)
        sm_strbuf_puts(&warn, dp->cfg.warnings);
    if (apply_run_args(dp, &s, body, &warn, err) != SM_OK) {
        cJSON_Delete(body);
        sm_strbuf_free(&warn);
        return SM_ERR_INVALID;
    }
    char *id = NULL;
    int rc = create_container(dp, body, name, attempt, image, &id, err);
    cJSON_Delete(body);
    if (rc != SM_OK) {
        if (err) {
            if (err->failure.kind != SM_FAIL_PROVIDER_UNREACHABLE)
                err->failure.kind = SM_FAIL_CREATE_FAILED;
            snprintf(err->failure.operation, sizeof err->failure.operation, "create");
        }
        sm_strbuf_free(&warn);
        return rc;
    }
    double created = sm_now_wall();
    rc = spec->workdir ? docker_make_workdir(dp, id, spec->workdir, err) : SM_OK;
    sm_http_conn *attached = token && rc == SM_OK ? attach_output(dp, id) : NULL;
    if (rc == SM_OK)
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
        sm_strbuf_free(&warn);
        return rc;
    }
    sm_handle *h = sm_handle_new(id, "docker");
    free(id);
    h->warning = warn.len ? sm_strbuf_take(&warn) : NULL;
    sm_strbuf_free(&warn);
    docker_cache *c = docker_cache_of(h); /* not "inspected": limits are read on first use */
    c->created_at = created;
    c->ttl_s = ttl_enforced ? spec->ttl_s : -1;
    c->oom_seen = 0; /* a new container has had no OOM kill */
    *out = h;
    return SM_OK;
}
