/* The docker provider's per-handle cache (handle->raw): what does not change during a
 * container's life, read by one inspect on first use, and the handle's exec helper. Above the
 * engine client; it must not start anything in a container. */
#ifndef SM_DOCKER_CACHE_H
#define SM_DOCKER_CACHE_H

#include "core/provider_impl.h"
#include "providers/docker/docker_engine.h"

typedef struct docker_executor docker_executor; /* docker_executor.h */

typedef struct docker_cache {
    bool inspected;
    double created_at; /* epoch s */
    double ttl_s;      /* -1 = none */
    long long mem_limit;
    double cpu_limit;
    long long pids_limit;
    char *workdir;
    long long oom_seen;        /* OOM kills already attributed (the cgroup counter), -1 unknown */
    docker_executor *executor; /* NULL until the handle's first exec; freed by handle_free */
} docker_cache;

/* The handle's cache, filled by one inspect on first use; NULL + err when that fails. */
docker_cache *docker_cache_get(docker_provider *dp, sm_handle *h, sm_error *err);
/* The handle's cache as it is (created empty when absent; nothing is read). */
docker_cache *docker_cache_of(sm_handle *h);
/* Fills c from an inspect reply. */
void docker_cache_fill(docker_cache *c, const cJSON *insp);
/* A number from a container's labels (our TTL label), dflt when absent or not a number. */
double docker_label_number(const cJSON *labels, const char *key, double dflt);

#endif
