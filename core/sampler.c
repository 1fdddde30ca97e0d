/* The sampler: provider stats through cached handles. */
#include "core/sampler.h"

#include <stdlib.h>
#include <sys/resource.h>

#include "core/provider_impl.h"
#include "core/strtab.h"
#include "core/util.h"

struct sm_sampler {
    sm_provider *p;
    sm_strtab handles; /* id -> sm_handle* */
};

static void free_handle(void *v, void *ud)
{
    sm_handle_free(ud, v);
}

sm_sampler *sm_sampler_new(sm_provider *p)
{
    /* Providers may keep a few descriptors open per sandbox between ticks (the local one
     * re-reads its cgroup files with pread): allow as many as the hard limit does. */
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    sm_sampler *s = xcalloc(1, sizeof *s);
    s->p = p;
    sm_strtab_init(&s->handles, free_handle, p);
    return s;
}

void sm_sampler_free(sm_sampler *s)
{
    if (!s)
        return;
    sm_strtab_clear(&s->handles);
    free(s);
}

size_t sm_sampler_collect(sm_sampler *s, const sm_sandbox_info *list, size_t n, sm_sample *out,
                          bool *ok)
{
    const char **ids = xcalloc(n ? n : 1, sizeof *ids);
    size_t sampled = 0;
    bool can = (s->p->ops->caps & SM_CAP_STATS) && s->p->ops->stats;
    for (size_t i = 0; i < n; i++) {
        ids[i] = list[i].id;
        ok[i] = false;
        sm_sample_init(&out[i]);
        bool live = list[i].status == SM_STATUS_RUNNING || list[i].status == SM_STATUS_STARTING;
        if (!can || !live)
            continue;
        sm_handle *h = sm_strtab_get(&s->handles, list[i].id);
        if (!h) {
            h = sm_handle_new(list[i].id, s->p->ops->name);
            sm_strtab_put(&s->handles, list[i].id, h);
        }
        out[i].ts = sm_now_mono();
        out[i].wall = sm_now_wall();
        if (s->p->ops->stats(s->p, h, &out[i], NULL) == SM_OK) {
            ok[i] = true;
            sampled++;
        }
    }
    sm_strtab_retain(&s->handles, ids, n);
    free(ids);
    return sampled;
}
