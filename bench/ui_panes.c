/* ui_bench's child processes: commands run to completion, tmux on a private server, programs
 * (htop, the dashboard) started as the only pane of a detached session, and their CPU and
 * memory read from /proc over a common window. Everything lives under the bench's scratch
 * directory (ub_panes_init). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench/bench_util.h"
#include "bench/ui_panes.h"
#include "core/util.h"

extern char **environ;

static const char *g_scratch; /* private temporary directory: tmux socket, HOME for htop, logs */
static char *g_tmux_sock;
static bool g_tmux_started;

void ub_panes_init(const char *scratch)
{
    g_scratch = scratch;
    g_tmux_sock = xasprintf("%s/tmux.sock", g_scratch);
}

void ub_panes_free(void)
{
    free(g_tmux_sock);
    g_tmux_sock = NULL;
}

/* Runs argv with stdin on /dev/null; stdout into out (when given, NUL-terminated) or /dev/null,
 * stderr to /dev/null. Returns the exit status, -1 when it could not run. */
int ub_run(char *const argv[], char *out, size_t outlen)
{
    int pfd[2] = {-1, -1};
    if (out && pipe2(pfd, O_CLOEXEC) < 0)
        return -1;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    if (out)
        posix_spawn_file_actions_adddup2(&fa, pfd[1], 1);
    else
        posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    pid_t pid;
    int rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (out) {
        close(pfd[1]);
        size_t got = 0;
        if (rc == 0) {
            for (;;) {
                ssize_t k = read(pfd[0], out + got, outlen - 1 - got);
                if (k < 0 && errno == EINTR)
                    continue;
                if (k <= 0)
                    break;
                got += (size_t)k;
                if (got == outlen - 1) { /* drain the rest */
                    char sink[4096];
                    while (read(pfd[0], sink, sizeof sink) > 0)
                        ;
                    break;
                }
            }
        }
        out[got] = '\0';
        close(pfd[0]);
    }
    if (rc != 0)
        return -1;
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* tmux on our private server: `tmux -u -S SOCK -f /dev/null ARGS...`. */
int ub_tmux(const char *const args[], char *out, size_t outlen)
{
    const char *argv[32] = {"tmux", "-u", "-S", g_tmux_sock, "-f", "/dev/null"};
    size_t n = 6;
    for (size_t i = 0; args[i] && n < 31; i++)
        argv[n++] = args[i];
    argv[n] = NULL;
    return ub_run((char *const *)argv, out, outlen);
}

void ub_tmux_kill_server(void)
{
    if (!g_tmux_started)
        return;
    ub_tmux((const char *[]){"kill-server", NULL}, NULL, 0);
    g_tmux_started = false;
}

static bool pid_alive(pid_t pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    if (sm_read_small(path, buf, sizeof buf) < 0)
        return false;
    char *rp = strrchr(buf, ')');
    return rp && rp[1] == ' ' && rp[2] != 'Z' && rp[2] != 'X';
}

/* Starts `sh -c "exec env VARS... PROG ARGS 2>LOG"` in a new detached session: after the
 * exec the pane's process is the program itself. Returns 0 and the pid, -1 on error. */
int ub_pane_start(ub_pane *pn, const char *name, const char *comm, const char *const envs[],
                  const char *const argv[])
{
    snprintf(pn->name, sizeof pn->name, "%s", name);
    pn->pid = 0;
    char *cmd = xstrdup("exec env");
    for (size_t i = 0; envs[i]; i++) {
        char *q = sm_shell_quote(envs[i]), *c2 = xasprintf("%s %s", cmd, q);
        free(q);
        free(cmd);
        cmd = c2;
    }
    for (size_t i = 0; argv[i]; i++) {
        char *q = sm_shell_quote(argv[i]), *c2 = xasprintf("%s %s", cmd, q);
        free(q);
        free(cmd);
        cmd = c2;
    }
    char *log = xasprintf("%s/%s.err", g_scratch, name);
    char *ql = sm_shell_quote(log);
    char *full = xasprintf("%s 2>%s", cmd, ql);
    free(cmd);
    free(ql);
    free(log);
    int rc = ub_tmux(
        (const char *[]){"new-session", "-d", "-s", name, "-x", "200", "-y", "50", full, NULL},
        NULL, 0);
    free(full);
    if (rc != 0) {
        fprintf(stderr, "ui_bench: tmux new-session %s failed\n", name);
        return -1;
    }
    g_tmux_started = true;
    /* wait for the shell to exec the program */
    for (int tries = 0; tries < 100 && !g_interrupted; tries++) {
        char out[64], path[64], c[64];
        if (ub_tmux((const char *[]){"list-panes", "-t", name, "-F", "#{pane_pid}", NULL}, out,
                    sizeof out) == 0) {
            pid_t pid = (pid_t)strtol(out, NULL, 10);
            snprintf(path, sizeof path, "/proc/%d/comm", (int)pid);
            if (pid > 0 && sm_read_small(path, c, sizeof c) == 0 && !strcmp(c, comm)) {
                pn->pid = pid;
                return 0;
            }
        }
        bench_nap(0.02);
    }
    fprintf(stderr, "ui_bench: %s did not start in tmux session %s (see %s/%s.err)\n", comm, name,
            g_scratch, name);
    return -1;
}

/* Ends the session and waits (up to 3 s, then SIGKILL) for its process to be gone. */
void ub_pane_stop(ub_pane *pn)
{
    if (!pn->name[0])
        return;
    ub_tmux((const char *[]){"kill-session", "-t", pn->name, NULL}, NULL, 0);
    if (pn->pid > 0) {
        double end = bench_now() + 3;
        while (pid_alive(pn->pid) && bench_now() < end)
            usleep(20 * 1000);
        if (pid_alive(pn->pid))
            kill(pn->pid, SIGKILL);
    }
    pn->name[0] = '\0';
    pn->pid = 0;
}

/* utime + stime of a process, in seconds; -1 when it is gone. */
static double proc_cpu(pid_t pid)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    if (sm_read_small(path, buf, sizeof buf) < 0)
        return -1;
    char *rp = strrchr(buf, ')');
    unsigned long long ut, st;
    if (!rp ||
        sscanf(rp + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) != 2)
        return -1;
    return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}

long ub_proc_rss_kib(pid_t pid)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "re");
    long v = -1;
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "VmRSS:", 6)) {
            v = strtol(line + 6, NULL, 10);
            break;
        }
    if (f)
        fclose(f);
    return v;
}

/* CPU of several panes over the same window: seconds of CPU each, and the window's length. */
int ub_measure_window(ub_pane *const *pns, size_t n, double window_s, double *cpu, double *wall)
{
    double before[4];
    for (size_t i = 0; i < n; i++)
        before[i] = proc_cpu(pns[i]->pid);
    double t0 = bench_now();
    if (!bench_nap(window_s))
        return -1;
    *wall = bench_now() - t0;
    for (size_t i = 0; i < n; i++) {
        double after = proc_cpu(pns[i]->pid);
        if (before[i] < 0 || after < 0) {
            fprintf(stderr, "ui_bench: %s exited during the measurement (see %s/%s.err)\n",
                    pns[i]->name, g_scratch, pns[i]->name);
            return -1;
        }
        cpu[i] = after - before[i];
    }
    return 0;
}

const char *const ub_htop_argv[] = {"htop", "-d", "10", NULL};

/* The environment of both panes: same terminal, private HOME/config so nothing of the user's
 * is read or written (htop saves its settings on exit). */
const char **ub_pane_env(const char *interval)
{
    static char vars[6][4096];
    static const char *envs[9] = {"-u", "SANDMAN_CONFIG"};
    snprintf(vars[0], sizeof vars[0], "TERM=xterm-256color");
    snprintf(vars[1], sizeof vars[1], "HOME=%s/home", g_scratch);
    snprintf(vars[2], sizeof vars[2], "XDG_CONFIG_HOME=%s/home/.config", g_scratch);
    snprintf(vars[3], sizeof vars[3], "SANDMAN_STATE_DIR=%s", sm_state_dir());
    snprintf(vars[4], sizeof vars[4], "SANDMAN_INTERVAL=%s", interval);
    snprintf(vars[5], sizeof vars[5], "LANG=%s", getenv("LANG") ? getenv("LANG") : "C.UTF-8");
    for (int i = 0; i < 6; i++)
        envs[2 + i] = vars[i];
    envs[8] = NULL;
    return envs;
}
