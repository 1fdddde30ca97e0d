/* ui_bench's child processes (ui_panes.c). */
#ifndef SANDMAN_BENCH_UI_PANES_H
#define SANDMAN_BENCH_UI_PANES_H

#include <stddef.h>
#include <sys/types.h>

/* A process started as the only pane of a private tmux session (200x50). */
typedef struct ub_pane {
    char name[32];
    pid_t pid;
} ub_pane;

/* Where sockets, logs and the panes' HOME go (kept, not copied: it must outlive the panes). */
void ub_panes_init(const char *scratch);
void ub_panes_free(void);
/* Runs argv with stdin on /dev/null; stdout into out (when given, NUL-terminated) or /dev/null,
 * stderr to /dev/null. Returns the exit status, -1 when it could not run. */
int ub_run(char *const argv[], char *out, size_t outlen);
/* tmux on our private server: `tmux -u -S SOCK -f /dev/null ARGS...`. */
int ub_tmux(const char *const args[], char *out, size_t outlen);
/* Ends our tmux server, when one was started. */
void ub_tmux_kill_server(void);
/* Starts `sh -c "exec env VARS... PROG ARGS 2>LOG"` in a new detached session: after the
 * exec the pane's process is the program itself. Returns 0 and the pid, -1 on error. */
int ub_pane_start(ub_pane *pn, const char *name, const char *comm, const char *const envs[],
                  const char *const argv[]);
/* Ends the session and waits (up to 3 s, then SIGKILL) for its process to be gone. */
void ub_pane_stop(ub_pane *pn);
/* Resident memory of a process in KiB; -1 when it is gone. */
long ub_proc_rss_kib(pid_t pid);
/* CPU of several panes over the same window: seconds of CPU each, and the window's length. */
int ub_measure_window(ub_pane *const *pns, size_t n, double window_s, double *cpu, double *wall);
/* The environment of both panes: same terminal, private HOME/config so nothing of the user's
 * is read or written (htop saves its settings on exit). */
const char **ub_pane_env(const char *interval);
/* htop as the baseline runs it. */
extern const char *const ub_htop_argv[];

#endif
