/* The sandbox init's control server: serves the clients the supervisor's gate hands over and
 * runs their commands inside the sandbox (it already is inside every namespace and cgroup, so a
 * command is just a fork + exec, spawn.c). Plain commands get the client's pipes (LP_EXEC +
 * SCM_RIGHTS; nothing but pipes and sockets is accepted, so no terminal or file of the user's
 * enters); PTY sessions get a terminal from the sandbox's devpts, whose output the init relays and
 * keeps (the last 1 MiB) so a client can detach and re-attach later (since offset, takeover). As
 * PID 1 it also reaps every orphan. Single-threaded poll loop; libc only. Every request is checked
 * field by field and every buffer is bounded: a client can neither crash the init nor make it grow.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/random.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "providers/local/proto.h"
#include "providers/local/supervisor/spawn.h"
#include "providers/local/supervisor/sup.h"

#define MAX_CONNS  256
#define MAX_PROCS  512
#define RING_CAP   (1u << 20)
#define WBUF_PAUSE (256u << 10)
#define WBUF_MAX   (4u << 20) /* a client that never reads its replies is dropped past this */
#define INPUT_MAX  (1u << 20) /* terminal input waiting for the program; reading pauses past it */

enum proc_kind { PK_EXEC, PK_PTY, PK_ENTRY };

struct conn;

struct proc {
    int used;
    enum proc_kind kind;
    pid_t pid;
    int status;
    int exited;
    struct conn *owner; /* client waiting for the exit (EXEC) or holding the session (PTY) */
    /* PTY sessions */
    char id[20];
    int master;
    int keep;         /* survives its client */
    int eio;          /* the slave side is gone */
    char *ring;       /* retained output, circular */
    size_t ring_head; /* index of the oldest byte */
    size_t ring_len;
    long long total; /* bytes ever produced: offset of the next byte */
    char *in;        /* input waiting for the terminal */
    size_t in_len;
    char cmd[96];
    double exited_at; /* monotonic seconds */
};

struct conn {
    int used;
    int fd;
    struct lp_reader rd;
    char *wbuf;
    size_t wlen, wcap;
    int dead;
};

#define EXITED_KEEP_S 600 /* an ended, detached session stays readable this long */
#define EXITED_MAX    16  /* and at most this many of them */

static struct conn conns[MAX_CONNS];
static struct proc procs[MAX_PROCS];
static const struct launch *g_launch;
static int g_report_fd = -1; /* to the supervisor: how the entrypoint ended */

static double mono_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- output to clients ------------------------------------------------------------------ */

static void queue(struct conn *c, int type, int64_t a, int64_t b, const void *data, size_t len)
{
    if (c->dead)
        return;
    struct lp_hdr h = {.len = (uint32_t)len, .type = (uint16_t)type, .a = a, .b = b};
    size_t need = c->wlen + sizeof h + len;
    if (need > WBUF_MAX + RING_CAP) {
        c->dead = 1;
        return;
    }
    if (need > c->wcap) {
        size_t cap = c->wcap ? c->wcap : 8192;
        while (cap < need)
            cap *= 2;
        char *nb = realloc(c->wbuf, cap);
        if (!nb) {
            c->dead = 1;
            return;
        }
        c->wbuf = nb;
        c->wcap = cap;
    }
    memcpy(c->wbuf + c->wlen, &h, sizeof h);
    if (len)
        memcpy(c->wbuf + c->wlen + sizeof h, data, len);
    c->wlen = need;
}

static void flush(struct conn *c)
{
    while (c->wlen > 0 && !c->dead) {
        ssize_t w = send(c->fd, c->wbuf, c->wlen, MSG_DONTWAIT | MSG_NOSIGNAL);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            if (errno != EAGAIN)
                c->dead = 1;
            return;
        }
        memmove(c->wbuf, c->wbuf + w, c->wlen - (size_t)w);
        c->wlen -= (size_t)w;
    }
}

static void send_error(struct conn *c, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void send_error(struct conn *c, int code, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    queue(c, LP_ERROR, code, 0, msg, strlen(msg));
}

/* ---- the retained output ring -------------------------------------------------------------- */

static void ring_append(struct proc *p, const char *data, size_t n)
{
    if (!p->ring) {
        p->ring = malloc(RING_CAP);
        if (!p->ring)
            return;
    }
    for (size_t i = 0; i < n; i++) {
        size_t pos = (p->ring_head + p->ring_len) % RING_CAP;
        p->ring[pos] = data[i];
        if (p->ring_len < RING_CAP)
            p->ring_len++;
        else
            p->ring_head = (p->ring_head + 1) % RING_CAP;
    }
}

/* Sends retained output from offset `since` (clamped to what is still kept). */
static void replay(struct proc *p, struct conn *c, long long since)
{
    long long base = p->total - (long long)p->ring_len;
    if (since < base)
        since = base;
    if (since > p->total)
        since = p->total; /* past the end: nothing to replay yet */
    size_t skip = (size_t)(since - base);
    size_t left = p->ring_len - skip;
    long long off = since;
    while (left > 0) {
        char chunk[16384];
        size_t n = left < sizeof chunk ? left : sizeof chunk;
        for (size_t i = 0; i < n; i++)
            chunk[i] = p->ring[(p->ring_head + skip + i) % RING_CAP];
        queue(c, LP_DATA, off, 0, chunk, n);
        skip += n;
        left -= n;
        off += (long long)n;
    }
}

/* ---- processes ------------------------------------------------------------------------------ */

static struct proc *proc_new(void)
{
    for (int i = 0; i < MAX_PROCS; i++) {
        if (!procs[i].used) {
            memset(&procs[i], 0, sizeof procs[i]);
            procs[i].used = 1;
            procs[i].master = -1;
            return &procs[i];
        }
    }
    return NULL;
}

static void proc_free(struct proc *p)
{
    if (p->master >= 0)
        close(p->master);
    free(p->ring);
    free(p->in);
    memset(p, 0, sizeof *p);
    p->master = -1;
}

static struct proc *proc_by_pid(pid_t pid)
{
    for (int i = 0; i < MAX_PROCS; i++)
        if (procs[i].used && procs[i].pid == pid)
            return &procs[i];
    return NULL;
}

static struct proc *session_by_id(const char *id)
{
    for (int i = 0; i < MAX_PROCS; i++)
        if (procs[i].used && procs[i].kind == PK_PTY && !strcmp(procs[i].id, id))
            return &procs[i];
    return NULL;
}

static void handle_exec(struct conn *c, struct lp_frame *f)
{
    const char *strs[1024];
    struct spawn_req r;
    char msg[512] = "";
    if (f->nfds != 3 || sup_parse_spawn(f, &r, strs, 1024) < 0) {
        send_error(c, EINVAL, "malformed exec request");
        return;
    }
    for (int i = 0; i < 3; i++) {
        struct stat st;
        if (fstat(f->fds[i], &st) < 0 || !(S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode))) {
            send_error(c, EINVAL, "exec request: descriptor %d is not a pipe or socket", i);
            return;
        }
    }
    memcpy(r.fds, f->fds, sizeof r.fds);
    struct proc *p = proc_new();
    if (!p) {
        send_error(c, EAGAIN, "too many commands running in this sandbox");
        return;
    }
    pid_t pid = sup_spawn(&r, msg, sizeof msg);
    if (pid < 0) {
        proc_free(p);
        send_error(c, ENOEXEC, "%s", msg);
        return;
    }
    p->kind = PK_EXEC;
    p->pid = pid;
    p->owner = c;
    queue(c, LP_STARTED, pid, 0, NULL, 0);
}

/* Terminal sizes a client may ask for (rows or columns). */
static int valid_size(int64_t v)
{
    return v > 0 && v <= 10000;
}

static void handle_pty_open(struct conn *c, struct lp_frame *f)
{
    const char *strs[1024];
    struct spawn_req r;
    char msg[512] = "";
    if (sup_parse_spawn(f, &r, strs, 1024) < 0) {
        send_error(c, EINVAL, "malformed pty request");
        return;
    }
    int master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
    if (master < 0 || unlockpt(master) < 0) {
        send_error(c, errno, "allocating a terminal: %s", strerror(errno));
        if (master >= 0)
            close(master);
        return;
    }
    struct winsize ws = {.ws_row = (unsigned short)(valid_size(f->h.a) ? f->h.a : 24),
                         .ws_col = (unsigned short)(valid_size(f->h.b) ? f->h.b : 80)};
    ioctl(master, TIOCSWINSZ, &ws);
    int slave = ioctl(master, TIOCGPTPEER, O_RDWR | O_NOCTTY);
    struct proc *p = slave < 0 ? NULL : proc_new();
    if (!p) {
        send_error(c, EAGAIN, slave < 0 ? "opening the terminal" : "too many sessions");
        close(master);
        if (slave >= 0)
            close(slave);
        return;
    }
    r.fds[0] = r.fds[1] = r.fds[2] = slave;
    r.ctty = 1;
    pid_t pid = sup_spawn(&r, msg, sizeof msg);
    close(slave);
    if (pid < 0) {
        close(master);
        proc_free(p);
        send_error(c, ENOEXEC, "%s", msg);
        return;
    }
    unsigned char rnd[6];
    if (getrandom(rnd, sizeof rnd, 0) != sizeof rnd)
        memset(rnd, (int)pid, sizeof rnd);
    snprintf(p->id, sizeof p->id, "%02x%02x%02x%02x%02x%02x", rnd[0], rnd[1], rnd[2], rnd[3],
             rnd[4], rnd[5]);
    p->kind = PK_PTY;
    p->pid = pid;
    p->master = master;
    p->owner = c;
    p->keep = (f->h.flags & LP_F_KEEP) != 0;
    snprintf(p->cmd, sizeof p->cmd, "%s", *r.cmd ? r.cmd : "(shell)");
    queue(c, LP_STARTED, pid, 0, p->id, strlen(p->id));
}

static void session_send_exit(struct proc *p)
{
    if (p->owner)
        queue(p->owner, LP_EXITED, p->status, p->total, NULL, 0);
}

static void handle_attach(struct conn *c, struct lp_frame *f)
{
    if (!f->payload || strlen(f->payload) >= sizeof procs[0].id || f->h.a < 0) {
        send_error(c, EINVAL, "malformed attach request");
        return;
    }
    struct proc *p = session_by_id(f->payload);
    if (!p) {
        send_error(c, ENOENT, "no PTY session '%s' in this sandbox", f->payload);
        return;
    }
    if (p->owner && p->owner != c) {
        if (!f->h.b) {
            send_error(c, EBUSY, "PTY session %s is held by another client (use takeover)", p->id);
            return;
        }
        send_error(p->owner, EBUSY, "PTY session %s was taken over by another client", p->id);
        p->owner = NULL;
    }
    p->owner = c;
    queue(c, LP_STARTED, p->pid, p->total, p->id, strlen(p->id)); /* b: where the replay ends */
    replay(p, c, f->h.a);
    if (p->exited && p->eio)
        session_send_exit(p);
}

static void handle_sessions(struct conn *c)
{
    char buf[65536];
    size_t used = 0;
    for (int i = 0; i < MAX_PROCS; i++) {
        struct proc *p = &procs[i];
        if (!p->used || p->kind != PK_PTY)
            continue;
        int n = snprintf(buf + used, sizeof buf - used, "%s %d %s %s %lld %s\n", p->id, (int)p->pid,
                         p->exited ? "exited" : "running", p->owner ? "attached" : "detached",
                         p->total, p->cmd);
        if (n < 0 || (size_t)n >= sizeof buf - used)
            break;
        used += (size_t)n;
    }
    queue(c, LP_SESSIONS, 0, 0, buf, used);
}

static struct proc *session_of(struct conn *c)
{
    for (int i = 0; i < MAX_PROCS; i++)
        if (procs[i].used && procs[i].kind == PK_PTY && procs[i].owner == c)
            return &procs[i];
    return NULL;
}

static struct proc *exec_of(struct conn *c)
{
    for (int i = 0; i < MAX_PROCS; i++)
        if (procs[i].used && procs[i].kind == PK_EXEC && procs[i].owner == c)
            return &procs[i];
    return NULL;
}

static void end_session(struct proc *p)
{
    if (!p->exited) {
        kill(-p->pid, SIGHUP);
        sup_kill_tree(p->pid);
    }
    p->owner = NULL;
    p->keep = 0;
    if (p->exited)
        proc_free(p);
}

static void handle_frame(struct conn *c, struct lp_frame *f)
{
    struct proc *p;
    switch (f->h.type) {
    case LP_PING: queue(c, LP_PONG, 0, 0, NULL, 0); break;
    case LP_EXEC: handle_exec(c, f); break;
    case LP_PTY_OPEN: handle_pty_open(c, f); break;
    case LP_PTY_ATTACH: handle_attach(c, f); break;
    case LP_SESSIONS: handle_sessions(c); break;
    case LP_KILL:
        if (f->h.a < 1 || f->h.a > 64) {
            send_error(c, EINVAL, "kill request: signal %lld is not 1..64", (long long)f->h.a);
        } else if ((p = exec_of(c)) != NULL || (p = session_of(c)) != NULL) {
            if (f->h.a == SIGKILL)
                sup_kill_tree(p->pid);
            else
                kill(-p->pid, (int)f->h.a);
        }
        break;
    case LP_DATA:
        if ((p = session_of(c)) != NULL && !p->exited && f->h.len &&
            p->in_len + f->h.len <= INPUT_MAX + LP_MAX_PAYLOAD) {
            char *nb = realloc(p->in, p->in_len + f->h.len);
            if (nb) {
                memcpy(nb + p->in_len, f->payload, f->h.len);
                p->in = nb;
                p->in_len += f->h.len;
            }
        }
        break;
    case LP_RESIZE:
        if ((p = session_of(c)) != NULL && p->master >= 0 && valid_size(f->h.a) &&
            valid_size(f->h.b)) {
            struct winsize ws = {.ws_row = (unsigned short)f->h.a,
                                 .ws_col = (unsigned short)f->h.b};
            ioctl(p->master, TIOCSWINSZ, &ws);
        }
        break;
    case LP_CLOSE:
        if ((p = session_of(c)) != NULL)
            end_session(p);
        break;
    case LP_DETACH:
        if ((p = session_of(c)) != NULL) {
            p->owner = NULL;
            p->keep = 1;
        }
        break;
    default: send_error(c, EINVAL, "unknown request %u", f->h.type); break;
    }
}

static void conn_close(struct conn *c)
{
    for (int i = 0; i < MAX_PROCS; i++) {
        struct proc *p = &procs[i];
        if (!p->used || p->owner != c)
            continue;
        p->owner = NULL;
        if (p->kind == PK_EXEC) {
            /* The client went away (timeout or crash): its command goes with it. */
            sup_kill_tree(p->pid);
        } else if (p->kind == PK_PTY && !p->keep) {
            end_session(p);
        }
    }
    close(c->fd);
    lp_reader_free(&c->rd);
    free(c->wbuf);
    memset(c, 0, sizeof *c);
}

/* ---- terminal I/O ------------------------------------------------------------------------- */

static void pty_drain(struct proc *p)
{
    char buf[65536];
    for (;;) {
        ssize_t r = read(p->master, buf, sizeof buf);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            if (r == 0 || errno == EIO)
                p->eio = 1;
            return;
        }
        if (p->owner)
            queue(p->owner, LP_DATA, p->total, 0, buf, (size_t)r);
        ring_append(p, buf, (size_t)r);
        p->total += r;
        if (p->owner && p->owner->wlen > WBUF_PAUSE)
            return; /* back-pressure: let the client catch up first */
    }
}

static void pty_feed(struct proc *p)
{
    while (p->in_len > 0) {
        ssize_t w = write(p->master, p->in, p->in_len);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            if (errno != EAGAIN)
                p->in_len = 0;
            return;
        }
        memmove(p->in, p->in + w, p->in_len - (size_t)w);
        p->in_len -= (size_t)w;
    }
}

/* ---- child exits ---------------------------------------------------------------------------- */

static void reap(void)
{
    int status;
    pid_t pid;
    while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
        struct proc *p = proc_by_pid(pid);
        if (!p)
            continue; /* an orphan: PID 1 reaps it and moves on */
        p->exited = 1;
        p->status = status;
        p->exited_at = mono_now();
        if (p->kind == PK_ENTRY) {
            /* The exit code alone cannot tell "killed by SIGKILL" from "exited 137", so the
             * supervisor gets the entrypoint's own wait status first. */
            if (g_report_fd >= 0)
                dprintf(g_report_fd, "entry %s %d\n", WIFEXITED(status) ? "exit" : "signal",
                        WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
            _exit(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
        } else if (p->kind == PK_EXEC) {
            if (p->owner)
                queue(p->owner, LP_EXITED, status, 0, NULL, 0);
            proc_free(p);
        } else {
            pty_drain(p);
            p->eio = 1; /* the leader is gone: report the exit after what was drained */
            session_send_exit(p);
            if (!p->owner && !p->keep)
                proc_free(p);
        }
    }
}

/* Forgets ended sessions nobody holds once they are old, or too many. */
static void sweep_exited(void)
{
    double now = mono_now();
    int count = 0;
    for (int i = 0; i < MAX_PROCS; i++) {
        struct proc *p = &procs[i];
        if (!p->used || p->kind != PK_PTY || !p->exited || p->owner)
            continue;
        if (now - p->exited_at > EXITED_KEEP_S)
            proc_free(p);
        else
            count++;
    }
    while (count-- > EXITED_MAX) {
        struct proc *oldest = NULL;
        for (int i = 0; i < MAX_PROCS; i++) {
            struct proc *p = &procs[i];
            if (p->used && p->kind == PK_PTY && p->exited && !p->owner &&
                (!oldest || p->exited_at < oldest->exited_at))
                oldest = p;
        }
        if (oldest)
            proc_free(oldest);
    }
}

static void start_entrypoint(const struct launch *l)
{
    const char *argv[64];
    size_t n = launch_get_all(l, "entry", argv, 63);
    if (n == 0)
        return;
    argv[n] = NULL;
    struct proc *p = proc_new();
    pid_t pid = fork();
    if (pid == 0) {
        sigset_t all;
        sigfillset(&all);
        sigprocmask(SIG_UNBLOCK, &all, NULL);
        setsid();
        close_range(3, ~0U, CLOSE_RANGE_CLOEXEC);
        const char *wd = launch_get(l, "workdir", "");
        if (*wd && chdir(wd) < 0) {
        }
        const char *envs[256];
        size_t ne = launch_get_all(l, "env", envs, 255);
        envs[ne] = NULL;
        execvpe(argv[0], (char **)argv, (char **)envs);
        _exit(127);
    }
    if (p && pid > 0) {
        p->kind = PK_ENTRY;
        p->pid = pid;
    }
}

/* Pauses reading a client whose session already has this much input waiting, or whose replies
 * pile up unread. */
static int conn_paused(struct conn *c)
{
    if (c->wlen > WBUF_MAX)
        return 1;
    struct proc *p = session_of(c);
    return p && p->in_len > INPUT_MAX;
}

static void add_conn(int fd)
{
    for (int i = 0; i < MAX_CONNS; i++) {
        if (!conns[i].used) {
            memset(&conns[i], 0, sizeof conns[i]);
            conns[i].used = 1;
            conns[i].fd = fd;
            fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
            return;
        }
    }
    close(fd);
}

void server_run(int handoff_fd, const struct launch *l, int report_fd)
{
    g_launch = l;
    g_report_fd = report_fd;
    sigset_t mask;
    sigemptyset(&mask);
    sigaddset(&mask, SIGCHLD);
    sigaddset(&mask, SIGPIPE);
    sigprocmask(SIG_BLOCK, &mask, NULL);
    int sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
    start_entrypoint(l);

    struct pollfd pfd[2 + MAX_CONNS + MAX_PROCS];
    void *who[2 + MAX_CONNS + MAX_PROCS];
    for (;;) {
        int n = 0;
        pfd[n] = (struct pollfd){.fd = sfd, .events = POLLIN};
        who[n++] = NULL;
        pfd[n] = (struct pollfd){.fd = handoff_fd, .events = POLLIN};
        who[n++] = NULL;
        for (int i = 0; i < MAX_CONNS; i++) {
            if (!conns[i].used)
                continue;
            short ev =
                (short)((conn_paused(&conns[i]) ? 0 : POLLIN) | (conns[i].wlen ? POLLOUT : 0));
            pfd[n] = (struct pollfd){.fd = conns[i].fd, .events = ev};
            who[n++] = &conns[i];
        }
        for (int i = 0; i < MAX_PROCS; i++) {
            struct proc *p = &procs[i];
            if (!p->used || p->kind != PK_PTY || p->master < 0 || p->eio)
                continue;
            short ev = 0;
            if (!p->owner || p->owner->wlen <= WBUF_PAUSE)
                ev |= POLLIN;
            if (p->in_len)
                ev |= POLLOUT;
            pfd[n] = (struct pollfd){.fd = p->master, .events = ev};
            who[n++] = p;
        }
        int r = poll(pfd, (nfds_t)n, 30000);
        if (r < 0 && errno != EINTR)
            _exit(255);
        if (pfd[0].revents) {
            struct signalfd_siginfo si;
            while (read(sfd, &si, sizeof si) == sizeof si) {
            }
            reap();
        }
        if (pfd[1].revents) {
            int fd = gate_receive(handoff_fd);
            if (fd >= 0)
                add_conn(fd);
            else if (fd == -2)
                handoff_fd = -1; /* the supervisor is gone: no new clients can come */
        }
        for (int k = 2; k < n; k++) {
            if (!pfd[k].revents)
                continue;
            if (who[k] >= (void *)conns && who[k] < (void *)(conns + MAX_CONNS)) {
                struct conn *c = who[k];
                if (!c->used)
                    continue;
                if (pfd[k].revents & (POLLIN | POLLHUP | POLLERR)) {
                    int st = lp_reader_fill(&c->rd, c->fd);
                    struct lp_frame f;
                    int got;
                    while ((got = lp_reader_next(&c->rd, &f)) == 1) {
                        handle_frame(c, &f);
                        lp_frame_free(&f);
                    }
                    if (st != 0 || got < 0)
                        c->dead = 1;
                }
                flush(c);
            } else {
                struct proc *p = who[k];
                if (!p->used)
                    continue;
                if (pfd[k].revents & (POLLIN | POLLHUP | POLLERR))
                    pty_drain(p);
                if (pfd[k].revents & POLLOUT)
                    pty_feed(p);
            }
        }
        for (int i = 0; i < MAX_PROCS; i++)
            if (procs[i].used && procs[i].kind == PK_PTY && procs[i].in_len)
                pty_feed(&procs[i]);
        for (int i = 0; i < MAX_CONNS; i++) {
            if (!conns[i].used)
                continue;
            flush(&conns[i]);
            if (conns[i].dead)
                conn_close(&conns[i]);
        }
        sweep_exited();
    }
}
