/* A command's life inside the sandbox, for the init's control server (server.c): its request
 * read from a frame, the user looked up in the sandbox's own /etc/passwd, its environment and
 * shell, fork + exec with the client's descriptors, and killing it with everything it started.
 * libc only; it holds no state of the server's. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "providers/local/supervisor/spawn.h"
#include "providers/local/supervisor/sup.h"

struct user {
    uid_t uid;
    gid_t gid;
    char home[256];
    char name[64];
    char shell[256];
};

/* Resolves a user against the sandbox's own /etc/passwd (never the host's). */
static int resolve_user(const char *spec, struct user *u, char *msg, size_t len)
{
    memset(u, 0, sizeof *u);
    snprintf(u->home, sizeof u->home, "/root");
    snprintf(u->name, sizeof u->name, "root");
    char *end = NULL;
    long num = (spec && *spec) ? strtol(spec, &end, 10) : 0;
    int numeric = spec && *spec && end && *end == '\0';
    const char *want = (spec && *spec) ? spec : "root";
    FILE *f = fopen("/etc/passwd", "re");
    struct passwd *pw;
    int found = 0;
    while (f && (pw = fgetpwent(f)) != NULL) {
        if ((numeric && pw->pw_uid == (uid_t)num) || (!numeric && !strcmp(pw->pw_name, want))) {
            u->uid = pw->pw_uid;
            u->gid = pw->pw_gid;
            snprintf(u->home, sizeof u->home, "%s", pw->pw_dir);
            snprintf(u->name, sizeof u->name, "%s", pw->pw_name);
            snprintf(u->shell, sizeof u->shell, "%s", pw->pw_shell);
            found = 1;
            break;
        }
    }
    if (f)
        fclose(f);
    if (found)
        return 0;
    if (numeric) {
        u->uid = (uid_t)num;
        u->gid = (gid_t)num;
        snprintf(u->name, sizeof u->name, "%ld", num);
        snprintf(u->home, sizeof u->home, "/");
        return 0;
    }
    if (!spec || !*spec || !strcmp(spec, "root"))
        return 0;
    sup_fmt(msg, len, "user '%s' does not exist in the sandbox's /etc/passwd", spec);
    return -1;
}

static int has_env(char **env, const char *name)
{
    size_t n = strlen(name);
    for (int i = 0; env[i]; i++)
        if (!strncmp(env[i], name, n) && env[i][n] == '=')
            return 1;
    return 0;
}

pid_t sup_spawn(const struct spawn_req *r, char *msg, size_t len)
{
    struct user u;
    if (resolve_user(r->user, &u, msg, len) < 0)
        return -1;
    char **env = calloc(r->nenv + 7, sizeof(char *));
    if (!env) {
        sup_fmt(msg, len, "out of memory");
        return -1;
    }
    size_t n = 0;
    for (size_t i = 0; i < r->nenv; i++)
        env[n++] = (char *)r->env[i];
    char home[300], user[80], logname[80], shellv[300], ps1[] = "PS1=\\u@\\h:\\w\\$ ";
    if (!has_env(env, "HOME")) {
        snprintf(home, sizeof home, "HOME=%s", u.home);
        env[n++] = home;
    }
    if (!has_env(env, "USER")) {
        snprintf(user, sizeof user, "USER=%s", u.name);
        env[n++] = user;
    }
    if (!has_env(env, "LOGNAME")) {
        snprintf(logname, sizeof logname, "LOGNAME=%s", u.name);
        env[n++] = logname;
    }
    const char *shell = r->shell && *r->shell ? r->shell : "/bin/sh";
    if (!*r->cmd && u.shell[0] && access(u.shell, X_OK) == 0 && !strstr(u.shell, "nologin") &&
        !strstr(u.shell, "false"))
        shell = u.shell; /* interactive sessions get the user's login shell */
    if (!has_env(env, "SHELL")) {
        snprintf(shellv, sizeof shellv, "SHELL=%s", shell);
        env[n++] = shellv;
    }
    const char *base = strrchr(shell, '/') ? strrchr(shell, '/') + 1 : shell;
    /* a clean interactive shell: bash without its profile and rc files, any other shell not
     * as a login shell (which reads /etc/profile); the prompt says user, host and dir */
    bool clean = r->clean_rc && !*r->cmd;
    if (clean && !has_env(env, "PS1"))
        env[n++] = ps1;
    env[n] = NULL;
    char argv0[64];
    snprintf(argv0, sizeof argv0, "%s%s", r->login && !clean ? "-" : "", base);
    char *argv[5] = {argv0, NULL, NULL, NULL, NULL};
    if (*r->cmd) {
        argv[1] = "-c";
        argv[2] = (char *)r->cmd;
    } else if (clean && !strcmp(base, "bash")) {
        argv[1] = "--noprofile";
        argv[2] = "--norc";
        argv[3] = "-i";
    }

    int ep[2];
    if (pipe2(ep, O_CLOEXEC) < 0) {
        free(env);
        sup_fmt(msg, len, "pipe: %s", strerror(errno));
        return -1;
    }
    pid_t pid = fork();
    if (pid == 0) {
        sigset_t all;
        sigfillset(&all);
        sigprocmask(SIG_UNBLOCK, &all, NULL);
        for (int s = 1; s < 32; s++)
            signal(s, SIG_DFL);
        setsid();
        for (int i = 0; i < 3; i++)
            if (r->fds[i] != i && dup2(r->fds[i], i) < 0)
                goto child_fail_errno;
        if (r->ctty)
            ioctl(0, TIOCSCTTY, 0);
        close_range(3, ~0U, CLOSE_RANGE_CLOEXEC);
        char emsg[512];
        if (r->cwd && *r->cwd && chdir(r->cwd) < 0) {
            sup_fmt(emsg, sizeof emsg, "working directory %s: %s", r->cwd, strerror(errno));
            goto child_fail;
        }
        if ((!r->cwd || !*r->cwd) && chdir(u.home) < 0 && chdir("/") < 0)
            goto child_fail_errno;
        if (u.uid != 0 || u.gid != 0) {
            gid_t groups[1] = {u.gid};
            setgroups(1, groups);
            if (setgid(u.gid) < 0 || setuid(u.uid) < 0) {
                sup_fmt(emsg, sizeof emsg, "switching to user %s (uid %u): %s", u.name,
                        (unsigned)u.uid, strerror(errno));
                goto child_fail;
            }
        }
        execve(shell, argv, env);
        sup_fmt(emsg, sizeof emsg, "cannot run %s in the sandbox: %s", shell, strerror(errno));
        goto child_fail;
    child_fail_errno:
        sup_fmt(emsg, sizeof emsg, "setting up stdio: %s", strerror(errno));
    child_fail:
        if (write(ep[1], emsg, strlen(emsg)) < 0) {
        }
        _exit(127);
    }
    free(env);
    close(ep[1]);
    if (pid < 0) {
        close(ep[0]);
        sup_fmt(msg, len, "fork: %s", strerror(errno));
        return -1;
    }
    ssize_t got;
    do {
        got = read(ep[0], msg, len - 1);
    } while (got < 0 && errno == EINTR);
    close(ep[0]);
    if (got > 0) {
        msg[got] = '\0';
        waitpid(pid, NULL, 0);
        return -1;
    }
    return pid;
}

int sup_parse_spawn(const struct lp_frame *f, struct spawn_req *r, const char **strs, size_t max)
{
    memset(r, 0, sizeof *r);
    size_t n = lp_unpack(f->payload ? f->payload : "", f->h.len, strs, max);
    if (n < 4)
        return -1;
    r->shell = strs[0];
    r->cmd = strs[1];
    r->cwd = strs[2];
    r->user = strs[3];
    r->env = strs + 4;
    r->nenv = n - 4;
    r->login = (f->h.flags & LP_F_LOGIN) != 0;
    r->clean_rc = (f->h.flags & LP_F_CLEAN_RC) != 0;
    return 0;
}

/* The processes descended from root, found by the parent links in this namespace's /proc, into
 * out (at most max); returns how many. */
static int descendants(pid_t root, pid_t *out, int max)
{
    enum { MAXP = 4096 };
    static pid_t pid[MAXP], ppid[MAXP];
    int n = 0, found = 0;
    DIR *d = opendir("/proc");
    if (!d)
        return 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL && n < MAXP) {
        char path[64], buf[512];
        if (e->d_name[0] < '1' || e->d_name[0] > '9')
            continue;
        snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            continue;
        ssize_t r = read(fd, buf, sizeof buf - 1);
        close(fd);
        char *paren = r > 0 ? (buf[r] = '\0', strrchr(buf, ')')) : NULL;
        int pp;
        if (paren && sscanf(paren + 1, " %*c %d", &pp) == 1) {
            pid[n] = (pid_t)atoi(e->d_name);
            ppid[n++] = (pid_t)pp;
        }
    }
    closedir(d);
    static unsigned char taken[MAXP];
    memset(taken, 0, (size_t)n);
    for (bool more = true; more && found < max;) { /* children of root or of one taken */
        more = false;
        for (int i = 0; i < n && found < max; i++) {
            bool child = !taken[i] && ppid[i] == root;
            for (int k = 0; !taken[i] && !child && k < n; k++)
                child = taken[k] && pid[k] == ppid[i];
            if (child) {
                taken[i] = 1;
                out[found++] = pid[i];
                more = true;
            }
        }
    }
    return found;
}

void sup_kill_tree(pid_t root)
{
    enum { MAXK = 4096 };
    static pid_t procs_of[MAXK];
    int n = 0;
    kill(-root, SIGSTOP);
    for (int round = 0; round < 8; round++) {
        int before = n;
        n = descendants(root, procs_of, MAXK);
        for (int i = 0; i < n; i++)
            kill(procs_of[i], SIGSTOP);
        if (n == before)
            break;
    }
    kill(-root, SIGKILL);
    for (int i = 0; i < n; i++)
        kill(procs_of[i], SIGKILL);
}
