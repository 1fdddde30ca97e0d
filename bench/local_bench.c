/* Benchmark of the local provider through the core facade (the figures): create-to-ready,
 * `exec true` round trip and close, each beside raw `bwrap` and `unshare` spawns measured in the
 * same run and interleaved with them; 100 sandboxes created concurrently; the idle RSS of a
 * sandbox beside an idle `sleep`. Prints a table with ratios and PASS/FAIL against the targets
 * and removes every sandbox it made, also on failure. Not a test: bench/run.sh runs it. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench/bench_util.h"
#include "core/provider.h"
#include "core/sandbox.h"
#include "core/util.h"
#include "providers/builtin.h"

extern char **environ;

#define WARMUP 3

static char *const bwrap_argv[] = {"bwrap", "--unshare-all", "--ro-bind", "/", "/", "true", NULL};
static char *const unshare_argv[] = {"unshare", "-p", "-m", "-n", "-f", "true", NULL};
/* Unprivileged, the same namespaces need a user namespace first (as the sandboxes get one). */
static char *const unshare_user_argv[] = {"unshare", "-r", "-p", "-m", "-n", "-f", "true", NULL};

/* Creates and starts a sandbox with an empty spec; NULL (and a message) on failure. */
static sm_sandbox *sandbox_open(sm_provider *p, char *msg, size_t len)
{
    sm_spec spec;
    sm_spec_init(&spec);
    return bench_open(p, &spec, msg, len);
}

/* Spawns argv with stdio on /dev/null and waits for it; returns seconds, -1 on failure. With
 * pid_out it does not wait: the caller gets the pid (and reaps it); returns 0. */
static double spawn_wait(char *const argv[], pid_t *pid_out)
{
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    double t0 = bench_now();
    pid_t pid;
    int rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0)
        return -1;
    if (pid_out) {
        *pid_out = pid;
        return 0;
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    double dt = bench_now() - t0;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? dt : -1;
}

typedef struct series {
    double *v;
    size_t n;
} series;

static void series_add(series *s, double x)
{
    s->v[s->n++] = x;
}

/* One line of the results table. Ratios are sandman / baseline; target is on the ratio against
 * the first baseline (bwrap) unless `absolute` is set, in which case it is on the value. */
typedef struct row {
    const char *metric;
    const char *unit; /* "ms" or "MiB" */
    double med, p90;  /* -1 = none */
    double base1, base2;
    const char *base1_name, *base2_name;
    double limit; /* <= limit passes; < 0 = informational */
    bool absolute, strict;
    const char *target;
    bool pass;
} row;

static void row_judge(row *r)
{
    if (r->limit < 0) {
        r->pass = true;
        return;
    }
    double x = r->absolute ? r->med : bench_ratio(r->med, r->base1);
    r->pass = x >= 0 && (r->strict ? x < r->limit : x <= r->limit);
}

static void print_table(const row *rows, size_t n)
{
    printf("\n| metric | sandman median | sandman p90 | baseline | baseline median | ratio | "
           "target | result |\n");
    printf("|---|---:|---:|---|---:|---:|---|---|\n");
    for (size_t i = 0; i < n; i++) {
        const row *r = &rows[i];
        char med[32], p90[32], b1[32], b2[32], r1[32], r2[32];
        bench_fmt_num(med, sizeof med, r->med);
        bench_fmt_num(p90, sizeof p90, r->p90);
        bench_fmt_num(b1, sizeof b1, r->base1);
        bench_fmt_num(b2, sizeof b2, r->base2);
        bench_fmt_ratio(r1, sizeof r1, bench_ratio(r->med, r->base1));
        bench_fmt_ratio(r2, sizeof r2, bench_ratio(r->med, r->base2));
        printf("| %s | %s %s | %s | %s | %s | %s | %s | %s |\n", r->metric, med, r->unit, p90,
               r->base1_name, b1, r1, r->target,
               r->limit < 0 ? "info"
               : r->pass    ? "PASS"
                            : "FAIL");
        if (r->base2_name)
            printf("| | | | %s | %s | %s | | |\n", r->base2_name, b2, r2);
    }
}

static cJSON *row_json(const row *r)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "metric", r->metric);
    cJSON_AddStringToObject(o, "unit", r->unit);
    cJSON_AddNumberToObject(o, "median", r->med);
    if (r->p90 >= 0)
        cJSON_AddNumberToObject(o, "p90", r->p90);
    cJSON_AddStringToObject(o, "baseline", r->base1_name);
    cJSON_AddNumberToObject(o, "baseline_median", r->base1);
    cJSON_AddNumberToObject(o, "ratio", bench_ratio(r->med, r->base1));
    if (r->base2_name) {
        cJSON_AddStringToObject(o, "baseline2", r->base2_name);
        cJSON_AddNumberToObject(o, "baseline2_median", r->base2);
        cJSON_AddNumberToObject(o, "ratio2", bench_ratio(r->med, r->base2));
    }
    cJSON_AddStringToObject(o, "target", r->target);
    cJSON_AddStringToObject(o, "result", r->limit < 0 ? "info" : r->pass ? "PASS" : "FAIL");
    return o;
}

/* ---- concurrent creation ---- */

/* A start line: threads wait until main opens it, so that they all begin together. */
typedef struct start_gate {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool open;
} start_gate;

typedef struct conc_arg {
    sm_provider *p;
    start_gate *gate;
    bool baseline; /* spawn bwrap instead of creating a sandbox */
    sm_sandbox *s;
    double done; /* monotonic time when ready (or the spawn returned) */
    char msg[256];
} conc_arg;

static void *conc_thread(void *argp)
{
    conc_arg *a = argp;
    pthread_mutex_lock(&a->gate->mu);
    while (!a->gate->open)
        pthread_cond_wait(&a->gate->cv, &a->gate->mu);
    pthread_mutex_unlock(&a->gate->mu);
    if (a->baseline) {
        if (spawn_wait(bwrap_argv, NULL) < 0)
            snprintf(a->msg, sizeof a->msg, "bwrap failed");
    } else {
        a->s = sandbox_open(a->p, a->msg, sizeof a->msg);
    }
    a->done = bench_now();
    return NULL;
}

/* Runs n threads released together; returns the wall time until the last one finished, or -1
 * when any failed (the first message goes to stderr). *median gets the median time to ready. */
static double run_concurrent(sm_provider *p, conc_arg *args, size_t n, bool baseline,
                             double *median)
{
    start_gate gate = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, false};
    pthread_t *th = xcalloc(n, sizeof *th);
    bool *started = xcalloc(n, sizeof *started);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 256 * 1024);
    size_t failed = 0;
    for (size_t i = 0; i < n; i++) {
        memset(&args[i], 0, sizeof args[i]);
        args[i].p = p;
        args[i].gate = &gate;
        args[i].baseline = baseline;
        started[i] = pthread_create(&th[i], &attr, conc_thread, &args[i]) == 0;
        if (!started[i])
            snprintf(args[i].msg, sizeof args[i].msg, "cannot start a thread");
    }
    pthread_attr_destroy(&attr);
    pthread_mutex_lock(&gate.mu);
    double t0 = bench_now();
    gate.open = true;
    pthread_cond_broadcast(&gate.cv);
    pthread_mutex_unlock(&gate.mu);
    for (size_t i = 0; i < n; i++)
        if (started[i])
            pthread_join(th[i], NULL);
    free(th);
    free(started);
    double last = t0;
    for (size_t i = 0; i < n; i++) {
        if (args[i].msg[0]) {
            if (!failed++)
                fprintf(stderr, "local_bench: concurrent %s %zu: %s\n",
                        baseline ? "spawn" : "create", i, args[i].msg);
            continue;
        }
        if (args[i].done > last)
            last = args[i].done;
    }
    if (failed) {
        fprintf(stderr, "local_bench: %zu of %zu concurrent %s failed\n", failed, n,
                baseline ? "spawns" : "creates");
        return -1;
    }
    double *each = xcalloc(n, sizeof *each);
    for (size_t i = 0; i < n; i++)
        each[i] = args[i].done - t0;
    *median = bench_percentile(each, n, 50);
    free(each);
    return last - t0;
}

typedef struct stop_arg {
    sm_sandbox *s;
} stop_arg;

static void *stop_thread(void *argp)
{
    stop_arg *a = argp;
    bench_close(a->s, "local_bench");
    return NULL;
}

/* Stops the sandboxes in parallel; returns the wall time. */
static double stop_concurrent(conc_arg *args, size_t n)
{
    pthread_t *th = xcalloc(n, sizeof *th);
    stop_arg *sa = xcalloc(n, sizeof *sa);
    bool *started = xcalloc(n, sizeof *started);
    double t0 = bench_now();
    for (size_t i = 0; i < n; i++) {
        if (!args[i].s)
            continue;
        sa[i].s = args[i].s;
        args[i].s = NULL;
        if (pthread_create(&th[i], NULL, stop_thread, &sa[i]) == 0)
            started[i] = true;
        else
            bench_close(sa[i].s, "local_bench");
    }
    for (size_t i = 0; i < n; i++)
        if (started[i])
            pthread_join(th[i], NULL);
    double dt = bench_now() - t0;
    free(th);
    free(sa);
    free(started);
    return dt;
}

/* ---- memory ---- */

/* A "Key:   123 kB" line of a /proc file, in KiB; -1 when absent. */
static long proc_kib(pid_t pid, const char *file, const char *key)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/%s", (int)pid, file);
    FILE *f = fopen(path, "re");
    if (!f)
        return -1;
    long v = -1;
    size_t klen = strlen(key);
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, key, klen) && line[klen] == ':') {
            v = strtol(line + klen + 1, NULL, 10);
            break;
        }
    fclose(f);
    return v;
}

/* The supervisor and init pids from <state>/local/<id>/ready. */
static int ready_pids(const char *id, pid_t *sup, pid_t *init)
{
    char *path = xasprintf("%s/local/%s/ready", sm_state_dir(), id);
    FILE *f = fopen(path, "re");
    free(path);
    if (!f)
        return -1;
    char line[256];
    *sup = *init = 0;
    while (fgets(line, sizeof line, f)) {
        if (!strncmp(line, "supervisor=", 11))
            *sup = (pid_t)strtol(line + 11, NULL, 10);
        else if (!strncmp(line, "pid=", 4))
            *init = (pid_t)strtol(line + 4, NULL, 10);
    }
    fclose(f);
    return *sup > 0 && *init > 0 ? 0 : -1;
}

/* ---- main ---- */

static void machine_facts(cJSON *j)
{
    bench_machine m;
    bench_machine_read(&m);
    printf("machine: %ld CPUs (%s), %.1f GiB RAM, %s %s %s, load average %.2f\n", m.ncpu, m.model,
           (double)m.mem_kib / (1024.0 * 1024.0), m.u.sysname, m.u.release, m.u.machine,
           bench_loadavg());
    cJSON_AddNumberToObject(j, "nproc", (double)m.ncpu);
    cJSON_AddStringToObject(j, "cpu", m.model);
    cJSON_AddNumberToObject(j, "mem_kib", (double)m.mem_kib);
    cJSON_AddStringToObject(j, "kernel", m.u.release);
    cJSON_AddBoolToObject(j, "root", geteuid() == 0);
    cJSON_AddNumberToObject(j, "loadavg_before", bench_loadavg());
}

static void usage(FILE *f)
{
    fprintf(f, "usage: local_bench [-n N] [-c N] [--json FILE]\n"
               "  -n N         iterations of the sequential measurements (default 50, min 5)\n"
               "  -c N         sandboxes created concurrently (default 100)\n"
               "  --json FILE  also write the figures as JSON\n");
}

int main(int argc, char **argv)
{
    long iters = 50, conc = 100;
    const char *json_path = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-n") && i + 1 < argc) {
            iters = strtol(argv[++i], NULL, 10);
        } else if (!strcmp(argv[i], "-c") && i + 1 < argc) {
            conc = strtol(argv[++i], NULL, 10);
        } else if (!strcmp(argv[i], "--json") && i + 1 < argc) {
            json_path = argv[++i];
        } else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            usage(stdout);
            return 0;
        } else {
            usage(stderr);
            return 2;
        }
    }
    if (iters < 5 || conc < 1) {
        usage(stderr);
        return 2;
    }
    bench_catch_signals();
    setvbuf(stdout, NULL, _IOLBF, 0);

    cJSON *json = cJSON_CreateObject();
    machine_facts(cJSON_AddObjectToObject(json, "machine"));

    sm_builtin_register_all();
    /* sm_state_dir() caches lazily without a lock: settle it before any thread exists. */
    printf("state dir: %s\n", sm_state_dir());
    sm_provider *p = NULL;
    sm_error err;
    sm_error_clear(&err);
    if (sm_provider_new("local", NULL, &p, &err) != SM_OK) {
        fprintf(stderr, "local_bench: local provider: %s\n", err.msg);
        cJSON_Delete(json);
        return 2;
    }
    char *desc = sm_provider_describe(p);
    printf("local provider: %s\n", desc ? desc : "-");
    cJSON_AddStringToObject(json, "provider", desc ? desc : "");
    free(desc);

    int status = 2;
    size_t n = (size_t)iters;
    series create = {xcalloc(n, sizeof(double)), 0}, exec = {xcalloc(n, sizeof(double)), 0},
           close_ = {xcalloc(n, sizeof(double)), 0}, bwrap = {xcalloc(n, sizeof(double)), 0},
           unsh = {xcalloc(n, sizeof(double)), 0};
    conc_arg *cargs = xcalloc((size_t)conc, sizeof *cargs);
    char msg[600];

    /* 1. Sequential: one sandbox lifecycle, one bwrap, one unshare per round, the order
     * rotating so that neither side always runs first; WARMUP rounds are not counted. */
    printf("sequential: %ld rounds (+%d warm-up) of create / exec true / close, bwrap, unshare\n",
           iters, WARMUP);
    for (long round = -WARMUP; round < iters && !g_interrupted; round++) {
        for (int k = 0; k < 3; k++) {
            int which = (int)((round + WARMUP + k) % 3);
            if (which == 0) {
                double t0 = bench_now();
                sm_sandbox *s = sandbox_open(p, msg, sizeof msg);
                double t1 = bench_now();
                if (!s) {
                    fprintf(stderr, "local_bench: create failed: %s\n", msg);
                    goto out;
                }
                sm_exec_request req;
                sm_exec_request_init(&req);
                req.cmd = "true";
                sm_exec_result res;
                sm_error_clear(&err);
                int rc = sm_sandbox_exec(s, &req, &res, &err);
                double t2 = bench_now();
                int code = res.return_code;
                sm_exec_result_free(&res);
                double tc = bench_close(s, "local_bench");
                if (rc != SM_OK || code != 0) {
                    fprintf(stderr, "local_bench: exec true failed (rc %d, exit %d): %s\n", rc,
                            code, err.msg);
                    goto out;
                }
                if (tc < 0)
                    goto out;
                if (round >= 0) {
                    series_add(&create, t1 - t0);
                    series_add(&exec, t2 - t1);
                    series_add(&close_, tc);
                }
            } else {
                char *const *av = which == 1  ? bwrap_argv
                                  : geteuid() ? unshare_user_argv
                                              : unshare_argv;
                double dt = spawn_wait(av, NULL);
                if (dt < 0) {
                    fprintf(stderr, "local_bench: baseline `%s` failed to run\n", av[0]);
                    goto out;
                }
                if (round >= 0)
                    series_add(which == 1 ? &bwrap : &unsh, dt);
            }
        }
    }
    if (g_interrupted)
        goto out;

    double bw_med = bench_percentile(bwrap.v, bwrap.n, 50) * 1e3;
    double un_med = bench_percentile(unsh.v, unsh.n, 50) * 1e3;
    row rows[6];
    size_t nrows = 0;
    double cr_med = bench_percentile(create.v, create.n, 50) * 1e3;
    double cr_p90 = bench_percentile(create.v, create.n, 90) * 1e3;
    double ex_med = bench_percentile(exec.v, exec.n, 50) * 1e3;
    double ex_p90 = bench_percentile(exec.v, exec.n, 90) * 1e3;
    double cl_med = bench_percentile(close_.v, close_.n, 50) * 1e3;
    double cl_p90 = bench_percentile(close_.v, close_.n, 90) * 1e3;
    rows[nrows++] = (row){.metric = "create-to-ready",
                          .unit = "ms",
                          .med = cr_med,
                          .p90 = cr_p90,
                          .base1 = bw_med,
                          .base2 = un_med,
                          .base1_name = "bwrap spawn",
                          .base2_name = "unshare spawn",
                          .limit = 3,
                          .target = "<= 3x bwrap"};
    rows[nrows++] = (row){.metric = "exec `true` round trip",
                          .unit = "ms",
                          .med = ex_med,
                          .p90 = ex_p90,
                          .base1 = bw_med,
                          .base2 = un_med,
                          .base1_name = "bwrap spawn",
                          .base2_name = "unshare spawn",
                          .limit = 1,
                          .target = "<= 1x bwrap"};
    rows[nrows++] = (row){.metric = "close",
                          .unit = "ms",
                          .med = cl_med,
                          .p90 = cl_p90,
                          .base1 = bw_med,
                          .base2 = un_med,
                          .base1_name = "bwrap spawn",
                          .base2_name = "unshare spawn",
                          .limit = -1,
                          .target = "-"};

    /* 2. Concurrent: conc bwrap spawns at once (baseline), then conc sandboxes at once. */
    printf("concurrent: %ld bwrap spawns at once, then %ld sandboxes created at once\n", conc,
           conc);
    double base_each = -1, conc_each = -1;
    double conc_base = run_concurrent(p, cargs, (size_t)conc, true, &base_each);
    double conc_wall = run_concurrent(p, cargs, (size_t)conc, false, &conc_each);
    if (conc_wall >= 0 && conc_base >= 0)
        printf("concurrent: median time to ready %.0f ms (bwrap: median exit %.0f ms)\n",
               conc_each * 1e3, base_each * 1e3);
    cJSON_AddNumberToObject(json, "concurrent_median_ready_ms", conc_each * 1e3);
    cJSON_AddNumberToObject(json, "concurrent_bwrap_median_ms", base_each * 1e3);
    char conc_name[64], conc_base_name[64];
    snprintf(conc_name, sizeof conc_name, "%ld concurrent creates, all ready", conc);
    snprintf(conc_base_name, sizeof conc_base_name, "%ld concurrent bwrap", conc);
    rows[nrows++] = (row){.metric = conc_name,
                          .unit = "ms",
                          .med = conc_wall >= 0 ? conc_wall * 1e3 : -1,
                          .p90 = -1,
                          .base1 = conc_base >= 0 ? conc_base * 1e3 : -1,
                          .base2 = -1,
                          .base1_name = conc_base_name,
                          .limit = 3000,
                          .absolute = true,
                          .target = "<= 3 s"};

    /* 3. Idle memory of those sandboxes (supervisor + init), beside an idle `sleep`. */
    if (conc_wall >= 0 && !g_interrupted) {
        usleep(500 * 1000); /* let them settle into idle */
        long rss_sum = 0, pss_sum = 0, counted = 0;
        bool pss_ok = true;
        for (long i = 0; i < conc; i++) {
            pid_t sup, init;
            if (!cargs[i].s || ready_pids(sm_sandbox_id(cargs[i].s), &sup, &init) < 0)
                continue;
            long r1 = proc_kib(sup, "status", "VmRSS"), r2 = proc_kib(init, "status", "VmRSS");
            long p1 = proc_kib(sup, "smaps_rollup", "Pss"),
                 p2 = proc_kib(init, "smaps_rollup", "Pss");
            if (r1 < 0 || r2 < 0)
                continue;
            rss_sum += r1 + r2;
            if (p1 < 0 || p2 < 0)
                pss_ok = false;
            pss_sum += p1 + p2;
            counted++;
        }
        char *const sleep_argv[] = {"sleep", "600", NULL};
        pid_t sp = 0;
        long sleep_rss = -1, sleep_pss = -1;
        if (spawn_wait(sleep_argv, &sp) == 0) {
            usleep(200 * 1000);
            sleep_rss = proc_kib(sp, "status", "VmRSS");
            sleep_pss = proc_kib(sp, "smaps_rollup", "Pss");
            kill(sp, SIGKILL);
            waitpid(sp, NULL, 0);
        }
        printf("idle memory: %ld of %ld sandboxes measured (supervisor + init each)\n", counted,
               conc);
        double rss = counted == conc ? (double)rss_sum / (double)counted / 1024.0 : -1;
        double pss = counted == conc && pss_ok ? (double)pss_sum / (double)counted / 1024.0 : -1;
        rows[nrows++] = (row){.metric = "idle sandbox RSS",
                              .unit = "MiB",
                              .med = rss,
                              .p90 = -1,
                              .base1 = sleep_rss >= 0 ? sleep_rss / 1024.0 : -1,
                              .base2 = -1,
                              .base1_name = "idle sleep RSS",
                              .limit = 2,
                              .absolute = true,
                              .strict = true,
                              .target = "< 2 MiB"};
        rows[nrows++] = (row){.metric = "idle sandbox PSS",
                              .unit = "MiB",
                              .med = pss,
                              .p90 = -1,
                              .base1 = sleep_pss >= 0 ? sleep_pss / 1024.0 : -1,
                              .base2 = -1,
                              .base1_name = "idle sleep PSS",
                              .limit = -1,
                              .absolute = true,
                              .target = "-"};
    }
    double stop_wall = stop_concurrent(cargs, (size_t)conc);
    if (g_interrupted)
        goto out;
    printf("concurrent close of the %ld sandboxes: %.0f ms\n", conc, stop_wall * 1e3);

    status = 0;
    cJSON *jrows = cJSON_AddArrayToObject(json, "results");
    for (size_t i = 0; i < nrows; i++) {
        row_judge(&rows[i]);
        if (!rows[i].pass)
            status = 1;
        cJSON_AddItemToArray(jrows, row_json(&rows[i]));
    }
    if (nrows < 6)
        status = 1; /* the memory figures are missing */
    printf("\nlocal provider, %zu rounds (median, p90); baselines spawned from the same process "
           "in the same run, interleaved\n",
           create.n);
    print_table(rows, nrows);
    cJSON_AddNumberToObject(json, "iterations", (double)create.n);
    cJSON_AddNumberToObject(json, "concurrent", (double)conc);
    cJSON_AddNumberToObject(json, "concurrent_close_ms", stop_wall * 1e3);
    cJSON_AddBoolToObject(json, "pass", status == 0);
    cJSON_AddNumberToObject(cJSON_GetObjectItem(json, "machine"), "loadavg_after", bench_loadavg());
    printf("load average after: %.2f (other work on the machine inflates every figure)\n",
           bench_loadavg());
    printf("\n%s\n", status == 0 ? "all targets met" : "TARGETS MISSED");

out:
    for (long i = 0; i < conc; i++)
        if (cargs[i].s)
            bench_close(cargs[i].s, "local_bench");
    bench_close_all("local_bench");
    if (g_interrupted) {
        fprintf(stderr, "local_bench: interrupted\n");
        status = 2;
    }
    if (json_path) {
        char *text = cJSON_Print(json);
        FILE *f = fopen(json_path, "we");
        if (!f || fputs(text, f) < 0 || fputc('\n', f) < 0) {
            fprintf(stderr, "local_bench: cannot write %s\n", json_path);
            status = status ? status : 2;
        }
        if (f)
            fclose(f);
        free(text);
    }
    cJSON_Delete(json);
    free(create.v);
    free(exec.v);
    free(close_.v);
    free(bwrap.v);
    free(unsh.v);
    free(cargs);
    sm_provider_free(p);
    return status;
}
