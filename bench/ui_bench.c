/* Benchmark of the dashboard's costs (the figures): with N (default 500) idle local
 * sandboxes, sampling all of them once (persistent sampler, CPU and wall) and one full dashboard
 * frame (tui_frame_render with a forced full repaint, list and detail views, 200x50 and 80x24),
 * each beside htop's own CPU per refresh over the same host measured in the same run; then, with
 * 50 sandboxes of which 10 run a light workload, the real dashboard (build/sandman, 1 s interval)
 * and `htop -d 10` side by side in private tmux sessions over the same window, as % of one core.
 * Prints a table with ratios and PASS/FAIL against the targets and removes every sandbox, tmux
 * server and temporary directory it made, also on failure or interrupt. Not a test:
 * bench/run.sh runs it. */
#include <cjson/cJSON.h>
#include <curses.h>
#include <errno.h>
#include <fcntl.h>
#include <langinfo.h>
#include <locale.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench/bench_util.h"
#include "bench/ui_panes.h"
#include "bench/ui_report.h"
#include "core/journal.h"
#include "core/provider.h"
#include "core/sampler.h"
#include "core/sandbox.h"
#include "core/util.h"
#include "providers/builtin.h"
#include "tui/frame.h"
#include "tui/model.h"
#include "tui/theme.h"
#include "tui/widgets/draw.h"

#define WORKERS       32  /* threads creating or removing sandboxes */
#define HTOP_WARMUP_S 2.0 /* htop's and the dashboard's start-up is not counted */
#define WORKLOAD      "while :; do sleep 0.2; ls / >/dev/null; done"

/* CPU time of this whole process (every thread). */
static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- sandboxes (bench_open tracks them, so any exit path removes them) ---- */

/* Creates and starts a sandbox (idle, or running the workload as its entrypoint). */
static sm_sandbox *sandbox_open(sm_provider *p, bool busy, char *msg, size_t len)
{
    sm_spec spec;
    sm_spec_init(&spec);
    if (busy) {
        spec.entrypoint = xcalloc(4, sizeof(char *));
        spec.entrypoint[0] = xstrdup("/bin/sh");
        spec.entrypoint[1] = xstrdup("-c");
        spec.entrypoint[2] = xstrdup(WORKLOAD);
    }
    return bench_open(p, &spec, msg, len);
}

/* A pool of WORKERS threads creating (or stopping) sandboxes until the work runs out. */
typedef struct pool {
    pthread_mutex_t mu;
    sm_provider *p;
    bool stop, busy;
    sm_sandbox **items; /* stop: the sandboxes; create: filled in */
    size_t n, next, failed;
    char msg[256];
} pool;

static void *pool_thread(void *argp)
{
    pool *pl = argp;
    for (;;) {
        pthread_mutex_lock(&pl->mu);
        bool give_up = !pl->stop && (g_interrupted || pl->failed);
        size_t i = pl->next;
        if (i < pl->n && !give_up)
            pl->next++;
        pthread_mutex_unlock(&pl->mu);
        if (i >= pl->n || give_up)
            return NULL;
        char msg[256] = "";
        if (pl->stop) {
            if (pl->items[i] && bench_close(pl->items[i], "ui_bench") < 0)
                snprintf(msg, sizeof msg, "stop failed");
            pl->items[i] = NULL;
        } else {
            pl->items[i] = sandbox_open(pl->p, pl->busy, msg, sizeof msg);
        }
        if (msg[0]) {
            pthread_mutex_lock(&pl->mu);
            if (!pl->failed++)
                snprintf(pl->msg, sizeof pl->msg, "%s", msg);
            pthread_mutex_unlock(&pl->mu);
        }
    }
}

/* Runs the pool; returns the wall seconds, or -1 when any item failed (message on stderr). */
static double pool_run(pool *pl)
{
    pthread_mutex_init(&pl->mu, NULL);
    pthread_t th[WORKERS];
    bool started[WORKERS] = {false};
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 256 * 1024);
    double t0 = bench_now();
    size_t nth = pl->n < WORKERS ? pl->n : WORKERS;
    for (size_t i = 0; i < nth; i++)
        started[i] = pthread_create(&th[i], &attr, pool_thread, pl) == 0;
    pthread_attr_destroy(&attr);
    if (nth && !started[0])
        pool_thread(pl); /* no threads at all: do it here */
    for (size_t i = 0; i < nth; i++)
        if (started[i])
            pthread_join(th[i], NULL);
    double dt = bench_now() - t0;
    pthread_mutex_destroy(&pl->mu);
    if (pl->failed) {
        fprintf(stderr, "ui_bench: %zu of %zu %s failed: %s\n", pl->failed, pl->n,
                pl->stop ? "removals" : "creates", pl->msg);
        return -1;
    }
    return g_interrupted && !pl->stop ? -1 : dt;
}

static double create_many(sm_provider *p, sm_sandbox **out, size_t n, bool busy)
{
    pool pl = {.p = p, .busy = busy, .items = out, .n = n};
    return pool_run(&pl);
}

/* Stops items[0..n) in parallel (NULL entries skipped; entries are set to NULL). */
static double remove_many(sm_sandbox **items, size_t n)
{
    pool pl = {.stop = true, .items = items, .n = n};
    return pool_run(&pl);
}

/* ---- the dashboard frame ---- */

/* Lists the provider's sandboxes (ended ones too, as the dashboard does). */
static int list_all(sm_provider *p, sm_sandbox_info **out, size_t *n)
{
    sm_list_filter f = {.labels = NULL, .all = true};
    sm_error err;
    sm_error_clear(&err);
    if (sm_provider_list(p, &f, out, n, &err) != SM_OK) {
        fprintf(stderr, "ui_bench: list: %s\n", err.msg);
        return -1;
    }
    return 0;
}

/* One refresh as the dashboard's worker does it, folded into the model. */
static int model_refresh(tui_app *app, sm_sampler *smp, sm_journal_follower *fol)
{
    sm_sandbox_info *l;
    size_t n;
    if (list_all(app->provider, &l, &n) < 0)
        return -1;
    sm_sample *s = xcalloc(n ? n : 1, sizeof *s);
    bool *ok = xcalloc(n ? n : 1, sizeof *ok);
    sm_sampler_collect(smp, l, n, s, ok);
    tui_model_apply(&app->model, sm_fleet_snapshot_new(l, n, s, ok), sm_journal_follower_poll(fol));
    return 0;
}

/* CPU ms of each of `frames` full repaints (full_redraw and clearok before each) of the current
 * view. Returns the bytes written per frame (the screen's output goes to a scratch file), so a
 * frame that is not really a full repaint shows. */
static double time_frames(tui_app *app, FILE *out, int rows, int cols, long frames, double *ms)
{
    resize_term(rows, cols);
    fflush(out);
    if (ftruncate(fileno(out), 0) < 0)
        perror("ui_bench: truncate the frame output");
    fseek(out, 0, SEEK_SET);
    for (long i = 0; i < frames; i++) {
        /* a whole frame, repainted in full: not the incremental update that follows input */
        app->full_redraw = true;
        clearok(curscr, TRUE);
        double c0 = cpu_s();
        tui_frame_render(app);
        ms[i] = (cpu_s() - c0) * 1e3;
    }
    fflush(out);
    struct stat st;
    return fstat(fileno(out), &st) == 0 ? (double)st.st_size / (double)frames : -1;
}

/* ---- main ---- */

static void usage(FILE *f)
{
    fprintf(f,
            "usage: ui_bench [-n N] [-l N] [-r N] [-f N] [-w S] [--sandman PATH] [--json FILE]\n"
            "  -n N            idle sandboxes for the sampling and frame figures (default 500)\n"
            "  -l N            sandboxes of the live part, 10 of them busy (default 50, min 10)\n"
            "  -r N            sampling and list rounds (default 20, min 5)\n"
            "  -f N            frames per view and size (default 200, min 10)\n"
            "  -w S            seconds of the live measurement window (default 30)\n"
            "  --sandman PATH  the dashboard binary (default $SANDMAN_BIN, else ../sandman\n"
            "                  beside this program)\n"
            "  --json FILE     also write the figures as JSON\n");
}

int main(int argc, char **argv)
{
    long nsbx = 500, nlive_part = 50, rounds = 20, frames = 200;
    double window = 30;
    const char *json_path = NULL, *sandman_bin = getenv("SANDMAN_BIN");
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-n") && i + 1 < argc) {
            nsbx = strtol(argv[++i], NULL, 10);
        } else if (!strcmp(argv[i], "-l") && i + 1 < argc) {
            nlive_part = strtol(argv[++i], NULL, 10);
        } else if (!strcmp(argv[i], "-r") && i + 1 < argc) {
            rounds = strtol(argv[++i], NULL, 10);
        } else if (!strcmp(argv[i], "-f") && i + 1 < argc) {
            frames = strtol(argv[++i], NULL, 10);
        } else if (!strcmp(argv[i], "-w") && i + 1 < argc) {
            window = strtod(argv[++i], NULL);
        } else if (!strcmp(argv[i], "--sandman") && i + 1 < argc) {
            sandman_bin = argv[++i];
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
    if (nsbx < 1 || nlive_part < 10 || rounds < 5 || frames < 10 || window < 5) {
        usage(stderr);
        return 2;
    }
    bench_catch_signals();
    setvbuf(stdout, NULL, _IOLBF, 0);
    setlocale(LC_ALL, "");
    const char *cs = nl_langinfo(CODESET);
    tui_unicode = cs && !strcmp(cs, "UTF-8") && !getenv("SANDMAN_ASCII");

    /* Private directories: never the user's state. */
    char scratch_tmpl[] = "/tmp/sandman-ui-bench.XXXXXX";
    if (!mkdtemp(scratch_tmpl)) {
        perror("ui_bench: mkdtemp");
        return 2;
    }
    ub_panes_init(scratch_tmpl);
    char *home = xasprintf("%s/home/.config", scratch_tmpl);
    sm_mkdir_p(home, 0700);
    free(home);
    char *own_state = NULL;
    const char *st_env = getenv("SANDMAN_STATE_DIR");
    if (!st_env || !*st_env) {
        own_state = xasprintf("%s/state", scratch_tmpl);
        setenv("SANDMAN_STATE_DIR", own_state, 1);
    }
    char *sandman_path = NULL;
    if (sandman_bin && *sandman_bin) {
        sandman_path = xstrdup(sandman_bin);
    } else {
        char exe[4096];
        ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
        exe[k > 0 ? k : 0] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash)
            *slash = '\0';
        sandman_path = xasprintf("%s/../sandman", exe);
    }

    cJSON *json = cJSON_CreateObject();
    ub_machine_facts(cJSON_AddObjectToObject(json, "machine"));
    sm_builtin_register_all();
    printf("state dir: %s (private)\n", sm_state_dir());
    printf("dashboard: %s\n", sandman_path);
    int status = 2;
    sm_provider *p = NULL;
    sm_sampler *smp = NULL;
    sm_sandbox_info *list = NULL;
    size_t nl = 0;
    sm_sample *samples = NULL;
    bool *ok = NULL;
    double *v1 = NULL, *v2 = NULL;
    sm_sandbox **idle = xcalloc((size_t)nsbx, sizeof *idle);
    sm_sandbox **busy = NULL;
    tui_app app;
    memset(&app, 0, sizeof app);
    tui_model_init(&app.model);
    sm_journal_follower *fol = NULL;
    SCREEN *scr = NULL;
    FILE *term_out = NULL, *term_in = NULL;
    ub_pane htop_pn = {{0}, 0}, dash_pn = {{0}, 0};
    ub_row rows[16];
    size_t nrows = 0;
    sm_error err;
    sm_error_clear(&err);

    if (access(sandman_path, X_OK) != 0) {
        fprintf(stderr, "ui_bench: the dashboard %s is not built (or set SANDMAN_BIN)\n",
                sandman_path);
        goto out;
    }
    if (sm_provider_new("local", NULL, &p, &err) != SM_OK) {
        fprintf(stderr, "ui_bench: local provider: %s\n", err.msg);
        goto out;
    }
    char *desc = sm_provider_describe(p);
    printf("local provider: %s\n", desc ? desc : "-");
    free(desc);

    /* 1. N idle sandboxes, created concurrently. */
    printf("creating %ld idle sandboxes (%d threads)...\n", nsbx, WORKERS);
    double t_create = create_many(p, idle, (size_t)nsbx, false);
    if (t_create < 0)
        goto out;
    printf("created %ld sandboxes in %.1f s; load average %.2f\n", nsbx, t_create, bench_loadavg());
    cJSON_AddNumberToObject(json, "create_s", t_create);
    if (!bench_nap(1))
        goto out;

    /* 2. Baseline: htop's own CPU per refresh (1 s) over the same host, alone, and the real
     * dashboard over the same window (info). */
    char window_name[64];
    double hw = window / 3 < 10 ? window / 3 : 10;
    printf("baseline: htop -d 10 and the dashboard in private tmux sessions (200x50), %.0f s "
           "window after %.0f s start-up\n",
           hw, HTOP_WARMUP_S);
    if (ub_pane_start(&htop_pn, "htop", "htop", ub_pane_env("1"), ub_htop_argv) < 0 ||
        ub_pane_start(&dash_pn, "dash", "sandman", ub_pane_env("1"),
                      (const char *const[]){sandman_path, NULL}) < 0 ||
        !bench_nap(HTOP_WARMUP_S))
        goto out;
    double cpu2[2], wall2;
    if (ub_measure_window((ub_pane *const[]){&htop_pn, &dash_pn}, 2, hw, cpu2, &wall2) < 0)
        goto out;
    ub_pane_stop(&htop_pn);
    ub_pane_stop(&dash_pn);
    double htop_refresh_ms = cpu2[0] / wall2 * 1e3; /* one refresh per second */
    double dash500_pct = cpu2[1] / wall2 * 100, htop500_pct = cpu2[0] / wall2 * 100;
    printf("htop: %.1f ms CPU per refresh (%.2f %% of a core) with %ld sandboxes on the host\n",
           htop_refresh_ms, htop500_pct, nsbx);
    snprintf(window_name, sizeof window_name, "htop CPU per refresh");

    /* 3. Sampling all of them once: cold first pass, then rounds with the kept sampler. */
    if (list_all(p, &list, &nl) < 0)
        goto out;
    if (nl != (size_t)nsbx) {
        fprintf(stderr, "ui_bench: the provider lists %zu sandboxes, expected %ld\n", nl, nsbx);
        goto out;
    }
    smp = sm_sampler_new(p);
    samples = xcalloc(nl, sizeof *samples);
    ok = xcalloc(nl, sizeof *ok);
    v1 = xcalloc((size_t)(rounds > frames ? rounds : frames), sizeof *v1);
    v2 = xcalloc((size_t)(rounds > frames ? rounds : frames), sizeof *v2);
    double c0 = cpu_s(), w0 = bench_now();
    size_t got = sm_sampler_collect(smp, list, nl, samples, ok);
    double cold_cpu = (cpu_s() - c0) * 1e3, cold_wall = (bench_now() - w0) * 1e3;
    if (got != nl) {
        fprintf(stderr, "ui_bench: sampled %zu of %zu sandboxes\n", got, nl);
        goto out;
    }
    for (long r = 0; r < rounds && !g_interrupted; r++) {
        c0 = cpu_s();
        w0 = bench_now();
        got = sm_sampler_collect(smp, list, nl, samples, ok);
        v1[r] = (cpu_s() - c0) * 1e3;
        v2[r] = (bench_now() - w0) * 1e3;
        if (got != nl) {
            fprintf(stderr, "ui_bench: sampled %zu of %zu sandboxes\n", got, nl);
            goto out;
        }
    }
    if (g_interrupted)
        goto out;
    char m_sample[96], m_sample_wall[96], m_cold[96], m_list[96], m_list_wall[96];
    snprintf(m_sample, sizeof m_sample, "sample all %zu once, CPU", nl);
    snprintf(m_sample_wall, sizeof m_sample_wall, "sample all %zu once, wall", nl);
    snprintf(m_cold, sizeof m_cold, "first (cold) sample of %zu, CPU", nl);
    ub_add_row(rows, &nrows, m_sample, "ms", bench_percentile(v1, (size_t)rounds, 50),
               bench_percentile(v1, (size_t)rounds, 90), htop_refresh_ms, window_name, 50,
               "< 50 ms");
    ub_add_row(rows, &nrows, m_sample_wall, "ms", bench_percentile(v2, (size_t)rounds, 50),
               bench_percentile(v2, (size_t)rounds, 90), htop_refresh_ms, window_name, 50,
               "< 50 ms");
    ub_add_row(rows, &nrows, m_cold, "ms", cold_cpu, -1, htop_refresh_ms, window_name, -1, "-");
    printf("cold sample: %.1f ms CPU, %.1f ms wall\n", cold_cpu, cold_wall);
    cJSON_AddNumberToObject(json, "cold_sample_wall_ms", cold_wall);

    /* 4. The provider's list of them (info). */
    for (long r = 0; r < rounds && !g_interrupted; r++) {
        sm_sandbox_info *l2;
        size_t n2;
        c0 = cpu_s();
        w0 = bench_now();
        if (list_all(p, &l2, &n2) < 0)
            goto out;
        v1[r] = (cpu_s() - c0) * 1e3;
        v2[r] = (bench_now() - w0) * 1e3;
        sm_sandbox_info_list_free(l2, n2);
    }
    snprintf(m_list, sizeof m_list, "provider list of %zu, CPU", nl);
    snprintf(m_list_wall, sizeof m_list_wall, "provider list of %zu, wall", nl);
    ub_add_row(rows, &nrows, m_list, "ms", bench_percentile(v1, (size_t)rounds, 50),
               bench_percentile(v1, (size_t)rounds, 90), htop_refresh_ms, window_name, -1, "-");
    ub_add_row(rows, &nrows, m_list_wall, "ms", bench_percentile(v2, (size_t)rounds, 50),
               bench_percentile(v2, (size_t)rounds, 90), htop_refresh_ms, window_name, -1, "-");

    /* 5. One full dashboard frame, set up by hand: the model gets two refreshes 1 s apart (so
     * rates exist) and the journal's events; the screen is a curses terminal on /dev/null. */
    app.provider = p;
    app.context = xstrdup(sm_provider_context(p));
    tui_model_set_provider(&app.model, sm_provider_name(p));
    app.interval = 1.0;
    app.view = VIEW_LIST;
    fol = sm_journal_follower_new(256 * 1024);
    if (model_refresh(&app, smp, fol) < 0 || !bench_nap(1) || model_refresh(&app, smp, fol) < 0)
        goto out;
    if (tui_theme_load("default", &app.theme, &err) != SM_OK) {
        fprintf(stderr, "ui_bench: theme: %s\n", err.msg);
        goto out;
    }
    char *frames_path = xasprintf("%s/frames.out", scratch_tmpl);
    term_out = fopen(frames_path, "we");
    free(frames_path);
    term_in = fopen("/dev/null", "re");
    if (!term_out || !term_in || !(scr = newterm("xterm-256color", term_out, term_in))) {
        fprintf(stderr, "ui_bench: cannot set up a curses screen (xterm-256color)\n");
        goto out;
    }
    set_term(scr);
    if (has_colors()) {
        start_color();
        use_default_colors();
    }
    app.tier = tui_color_tier_detect(getenv("NO_COLOR"), has_colors(), COLORS);
    tui_theme_apply(&app.theme, app.tier);
    printf("frames: %ld full repaints per view and size, theme %s, colour tier %d, %s\n", frames,
           app.theme.name ? app.theme.name : "?", (int)app.tier, tui_unicode ? "UTF-8" : "ASCII");
    static const struct {
        int rows, cols;
        tui_view view;
        const char *name, *json;
        double limit;
    } fr[] = {
        {50, 200, VIEW_LIST, "dashboard frame 200x50 (list), CPU", "frame_bytes_list_200x50", 2},
        {24, 80, VIEW_LIST, "dashboard frame 80x24 (list), CPU", "frame_bytes_list_80x24", 2},
        {50, 200, VIEW_DETAIL, "dashboard frame 200x50 (detail), CPU", "frame_bytes_detail_200x50",
         -1},
    };
    for (size_t k = 0; k < sizeof fr / sizeof fr[0] && !g_interrupted; k++) {
        app.view = fr[k].view;
        double bytes = time_frames(&app, term_out, fr[k].rows, fr[k].cols, frames, v1);
        printf("%s: %.0f bytes of terminal output per frame\n", fr[k].name, bytes);
        cJSON_AddNumberToObject(json, fr[k].json, bytes);
        if (bytes < fr[k].rows * fr[k].cols / 4.0) {
            fprintf(stderr, "ui_bench: %s is not a full repaint (%.0f bytes for %dx%d)\n",
                    fr[k].name, bytes, fr[k].cols, fr[k].rows);
            goto out;
        }
        ub_add_row(rows, &nrows, fr[k].name, "ms", bench_percentile(v1, (size_t)frames, 50),
                   bench_percentile(v1, (size_t)frames, 90), htop_refresh_ms, window_name,
                   fr[k].limit, fr[k].limit < 0 ? "-" : "< 2 ms");
    }
    char m_dash500[96];
    snprintf(m_dash500, sizeof m_dash500, "dashboard, %zu idle, 1 s interval, %% of a core", nl);
    ub_add_row(rows, &nrows, m_dash500, "%", dash500_pct, -1, htop500_pct,
               "htop -d 10, same window", -1, "-");
    endwin();
    set_term(NULL);
    delscreen(scr);
    scr = NULL;
    if (g_interrupted)
        goto out;

    /* 6. The live part: keep nlive_part - 10 idle sandboxes, add 10 busy ones, then the real
     * dashboard and htop over the same window. */
    size_t keep = (size_t)nlive_part - 10 < (size_t)nsbx ? (size_t)nlive_part - 10 : (size_t)nsbx;
    double t_rm = remove_many(idle + keep, (size_t)nsbx - keep);
    if (t_rm < 0)
        goto out;
    busy = xcalloc(10, sizeof *busy);
    if (create_many(p, busy, 10, true) < 0)
        goto out;
    size_t nlive_now = keep + 10;
    printf("live part: removed %zu sandboxes in %.1f s; %zu idle + 10 running `%s`; load average "
           "%.2f\n",
           (size_t)nsbx - keep, t_rm, keep, WORKLOAD, bench_loadavg());
    sm_sandbox_info_list_free(list, nl);
    list = NULL;
    if (list_all(p, &list, &nl) < 0)
        goto out;
    sm_sample *s0 = xcalloc(nl ? nl : 1, sizeof *s0);
    bool *ok0 = xcalloc(nl ? nl : 1, sizeof *ok0);
    sm_sampler_collect(smp, list, nl, s0, ok0);
    if (ub_pane_start(&htop_pn, "htop50", "htop", ub_pane_env("1"), ub_htop_argv) < 0 ||
        ub_pane_start(&dash_pn, "dash50", "sandman", ub_pane_env("1"),
                      (const char *const[]){sandman_path, NULL}) < 0 ||
        !bench_nap(HTOP_WARMUP_S)) {
        free(s0);
        free(ok0);
        goto out;
    }
    printf("live part: measuring both for %.0f s...\n", window);
    if (ub_measure_window((ub_pane *const[]){&htop_pn, &dash_pn}, 2, window, cpu2, &wall2) < 0) {
        free(s0);
        free(ok0);
        goto out;
    }
    long dash_rss = ub_proc_rss_kib(dash_pn.pid);
    char screen[32768];
    ub_tmux((const char *[]){"capture-pane", "-p", "-t", dash_pn.name, NULL}, screen,
            sizeof screen);
    char want[64];
    snprintf(want, sizeof want, "Sandboxes (%zu)", nlive_now);
    bool shows = strstr(screen, want) != NULL;
    ub_pane_stop(&htop_pn);
    ub_pane_stop(&dash_pn);
    /* did the workload move the counters? */
    sm_sample *s1 = xcalloc(nl ? nl : 1, sizeof *s1);
    bool *ok1 = xcalloc(nl ? nl : 1, sizeof *ok1);
    sm_sampler_collect(smp, list, nl, s1, ok1);
    size_t moved = 0;
    for (size_t i = 0; i < nl; i++)
        if (ok0[i] && ok1[i] && s1[i].cpu_time_s > s0[i].cpu_time_s + 0.01)
            moved++;
    free(s0);
    free(ok0);
    free(s1);
    free(ok1);
    double dash_pct = cpu2[1] / wall2 * 100, htop_pct = cpu2[0] / wall2 * 100;
    double refreshes = wall2 / 1.0;
    printf("live part: dashboard %.2f %% of a core (%.2f ms per refresh, RSS %.1f MiB), htop "
           "%.2f %%; %zu sandboxes used > 10 ms CPU in the window; the dashboard %s \"%s\"\n",
           dash_pct, cpu2[1] / refreshes * 1e3, (double)dash_rss / 1024.0, htop_pct, moved,
           shows ? "showed" : "did NOT show", want);
    if (!shows) {
        fprintf(stderr, "ui_bench: the dashboard did not list the sandboxes; its screen:\n%s\n",
                screen);
        goto out;
    }
    char m_live[96], m_live_ref[96];
    snprintf(m_live, sizeof m_live, "dashboard, %zu live (10 busy), 1 s interval, %% of a core",
             nlive_now);
    snprintf(m_live_ref, sizeof m_live_ref, "dashboard CPU per refresh, %zu live", nlive_now);
    ub_add_row(rows, &nrows, m_live, "%", dash_pct, -1, htop_pct, "htop -d 10, same window", 3,
               "< 3 %");
    ub_add_row(rows, &nrows, m_live_ref, "ms", cpu2[1] / refreshes * 1e3, -1,
               cpu2[0] / refreshes * 1e3, "htop CPU per refresh, same window", -1, "-");
    cJSON_AddNumberToObject(json, "live_window_s", wall2);
    cJSON_AddNumberToObject(json, "live_busy_moved", (double)moved);
    cJSON_AddNumberToObject(json, "dashboard_rss_kib", (double)dash_rss);

    status = 0;
    cJSON *jrows = cJSON_AddArrayToObject(json, "results");
    for (size_t i = 0; i < nrows; i++) {
        ub_row_judge(&rows[i]);
        if (!rows[i].pass)
            status = 1;
        cJSON_AddItemToArray(jrows, ub_row_json(&rows[i]));
    }
    printf("\nsandman dashboard costs: %ld idle local sandboxes, %ld sampling rounds, %ld frames "
           "(median, p90); htop measured on the same host in the same run\n",
           nsbx, rounds, frames);
    ub_print_table(rows, nrows);
    cJSON_AddNumberToObject(json, "sandboxes", (double)nsbx);
    cJSON_AddNumberToObject(json, "rounds", (double)rounds);
    cJSON_AddNumberToObject(json, "frames", (double)frames);
    cJSON_AddBoolToObject(json, "pass", status == 0);
    cJSON_AddNumberToObject(cJSON_GetObjectItem(json, "machine"), "loadavg_after", bench_loadavg());
    printf("load average after: %.2f (other work on the machine inflates every figure)\n",
           bench_loadavg());
    printf("\n%s\n", status == 0 ? "all targets met" : "TARGETS MISSED");

out:
    if (scr) {
        endwin();
        set_term(NULL);
        delscreen(scr);
    }
    if (term_out)
        fclose(term_out);
    if (term_in)
        fclose(term_in);
    ub_pane_stop(&htop_pn);
    ub_pane_stop(&dash_pn);
    ub_tmux_kill_server();
    free(app.context);
    app.context = NULL;
    tui_model_free(&app.model);
    tui_theme_free(&app.theme);
    sm_journal_follower_free(fol);
    sm_sampler_free(smp);
    sm_sandbox_info_list_free(list, nl);
    bench_close_all("ui_bench");
    free(idle);
    free(busy);
    free(samples);
    free(ok);
    free(v1);
    free(v2);
    if (g_interrupted) {
        fprintf(stderr, "ui_bench: interrupted\n");
        status = 2;
    }
    if (json_path) {
        char *text = cJSON_Print(json);
        FILE *f = fopen(json_path, "we");
        if (!f || fputs(text, f) < 0 || fputc('\n', f) < 0) {
            fprintf(stderr, "ui_bench: cannot write %s\n", json_path);
            status = status ? status : 2;
        }
        if (f)
            fclose(f);
        free(text);
    }
    cJSON_Delete(json);
    sm_provider_free(p);
    if (own_state)
        sm_rm_rf(own_state);
    free(own_state);
    sm_rm_rf(scratch_tmpl);
    ub_panes_free();
    free(sandman_path);
    return status;
}
