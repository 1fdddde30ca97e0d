/* The docker provider's status, list, stats and endpoints (docker_info.h): engine states
 * mapped to sandman's, why a container ended (OOM, TTL, exit code, engine error), stats mapped
 * to the sample the local provider gives, published ports to URLs. */
#include "providers/docker/docker_info.h"

#include <cjson/cJSON.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/json.h"
#include "core/util.h"
#include "providers/docker/docker_cache.h"
#include "providers/docker/docker_exec.h"

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

static void labels_into(const cJSON *labels, sm_map *m)
{
    const cJSON *it;
    cJSON_ArrayForEach(it, labels)
    {
        if (cJSON_IsString(it) && it->string)
            sm_map_set(m, it->string, it->valuestring);
    }
}

/* What inspect and list both give: id, state and image. */
static void info_base(sm_sandbox_info *info, const char *id, const char *state, const char *image)
{
    info->id = xstrdup(id ? id : "");
    info->provider = xstrdup("docker");
    info->status = map_state(state);
    info->image = image ? xstrdup(image) : NULL;
}

static void info_from_inspect(const cJSON *insp, sm_sandbox_info *info)
{
    const cJSON *cfg = cJSON_GetObjectItemCaseSensitive(insp, "Config");
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(insp, "State");
    const cJSON *hc = cJSON_GetObjectItemCaseSensitive(insp, "HostConfig");
    const cJSON *labels = cJSON_GetObjectItemCaseSensitive(cfg, "Labels");
    const char *state = sm_json_str(st, "Status");
    info_base(info, sm_json_str(insp, "Id"), state, sm_json_str(cfg, "Image"));
    info->created_at = docker_parse_time(sm_json_str(insp, "Created"));
    info->ready_at = docker_parse_time(sm_json_str(st, "StartedAt"));
    double finished = docker_parse_time(sm_json_str(st, "FinishedAt"));
    if (info->status == SM_STATUS_STOPPED)
        info->ended_at = finished;
    info->ttl_s = docker_label_number(labels, DOCKER_LABEL_TTL, -1);
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
    const char *state = sm_json_str(c, "State");
    info_base(info, sm_json_str(c, "Id"), state, sm_json_str(c, "Image"));
    info->created_at = sm_json_num(c, "Created", -1);
    const cJSON *labels = cJSON_GetObjectItemCaseSensitive(c, "Labels");
    labels_into(labels, &info->labels);
    info->ttl_s = docker_label_number(labels, DOCKER_LABEL_TTL, -1);
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

int docker_status(sm_provider *p, sm_handle *h, sm_sandbox_info *info, sm_error *err)
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
            docker_cache_fill(c, insp);
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

/* A sandbox to sandman or to NeMo Gym: made by either (their marker labels). */
static bool is_sandbox(const cJSON *c)
{
    const cJSON *labels = cJSON_GetObjectItemCaseSensitive(c, "Labels");
    const char *mine = sm_json_str(labels, DOCKER_LABEL_PROVIDER);
    const char *gym = sm_json_str(labels, DOCKER_LABEL_NEMO_GYM);
    return (mine && !strcmp(mine, "docker")) || (gym && !strcmp(gym, "1"));
}

/* Without `all`: running sandboxes, sandman's and NeMo Gym's (`docker run --label
 * nemo-gym.sandbox=1`). The engine's label filters all have to match, so the either-or is
 * decided here, on the running containers the engine lists. With `all`: every container of
 * the engine, whoever made it and whatever its state (the dashboard shows them all; foreign
 * ones are marked in provider_info). */
int docker_list(sm_provider *p, const sm_list_filter *f, sm_sandbox_info **out, size_t *n,
                sm_error *err)
{
    docker_provider *dp = p->impl;
    *out = NULL;
    *n = 0;
    bool all = f && f->all;
    cJSON *list = NULL;
    int rc = docker_list_raw(dp, all, f ? f->labels : NULL, NULL, &list, err);
    if (rc != SM_OK)
        return rc;
    size_t cnt = (size_t)cJSON_GetArraySize(list);
    *out = cnt ? xcalloc(cnt, sizeof **out) : NULL;
    const cJSON *it;
    cJSON_ArrayForEach(it, list)
    {
        if (!all && !is_sandbox(it))
            continue;
        sm_sandbox_info *info = &(*out)[*n];
        sm_sandbox_info_init(info);
        info_from_list(it, info);
        (*n)++;
    }
    cJSON_Delete(list);
    sm_sandbox_info_sort(*out, *n);
    return SM_OK;
}

static bool wildcard_ip(const char *ip)
{
    return !ip || !*ip || !strcmp(ip, "0.0.0.0") || !strcmp(ip, "::") || !strcmp(ip, "[::]");
}

int docker_endpoint(sm_provider *p, sm_handle *h, int port, sm_endpoint *out, sm_error *err)
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
        /* Not declared (the container's exposed and bound ports): refused as bad input,
         * naming the declared ones, as the facade does for a handle that holds the spec. */
        int declared[64];
        size_t nd = 0;
        bool is_declared = false;
        const cJSON *cfg = cJSON_GetObjectItemCaseSensitive(insp, "Config");
        const cJSON *sets[] = {
            cJSON_GetObjectItemCaseSensitive(cfg, "ExposedPorts"),
            cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(insp, "HostConfig"),
                                             "PortBindings"),
            ports};
        for (size_t k = 0; k < SM_ARRAY_LEN(sets); k++) {
            const cJSON *it;
            cJSON_ArrayForEach(it, sets[k])
            {
                int n = it->string ? atoi(it->string) : 0;
                bool seen = false;
                for (size_t i = 0; i < nd; i++)
                    seen |= declared[i] == n;
                if (n > 0 && strstr(it->string, "/tcp") && !seen && nd < SM_ARRAY_LEN(declared))
                    declared[nd++] = n;
                is_declared |= n == port;
            }
        }
        if (!is_declared) {
            char msg[400];
            sm_ports_undeclared_msg(port, declared, nd, msg, sizeof msg);
            cJSON_Delete(insp);
            return sm_error_set(err, SM_ERR_INVALID, SM_FAIL_INVALID_REQUEST, "%s", msg);
        }
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
int docker_stats(sm_provider *p, sm_handle *h, sm_sample *s, sm_error *err)
{
    docker_provider *dp = p->impl;
    docker_cache *c = docker_cache_get(dp, h, err);
    if (!c)
        return err ? err->code : SM_ERR_RUNTIME;
    char *path = xasprintf("/containers/%s/stats?stream=false&one-shot=true", h->id);
    int status = 0;
    cJSON *j = NULL;
    int rc = docker_call(dp, "GET", path, NULL, DOCKER_CONTROL_TIMEOUT_S, true, &status, &j, err);
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
    s->oom_kills = docker_oom_known(dp, h); /* also what an earlier sandman process saw */
    cJSON_Delete(j);
    return SM_OK;
}
