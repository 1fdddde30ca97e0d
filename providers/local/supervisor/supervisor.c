/* The sandbox supervisor: a small static process that outlives whoever created the sandbox.
 * It clones the sandbox init into new namespaces, places it in its cgroups (and writes user
 * namespace id maps), reports readiness, gates the control socket (gate.c), enforces the TTL, and
 * when the init ends records why (TTL expired, OOM kill, killed by user, exited), removes the
 * cgroups and exits. Usage: sandman-supervisor <sandbox-dir> <status-fd>. It holds an exclusive
 * flock on <dir>/lock for its whole life, so anyone can tell whether it is alive. The end record
 * and the journal's end event survive a full disk: their space is reserved at start (end.reserve,
 * overwritten in place and renamed; journal.reserve, freed to make room for the event). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "providers/local/cgfs.h"
#include "providers/local/supervisor/capture.h"
#include "providers/local/supervisor/mask.h"
#include "providers/local/supervisor/sup.h"

#define MAX_CG 64

void sup_fmt(char *msg, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, len, fmt, ap);
    va_end(ap);
}

static double now_wall(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static double now_mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int write_str(int fd, const char *s)
{
    size_t n = strlen(s);
    while (n > 0) {
        ssize_t w = write(fd, s, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        s += w;
        n -= (size_t)w;
    }
    return 0;
}

#define RESERVE_BYTES 8192

/* A file of RESERVE_BYTES real blocks (written, not sparse). */
static void reserve(const char *name)
{
    char block[RESERVE_BYTES];
    memset(block, ' ', sizeof block);
    block[sizeof block - 1] = '\n';
    int fd = open(name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0)
        return;
    if (write(fd, block, sizeof block) != (ssize_t)sizeof block)
        unlink(name);
    close(fd);
}

static int write_file(const char *path, const char *s)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t w = write(fd, s, strlen(s));
    int e = errno;
    close(fd);
    errno = e;
    return w == (ssize_t)strlen(s) ? 0 : -1;
}

/* Replaces the file atomically so readers never see half a record; a record that could not
 * be written whole is not put in place. */
static int put_record(const char *name, const char *text)
{
    char tmp[256];
    snprintf(tmp, sizeof tmp, "%s.tmp", name);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0)
        return -1;
    int rc = write_str(fd, text);
    if (close(fd) < 0)
        rc = -1;
    if (rc == 0 && rename(tmp, name) == 0)
        return 0;
    unlink(tmp);
    return -1;
}

/* The end record into its reserved blocks (no allocation needed on a full disk), then under
 * its name; without a reserve, the ordinary way. */
static void put_end_record(const char *text)
{
    size_t n = strlen(text);
    int fd = open("end.reserve", O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0 && n <= RESERVE_BYTES && pwrite(fd, text, n, 0) == (ssize_t)n &&
        ftruncate(fd, (off_t)n) == 0 && close(fd) == 0 && rename("end.reserve", "end") == 0)
        return;
    if (fd >= 0)
        close(fd);
    put_record("end", text);
}

static unsigned long long proc_starttime(pid_t pid)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    char *p = strrchr(buf, ')');
    if (!p)
        return 0;
    /* Field 22 (starttime) is the 20th field after the ')' */
    for (int i = 0; i < 20 && p; i++)
        p = strchr(p + 1, ' ');
    return p ? strtoull(p + 1, NULL, 10) : 0;
}

static void json_escape(char *out, size_t len, const char *s)
{
    size_t o = 0;
    for (; *s && o + 7 < len; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            out[o++] = '\\';
            out[o++] = (char)c;
        } else if (c < 0x20) {
            o += (size_t)snprintf(out + o, len - o, "\\u%04x", c);
        } else {
            out[o++] = (char)c;
        }
    }
    out[o] = '\0';
}

static const char *sig_abbrev(int sig)
{
    const char *s = sigabbrev_np(sig);
    return s ? s : "?";
}

struct ending {
    const char *kind; /* failure vocabulary name, or "none" */
    const char *label;
    char label_buf[32];
    char reason[256];
    int exit_code;
    int signal;
    long long oom_kills;
    long long mem_limit;
    long long pids_events;
    long long pids_limit;
};

/* Appends one failure-bearing event to the sandbox's journal, as core/journal.c writes them
 * (this static binary cannot link it). */
static void journal_event(const struct launch *l, const char *type, const char *event,
                          const struct ending *e, double when)
{
    const char *path = launch_get(l, "journal", NULL);
    if (!path)
        return;
    char ts[40], reason[600], id[128];
    time_t secs = (time_t)when;
    struct tm tm;
    gmtime_r(&secs, &tm);
    snprintf(ts, sizeof ts, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1,
             tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (int)((when - (double)secs) * 1000));
    json_escape(reason, sizeof reason, e->reason);
    json_escape(id, sizeof id, launch_get(l, "id", ""));
    char extra[512] = "";
    size_t x = 0;
    if (e->exit_code >= 0)
        x += (size_t)snprintf(extra + x, sizeof extra - x, ",\"exit_code\":%d", e->exit_code);
    if (e->signal > 0)
        x += (size_t)snprintf(extra + x, sizeof extra - x, ",\"signal\":\"SIG%s\"",
                              sig_abbrev(e->signal));
    if (e->oom_kills >= 0)
        x += (size_t)snprintf(extra + x, sizeof extra - x, ",\"oom_kills\":%lld", e->oom_kills);
    if (e->mem_limit > 0)
        x += (size_t)snprintf(extra + x, sizeof extra - x, ",\"memory_limit\":%lld", e->mem_limit);
    if (e->pids_events > 0)
        x += (size_t)snprintf(extra + x, sizeof extra - x, ",\"pids_events\":%lld", e->pids_events);
    if (e->pids_limit > 0)
        x += (size_t)snprintf(extra + x, sizeof extra - x, ",\"pids_limit\":%lld", e->pids_limit);
    char line[2048];
    int n = snprintf(line, sizeof line,
                     "{\"ts\":\"%s\",\"type\":\"%s\",\"event\":\"%s\",\"sandbox_id\":"
                     "\"%s\",\"provider\":\"local\",\"failure\":{\"kind\":\"%s\",\"label\":\"%s\","
                     "\"operation\":\"lifecycle\",\"sandbox_id\":\"%s\",\"provider\":\"local\","
                     "\"reason\":\"%s\"%s}}\n",
                     ts, type, event, id, e->kind, e->label, id, reason, extra);
    if (n <= 0 || (size_t)n >= sizeof line)
        return;
    int fd = open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (fd < 0)
        return;
    /* A line a crash cut short: end it, so this event stands alone. */
    struct stat st;
    char last = '\n';
    if (fstat(fd, &st) == 0 && st.st_size > 0 && pread(fd, &last, 1, st.st_size - 1) == 1 &&
        last != '\n')
        write_str(fd, "\n");
    /* A full disk: cut any half line off, give back the reserved space, try once more. */
    for (int attempt = 0; attempt < 2; attempt++) {
        off_t size = fstat(fd, &st) == 0 ? st.st_size : -1;
        if (write_str(fd, line) == 0)
            break;
        if (size >= 0)
            ftruncate(fd, size);
        unlink("journal.reserve");
    }
    close(fd);
}

static void journal_end(const struct launch *l, const struct ending *e, double ended)
{
    journal_event(l, "lifecycle", "ended", e, ended);
    unlink("journal.reserve");
}

/* The kernel's counters of the sandbox's cgroups, read once a second while it runs: every OOM
 * kill and refused fork is journaled when it happens, whoever is watching. */
struct counters {
    const char *mem, *pids;
    int v2;
    long long oom, pids_max, mem_limit, pids_limit;
    double next;
};

static long long read_oom(const struct counters *c)
{
    return c->mem
               ? cgfs_read_key(c->mem, c->v2 ? "memory.events" : "memory.oom_control", "oom_kill")
               : -1;
}

static void counters_init(struct counters *c, const struct launch *l)
{
    memset(c, 0, sizeof *c);
    c->mem = launch_get(l, "cg_memory", NULL);
    c->pids = launch_get(l, "cg_pids", NULL);
    c->v2 = launch_get_ll(l, "cg_version", 1) == 2;
    c->mem_limit = launch_get_ll(l, "mem_limit", -1);
    c->oom = read_oom(c);
    c->pids_max = c->pids ? cgfs_read_key(c->pids, "pids.events", "max") : -1;
    c->pids_limit = c->pids ? cgfs_read_num(c->pids, "pids.max") : -1;
    if (c->pids_limit == -2) { /* "max" here: the limit is on the sandbox's cgroup above */
        char up[4096];
        snprintf(up, sizeof up, "%s/..", c->pids);
        c->pids_limit = cgfs_read_num(up, "pids.max");
    }
}

static void counters_check(struct counters *c, const struct launch *l)
{
    double now = now_mono();
    if ((!c->mem && !c->pids) || now < c->next)
        return;
    c->next = now + 1;
    struct ending e;
    memset(&e, 0, sizeof e);
    e.exit_code = -1;
    e.oom_kills = e.pids_events = -1;
    long long oom = read_oom(c);
    if (oom > c->oom && c->oom >= 0) {
        e.kind = "oom_killed";
        e.label = "OOM killed";
        e.oom_kills = oom;
        e.mem_limit = c->mem_limit;
        snprintf(e.reason, sizeof e.reason,
                 "a process in the sandbox hit the memory limit and was OOM killed (%lld so far)",
                 oom);
        journal_event(l, "failure", "oom", &e, now_wall());
    }
    if (oom >= 0)
        c->oom = oom;
    long long pm = c->pids ? cgfs_read_key(c->pids, "pids.events", "max") : -1;
    if (pm > c->pids_max && c->pids_max >= 0) {
        memset(&e, 0, sizeof e);
        e.exit_code = -1;
        e.oom_kills = -1;
        e.kind = "pids_limit";
        e.label = "pids limit";
        e.pids_events = pm;
        e.pids_limit = c->pids_limit;
        if (c->pids_limit > 0)
            snprintf(e.reason, sizeof e.reason, "a fork was refused by the pids limit of %lld",
                     c->pids_limit);
        else
            snprintf(e.reason, sizeof e.reason, "a fork was refused by the pids limit");
        journal_event(l, "failure", "pids_limit", &e, now_wall());
    }
    if (pm >= 0)
        c->pids_max = pm;
}

/* How the entrypoint ended, as the init reported it ("entry exit N" / "entry signal N"). */
struct entry_end {
    int known;
    int exit_code; /* -1 when it was killed */
    int signal;    /* 0 when it exited */
};

/* Reads the init's last words after it ended; nothing there when it had no entrypoint or died
 * itself. */
static void read_entry_end(int fd, struct entry_end *ee)
{
    char buf[128];
    memset(ee, 0, sizeof *ee);
    ee->exit_code = -1;
    if (fd < 0)
        return;
    fcntl(fd, F_SETFL, O_NONBLOCK);
    ssize_t n = read(fd, buf, sizeof buf - 1);
    if (n <= 0)
        return;
    buf[n] = '\0';
    char how[16];
    int v;
    if (sscanf(buf, "entry %15s %d", how, &v) != 2)
        return;
    if (strcmp(how, "exit") == 0) {
        ee->known = 1;
        ee->exit_code = v;
    } else if (strcmp(how, "signal") == 0 && v > 0) {
        ee->known = 1;
        ee->signal = v;
    }
}

/* The entrypoint's end, classified with the same rule as a command's (sm_failure_classify_exit
 * in core/failure.c, which this static binary cannot link): a failure while the OOM counter
 * moved is an OOM kill (a shell reports its child's SIGKILL as 137), then the pids limit, then
 * the signal, then the exit code. The cgroups are the sandbox's own, so their counters cover
 * exactly the entrypoint's life. */
static void classify_entry(const struct entry_end *ee, struct ending *e)
{
    e->exit_code = ee->exit_code;
    e->signal = ee->signal;
    int failed = ee->signal > 0 || ee->exit_code != 0;
    char how[64];
    if (ee->signal > 0)
        snprintf(how, sizeof how, "was killed by SIG%s", sig_abbrev(ee->signal));
    else
        snprintf(how, sizeof how, "exited with code %d", ee->exit_code);
    if (!failed) {
        e->kind = "none";
        e->label = "exited";
    } else if (e->oom_kills > 0) {
        e->kind = "oom_killed";
        e->label = "OOM killed";
        snprintf(e->reason, sizeof e->reason, "the kernel OOM killer ended the entrypoint (it %s)",
                 how);
        return;
    } else if (e->pids_events > 0) {
        e->kind = "pids_limit";
        e->label = "pids limit";
    } else if (ee->signal > 0) {
        e->kind = "signaled";
        snprintf(e->label_buf, sizeof e->label_buf, "exit %d (SIG%s)", 128 + ee->signal,
                 sig_abbrev(ee->signal));
        e->label = e->label_buf;
    } else {
        e->kind = "exit_nonzero";
        snprintf(e->label_buf, sizeof e->label_buf, "exit %d", ee->exit_code);
        e->label = e->label_buf;
    }
    snprintf(e->reason, sizeof e->reason, "the entrypoint %s", how);
}

/* Decides why the sandbox ended from what we did, what the init said and what the kernel
 * counted. */
static void classify_end(const struct launch *l, int status, int why, const struct entry_end *ee,
                         struct ending *e)
{
    const char *mem = launch_get(l, "cg_memory", NULL);
    const char *pids = launch_get(l, "cg_pids", NULL);
    int v2 = launch_get_ll(l, "cg_version", 1) == 2;
    memset(e, 0, sizeof *e);
    e->exit_code = -1;
    e->oom_kills =
        mem ? cgfs_read_key(mem, v2 ? "memory.events" : "memory.oom_control", "oom_kill") : -1;
    e->mem_limit = launch_get_ll(l, "mem_limit", -1);
    e->pids_events = pids ? cgfs_read_key(pids, "pids.events", "max") : -1;
    if (WIFEXITED(status))
        e->exit_code = WEXITSTATUS(status);
    else if (WIFSIGNALED(status))
        e->signal = WTERMSIG(status);

    if (why == 'T') {
        e->kind = "ttl_expired";
        e->label = "TTL expired";
        snprintf(e->reason, sizeof e->reason, "the sandbox reached its ttl_s of %s s",
                 launch_get(l, "ttl_s", "?"));
        e->exit_code = -1;
        e->signal = 0;
    } else if (why == 'K') {
        e->kind = "killed_by_user";
        e->label = "killed by user";
        snprintf(e->reason, sizeof e->reason, "the sandbox was stopped on request");
        e->exit_code = -1;
        e->signal = 0;
    } else if (ee->known) {
        classify_entry(ee, e);
    } else if (e->signal == SIGKILL && e->oom_kills > 0) {
        e->kind = "oom_killed";
        e->label = "OOM killed";
        snprintf(e->reason, sizeof e->reason, "the kernel OOM killer ended the sandbox");
    } else if (e->signal > 0) {
        e->kind = "signaled";
        e->label = "killed";
        snprintf(e->reason, sizeof e->reason, "the sandbox init was killed by SIG%s",
                 sig_abbrev(e->signal));
    } else if (e->exit_code == 0) {
        e->kind = "none";
        e->label = "exited";
        snprintf(e->reason, sizeof e->reason, "the entrypoint exited with code 0");
    } else if (e->exit_code == 255) {
        e->kind = "sandbox_error";
        e->label = "sandbox error";
        snprintf(e->reason, sizeof e->reason, "the sandbox init failed");
    } else {
        e->kind = "exit_nonzero";
        e->label = "exit";
        snprintf(e->reason, sizeof e->reason, "the entrypoint exited with code %d", e->exit_code);
    }
}

static void write_end(const struct ending *e, double ended)
{
    char buf[1024];
    snprintf(buf, sizeof buf,
             "kind=%s\nended_at=%.3f\nexit_code=%d\nsignal=%d\noom_kills=%lld\n"
             "memory_limit=%lld\npids_events=%lld\nreason=%s\n",
             e->kind, ended, e->exit_code, e->signal, e->oom_kills, e->mem_limit, e->pids_events,
             e->reason);
    put_end_record(buf);
}

static void remove_cgroups(const struct launch *l)
{
    const char *cgs[MAX_CG];
    size_t n = launch_get_all(l, "cg", cgs, MAX_CG);
    for (size_t i = 0; i < n; i++)
        cgfs_kill_all(cgs[i]);
    for (size_t i = 0; i < n; i++)
        cgfs_remove(cgs[i]);
}

static int write_id_maps(pid_t pid, const struct launch *l, char *msg, size_t len)
{
    char path[64], map[64];
    snprintf(path, sizeof path, "/proc/%d/setgroups", (int)pid);
    write_file(path, "deny");
    snprintf(path, sizeof path, "/proc/%d/uid_map", (int)pid);
    snprintf(map, sizeof map, "0 %lld 1\n", launch_get_ll(l, "uid", 0));
    if (write_file(path, map) < 0) {
        sup_fmt(msg, len, "writing uid_map: %s", strerror(errno));
        return -1;
    }
    snprintf(path, sizeof path, "/proc/%d/gid_map", (int)pid);
    snprintf(map, sizeof map, "0 %lld 1\n", launch_get_ll(l, "gid", 0));
    if (write_file(path, map) < 0) {
        sup_fmt(msg, len, "writing gid_map: %s", strerror(errno));
        return -1;
    }
    return 0;
}

/* Reads the init's one-line verdict. */
static int read_verdict(int fd, char *buf, size_t len, double timeout_s)
{
    size_t got = 0;
    double deadline = now_mono() + timeout_s;
    while (got + 1 < len) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        int ms = (int)((deadline - now_mono()) * 1000);
        if (ms <= 0 || poll(&p, 1, ms) <= 0)
            return -1;
        ssize_t r = read(fd, buf + got, len - 1 - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
        if (memchr(buf, '\n', got))
            break;
    }
    buf[got] = '\0';
    char *nl = strchr(buf, '\n');
    if (nl)
        *nl = '\0';
    return got ? 0 : -1;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: sandman-supervisor <sandbox-dir> <status-fd>\n");
        return 2;
    }
    int report = atoi(argv[2]);
    char msg[512] = "";
    /* Detach: whoever spawned us waits for this parent to exit, and the supervisor lives on
     * as nobody's child but the system's. */
    struct launch l;
    if (chdir(argv[1]) < 0 || launch_read("launch.conf", &l) < 0) {
        dprintf(report, "err cannot read %s/launch.conf: %s\n", argv[1], strerror(errno));
        return 1;
    }
    pid_t me = fork();
    if (me < 0) {
        dprintf(report, "err fork: %s\n", strerror(errno));
        return 1;
    }
    if (me > 0) {
        close(report);
        _exit(0);
    }
    int lock = open("lock", O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (lock < 0 || flock(lock, LOCK_EX | LOCK_NB) < 0) {
        dprintf(report, "err cannot lock %s/lock: %s\n", argv[1], strerror(errno));
        return 1;
    }
    /* Quiet stdio: the supervisor has no terminal; diagnostics go to the status pipe. */
    int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (devnull >= 0) {
        dup2(devnull, 0);
        dup2(devnull, 1);
        dup2(devnull, 2);
    }

    /* Space for the records of the end, and this state directory in the registry every
     * sandbox's init hides. */
    reserve("end.reserve");
    reserve("journal.reserve");
    registry_add(launch_get(&l, "state_dir", NULL));
    int host_image = strcmp(launch_get(&l, "root", "host"), "dir") != 0;
    if (host_image)
        registry_snapshot();

    sigset_t mask;
    sigemptyset(&mask);
    sigaddset(&mask, SIGCHLD);
    sigaddset(&mask, SIGTERM);
    sigaddset(&mask, SIGINT);
    sigaddset(&mask, SIGHUP);
    sigprocmask(SIG_BLOCK, &mask, NULL);
    int sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);

    int go[2], verdict[2], listen_fd = -1, gate[2];
    if (pipe2(go, O_CLOEXEC) < 0 || pipe2(verdict, O_CLOEXEC) < 0) {
        dprintf(report, "err pipe: %s\n", strerror(errno));
        return 1;
    }
    if (gate_open(&listen_fd, gate, msg, sizeof msg) < 0) {
        dprintf(report, "err %s\n", msg);
        return 1;
    }
    int flags = CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWUTS | CLONE_NEWIPC;
    if (strcmp(launch_get(&l, "network", "none"), "host") != 0)
        flags |= CLONE_NEWNET;
    int userns = launch_get_ll(&l, "userns", 0) != 0;
    if (userns)
        flags |= CLONE_NEWUSER;

    struct init_args ia = {.l = &l,
                           .argv = argv,
                           .go_fd = go[0],
                           .handoff_fd = gate[1],
                           .status_fd = verdict[1],
                           .close_fds = {lock, report, sfd, go[1], verdict[0], listen_fd, gate[0]},
                           .nclose = 7};
    /* The entrypoint's output: the init's stdout and stderr (what it inherits) are pipes
     * read here while the sandbox runs. */
    struct capture cap;
    int cpipes[2][2];
    int capturing = capture_start(&cap, &l, cpipes) == 0;
    if (capturing) {
        dup2(cpipes[0][1], 1);
        dup2(cpipes[1][1], 2);
        close(cpipes[0][1]);
        close(cpipes[1][1]);
        fcntl(cap.fd[0], F_SETFL, O_NONBLOCK);
        fcntl(cap.fd[1], F_SETFL, O_NONBLOCK);
    }
    const char *cloned_into = NULL; /* the v2 cgroup the init starts in, if any */
    pid_t init = sup_spawn_init(flags, &ia, &l, &cloned_into);
    if (init < 0) {
        dprintf(report, "err creating namespaces (clone): %s\n", strerror(errno));
        return 1;
    }
    close(go[0]);
    close(verdict[1]);
    close(gate[1]);
    if (capturing && devnull >= 0) { /* only the init holds the write ends now */
        dup2(devnull, 1);
        dup2(devnull, 2);
    }

    /* The init builds its root while we place it in its cgroups: the second "go" lets it on. */
    int ok = !userns || write_id_maps(init, &l, msg, sizeof msg) == 0;
    write_str(go[1], ok ? "go\n" : "no\n");
    if (ok) {
        ok = sup_join_v2_cgroups(init, &l, cloned_into, msg, sizeof msg) == 0;
        write_str(go[1], ok ? "go\n" : "no\n");
    }
    close(go[1]);
    char line[600] = "";
    double ready_timeout = (double)launch_get_ll(&l, "ready_timeout_ms", 60000) / 1000.0;
    if (ok && read_verdict(verdict[0], line, sizeof line, ready_timeout) < 0)
        snprintf(line, sizeof line, "err the sandbox init did not report readiness");
    if (!ok || strncmp(line, "ok", 2) != 0) {
        kill(init, SIGKILL);
        waitpid(init, NULL, 0);
        remove_cgroups(&l);
        if (capturing) /* no sandbox, so no output of it to keep */
            capture_abort(&cap);
        dprintf(report, "err %s\n", ok ? (strncmp(line, "err ", 4) ? line : line + 4) : msg);
        return 1;
    }
    double ready = now_wall();
    char rec[256];
    snprintf(rec, sizeof rec, "pid=%d\nstarttime=%llu\nsupervisor=%d\nready_at=%.3f\n", (int)init,
             proc_starttime(init), (int)getpid(), ready);
    put_record("ready", rec);
    dprintf(report, "ok %d\n", (int)init);
    close(report);

    /* State directories first used from now on are hidden in this sandbox as they appear. */
    int watch = host_image ? registry_watch() : -1;
    long long ttl_ms = launch_get_ll(&l, "ttl_ms", 0);
    double deadline = ttl_ms > 0 ? now_mono() + (double)ttl_ms / 1000.0 : 0;
    int why = 0, status = 0;
    struct counters cnt;
    counters_init(&cnt, &l);
    for (;;) {
        int ms = -1;
        if (deadline > 0) {
            double left = deadline - now_mono();
            /* at most an hour per wait: a TTL of years in ms does not fit an int */
            ms = left <= 0 ? 0 : left > 3600 ? 3600 * 1000 : (int)(left * 1000) + 1;
        }
        if ((cnt.mem || cnt.pids) && (ms < 0 || ms > 1000))
            ms = 1000;
        struct pollfd p[5] = {{.fd = sfd, .events = POLLIN},
                              {.fd = listen_fd, .events = POLLIN},
                              {.fd = watch, .events = POLLIN},
                              {.fd = capturing ? cap.fd[0] : -1, .events = POLLIN},
                              {.fd = capturing ? cap.fd[1] : -1, .events = POLLIN}};
        int r = poll(p, 5, ms);
        for (int s = 0; capturing && r > 0 && s < 2; s++)
            if (p[3 + s].revents)
                capture_read(&cap, s);
        counters_check(&cnt, &l);
        if (r > 0 && p[1].revents)
            gate_accept(listen_fd, gate[0]);
        if (r > 0 && watch >= 0 && (p[2].revents & POLLIN))
            registry_follow(watch, init);
        /* whatever woke the poll: a sandbox that keeps its output pipes (or the control
         * socket) busy must not outlive its TTL */
        if (deadline > 0 && now_mono() >= deadline && !why) {
            why = 'T';
            kill(init, SIGKILL);
        }
        struct signalfd_siginfo si;
        while (read(sfd, &si, sizeof si) == sizeof si) {
            if (si.ssi_signo != SIGCHLD && !why) {
                why = 'K';
                kill(init, SIGKILL);
            }
        }
        pid_t w = waitpid(init, &status, WNOHANG);
        if (w == init)
            break;
    }
    if (watch >= 0)
        close(watch);
    double ended = now_wall();
    struct entry_end ee;
    read_entry_end(verdict[0], &ee);
    close(verdict[0]);
    struct ending e;
    if (capturing)
        capture_finish(&cap);
    classify_end(&l, status, why, &ee, &e);
    if (capturing && cap.last_err[0] && ee.known &&
        (strcmp(e.kind, "exit_nonzero") == 0 || strcmp(e.kind, "signaled") == 0)) {
        size_t n = strlen(e.reason);
        char errline[sizeof cap.last_err + 8];
        capture_write_redacted(&cap, cap.last_err, errline, sizeof errline);
        snprintf(e.reason + n, sizeof e.reason - n, ": %s", errline);
    }
    write_end(&e, ended);
    journal_end(&l, &e, ended);
    remove_cgroups(&l);
    unlink("ctl.sock");
    launch_free(&l);
    return 0;
}
