/* Resource samples of a local sandbox for stats: its cgroup counters and network bytes, the
 * cgroup paths and files cached in the handle between ticks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/json.h"
#include "core/util.h"
#include "providers/local/local.h"

/* What stats keeps in a handle between ticks: paths and limits do not change. */
typedef struct local_cache {
    local_cgroups cg;
    local_cg_files files;
    pid_t init_pid;
    bool ended;
    bool no_net; /* network none: /proc/PID/net/dev only has lo, which is not counted */
    bool have_limits;
    double cpu_limit;
    long long mem_limit, pids_limit;
} local_cache;

void local_handle_free(sm_provider *p, sm_handle *h)
{
    local_cache *c = h->raw;
    if (c) {
        local_cg_files_close(&c->files);
        local_cg_free(&c->cg);
        free(c);
    }
    h->raw = NULL;
}

static void read_net(pid_t pid, sm_sample *s)
{
    char path[64], buf[8192];
    snprintf(path, sizeof path, "/proc/%d/net/dev", (int)pid);
    if (sm_read_small(path, buf, sizeof buf) < 0)
        return;
    s->net_rx_bytes = s->net_tx_bytes = 0;
    char *line = strchr(buf, '\n');
    line = line ? strchr(line + 1, '\n') : NULL;
    while (line && *++line) {
        char ifname[64];
        long long rx, tx, skip;
        if (sscanf(line, " %63[^:]: %lld %lld %lld %lld %lld %lld %lld %lld %lld", ifname, &rx,
                   &skip, &skip, &skip, &skip, &skip, &skip, &skip, &tx) == 10 &&
            strcmp(ifname, "lo")) {
            s->net_rx_bytes += rx;
            s->net_tx_bytes += tx;
        }
        line = strchr(line, '\n');
    }
}

int local_stats(sm_provider *p, sm_handle *h, sm_sample *s, sm_error *err)
{
    local_cache *c = h->raw;
    if (!c) {
        local_record r;
        int rc = local_record_load(h->id, &r, err);
        if (rc != SM_OK)
            return rc;
        c = xcalloc(1, sizeof *c);
        c->cg = r.cg; /* moved */
        memset(&r.cg, 0, sizeof r.cg);
        c->init_pid = local_record_init_alive(&r) ? r.init_pid : 0;
        c->ended = r.ended;
        const char *net = sm_json_str(r.spec, "network");
        c->no_net = !net || !strcmp(net, "none"); /* private: tap0 counts */
        local_record_free(&r);
        h->raw = c;
    }
    s->ts = sm_now_mono();
    s->wall = sm_now_wall();
    if (c->ended)
        return SM_OK;
    local_cg_stats(&c->cg, &c->files, s, !c->have_limits);
    if (!c->have_limits) {
        c->have_limits = true;
        c->cpu_limit = s->cpu_limit;
        c->mem_limit = s->mem_limit;
        c->pids_limit = s->pids_limit;
    } else {
        s->cpu_limit = c->cpu_limit;
        s->mem_limit = c->mem_limit;
        s->pids_limit = c->pids_limit;
    }
    if (c->no_net)
        s->net_rx_bytes = s->net_tx_bytes = 0;
    else if (c->init_pid > 0)
        read_net(c->init_pid, s);
    return SM_OK;
}
