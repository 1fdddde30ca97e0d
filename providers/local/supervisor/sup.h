/* Internal interface of the static sandbox supervisor: the supervisor process (outside the
 * sandbox: TTL, end reason, cleanup), the sandbox init's setup (namespaces, root filesystem,
 * capabilities) and the init's control server (exec, PTY sessions). libc only. */
#ifndef SM_SUP_H
#define SM_SUP_H

#include <stddef.h>
#include <sys/types.h>

#include "providers/local/launch.h"

/* Everything the init needs, prepared by the supervisor before clone(). */
struct init_args {
    const struct launch *l;
    int go_fd;        /* read end: "go" once the id maps are set, "go" again once in cgroups */
    int handoff_fd;   /* the init's end of the gate's socket pair: accepted clients arrive here */
    int status_fd;    /* write end: "ok\n" or "err <message>\n"; later "entry ..." (server_run) */
    int close_fds[8]; /* the supervisor's own descriptors (its lock above all) */
    char **argv;      /* the supervisor's arguments, wiped in the init's copy (they name paths) */
    int nclose;
};

/* The init (PID 1 of the sandbox): sets up and serves; never returns. */
int init_main(void *arg);

/* Namespace and filesystem setup inside the init; waits on go_fd for the second "go" (the
 * cgroups joined) before the cgroup namespace, seccomp and the capability drop. On error fills
 * msg and returns -1. */
int setup_sandbox(const struct launch *l, int go_fd, char *msg, size_t len);

/* The control server loop (never returns): clients arrive over handoff_fd. The launch's optional
 * entrypoint runs as the sandbox's main process: when it ends, "entry exit N" or "entry signal N"
 * goes to report_fd (the supervisor's status pipe; close-on-exec) and the init exits with its
 * status. */
void server_run(int handoff_fd, const struct launch *l, int report_fd);

/* The control socket's gate (gate.c). gate_open binds ctl.sock in the current directory and makes
 * the socket pair that carries accepted connections to the init; gate_accept (supervisor) takes
 * every pending connection, refusing peers inside any sandbox; gate_receive (init) returns the
 * next handed-over connection, -1 when none is there, -2 when the supervisor is gone. */
int gate_open(int *listen_fd, int pair[2], char *msg, size_t len);
void gate_accept(int listen_fd, int handoff);
int gate_receive(int handoff);

/* Writes "err <fmt>" style messages. */
/* The cgroups a sandbox's init goes into (the launch's cg= lines, a leaf standing for its
 * parent); at most max into out. */
size_t sup_cgroups_to_join(const struct launch *l, const char **out, size_t max);

/* Starts the init (init_main) in new namespaces (flags), straight into the sandbox's cgroup v2
 * when the kernel can (clone3 CLONE_INTO_CGROUP: no move at all); *into names that cgroup, or
 * stays NULL. -1 with errno on failure. */
pid_t sup_spawn_init(int flags, struct init_args *ia, const struct launch *l, const char **into);
/* Moves the init into the sandbox's v2 cgroups it did not start in (the v1 ones it joins
 * itself); -1 with msg filled on failure. */
int sup_join_v2_cgroups(pid_t init, const struct launch *l, const char *into, char *msg,
                        size_t len);

void sup_fmt(char *msg, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
