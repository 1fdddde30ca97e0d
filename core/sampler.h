/* The sampler: one provider `stats` call per running sandbox, through handles it keeps across
 * ticks so a provider can cache what does not change (cgroup paths, limits). It never spawns a
 * process. Meant for a worker thread; one caller at a time. The samples it returns are pushed
 * into histories (core/telemetry.h) by whoever owns them. */
#ifndef SM_SAMPLER_H
#define SM_SAMPLER_H

#include <stdbool.h>

#include "core/provider.h"

typedef struct sm_sampler sm_sampler;

sm_sampler *sm_sampler_new(sm_provider *p);
void sm_sampler_free(sm_sampler *s);
/* Samples every running or starting sandbox of list; ok[i] says whether out[i] was filled.
 * Handles of sandboxes not in list are released. Returns how many were sampled. */
size_t sm_sampler_collect(sm_sampler *s, const sm_sandbox_info *list, size_t n, sm_sample *out,
                          bool *ok);

#endif
