/* What the benchmarks of bench/ share: the interrupt flag, a clock, nearest-rank percentiles,
 * the table's number formats, the machine's facts and a registry of live sandboxes so that every
 * exit path removes the ones a benchmark made. */
#ifndef SANDMAN_BENCH_UTIL_H
#define SANDMAN_BENCH_UTIL_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/utsname.h>

#include "core/sandbox.h"

extern volatile sig_atomic_t g_interrupted; /* set by SIGINT, SIGTERM and SIGHUP */

/* Ignores SIGPIPE; SIGINT, SIGTERM and SIGHUP set g_interrupted. */
void bench_catch_signals(void);

/* Monotonic seconds. */
double bench_now(void);
/* Sleeps up to s seconds; false when interrupted. */
bool bench_nap(double s);

/* The 1-minute load average (other work on the machine shows up in every figure); -1 unknown. */
double bench_loadavg(void);
/* What the figures were measured on. */
typedef struct bench_machine {
    struct utsname u;
    long ncpu;
    char model[256]; /* the CPU's model name, "?" unknown */
    long mem_kib;    /* -1 unknown */
} bench_machine;
void bench_machine_read(bench_machine *m);

/* Nearest-rank percentile q of n samples (sorted in place; the median of an even count is the
 * mean of the middle two); -1 when n is 0. */
double bench_percentile(double *v, size_t n, double q);

/* a / b, or -1 when either is missing (negative) or b is 0. */
double bench_ratio(double a, double b);
/* The table's number and ratio cells: "-" for a missing (negative) value. */
void bench_fmt_num(char *buf, size_t len, double v);
void bench_fmt_ratio(char *buf, size_t len, double r);

/* Starts a sandbox on p with spec (freed here) and registers it; NULL and the error in msg on
 * failure. */
sm_sandbox *bench_open(sm_provider *p, sm_spec *spec, char *msg, size_t len);

/* Stops, unregisters and frees a sandbox; returns the seconds the stop took, -1 when it failed
 * (reported on stderr after prog). */
double bench_close(sm_sandbox *s, const char *prog);

/* Closes every sandbox still registered (thread-safe, as bench_open and bench_close are). */
void bench_close_all(const char *prog);

#endif
