/* Resource samples: what one provider `stats` call returns, in one shape for every provider.
 * Memory is the working set (usage minus inactive file), as `docker stats` and `kubectl top`
 * report it: the number the OOM killer acts on. Unknown values are -1. */
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
/* CPU use between two samples as a percentage of one core (200 = two busy cores);
 * -1 when either sample lacks CPU time or no time passed. */
double sm_sample_cpu_percent(const sm_sample *prev, const sm_sample *cur);
cJSON *sm_sample_to_json(const sm_sample *s);

#endif
