/* A stateful stand-in for the OpenSandbox lifecycle server (spec/opensandbox-api.md §6) for
 * tests: the REST routes at / and /v1 with the real server's status codes and shapes (202 on
 * create with state Running, 204 on delete, 404/401/409/500 error bodies, FastAPI's 422
 * validation bodies, endpoints without a scheme, pagination, metadata filters, newest first),
 * server-side expiry, and the /sandboxes/{id}/proxy/{port} route. Each sandbox is a real local
 * sandboxes (the local provider) with its own osb_fake_execd. Uvicorn's 5 s keep-alive is kept:
 * idle connections are closed after --idle-timeout seconds.
 * Faults for tests: POST /_fake/faults {"fail":[502,503], "drop_create_reply":1, "malformed":1,
 * "slow_s":3}; GET /_fake/stats. usage: osb_fake_server --port-file F --execd PATH
 * [--api-key K] [--min-timeout 60] [--idle-timeout 5] [--local-config JSON] */
#include <arpa/inet.h>
#include <cjson/cJSON.h>
#include <netinet/in.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/json.h"
#include "core/provider_impl.h"
#include "core/util.h"
#include "providers/builtin.h"
#include "tests/fakes/fake_http.h"

typedef struct fsb {
    char id[40];
    sm_handle *h;
    pid_t execd_pid;
    int execd_port;
    cJSON *metadata, *entrypoint;
    char *image;
    double created, expires, transition;
    bool paused;
    struct fsb *next;
} fsb;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static fsb *boxes; /* newest first */
static sm_provider *local;
static const char *api_key, *execd_path, *local_cfg_text = "{}";
static long min_timeout = 60;
static int my_port;
static cJSON *fail_queue; /* statuses to answer next */
static int drop_create, malformed;
static double slow_s;
static long n_requests, n_creates, n_connections;

static void iso(double t, char *buf, size_t len)
{
    sm_format_time(t, buf, len);
}

static void uuid(char *out)
{
    char h[33];
    sm_random_hex(h, 32);
    snprintf(out, 40, "%.8s-%.4s-4%.3s-a%.3s-%.12s", h, h + 8, h + 12, h + 15, h + 18);
}

static fsb *find(const char *id)
{
    for (fsb *b = boxes; b; b = b->next)
        if (!strcmp(b->id, id))
            return b;
    return NULL;
}

static void box_free(fsb *b)
{
    if (b->execd_pid > 0) {
        kill(b->execd_pid, SIGTERM);
        waitpid(b->execd_pid, NULL, 0);
    }
    if (b->h) {
        local->ops->close(local, b->h, NULL);
        sm_handle_free(local, b->h);
    }
    cJSON_Delete(b->metadata);
    cJSON_Delete(b->entrypoint);
    free(b->image);
    free(b);
}

/* Unlinks (under lock) and returns the box, or NULL. */
static fsb *unlink_box(const char *id)
{
    for (fsb **pp = &boxes; *pp; pp = &(*pp)->next)
        if (!strcmp((*pp)->id, id)) {
            fsb *b = *pp;
            *pp = b->next;
            return b;
        }
    return NULL;
}

static cJSON *box_json(const fsb *b, bool full)
{
    char t[40];
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "id", b->id);
    if (full) {
        cJSON *im = cJSON_AddObjectToObject(j, "image");
        cJSON_AddStringToObject(im, "uri", b->image);
    }
    cJSON *st = cJSON_AddObjectToObject(j, "status");
    cJSON_AddStringToObject(st, "state", b->paused ? "Paused" : "Running");
    cJSON_AddStringToObject(st, "reason", b->paused ? "CONTAINER_PAUSED" : "CONTAINER_RUNNING");
    iso(b->transition, t, sizeof t);
    cJSON_AddStringToObject(st, "lastTransitionAt", t);
    if (cJSON_GetArraySize(b->metadata) > 0)
        cJSON_AddItemToObject(j, "metadata", cJSON_Duplicate(b->metadata, 1));
    cJSON *pl = cJSON_AddObjectToObject(j, "platform");
    cJSON_AddStringToObject(pl, "os", "linux");
    cJSON_AddStringToObject(pl, "arch", "amd64");
    cJSON_AddItemToObject(j, "entrypoint", cJSON_Duplicate(b->entrypoint, 1));
    if (b->expires > 0) {
        iso(b->expires, t, sizeof t);
        cJSON_AddStringToObject(j, "expiresAt", t);
    }
    iso(b->created, t, sizeof t);
    cJSON_AddStringToObject(j, "createdAt", t);
    return j;
}

static enum MHD_Result not_found(struct MHD_Connection *c, const char *id)
{
    return fake_error(c, 404, "DOCKER::SANDBOX_NOT_FOUND", "Sandbox %s not found.", id);
}

/* FastAPI's validation answer. */
static enum MHD_Result invalid(struct MHD_Connection *c, const char *type, const char *field,
                               const char *msg)
{
    cJSON *j = cJSON_CreateObject();
    cJSON *d = cJSON_AddArrayToObject(j, "detail");
    cJSON *e = cJSON_CreateObject();
    cJSON_AddStringToObject(e, "type", type);
    cJSON *loc = cJSON_AddArrayToObject(e, "loc");
    cJSON_AddItemToArray(loc, cJSON_CreateString("body"));
    if (field)
        cJSON_AddItemToArray(loc, cJSON_CreateString(field));
    cJSON_AddStringToObject(e, "msg", msg);
    cJSON_AddNullToObject(e, "input");
    cJSON_AddItemToArray(d, e);
    return fake_json(c, 422, j);
}

/* Starts the sandbox's execd; its port comes back on a pipe. */
static int start_execd(fsb *b)
{
    int p[2];
    if (pipe(p) < 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        dup2(p[1], 1);
        close(p[0]);
        execl(execd_path, execd_path, "--sandbox", b->h->id, "--local-config", local_cfg_text,
              (char *)NULL);
        _exit(127);
    }
    close(p[1]);
    char buf[32] = "";
    size_t got = 0;
    ssize_t n;
    while (got < sizeof buf - 1 && (n = read(p[0], buf + got, sizeof buf - 1 - got)) > 0) {
        got += (size_t)n;
        if (memchr(buf, '\n', got))
            break;
    }
    close(p[0]);
    b->execd_pid = pid;
    b->execd_port = atoi(buf);
    return b->execd_port > 0 ? 0 : -1;
}

static enum MHD_Result do_create(struct MHD_Connection *c, const fake_req *rq)
{
    cJSON *body = rq->len ? cJSON_ParseWithLength(rq->body, rq->len) : NULL;
    if (!body || !cJSON_IsObject(body)) {
        cJSON_Delete(body);
        return invalid(c, "json_invalid", NULL, "JSON decode error");
    }
    enum MHD_Result ret;
    const cJSON *image = cJSON_GetObjectItemCaseSensitive(body, "image");
    const cJSON *uri = cJSON_GetObjectItemCaseSensitive(image, "uri");
    const cJSON *res = cJSON_GetObjectItemCaseSensitive(body, "resourceLimits");
    const cJSON *ep = cJSON_GetObjectItemCaseSensitive(body, "entrypoint");
    const cJSON *to = cJSON_GetObjectItemCaseSensitive(body, "timeout");
    const cJSON *md = cJSON_GetObjectItemCaseSensitive(body, "metadata");
    const cJSON *env = cJSON_GetObjectItemCaseSensitive(body, "env");
    if (!cJSON_IsString(uri) || !*uri->valuestring) {
        ret = invalid(c, "missing", "image", "Field required");
    } else if (!cJSON_IsObject(res)) {
        ret = invalid(c, "value_error", NULL,
                      "Value error, resourceLimits is required when poolRef is not provided");
    } else if (!cJSON_IsArray(ep) || cJSON_GetArraySize(ep) == 0) {
        ret = invalid(c, "value_error", "entrypoint",
                      "Value error, entrypoint is required and must not be empty");
    } else if (to && !cJSON_IsNull(to) &&
               (!cJSON_IsNumber(to) || to->valuedouble != (double)(long)to->valuedouble)) {
        ret = invalid(c, "int_type", "timeout", "Input should be a valid integer");
    } else if (to && cJSON_IsNumber(to) && to->valuedouble < (double)min_timeout) {
        char msg[96];
        snprintf(msg, sizeof msg, "Input should be greater than or equal to %ld", min_timeout);
        ret = invalid(c, "greater_than_equal", "timeout", msg);
    } else if (md && !cJSON_IsObject(md)) {
        ret = invalid(c, "dict_type", "metadata", "Input should be a valid dictionary");
    } else {
        fsb *b = xcalloc(1, sizeof *b);
        uuid(b->id);
        b->image = xstrdup(uri->valuestring);
        b->metadata = md ? cJSON_Duplicate(md, 1) : cJSON_CreateObject();
        b->entrypoint = cJSON_Duplicate(ep, 1);
        b->created = b->transition = sm_now_wall();
        if (cJSON_IsNumber(to))
            b->expires = b->created + to->valuedouble;
        sm_spec spec;
        sm_spec_init(&spec);
        if (cJSON_IsObject(env))
            sm_map_from_json(env, &spec.env, NULL, 0);
        sm_error e;
        sm_error_clear(&e);
        int rc = local->ops->create(local, &spec, &b->h, &e);
        sm_spec_free(&spec);
        if (rc != SM_OK || start_execd(b) < 0) {
            ret = fake_error(c, 500, "DOCKER::SANDBOX_CREATE_FAILED", "create failed: %s",
                             e.msg[0] ? e.msg : "execd did not start");
            box_free(b);
        } else {
            pthread_mutex_lock(&lock);
            b->next = boxes;
            boxes = b;
            n_creates++;
            bool drop = drop_create > 0;
            if (drop)
                drop_create--;
            cJSON *j = box_json(b, false);
            pthread_mutex_unlock(&lock);
            if (drop) {
                cJSON_Delete(j);
                ret = MHD_NO; /* the sandbox exists; the reply is lost */
            } else {
                ret = fake_json(c, 202, j);
            }
        }
    }
    cJSON_Delete(body);
    return ret;
}

typedef struct filt {
    cJSON *states;
    char *metadata;
} filt;

static enum MHD_Result collect_state(void *cls, enum MHD_ValueKind kind, const char *key,
                                     const char *value)
{
    filt *f = cls;
    if (!strcmp(key, "state") && value)
        cJSON_AddItemToArray(f->states, cJSON_CreateString(value));
    return MHD_YES;
}

static bool md_match(const fsb *b, const char *filter)
{
    if (!filter || !*filter)
        return true;
    char *copy = xstrdup(filter), *save = NULL;
    bool ok = true;
    for (char *kv = strtok_r(copy, "&", &save); kv && ok; kv = strtok_r(NULL, "&", &save)) {
        char *eq = strchr(kv, '=');
        if (!eq)
            continue;
        *eq = '\0';
        MHD_http_unescape(kv);
        MHD_http_unescape(eq + 1);
        const char *have = sm_json_str(b->metadata, kv);
        ok = have && !strcmp(have, eq + 1);
    }
    free(copy);
    return ok;
}

static enum MHD_Result do_list(struct MHD_Connection *c)
{
    filt f = {.states = cJSON_CreateArray()};
    MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, collect_state, &f);
    const char *md = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "metadata");
    const char *ps = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "pageSize");
    const char *pg = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "page");
    long page = pg ? atol(pg) : 1, size = ps ? atol(ps) : 20;
    if (page < 1 || size < 1) {
        cJSON_Delete(f.states);
        return fake_error(c, 422, "GENERAL::INVALID_PARAMETER", "page and pageSize must be >= 1");
    }
    cJSON *items = cJSON_CreateArray();
    long total = 0;
    pthread_mutex_lock(&lock);
    for (fsb *b = boxes; b; b = b->next) {
        if (!md_match(b, md))
            continue;
        if (cJSON_GetArraySize(f.states) > 0) {
            bool any = false;
            const cJSON *s;
            cJSON_ArrayForEach(s, f.states) any |=
                !strcasecmp(s->valuestring, b->paused ? "Paused" : "Running");
            if (!any)
                continue;
        }
        if (total >= (page - 1) * size && total < page * size)
            cJSON_AddItemToArray(items, box_json(b, true));
        total++;
    }
    pthread_mutex_unlock(&lock);
    cJSON_Delete(f.states);
    cJSON *j = cJSON_CreateObject();
    cJSON_AddItemToObject(j, "items", items);
    cJSON *p = cJSON_AddObjectToObject(j, "pagination");
    long pages = (total + size - 1) / size;
    cJSON_AddNumberToObject(p, "page", (double)page);
    cJSON_AddNumberToObject(p, "pageSize", (double)size);
    cJSON_AddNumberToObject(p, "totalItems", (double)total);
    cJSON_AddNumberToObject(p, "totalPages", (double)pages);
    cJSON_AddBoolToObject(p, "hasNextPage", page < pages);
    return fake_json(c, 200, j);
}

static enum MHD_Result do_endpoint(struct MHD_Connection *c, fsb *b, int port)
{
    if (port <= 0 || port > 65535)
        return fake_error(c, 400, "DOCKER::INVALID_PORT", "Invalid port %d.", port);
    const char *sp = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "use_server_proxy");
    char ep[256];
    if (sp && (!strcasecmp(sp, "true") || !strcmp(sp, "1")))
        snprintf(ep, sizeof ep, "127.0.0.1:%d/sandboxes/%s/proxy/%d", my_port, b->id, port);
    else
        snprintf(ep, sizeof ep, "127.0.0.1:%d/proxy/%d", b->execd_port, port);
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "endpoint", ep);
    return fake_json(c, 200, j);
}

static enum MHD_Result do_faults(struct MHD_Connection *c, const fake_req *rq)
{
    cJSON *j = cJSON_ParseWithLength(rq->body ? rq->body : "", rq->len);
    pthread_mutex_lock(&lock);
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(j, "fail");
    const cJSON *it;
    cJSON_ArrayForEach(it, f) cJSON_AddItemToArray(fail_queue, cJSON_Duplicate(it, 0));
    drop_create += (int)sm_json_num(j, "drop_create_reply", 0);
    malformed += (int)sm_json_num(j, "malformed", 0);
    slow_s = sm_json_num(j, "slow_s", slow_s);
    pthread_mutex_unlock(&lock);
    cJSON_Delete(j);
    return fake_json(c, 200, cJSON_CreateObject());
}

static enum MHD_Result do_stats(struct MHD_Connection *c)
{
    cJSON *j = cJSON_CreateObject();
    pthread_mutex_lock(&lock);
    long n = 0;
    for (fsb *b = boxes; b; b = b->next)
        n++;
    cJSON_AddNumberToObject(j, "sandboxes", (double)n);
    cJSON_AddNumberToObject(j, "requests", (double)n_requests);
    cJSON_AddNumberToObject(j, "creates", (double)n_creates);
    cJSON_AddNumberToObject(j, "connections", (double)n_connections);
    pthread_mutex_unlock(&lock);
    return fake_json(c, 200, j);
}

static enum MHD_Result sandbox_route(struct MHD_Connection *c, const char *method, const char *rest,
                                     const fake_req *rq)
{
    char id[64] = "", sub[64] = "";
    int n = 0;
    sscanf(rest, "%63[^/]%n", id, &n);
    const char *tail = rest + n;
    if (*tail == '/')
        sscanf(tail + 1, "%63[^/]", sub);
    pthread_mutex_lock(&lock);
    fsb *b = find(id);
    if (!b) {
        pthread_mutex_unlock(&lock);
        return not_found(c, id);
    }
    enum MHD_Result ret;
    if (!sub[0] && !strcmp(method, "GET")) {
        ret = fake_json(c, 200, box_json(b, true));
    } else if (!sub[0] && !strcmp(method, "DELETE")) {
        unlink_box(id);
        pthread_mutex_unlock(&lock);
        box_free(b);
        return fake_json(c, 204, NULL);
    } else if (!strcmp(sub, "pause") && !strcmp(method, "POST")) {
        if (b->paused)
            ret = fake_error(c, 500, "DOCKER::SANDBOX_PAUSE_FAILED",
                             "Failed to pause sandbox %s: container state improper", id);
        else {
            b->paused = true;
            b->transition = sm_now_wall();
            ret = fake_json(c, 202, NULL);
        }
    } else if (!strcmp(sub, "resume") && !strcmp(method, "POST")) {
        if (!b->paused)
            ret = fake_error(c, 409, "DOCKER::SANDBOX_NOT_PAUSED", "Sandbox %s is not paused.", id);
        else {
            b->paused = false;
            b->transition = sm_now_wall();
            ret = fake_json(c, 202, NULL);
        }
    } else if (!strcmp(sub, "renew-expiration") && !strcmp(method, "POST")) {
        cJSON *j = rq->len ? cJSON_ParseWithLength(rq->body, rq->len) : NULL;
        double t = sm_parse_time(sm_json_str(j, "expiresAt"));
        cJSON_Delete(j);
        if (t < 0) {
            ret = invalid(c, "datetime_from_date_parsing", "expiresAt",
                          "Input should be a valid datetime");
        } else {
            b->expires = t;
            char buf[40];
            iso(t, buf, sizeof buf);
            cJSON *a = cJSON_CreateObject();
            cJSON_AddStringToObject(a, "expiresAt", buf);
            ret = fake_json(c, 200, a);
        }
    } else if (!strcmp(sub, "metadata") && !strcmp(method, "PATCH")) {
        cJSON *j = rq->len ? cJSON_ParseWithLength(rq->body, rq->len) : NULL;
        const cJSON *it;
        cJSON_ArrayForEach(it, j)
        {
            cJSON_DeleteItemFromObjectCaseSensitive(b->metadata, it->string);
            if (cJSON_IsString(it))
                cJSON_AddStringToObject(b->metadata, it->string, it->valuestring);
        }
        cJSON_Delete(j);
        ret = fake_json(c, 200, box_json(b, true));
    } else if (!strcmp(sub, "endpoints") && !strcmp(method, "GET")) {
        ret = do_endpoint(c, b, atoi(tail + strlen("/endpoints/")));
    } else if (!strcmp(sub, "proxy")) {
        int port = 0, m = 0;
        sscanf(tail, "/proxy/%d%n", &port, &m);
        int execd = b->execd_port;
        pthread_mutex_unlock(&lock);
        char *q = fake_query(c);
        const char *path = tail + m;
        char *fwd = port == 44772 ? xasprintf("%s%s%s", *path ? path : "/", *q ? "?" : "", q)
                                  : xasprintf("/proxy/%d%s%s%s", port, path, *q ? "?" : "", q);
        free(q);
        ret = fake_forward(c, execd, method, fwd, rq);
        free(fwd);
        return ret;
    } else {
        ret = fake_error(c, 404, "GENERAL::NOT_FOUND", "Not Found");
    }
    pthread_mutex_unlock(&lock);
    return ret;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version, const char *data,
                                  size_t *size, void **con_cls)
{
    fake_req *rq;
    if (!fake_gather(con_cls, data, size, &rq))
        return MHD_YES;
    if (!strcmp(url, "/_fake/faults"))
        return do_faults(c, rq);
    if (!strcmp(url, "/_fake/stats"))
        return do_stats(c);
    if (!strcmp(url, "/health"))
        return fake_send(c, 200, "application/json", "{\"status\":\"healthy\"}", 20);
    const char *path = sm_str_has_prefix(url, "/v1/") ? url + 3 : url;
    bool proxy = sm_str_has_prefix(path, "/sandboxes/") && strstr(path, "/proxy/");
    if (api_key && !proxy) {
        const char *k = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "OPEN-SANDBOX-API-KEY");
        if (!k)
            return fake_error(c, 401, "MISSING_API_KEY", "Missing API key in header");
        if (strcmp(k, api_key))
            return fake_error(c, 401, "INVALID_API_KEY", "Invalid API key");
    }
    pthread_mutex_lock(&lock);
    n_requests++;
    int fail = 0;
    if (cJSON_GetArraySize(fail_queue) > 0) {
        fail = cJSON_GetArrayItem(fail_queue, 0)->valueint;
        cJSON_DeleteItemFromArray(fail_queue, 0);
    }
    bool bad = !fail && malformed > 0;
    if (bad)
        malformed--;
    double slow = slow_s;
    slow_s = 0;
    pthread_mutex_unlock(&lock);
    if (slow > 0)
        usleep((useconds_t)(slow * 1e6));
    if (fail)
        return fake_send(c, fail, "text/html", "<html>upstream trouble</html>", 29);
    if (bad)
        return fake_send(c, 200, "application/json", "{\"items\": [", 11);
    if (!strcmp(path, "/sandboxes") && !strcmp(method, "POST"))
        return do_create(c, rq);
    if (!strcmp(path, "/sandboxes") && !strcmp(method, "GET"))
        return do_list(c);
    if (sm_str_has_prefix(path, "/sandboxes/"))
        return sandbox_route(c, method, path + strlen("/sandboxes/"), rq);
    return fake_error(c, 404, "GENERAL::NOT_FOUND", "Not Found");
}

static void on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
                          enum MHD_ConnectionNotificationCode code)
{
    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
        pthread_mutex_lock(&lock);
        n_connections++;
        pthread_mutex_unlock(&lock);
    }
}

static void *reaper(void *arg)
{
    for (;;) {
        usleep(100000);
        double now = sm_now_wall();
        for (;;) {
            pthread_mutex_lock(&lock);
            fsb *b = boxes;
            while (b && !(b->expires > 0 && b->expires <= now))
                b = b->next;
            if (b)
                unlink_box(b->id);
            pthread_mutex_unlock(&lock);
            if (!b)
                break;
            box_free(b);
        }
    }
    return NULL;
}

int main(int argc, char **argv)
{
    const char *port_file = NULL;
    unsigned idle = 5;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--port-file"))
            port_file = argv[i + 1];
        else if (!strcmp(argv[i], "--api-key"))
            api_key = argv[i + 1];
        else if (!strcmp(argv[i], "--min-timeout"))
            min_timeout = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--idle-timeout"))
            idle = (unsigned)atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--execd"))
            execd_path = argv[i + 1];
        else if (!strcmp(argv[i], "--local-config"))
            local_cfg_text = argv[i + 1];
    }
    if (!port_file || !execd_path) {
        fprintf(stderr,
                "usage: %s --port-file F --execd PATH [--api-key K] [--min-timeout N] "
                "[--idle-timeout S] [--local-config JSON]\n",
                argv[0]);
        return 2;
    }
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    signal(SIGPIPE, SIG_IGN);
    sm_builtin_register_all();
    cJSON *lc = cJSON_Parse(local_cfg_text);
    sm_error e;
    sm_error_clear(&e);
    if (sm_provider_new("local", lc, &local, &e) != SM_OK) {
        fprintf(stderr, "fake server: local provider: %s\n", e.msg);
        return 1;
    }
    cJSON_Delete(lc);
    fail_queue = cJSON_CreateArray();
    struct sockaddr_in lo = {.sin_family = AF_INET};
    lo.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    struct MHD_Daemon *d = MHD_start_daemon(
        MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG, 0,
        NULL, NULL, on_request, NULL, MHD_OPTION_NOTIFY_COMPLETED, fake_req_done, NULL,
        MHD_OPTION_NOTIFY_CONNECTION, on_connection, NULL, MHD_OPTION_CONNECTION_TIMEOUT, idle,
        MHD_OPTION_SOCK_ADDR, &lo, MHD_OPTION_END);
    if (!d) {
        fprintf(stderr, "fake server: cannot listen\n");
        return 1;
    }
    my_port = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT)->port;
    char num[16];
    snprintf(num, sizeof num, "%d\n", my_port);
    sm_write_file_atomic(port_file, num, strlen(num), 0644);
    pthread_t th;
    pthread_create(&th, NULL, reaper, NULL);
    int sig;
    sigwait(&set, &sig);
    MHD_stop_daemon(d);
    pthread_mutex_lock(&lock);
    while (boxes) {
        fsb *b = boxes;
        boxes = b->next;
        box_free(b);
    }
    sm_provider_free(local);
    return 0;
}
