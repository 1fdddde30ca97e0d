/* Starting and ending commands inside the sandbox (spawn.c), for the init's control server. */
#ifndef SM_SUP_SPAWN_H
#define SM_SUP_SPAWN_H

#include <stddef.h>
#include <sys/types.h>

#include "providers/local/proto.h"

struct spawn_req {
    const char *shell;
    const char *cmd; /* "" = interactive shell */
    const char *cwd;
    const char *user;
    const char **env;
    size_t nenv;
    int login;
    int clean_rc; /* no rc files, a plain prompt (an interactive shell on the host image) */
    int fds[3];   /* stdin, stdout, stderr */
    int ctty;     /* make fds[0] the controlling terminal */
};

/* Parses an LP_EXEC/LP_PTY_OPEN payload (shell, cmd, cwd, user, env...) into r, whose strings
 * point into f's payload through strs (at most max). Returns -1 when the payload is short. */
int sup_parse_spawn(const struct lp_frame *f, struct spawn_req *r, const char **strs, size_t max);
/* Forks and execs the command as its user; on failure fills msg and returns -1. */
pid_t sup_spawn(const struct spawn_req *r, char *msg, size_t len);
/* Kills a command for good: its process group and every process descended from it, so that
 * children which moved to a session or group of their own (setsid, set -m) go too. They are
 * stopped first, while their parents still hold them (a killed parent hands its children to
 * the init, where they could no longer be told from other commands'), until no new one
 * appears; then all are killed. Orphans that a double fork handed to the init before this
 * runs are left. */
void sup_kill_tree(pid_t root);

#endif
