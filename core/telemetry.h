/* Resource telemetry: one sample shape for every provider, a ring of recent samples per
 * sandbox, and the rates derived from it (CPU %, bytes/s). Memory is the working set (usage
 * minus inactive file), as `docker stats` and `kubectl top` report it: the number the OOM
 * killer acts on. Unknown values are -1. No I/O here: samplers fill samples, views read them. */
#ifndef SM_TELEMETRY_H
#define SM_TELEMETRY_H

#include <stdbool.h>
#include <stddef.h>

typedef struct cJSON cJSON;

typedef struct sm_sample {
    double ts;         /* monotonic seconds when taken */
    double wall;       /* epoch seconds when taken */
    double cpu_time_s; /* cumulative CPU seconds of the whole sandbox */
    double cpu_limit;  /* cores allowed (quota/period), -1 = unlimited */
    long long mem_working_set;
    long long mem_usage; /* raw usage including page cache */
    long long mem_limit; /* bytes, -1 = unlimited */
    long long pids;
    long long pids_limit;
    long long io_read_bytes, io_write_bytes;
    long long net_rx_bytes, net_tx_bytes;
    long long oom_kills;    /* cumulative OOM kills in the sandbox */
    long long pids_events;  /* cumulative fork refusals by the pids limit */
    long long nr_throttled; /* CPU throttled periods */
    double throttled_s;
} sm_sample;

void sm_sample_init(sm_sample *s);
cJSON *sm_sample_to_json(const sm_sample *s);
/* CPU use between two samples as a percentage of one core (200 = two busy cores);
 * -1 when either sample lacks CPU time or no time passed. */
double sm_sample_cpu_percent(const sm_sample *prev, const sm_sample *cur);

/* Rates between two samples; -1 where unknown. */
typedef struct sm_rates {
    double cpu_pct;
    double io_read_bps, io_write_bps;
    double net_rx_bps, net_tx_bps;
    long long new_oom_kills; /* counter increase (0 when unknown) */
    long long new_pids_events;
    long long new_throttled;
} sm_rates;

void sm_rates_between(const sm_sample *prev, const sm_sample *cur, sm_rates *out);

#define SM_HISTORY_LEN 120

typedef struct sm_history {
    sm_sample s[SM_HISTORY_LEN];
    size_t head; /* next slot to write */
    size_t len;
} sm_history;

void sm_history_push(sm_history *h, const sm_sample *s);
/* back = 0 is the latest sample; NULL past the end. */
const sm_sample *sm_history_at(const sm_history *h, size_t back);
/* Rates between the latest two samples (all -1 with fewer than two). */
void sm_history_rates(const sm_history *h, sm_rates *out);

typedef enum sm_metric {
    SM_METRIC_CPU_PCT,
    SM_METRIC_MEM,     /* working set bytes */
    SM_METRIC_IO_READ, /* bytes/s */
    SM_METRIC_IO_WRITE,
    SM_METRIC_NET_RX,
    SM_METRIC_NET_TX,
    SM_METRIC_PIDS,
} sm_metric;

/* The last n values of a metric, oldest first, into out; returns how many (rates need two
 * samples, so they give one fewer). Unknown points are -1. */
size_t sm_history_series(const sm_history *h, sm_metric m, double *out, size_t n);

#endif
