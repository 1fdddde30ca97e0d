/* Resource samples, per-sandbox history rings and the rates derived from them. */
#include "core/telemetry.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

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

static double rate(long long a, long long b, double dt)
{
    if (a < 0 || b < 0 || dt <= 0)
        return -1;
    return b >= a ? (double)(b - a) / dt : 0; /* a counter reset reads as idle, not negative */
}

static long long delta(long long a, long long b)
{
    return (a >= 0 && b > a) ? b - a : 0;
}

void sm_rates_between(const sm_sample *prev, const sm_sample *cur, sm_rates *out)
{
    double dt = cur->ts - prev->ts;
    out->cpu_pct = sm_sample_cpu_percent(prev, cur);
    out->io_read_bps = rate(prev->io_read_bytes, cur->io_read_bytes, dt);
    out->io_write_bps = rate(prev->io_write_bytes, cur->io_write_bytes, dt);
    out->net_rx_bps = rate(prev->net_rx_bytes, cur->net_rx_bytes, dt);
    out->net_tx_bps = rate(prev->net_tx_bytes, cur->net_tx_bytes, dt);
    out->new_oom_kills = delta(prev->oom_kills, cur->oom_kills);
    out->new_pids_events = delta(prev->pids_events, cur->pids_events);
    out->new_throttled = delta(prev->nr_throttled, cur->nr_throttled);
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

void sm_history_push(sm_history *h, const sm_sample *s)
{
    h->s[h->head] = *s;
    h->head = (h->head + 1) % SM_HISTORY_LEN;
    if (h->len < SM_HISTORY_LEN)
        h->len++;
}

const sm_sample *sm_history_at(const sm_history *h, size_t back)
{
    if (!h || back >= h->len)
        return NULL;
    return &h->s[(h->head + SM_HISTORY_LEN - 1 - back) % SM_HISTORY_LEN];
}

void sm_history_rates(const sm_history *h, sm_rates *out)
{
    const sm_sample *cur = sm_history_at(h, 0), *prev = sm_history_at(h, 1);
    if (!cur || !prev) {
        out->cpu_pct = out->io_read_bps = out->io_write_bps = out->net_rx_bps = out->net_tx_bps =
            -1;
        out->new_oom_kills = out->new_pids_events = out->new_throttled = 0;
        return;
    }
    sm_rates_between(prev, cur, out);
}

static double metric_at(const sm_history *h, sm_metric m, size_t back)
{
    const sm_sample *cur = sm_history_at(h, back);
    if (m == SM_METRIC_MEM)
        return (double)cur->mem_working_set;
    if (m == SM_METRIC_PIDS)
        return (double)cur->pids;
    sm_rates r;
    sm_rates_between(sm_history_at(h, back + 1), cur, &r);
    switch (m) {
    case SM_METRIC_CPU_PCT: return r.cpu_pct;
    case SM_METRIC_IO_READ: return r.io_read_bps;
    case SM_METRIC_IO_WRITE: return r.io_write_bps;
    case SM_METRIC_NET_RX: return r.net_rx_bps;
    case SM_METRIC_NET_TX: return r.net_tx_bps;
    default: return -1;
    }
}

size_t sm_history_series(const sm_history *h, sm_metric m, double *out, size_t n)
{
    if (!h)
        return 0;
    bool is_rate = m != SM_METRIC_MEM && m != SM_METRIC_PIDS;
    size_t avail = is_rate ? (h->len > 0 ? h->len - 1 : 0) : h->len;
    if (n > avail)
        n = avail;
    for (size_t i = 0; i < n; i++)
        out[i] = metric_at(h, m, n - 1 - i);
    return n;
}
