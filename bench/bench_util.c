/* What the benchmarks of bench/ share (bench_util.h). */
#include "bench/bench_util.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/util.h"

volatile sig_atomic_t g_interrupted;

static void on_signal(int sig)
{
    (void)sig;
    g_interrupted = 1;
}

void bench_catch_signals(void)
{
    signal(SIGPIPE, SIG_IGN);
    struct sigaction sa = {.sa_handler = on_signal};
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
}

double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

bool bench_nap(double s)
{
    double end = bench_now() + s;
    while (!g_interrupted) {
        double left = end - bench_now();
        if (left <= 0)
            return true;
        usleep(left > 0.1 ? 100 * 1000 : (useconds_t)(left * 1e6));
    }
    return false;
}

double bench_loadavg(void)
{
    double l = -1;
    FILE *f = fopen("/proc/loadavg", "re");
    if (f && fscanf(f, "%lf", &l) != 1)
        l = -1;
    if (f)
        fclose(f);
    return l;
}

void bench_machine_read(bench_machine *m)
{
    uname(&m->u);
    m->ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    snprintf(m->model, sizeof m->model, "?");
    char line[512];
    FILE *f = fopen("/proc/cpuinfo", "re");
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "model name", 10)) {
            char *c = strchr(line, ':');
            if (c) {
                snprintf(m->model, sizeof m->model, "%s", c + 2);
                m->model[strcspn(m->model, "\n")] = '\0';
            }
            break;
        }
    if (f)
        fclose(f);
    m->mem_kib = -1;
    f = fopen("/proc/meminfo", "re");
    if (f && fgets(line, sizeof line, f))
        sscanf(line, "MemTotal: %ld", &m->mem_kib);
    if (f)
        fclose(f);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double bench_percentile(double *v, size_t n, double q)
{
    if (n == 0)
        return -1;
    qsort(v, n, sizeof *v, cmp_double);
    if (q == 50 && n % 2 == 0)
        return (v[n / 2 - 1] + v[n / 2]) / 2;
    size_t k = (size_t)(q / 100.0 * (double)n + 0.999999);
    if (k < 1)
        k = 1;
    if (k > n)
        k = n;
    return v[k - 1];
}

double bench_ratio(double a, double b)
{
    return a >= 0 && b > 0 ? a / b : -1;
}

void bench_fmt_num(char *buf, size_t len, double v)
{
    if (v < 0)
        snprintf(buf, len, "-");
    else if (v >= 100)
        snprintf(buf, len, "%.0f", v);
    else if (v >= 1)
        snprintf(buf, len, "%.2f", v);
    else
        snprintf(buf, len, "%.3f", v);
}

void bench_fmt_ratio(char *buf, size_t len, double r)
{
    if (r < 0)
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, r < 0.1 ? "%.3fx" : "%.2fx", r);
}

static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;
static sm_sandbox **live;
static size_t nlive, live_cap;

sm_sandbox *bench_open(sm_provider *p, sm_spec *spec, char *msg, size_t len)
{
    sm_sandbox *s = sm_sandbox_new(p, false);
    sm_error err;
    sm_error_clear(&err);
    int rc = sm_sandbox_start(s, spec, &err);
    sm_spec_free(spec);
    if (rc != SM_OK) {
        snprintf(msg, len, "%s", err.msg);
        sm_sandbox_free(s);
        return NULL;
    }
    pthread_mutex_lock(&live_lock);
    if (nlive == live_cap) {
        live_cap = live_cap ? live_cap * 2 : 128;
        live = xrealloc(live, live_cap * sizeof *live);
    }
    live[nlive++] = s;
    pthread_mutex_unlock(&live_lock);
    return s;
}

double bench_close(sm_sandbox *s, const char *prog)
{
    sm_error err;
    sm_error_clear(&err);
    double t0 = bench_now();
    int rc = sm_sandbox_stop(s, &err);
    double dt = bench_now() - t0;
    if (rc != SM_OK)
        fprintf(stderr, "%s: stop %s: %s\n", prog, sm_sandbox_id(s) ? sm_sandbox_id(s) : "?",
                err.msg);
    pthread_mutex_lock(&live_lock);
    for (size_t i = 0; i < nlive; i++)
        if (live[i] == s) {
            live[i] = live[--nlive];
            break;
        }
    pthread_mutex_unlock(&live_lock);
    sm_sandbox_free(s);
    return rc == SM_OK ? dt : -1;
}

void bench_close_all(const char *prog)
{
    for (;;) {
        pthread_mutex_lock(&live_lock);
        sm_sandbox *s = nlive ? live[nlive - 1] : NULL;
        pthread_mutex_unlock(&live_lock);
        if (!s)
            break;
        bench_close(s, prog);
    }
    free(live);
    live = NULL;
    live_cap = 0;
}
