/* The docker provider's per-handle cache (docker_cache.h). */
#include "providers/docker/docker_cache.h"

#include <cjson/cJSON.h>
#include <stdlib.h>

#include "core/json.h"
#include "core/util.h"

double docker_label_number(const cJSON *labels, const char *key, double dflt)
{
    const char *v = sm_json_str(labels, key);
    double d;
    return (v && sm_parse_double(v, &d) == 0) ? d : dflt;
}

void docker_cache_fill(docker_cache *c, const cJSON *insp)
{
    const cJSON *cfg = cJSON_GetObjectItemCaseSensitive(insp, "Config");
    const cJSON *hc = cJSON_GetObjectItemCaseSensitive(insp, "HostConfig");
    const cJSON *labels = cJSON_GetObjectItemCaseSensitive(cfg, "Labels");
    c->inspected = true;
    c->created_at = docker_parse_time(sm_json_str(insp, "Created"));
    c->ttl_s = docker_label_number(labels, DOCKER_LABEL_TTL, -1);
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
        docker_cache_fill(c, insp);
        cJSON_Delete(insp);
    }
    return c;
}
