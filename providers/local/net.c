/* The local provider's private network (net.h): slirp4netns gives the sandbox's network
 * namespace a user-mode link (tap0, 10.0.2.100, outbound through the host; the host's loopback
 * refused) and forwards each declared port from an ephemeral port on the host's 127.0.0.1.
 * slirp4netns is started detached (sh starts it in the background and says its pid, so it is
 * no child of a long-lived caller) in a "net" cgroup below the sandbox's own: whatever ends
 * the sandbox (rm, its TTL, its entrypoint) removes that cgroup and so ends the link. It runs
 * sandboxed (--enable-sandbox, --enable-seccomp): it parses the sandbox's packets. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include <arpa/inet.h>

#include "core/util.h"
#include "providers/local/launch.h"
#include "providers/local/local.h"
#include "providers/local/net.h"

extern char **environ;

#define SLIRP         "slirp4netns"
#define READY_WAIT_MS 10000
#define API_WAIT_MS   3000
#define FORWARD_TRIES 5

static bool in_path(const char *name)
{
    const char *path = getenv("PATH");
    char buf[4096];
    for (const char *p = path ? path : "/usr/bin:/bin"; *p;) {
        const char *c = strchr(p, ':');
        size_t n = c ? (size_t)(c - p) : strlen(p);
        snprintf(buf, sizeof buf, "%.*s/%s", (int)n, p, name);
        if (n && access(buf, X_OK) == 0)
            return true;
        p += n + (c != NULL);
    }
    return false;
}

/* A port on 127.0.0.1 nothing holds now (the kernel's pick), or -1. */
static int free_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    int port = -1;
    if (fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof a) == 0 &&
        getsockname(fd, (struct sockaddr *)&a, &len) == 0)
        port = ntohs(a.sin_port);
    if (fd >= 0)
        close(fd);
    return port;
}

/* One request on slirp4netns's API socket (reached through the sandbox directory's descriptor,
 * so a long state path does not matter). The reply in reply; 0 or -1. */
static int api_call(int dirfd, const char *req, char *reply, size_t len)
{
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    snprintf(a.sun_path, sizeof a.sun_path, "/proc/self/fd/%d/net.sock", dirfd);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    size_t got = 0;
    if (connect(fd, (struct sockaddr *)&a, sizeof a) == 0 &&
        sm_write_all(fd, req, strlen(req)) == 0) {
        shutdown(fd, SHUT_WR);
        double end = sm_now_mono() + API_WAIT_MS / 1000.0;
        while (got + 1 < len) {
            struct pollfd p = {.fd = fd, .events = POLLIN};
            int ms = (int)((end - sm_now_mono()) * 1000);
            if (ms <= 0 || poll(&p, 1, ms) <= 0)
                break;
            ssize_t n = read(fd, reply + got, len - 1 - got);
            if (n <= 0)
                break;
            got += (size_t)n;
        }
    }
    close(fd);
    reply[got] = '\0';
    return got ? 0 : -1;
}

/* The last line slirp4netns logged (warnings aside), for an error message. */
static void log_tail(const char *dir, char *buf, size_t len)
{
    char *path = xasprintf("%s/net.log", dir), *text = NULL;
    buf[0] = '\0';
    if (sm_read_file(path, &text, NULL) == 0) {
        /* the last line that is not a warning */
        char *save = NULL;
        for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
            if (strncmp(line, "WARNING", 7))
                snprintf(buf, len, "%s", line);
    }
    free(text);
    free(path);
}

/* Places pid in a "net" cgroup below each of the sandbox's cgroups (not its leaf: the sandbox
 * never sees it). A v1 cpuset group starts empty and takes its parent's CPUs and nodes. */
static void join_cgroups(const struct launch *l, pid_t pid)
{
    const char *cgs[2 * CG__COUNT];
    size_t n = launch_get_all(l, "cg", cgs, SM_ARRAY_LEN(cgs));
    const size_t leaf = strlen("/" LOCAL_CG_LEAF);
    char num[32], buf[4096];
    snprintf(num, sizeof num, "%d", (int)pid);
    for (size_t i = 0; i < n; i++) {
        size_t len = strlen(cgs[i]);
        if (len > leaf && !strcmp(cgs[i] + len - leaf, "/" LOCAL_CG_LEAF))
            continue;
        char *d = xasprintf("%s/net", cgs[i]);
        mkdir(d, 0755);
        static const char *const cpuset[] = {"cpuset.cpus", "cpuset.mems"};
        for (size_t k = 0; k < SM_ARRAY_LEN(cpuset); k++) {
            char *from = xasprintf("%s/%s", cgs[i], cpuset[k]);
            char *to = xasprintf("%s/%s", d, cpuset[k]);
            if (sm_read_small(from, buf, sizeof buf) == 0 && buf[0])
                sm_write_str(to, buf);
            free(from);
            free(to);
        }
        char *procs = xasprintf("%s/cgroup.procs", d);
        sm_write_str(procs, num);
        free(procs);
        free(d);
    }
}

/* Starts slirp4netns for the namespaces of init (detached: sh backgrounds it and prints its
 * pid). *ready is the read end of its --ready-fd. Returns its pid or -1 (msg says why). */
static pid_t spawn_slirp(const char *dir, pid_t init, bool userns, int *ready, char *msg,
                         size_t len)
{
    int rp[2], op[2];
    if (pipe2(rp, O_CLOEXEC) < 0)
        return snprintf(msg, len, "pipe: %s", strerror(errno)), -1;
    if (pipe2(op, O_CLOEXEC) < 0) {
        close(rp[0]);
        close(rp[1]);
        return snprintf(msg, len, "pipe: %s", strerror(errno)), -1;
    }
    char pidarg[32], userarg[64];
    snprintf(pidarg, sizeof pidarg, "%d", (int)init);
    snprintf(userarg, sizeof userarg, "--userns-path=/proc/%d/ns/user", (int)init);
    const char *argv[] = {"sh",
                          "-c",
                          "cd \"$1\" || exit 1; shift; "
                          "setsid \"$@\" </dev/null >net.log 2>&1 & echo $!",
                          "sh",
                          dir,
                          SLIRP,
                          "--configure",
                          "--mtu=65520",
                          "--disable-host-loopback",
                          "--enable-sandbox",
                          "--enable-seccomp",
                          "--ready-fd=4",
                          "--api-socket=net.sock",
                          userns ? userarg : pidarg,
                          userns ? pidarg : "tap0",
                          userns ? "tap0" : NULL,
                          NULL};
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, op[1], 1);
    posix_spawn_file_actions_adddup2(&fa, rp[1], 4);
    pid_t sh;
    int rc = posix_spawnp(&sh, "sh", &fa, NULL, (char *const *)argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(op[1]);
    close(rp[1]);
    if (rc != 0) {
        close(op[0]);
        close(rp[0]);
        return snprintf(msg, len, "cannot run sh: %s", strerror(rc)), -1;
    }
    char out[64];
    size_t got = 0;
    ssize_t n;
    while (got + 1 < sizeof out && (n = read(op[0], out + got, sizeof out - 1 - got)) != 0) {
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            break;
        got += (size_t)n;
    }
    out[got] = '\0';
    close(op[0]);
    int st;
    while (waitpid(sh, &st, 0) < 0 && errno == EINTR)
        ;
    long pid;
    out[strcspn(out, "\n")] = '\0';
    if (sm_parse_long(out, &pid) < 0 || pid <= 1) {
        close(rp[0]);
        return snprintf(msg, len, "could not start %s", SLIRP), -1;
    }
    *ready = rp[0];
    return (pid_t)pid;
}

static int wait_ready(int fd)
{
    struct pollfd p = {.fd = fd, .events = POLLIN};
    char c = 0;
    int r;
    while ((r = poll(&p, 1, READY_WAIT_MS)) < 0 && errno == EINTR)
        ;
    return r == 1 && read(fd, &c, 1) == 1 && c == '1' ? 0 : -1;
}

/* Asks slirp4netns to forward an ephemeral host port to port; the host port, or -1. */
static int forward(int dirfd, int port, char *msg, size_t len)
{
    for (int t = 0; t < FORWARD_TRIES; t++) {
        int hp = free_port();
        if (hp <= 0)
            return snprintf(msg, len, "no free port on 127.0.0.1"), -1;
        char req[256], reply[1024];
        snprintf(req, sizeof req,
                 "{\"execute\":\"add_hostfwd\",\"arguments\":{\"proto\":\"tcp\",\"host_addr\":"
                 "\"127.0.0.1\",\"host_port\":%d,\"guest_port\":%d}}",
                 hp, port);
        if (api_call(dirfd, req, reply, sizeof reply) < 0) {
            snprintf(msg, len, "%s did not answer its API socket", SLIRP);
            continue;
        }
        cJSON *j = cJSON_Parse(reply);
        bool ok = cJSON_GetObjectItemCaseSensitive(j, "return") != NULL;
        const cJSON *e = cJSON_GetObjectItemCaseSensitive(j, "error");
        const char *desc = cJSON_IsString(cJSON_GetObjectItemCaseSensitive(e, "desc"))
                               ? cJSON_GetObjectItemCaseSensitive(e, "desc")->valuestring
                               : reply;
        snprintf(msg, len, "forwarding port %d: %s", port, desc);
        cJSON_Delete(j);
        if (ok)
            return hp;
        /* another process took the port between our pick and the forward: pick again */
    }
    return -1;
}

static void kill_slirp(pid_t pid, unsigned long long start)
{
    if (pid > 1 && start && sm_proc_start(pid, NULL) == start)
        kill(pid, SIGKILL);
}

int local_net_start(const char *dir, const int *ports, size_t nports, sm_error *err)
{
    if (!in_path(SLIRP))
        return sm_error_set(err, SM_ERR_RUNTIME, SM_FAIL_CREATE_FAILED,
                            "network: private needs %s on PATH (Debian package %s; "
                            "scripts/install-deps.sh installs it)",
                            SLIRP, SLIRP);
    if (access("/dev/net/tun", R_OK | W_OK) < 0)
        return sm_error_set(err, SM_ERR_RUNTIME, SM_FAIL_CREATE_FAILED,
                            "network: private needs /dev/net/tun, which this user cannot open "
                            "(%s); use network: none or host, or make /dev/net/tun mode 0666 "
                            "as most distributions do",
                            strerror(errno));
    struct launch ready, launch;
    char *rpath = xasprintf("%s/ready", dir), *lpath = xasprintf("%s/launch.conf", dir);
    int have_ready = launch_read(rpath, &ready), have_launch = launch_read(lpath, &launch);
    free(rpath);
    free(lpath);
    if (have_ready < 0 || have_launch < 0) {
        if (have_ready == 0)
            launch_free(&ready);
        if (have_launch == 0)
            launch_free(&launch);
        return sm_error_set(err, SM_ERR_RUNTIME, SM_FAIL_CREATE_FAILED,
                            "network: private: the sandbox's record is incomplete");
    }
    pid_t init = (pid_t)launch_get_ll(&ready, "pid", 0);
    bool userns = launch_get_ll(&launch, "userns", 0) != 0;
    launch_free(&ready);
    char msg[512] = "";
    int rfd = -1;
    pid_t pid = init > 1 ? spawn_slirp(dir, init, userns, &rfd, msg, sizeof msg) : -1;
    if (pid > 0)
        join_cgroups(&launch, pid);
    launch_free(&launch);
    unsigned long long start = pid > 0 ? sm_proc_start(pid, NULL) : 0;
    int rc = SM_OK;
    if (pid <= 0) {
        rc = sm_error_set(err, SM_ERR_RUNTIME, SM_FAIL_CREATE_FAILED, "network: private: %s",
                          msg[0] ? msg : "the sandbox has no init");
    } else if (wait_ready(rfd) < 0) {
        char tail[300];
        log_tail(dir, tail, sizeof tail);
        rc = sm_error_set(err, SM_ERR_RUNTIME, SM_FAIL_CREATE_FAILED,
                          "network: private: %s did not bring up the link%s%s", SLIRP,
                          tail[0] ? ": " : "", tail);
    }
    if (rfd >= 0)
        close(rfd);
    char *rec = xasprintf("slirp_pid=%d\nslirp_start=%llu\n", (int)pid, start);
    int dirfd = rc == SM_OK ? open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
    for (size_t i = 0; rc == SM_OK && i < nports; i++) {
        int hp = forward(dirfd, ports[i], msg, sizeof msg);
        if (hp < 0) {
            rc = sm_error_set(err, SM_ERR_RUNTIME, SM_FAIL_CREATE_FAILED, "network: private: %s",
                              msg);
            break;
        }
        char *more = xasprintf("%sfwd=%d %d\n", rec, ports[i], hp);
        free(rec);
        rec = more;
    }
    if (dirfd >= 0)
        close(dirfd);
    char *path = xasprintf("%s/net", dir);
    if (rc == SM_OK && sm_write_file_atomic(path, rec, strlen(rec), 0600) < 0)
        rc = sm_error_set(err, SM_ERR_IO, SM_FAIL_CREATE_FAILED, "cannot write %s: %s", path,
                          strerror(errno));
    free(path);
    free(rec);
    if (rc != SM_OK && pid > 0)
        kill_slirp(pid, start);
    return rc;
}

void local_net_stop(const char *dir)
{
    struct launch n;
    char *path = xasprintf("%s/net", dir);
    int rc = launch_read(path, &n);
    free(path);
    if (rc < 0)
        return;
    kill_slirp((pid_t)launch_get_ll(&n, "slirp_pid", 0),
               (unsigned long long)launch_get_ll(&n, "slirp_start", 0));
    launch_free(&n);
}

int local_net_endpoint(const char *dir, const char *id, int port, char *url, size_t len,
                       sm_error *err)
{
    struct launch n;
    char *path = xasprintf("%s/net", dir);
    int rc = launch_read(path, &n);
    free(path);
    if (rc < 0)
        return sm_error_set(err, SM_ERR_NOT_FOUND, SM_FAIL_INVALID_REQUEST,
                            "sandbox %s has no forwarded ports (its private network is not set "
                            "up)",
                            id);
    const char *fwd[256];
    size_t nf = launch_get_all(&n, "fwd", fwd, SM_ARRAY_LEN(fwd));
    int hp = -1;
    for (size_t i = 0; i < nf && hp < 0; i++) {
        int p, h;
        if (sscanf(fwd[i], "%d %d", &p, &h) == 2 && p == port)
            hp = h;
    }
    launch_free(&n);
    if (hp < 0)
        return sm_error_set(err, SM_ERR_NOT_FOUND, SM_FAIL_INVALID_REQUEST,
                            "port %d of sandbox %s is not forwarded", port, id);
    snprintf(url, len, "http://127.0.0.1:%d", hp);
    return SM_OK;
}
