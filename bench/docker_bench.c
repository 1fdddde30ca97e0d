/* Benchmark of the docker provider against the docker CLI on the same engine (the issue's
 * figures): `exec true` round trip through the core facade beside `docker exec ID true`, and
 * create-to-ready beside `docker run -d` of the same container (same image, init, keep-alive
 * command and network), interleaved so that both see the same engine load. Prints medians,
 * p90s, ratios and PASS/FAIL against the targets (exec at least 2x faster; create no slower),
 * writes them as JSON with --json, and removes every container it made, also on failure.
 * The exec rounds run on one handle, so after the first they go through the handle's exec
 * helper (docker_executor.c); an info row times a handle's first command (a plain exec
 * instance, what a one-shot `sandman exec` does) beside the same `docker exec` rounds.
 * Not a test: bench/run.sh runs it against a private podman service.
 *
 * usage: docker_bench --host unix:///path.sock --image IMG [--docker PATH] [-n N] [--json F]
 *                     [--network NAME] */
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench/bench_util.h"
#include "core/json.h"
#include "core/provider.h"
#include "core/sandbox.h"
#include "core/util.h"
#include "providers/builtin.h"

extern char **environ;

#define WARMUP    3
#define KEEPALIVE "while :; do sleep 2147483647; done"

static const char *g_docker = "docker";

/* Runs the docker CLI; returns seconds, -1 on failure. The first line of its stdout goes to
 * out (when given). */
static double run_cli(char *const argv[], char *out, size_t outlen)
{
    int pfd[2];
    if (pipe2(pfd, O_CLOEXEC) < 0)
        return -1;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, pfd[1], 1);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    double t0 = bench_now();
    pid_t pid;
    int rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(pfd[1]);
    if (rc != 0) {
        close(pfd[0]);
        return -1;
    }
    char buf[512];
    size_t got = 0;
    ssize_t r;
    while ((r = read(pfd[0], buf + got, sizeof buf - 1 - got)) > 0 || (r < 0 && errno == EINTR))
        if (r > 0)
            got += (size_t)r;
    close(pfd[0]);
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    double dt = bench_now() - t0;
    buf[got] = '\0';
    if (out) {
        snprintf(out, outlen, "%.*s", (int)strcspn(buf, "\r\n"), buf);
    }
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? dt : -1;
}

/* Containers the CLI made, removed at the end whatever happens. */
static char g_cli_ids[256][80];
static size_t g_ncli;

static void cli_rm(const char *id)
{
    char *const argv[] = {(char *)g_docker, "rm", "-f", (char *)id, NULL};
    run_cli(argv, NULL, 0);
}

static void cleanup_all(void)
{
    bench_close_all("docker_bench");
    for (size_t i = 0; i < g_ncli; i++)
        cli_rm(g_cli_ids[i]);
    g_ncli = 0;
}

typedef struct row {
    const char *metric;
    double med, p90, base_med, base_p90;
    const char *base_name;
    double max_ratio; /* sandman/baseline must be <= this */
    const char *target;
    bool pass;
} row;

static void fmt_ms(char *buf, size_t len, double s)
{
    if (s < 0)
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "%.1f ms", s * 1000);
}

static sm_sandbox *start_sandbox(sm_provider *p, const char *image, char *msg, size_t len)
{
    sm_spec spec;
    sm_spec_init(&spec);
    spec.image = xstrdup(image);
    sm_map_set(&spec.metadata, "sandman-bench", "1");
    return bench_open(p, &spec, msg, len);
}

static int usage(void)
{
    fprintf(stderr, "usage: docker_bench --host URL --image IMG [--docker PATH] [-n N] "
                    "[--json FILE] [--network NAME]\n");
    return 2;
}

int main(int argc, char **argv)
{
    const char *host = getenv("DOCKER_HOST"), *image = NULL, *json_path = NULL;
    const char *network = NULL;
    long n = 20;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--host") && v)
            host = argv[++i];
        else if (!strcmp(a, "--image") && v)
            image = argv[++i];
        else if (!strcmp(a, "--docker") && v)
            g_docker = argv[++i];
        else if (!strcmp(a, "--json") && v)
            json_path = argv[++i];
        else if (!strcmp(a, "--network") && v)
            network = argv[++i];
        else if (!strcmp(a, "-n") && v && sm_parse_long(argv[++i], &n) == 0 && n >= 5 && n <= 200)
            ;
        else
            return usage();
    }
    if (!host || !image)
        return usage();
    setenv("DOCKER_HOST", host, 1); /* the CLI talks to the same engine */
    bench_catch_signals();
    sm_builtin_register_all();

    cJSON *cfg = cJSON_CreateObject();
    cJSON_AddStringToObject(cfg, "host", host);
    if (network) {
        cJSON *cr = cJSON_AddObjectToObject(cfg, "create");
        cJSON_AddStringToObject(cr, "network", network);
    }
    sm_provider *p = NULL;
    sm_error err;
    sm_error_clear(&err);
    if (sm_provider_new("docker", cfg, &p, &err) != SM_OK) {
        fprintf(stderr, "docker_bench: %s\n", err.msg);
        cJSON_Delete(cfg);
        return 2;
    }
    cJSON_Delete(cfg);

    char ver[128] = "";
    char *const vargv[] = {(char *)g_docker, "version", "--format", "{{.Client.Version}}", NULL};
    if (run_cli(vargv, ver, sizeof ver) < 0) {
        fprintf(stderr, "docker_bench: the docker CLI (%s) cannot talk to %s\n", g_docker, host);
        sm_provider_free(p);
        return 2;
    }
    printf("docker_bench: engine %s, docker CLI %s, image %s, %ld rounds\n", host, ver, image, n);

    double *exec_s = xcalloc((size_t)n, sizeof(double)),
           *exec_b = xcalloc((size_t)n, sizeof(double));
    double *cr_s = xcalloc((size_t)n, sizeof(double)), *cr_b = xcalloc((size_t)n, sizeof(double));
    double *cr_p = xcalloc((size_t)n, sizeof(double));
    double *plain_s = xcalloc((size_t)n, sizeof(double));
    int rc = 0;
    char msg[600];

    /* exec round trip on one sandbox, sandman and CLI interleaved */
    sm_sandbox *s = start_sandbox(p, image, msg, sizeof msg);
    if (!s) {
        fprintf(stderr, "docker_bench: create: %s\n", msg);
        rc = 2;
        goto out;
    }
    const char *id = sm_sandbox_id(s);
    char *const eargv[] = {(char *)g_docker, "exec", (char *)id, "true", NULL};
    sm_exec_request rq;
    sm_exec_request_init(&rq);
    rq.cmd = "true";
    cJSON *desc = cJSON_CreateObject();
    cJSON_AddStringToObject(desc, "sandbox_id", id);
    for (long i = -WARMUP; i < n && !g_interrupted; i++) {
        sm_exec_result r;
        double t0 = bench_now();
        int erc = sm_sandbox_exec(s, &rq, &r, &err);
        double dt = bench_now() - t0;
        bool ok = erc == SM_OK && r.return_code == 0;
        sm_exec_result_free(&r);
        double bt = run_cli(eargv, NULL, 0);
        /* the first command of a fresh handle (bound to the same sandbox): a plain exec */
        sm_sandbox *fresh = sm_sandbox_new(p, false);
        double pt = -1;
        if (ok && sm_sandbox_connect(fresh, desc, &err) == SM_OK) {
            t0 = bench_now();
            erc = sm_sandbox_exec(fresh, &rq, &r, &err);
            pt = bench_now() - t0;
            ok = erc == SM_OK && r.return_code == 0;
            sm_exec_result_free(&r);
        } else {
            ok = false;
        }
        sm_sandbox_free(fresh);
        if (!ok || bt < 0) {
            fprintf(stderr, "docker_bench: exec failed (%s)\n", ok ? "docker exec" : err.msg);
            cJSON_Delete(desc);
            rc = 2;
            goto out;
        }
        if (i >= 0) {
            exec_s[i] = dt;
            exec_b[i] = bt;
            plain_s[i] = pt;
        }
    }
    cJSON_Delete(desc);
    bench_close(s, "docker_bench");

    /* create-to-ready: sandman start (create, start, readiness: with the default probe, the
     * keep-alive's first output on the attached stream) vs docker run -d of the same container
     * (and, as the CLI-based provider of NeMo Gym does to know it is ready, that plus a
     * `docker exec` probe); removal is not timed */
    for (long i = -1; i < n && !g_interrupted; i++) {
        double t0 = bench_now();
        s = start_sandbox(p, image, msg, sizeof msg);
        double dt = bench_now() - t0;
        if (!s) {
            fprintf(stderr, "docker_bench: create: %s\n", msg);
            rc = 2;
            goto out;
        }
        bench_close(s, "docker_bench");
        char cid[80] = "";
        char *rargv[16];
        int k = 0;
        rargv[k++] = (char *)g_docker;
        rargv[k++] = "run";
        rargv[k++] = "-d";
        rargv[k++] = "--init";
        rargv[k++] = "--label";
        rargv[k++] = "sandman-bench=1";
        if (network) {
            rargv[k++] = "--network";
            rargv[k++] = (char *)network;
        }
        rargv[k++] = "--entrypoint";
        rargv[k++] = "/bin/sh";
        rargv[k++] = (char *)image;
        rargv[k++] = "-c";
        rargv[k++] = KEEPALIVE;
        rargv[k] = NULL;
        double bt = run_cli(rargv, cid, sizeof cid);
        if (cid[0] && g_ncli < SM_ARRAY_LEN(g_cli_ids))
            snprintf(g_cli_ids[g_ncli++], sizeof g_cli_ids[0], "%s", cid);
        if (bt < 0) {
            fprintf(stderr, "docker_bench: docker run -d failed\n");
            rc = 2;
            goto out;
        }
        /* what the CLI-based provider does next to know it is ready: probe with docker exec */
        char *const pargv[] = {(char *)g_docker,       "exec", cid, "printf",
                               "docker-sandbox-ready", NULL};
        double pt = run_cli(pargv, NULL, 0);
        cli_rm(cid);
        g_ncli--;
        if (pt < 0) {
            fprintf(stderr, "docker_bench: docker exec (probe) failed\n");
            rc = 2;
            goto out;
        }
        if (i >= 0) {
            cr_s[i] = dt;
            cr_b[i] = bt;
            cr_p[i] = bt + pt;
        }
    }
    if (g_interrupted) {
        rc = 130;
        goto out;
    }

    row rows[4] = {
        {.metric = "exec `true` round trip",
         .base_name = "docker exec",
         .max_ratio = 0.5,
         .target = ">= 2x faster"},
        {.metric = "exec `true`, a handle's first (plain exec)",
         .base_name = "docker exec",
         .max_ratio = -1,
         .target = "(info)"},
        {.metric = "create to ready",
         .base_name = "docker run -d",
         .max_ratio = 1.0,
         .target = "no slower"},
        {.metric = "create to ready",
         .base_name = "docker run -d + docker exec probe",
         .max_ratio = -1,
         .target = "(info)"},
    };
    rows[0].med = bench_percentile(exec_s, (size_t)n, 50);
    rows[0].p90 = bench_percentile(exec_s, (size_t)n, 90);
    rows[0].base_med = bench_percentile(exec_b, (size_t)n, 50);
    rows[0].base_p90 = bench_percentile(exec_b, (size_t)n, 90);
    rows[1].med = bench_percentile(plain_s, (size_t)n, 50);
    rows[1].p90 = bench_percentile(plain_s, (size_t)n, 90);
    rows[1].base_med = rows[0].base_med;
    rows[1].base_p90 = rows[0].base_p90;
    rows[2].med = bench_percentile(cr_s, (size_t)n, 50);
    rows[2].p90 = bench_percentile(cr_s, (size_t)n, 90);
    rows[2].base_med = bench_percentile(cr_b, (size_t)n, 50);
    rows[2].base_p90 = bench_percentile(cr_b, (size_t)n, 90);
    rows[3].med = rows[2].med;
    rows[3].p90 = rows[2].p90;
    rows[3].base_med = bench_percentile(cr_p, (size_t)n, 50);
    rows[3].base_p90 = bench_percentile(cr_p, (size_t)n, 90);
    printf("\n| metric | sandman median | sandman p90 | baseline | baseline median | baseline "
           "p90 | speed-up | target | result |\n");
    printf("|---|---:|---:|---|---:|---:|---:|---|---|\n");
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddStringToObject(doc, "engine", host);
    cJSON_AddStringToObject(doc, "docker_cli", ver);
    cJSON_AddNumberToObject(doc, "rounds", (double)n);
    cJSON *arr = cJSON_AddArrayToObject(doc, "results");
    for (size_t i = 0; i < SM_ARRAY_LEN(rows); i++) {
        row *r = &rows[i];
        double ratio = r->base_med > 0 ? r->med / r->base_med : -1;
        bool info = r->max_ratio < 0;
        r->pass = info || (ratio >= 0 && ratio <= r->max_ratio);
        char a[32], b[32], c[32], d[32];
        fmt_ms(a, sizeof a, r->med);
        fmt_ms(b, sizeof b, r->p90);
        fmt_ms(c, sizeof c, r->base_med);
        fmt_ms(d, sizeof d, r->base_p90);
        printf("| %s | %s | %s | %s | %s | %s | %.2fx | %s | %s |\n", r->metric, a, b, r->base_name,
               c, d, ratio > 0 ? 1 / ratio : 0, r->target,
               info      ? "info"
               : r->pass ? "PASS"
                         : "FAIL");
        if (!r->pass && rc == 0)
            rc = 1;
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "metric", r->metric);
        cJSON_AddNumberToObject(o, "median_ms", r->med * 1000);
        cJSON_AddNumberToObject(o, "p90_ms", r->p90 * 1000);
        cJSON_AddStringToObject(o, "baseline", r->base_name);
        cJSON_AddNumberToObject(o, "baseline_median_ms", r->base_med * 1000);
        cJSON_AddNumberToObject(o, "baseline_p90_ms", r->base_p90 * 1000);
        cJSON_AddNumberToObject(o, "speedup", ratio > 0 ? 1 / ratio : 0);
        cJSON_AddStringToObject(o, "target", r->target);
        cJSON_AddStringToObject(o, "result", info ? "info" : r->pass ? "PASS" : "FAIL");
        cJSON_AddItemToArray(arr, o);
    }
    if (json_path) {
        char *text = cJSON_Print(doc);
        FILE *f = fopen(json_path, "w");
        if (f) {
            fprintf(f, "%s\n", text);
            fclose(f);
        }
        free(text);
    }
    cJSON_Delete(doc);
out:
    cleanup_all();
    free(exec_s);
    free(exec_b);
    free(cr_s);
    free(cr_b);
    free(cr_p);
    free(plain_s);
    sm_provider_free(p);
    return rc;
}
