/* Resource samples. */
#include "core/telemetry.h"

#include <cjson/cJSON.h>
#include <string.h>

void sm_sample_init(sm_sample *s)
{
    memset(s, 0, sizeof *s);
    s->cpu_time_s = -1;
    s->cpu_limit = -1;
    s->mem_working_set = s->mem_usage = s->mem_limit = -1;
    s->pids = s->pids_limit = -1;
    s->io_read_bytes = s->io_write_bytes = s->net_rx_bytes = s->net_tx_bytes = -1;
    s->oom_kills = s->pids_events = s->nr_throttled = -1;
    s->throttled_s = -1;
}

double sm_sample_cpu_percent(const sm_sample *prev, const sm_sample *cur)
{
    double dt = cur->ts - prev->ts;
    if (prev->cpu_time_s < 0 || cur->cpu_time_s < 0 || dt <= 0)
        return -1;
    double pct = (cur->cpu_time_s - prev->cpu_time_s) / dt * 100.0;
    return pct < 0 ? 0 : pct;
}

static void num(cJSON *o, const char *k, double v)
{
    if (v >= 0)
        cJSON_AddNumberToObject(o, k, v);
    else
        cJSON_AddNullToObject(o, k);
}

cJSON *sm_sample_to_json(const sm_sample *s)
{
    cJSON *o = cJSON_CreateObject();
    num(o, "wall", s->wall);
    num(o, "cpu_time_s", s->cpu_time_s);
    num(o, "cpu_limit", s->cpu_limit);
    num(o, "memory_working_set", (double)s->mem_working_set);
    num(o, "memory_usage", (double)s->mem_usage);
    num(o, "memory_limit", (double)s->mem_limit);
    num(o, "pids", (double)s->pids);
    num(o, "pids_limit", (double)s->pids_limit);
    num(o, "io_read_bytes", (double)s->io_read_bytes);
    num(o, "io_write_bytes", (double)s->io_write_bytes);
    num(o, "net_rx_bytes", (double)s->net_rx_bytes);
    num(o, "net_tx_bytes", (double)s->net_tx_bytes);
    num(o, "oom_kills", (double)s->oom_kills);
    num(o, "pids_events", (double)s->pids_events);
    num(o, "nr_throttled", (double)s->nr_throttled);
    num(o, "throttled_s", s->throttled_s);
    return o;
}
