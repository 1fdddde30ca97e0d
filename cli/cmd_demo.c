/* `sandman demo`: a small simulated agent rollout on the local provider, so a new user sees the
 * dashboard come alive. It creates labelled sandboxes running agent-like loops (one hits its
 * memory limit, one an exec timeout, one its TTL, one burns CPU) and starts a detached driver
 * (this binary re-executed with the hidden --driver option) that runs journaled commands in
 * them through the sandbox facade. `--stop` ends every driver and removes every demo sandbox.
 * Only demo scaffolding lives here: nothing else may depend on the sandman.demo label. */
#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "core/util.h"

#define DEMO_LABEL        "sandman.demo"
#define DEMO_ROLE_LABEL   "role"
#define DEMO_MIN_COUNT    4
#define DEMO_MAX_COUNT    64
#define DEMO_TTL_S        900.0
#define DEMO_SHORT_TTL_S  30.0
#define DEMO_SLOW_EVERY_S 10.0
#define DEMO_READY_FD     3

/* The demo relies on the local provider's cgroup limits and host tools (dd, grep) inside the
 * sandboxes, so it is the one command that insists on a provider by name. */
#define DEMO_PROVIDER "local"

/* ---- sandbox roles ------------------------------------------------------------------------ */

typedef struct demo_role {
    const char *name;
    bool special; /* kept even with the smallest --count */
    double cpu;
    long memory_mib;
    double ttl_s;
    const char *body; /* one step of the agent loop (a shell fragment), run about once a second */
} demo_role;

/* The default cast, in display order. Extra sandboxes beyond it are coders. */
static const demo_role demo_roles[] = {
    {"planner", false, 0.5, 256, DEMO_TTL_S,
     "printf '# plan\\n- step %d: read the task\\n- TODO: write code\\n' $i > /tmp/plan.md; "
     "grep -c TODO /tmp/plan.md > /dev/null"},
    {"coder", false, 0.5, 256, DEMO_TTL_S,
     "printf 'def f%d(x):\\n    return x + %d\\n' $i $i > /tmp/src_$((i % 4)).py; "
     "cat /tmp/src_*.py | wc -l > /tmp/loc.txt"},
    {"tester", false, 0.5, 256, DEMO_TTL_S,
     "if [ $((i % 5)) -eq 0 ]; then echo \"FAILED test_$i\" >> /tmp/agent.log; "
     "sh -c 'exit 1'; else ls /tmp | wc -l > /tmp/result.txt; fi"},
    {"oom-hog", true, 0.5, 64, DEMO_TTL_S,
     "printf 'cache %d\\n' $i > /tmp/cache.txt; "
     "if [ $((i % 8)) -eq 2 ]; then dd if=/dev/zero of=/dev/null bs=200M count=1 2>/dev/null "
     "|| echo \"step $i: tool killed (exit $?)\" >> /tmp/agent.log; fi"},
    {"slow-tool", true, 0.5, 256, DEMO_TTL_S,
     "echo \"waiting for a slow tool\" > /tmp/status.txt; ls /tmp > /dev/null"},
    {"short-lived", true, 0.5, 256, DEMO_SHORT_TTL_S,
     "echo \"quick task $i\" > /tmp/task.txt; test -f /tmp/done.txt"},
    {"cpu-burner", true, 1.0, 128, DEMO_TTL_S, NULL},
    {"reviewer", false, 0.5, 256, DEMO_TTL_S,
     "find /tmp -maxdepth 1 -type f | head -n 5 > /tmp/review.txt; grep -q FIXME /tmp/review.txt"},
};

/* The coder's step, for extras (coder-2, coder-3, ...). */
#define DEMO_EXTRA_ROLE 1

/* The agent loop around a role's step: logs, a failing check every seventh step, a nap. */
static char *demo_loop(const demo_role *r)
{
    if (!r->body)
        return xstrdup("i=0; while :; do i=$((i+1)); j=0; "
                       "while [ $j -lt 200000 ]; do j=$((j+1)); done; "
                       "echo \"epoch $i\" > /tmp/progress.txt; done");
    return xasprintf(
        "i=0; while :; do i=$((i+1)); echo \"$(date +%%T) step $i\" >> /tmp/agent.log; "
        "%s; if [ $((i %% 7)) -eq 0 ]; then grep -q DONE /tmp/agent.log || "
        "echo \"step $i: check failed\" >> /tmp/agent.log; fi; sleep 1; done",
        r->body);
}

/* Picks the roles for count sandboxes: every special role, then the plain ones in order, then
 * extra coders. names[i] is malloc'd; roles[i] points into demo_roles. */
static void demo_cast(int count, const demo_role **roles, char **names)
{
    int plain = count, n = 0;
    for (size_t i = 0; i < SM_ARRAY_LEN(demo_roles); i++)
        if (demo_roles[i].special)
            plain--;
    for (size_t i = 0; i < SM_ARRAY_LEN(demo_roles) && n < count; i++) {
        if (!demo_roles[i].special) {
            if (plain <= 0)
                continue;
            plain--;
        }
        roles[n] = &demo_roles[i];
        names[n++] = xstrdup(demo_roles[i].name);
    }
    for (int extra = 2; n < count; extra++) {
        roles[n] = &demo_roles[DEMO_EXTRA_ROLE];
        names[n++] = xasprintf("%s-%d", demo_roles[DEMO_EXTRA_ROLE].name, extra);
    }
}

static void demo_spec(sm_spec *spec, const demo_role *r, const char *name, const char *run)
{
    sm_spec_init(spec);
    spec->ttl_s = r->ttl_s;
    spec->resources.cpu = r->cpu;
    spec->resources.memory_mib = r->memory_mib;
    spec->resources.set = SM_RES_CPU | SM_RES_MEMORY;
    sm_map_set(&spec->metadata, DEMO_LABEL, run);
    sm_map_set(&spec->metadata, DEMO_ROLE_LABEL, name);
    spec->entrypoint = xcalloc(4, sizeof(char *));
    spec->entrypoint[0] = xstrdup("sh");
    spec->entrypoint[1] = xstrdup("-c");
    spec->entrypoint[2] = demo_loop(r);
}

/* ---- shared helpers ----------------------------------------------------------------------- */

static char *demo_dir(void)
{
    return xasprintf("%s/demo", sm_state_dir());
}

static char *demo_pid_path(const char *run)
{
    return xasprintf("%s/demo/%s.pid", sm_state_dir(), run);
}

/* Demo sandboxes of one run (run != NULL, live ones) or of any run (run == NULL, ended ones
 * too). *out is the caller's (sm_sandbox_info_list_free). */
static int demo_list(sm_provider *p, const char *run, sm_sandbox_info **out, size_t *n,
                     sm_error *err)
{
    sm_map labels = {0};
    if (run)
        sm_map_set(&labels, DEMO_LABEL, run);
    sm_list_filter f = {.labels = run ? &labels : NULL, .all = run == NULL};
    sm_sandbox_info *list = NULL;
    size_t total = 0, kept = 0;
    int rc = sm_provider_list(p, &f, &list, &total, err);
    sm_map_free(&labels);
    if (rc != SM_OK)
        return rc;
    for (size_t i = 0; i < total; i++) {
        if (sm_map_get(&list[i].labels, DEMO_LABEL)) {
            if (kept != i) {
                list[kept] = list[i];
                sm_sandbox_info_init(&list[i]);
            }
            kept++;
        } else {
            sm_sandbox_info_free(&list[i]);
        }
    }
    *out = list;
    *n = kept;
    return SM_OK;
}

static int demo_remove(sm_provider *p, const char *id, sm_error *err)
{
    sm_sandbox *s = sm_sandbox_new(p, false);
    int rc = sm_sandbox_open(s, id, err);
    if (rc == SM_OK)
        rc = sm_sandbox_stop(s, err);
    sm_sandbox_free(s);
    return rc;
}

/* Alive and not a zombie (a driver's parent is gone; whoever adopted it may not reap it). */
static bool pid_alive(pid_t pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    if (sm_read_small(path, buf, sizeof buf) < 0)
        return false;
    const char *paren = strrchr(buf, ')');
    return paren && paren[1] == ' ' && paren[2] != 'Z' && paren[2] != 'X';
}

/* A demo driver is this binary run as "sandman ... demo --driver RUN ...". */
static bool pid_is_driver(pid_t pid)
{
    char path[64], *cmdline = NULL;
    size_t len = 0;
    snprintf(path, sizeof path, "/proc/%d/cmdline", (int)pid);
    if (sm_read_file(path, &cmdline, &len) < 0)
        return false;
    bool sandman = false, demo = false, driver = false;
    for (size_t off = 0; off < len; off += strlen(cmdline + off) + 1) {
        const char *arg = cmdline + off;
        if (off == 0) {
            const char *base = strrchr(arg, '/');
            sandman = sm_str_has_prefix(base ? base + 1 : arg, "sandman");
        } else if (!strcmp(arg, "demo")) {
            demo = true;
        } else if (!strcmp(arg, "--driver")) {
            driver = true;
        }
    }
    free(cmdline);
    return sandman && demo && driver;
}

/* ---- the driver: a simulated agent issuing commands ---------------------------------------- */

static const char *const quick_cmds[] = {
    "ls -la /tmp",
    "tail -n 3 /tmp/agent.log",
    "cat /tmp/plan.md 2>/dev/null || echo 'no plan yet'",
    "echo 'thinking about the next step' > /tmp/scratch.txt && cat /tmp/scratch.txt",
    "test -f /tmp/result.json",
    "grep -c step /tmp/agent.log",
    "wc -l /tmp/agent.log",
    "uname -sr && date -u",
    "echo 'FAILED tests/test_parse.py::test_empty' >&2; exit 1",
    "grep -rq TODO /tmp",
};

static void driver_exec(sm_provider *p, const char *id, const char *cmd, double timeout_s)
{
    sm_sandbox *s = sm_sandbox_new(p, false);
    sm_error err;
    sm_error_clear(&err);
    if (sm_sandbox_open(s, id, &err) == SM_OK) {
        sm_exec_request req;
        sm_exec_request_init(&req);
        req.cmd = cmd;
        req.timeout_s = timeout_s;
        sm_exec_result res;
        sm_sandbox_exec(s, &req, &res, &err);
        sm_exec_result_free(&res);
    }
    sm_sandbox_free(s);
}

/* Waits ms milliseconds; true when a stop signal arrived instead. */
static bool driver_nap(const sigset_t *stop, long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    return sigtimedwait(stop, NULL, &ts) > 0;
}

/* The driver's life: until the deadline, a stop signal, or no sandbox of its run is left.
 * Stop signals stay blocked so a command in flight finishes (and is journaled) first. */
static int driver_run(sm_cli *cli, const char *run, double duration_s, int ready_fd)
{
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGTERM);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGHUP);
    sigprocmask(SIG_BLOCK, &stop, NULL);

    int status = CLI_OK;
    sm_provider *p = cli_provider(cli, &status);
    char *dir = demo_dir(), *pidfile = demo_pid_path(run);
    char pid[32];
    snprintf(pid, sizeof pid, "%d\n", (int)getpid());
    if (!p || sm_mkdir_p(dir, 0755) < 0 ||
        sm_write_file_atomic(pidfile, pid, strlen(pid), 0644) < 0) {
        free(dir);
        free(pidfile);
        return p ? CLI_FAIL : status;
    }
    if (ready_fd >= 0) {
        if (write(ready_fd, pid, strlen(pid)) < 0) {
            /* The CLI gave up waiting; carry on, --stop or the deadline ends us. */
        }
        close(ready_fd);
    }
    srandom((unsigned)getpid() ^ (unsigned)time(NULL));
    double deadline = sm_now_mono() + duration_s, last_slow = -DEMO_SLOW_EVERY_S;
    for (;;) {
        sm_sandbox_info *list = NULL;
        size_t n = 0;
        sm_error err;
        sm_error_clear(&err);
        double now = sm_now_mono();
        if (now >= deadline || demo_list(p, run, &list, &n, &err) != SM_OK)
            break;
        if (n == 0) {
            sm_sandbox_info_list_free(list, n);
            break;
        }
        for (size_t i = 0; i < n; i++) {
            const char *role = sm_map_get(&list[i].labels, DEMO_ROLE_LABEL);
            if (role && !strcmp(role, "slow-tool") && now - last_slow >= DEMO_SLOW_EVERY_S) {
                driver_exec(p, list[i].id, "sleep 30", 3);
                last_slow = now;
            }
        }
        for (long k = 1 + random() % 2; k > 0; k--)
            driver_exec(p, list[(size_t)random() % n].id,
                        quick_cmds[(size_t)random() % SM_ARRAY_LEN(quick_cmds)], 20);
        sm_sandbox_info_list_free(list, n);
        if (driver_nap(&stop, 1000 + random() % 1000))
            break;
    }
    unlink(pidfile);
    free(pidfile);
    free(dir);
    return CLI_OK;
}

/* Starts "sandman [-c FILE] [-p NAME] demo --driver RUN --duration S --ready-fd 3" in its own
 * session through an intermediate child (so it is never our child: the dashboard may run this
 * and live on), with stdio on /dev/null. Exec'ing ourselves keeps the fork safe in a threaded
 * caller. Returns the driver's pid, or -1 with msg set. */
static pid_t driver_start(sm_cli *cli, const char *run, double duration_s, char *msg, size_t len)
{
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) {
        snprintf(msg, len, "cannot find the sandman binary: %s", strerror(errno));
        return -1;
    }
    exe[n] = '\0';
    char *config = cli->config_path ? realpath(cli->config_path, NULL) : NULL;
    char duration[32], fdnum[16];
    snprintf(duration, sizeof duration, "%g", duration_s);
    snprintf(fdnum, sizeof fdnum, "%d", DEMO_READY_FD);
    char *argv[16];
    int a = 0;
    argv[a++] = exe;
    if (cli->config_path) {
        argv[a++] = "-c";
        argv[a++] = config ? config : cli->config_path;
    }
    if (cli->context_name) {
        argv[a++] = "-p";
        argv[a++] = cli->context_name;
    }
    argv[a++] = "demo";
    argv[a++] = "--driver";
    argv[a++] = (char *)run;
    argv[a++] = "--duration";
    argv[a++] = duration;
    argv[a++] = "--ready-fd";
    argv[a++] = fdnum;
    argv[a] = NULL;

    int fds[2];
    if (pipe2(fds, O_CLOEXEC) < 0) {
        snprintf(msg, len, "pipe: %s", strerror(errno));
        free(config);
        return -1;
    }
    fflush(NULL);
    pid_t mid = fork();
    if (mid == 0) {
        /* Only async-signal-safe calls from here to execv. */
        setsid();
        int null = open("/dev/null", O_RDWR);
        if (null >= 0) {
            dup2(null, 0);
            dup2(null, 1);
            dup2(null, 2);
        }
        if (fork() != 0)
            _exit(0);
        if (fds[1] == DEMO_READY_FD)
            fcntl(fds[1], F_SETFD, 0);
        else
            dup2(fds[1], DEMO_READY_FD);
        for (int fd = DEMO_READY_FD + 1; fd < 1024; fd++)
            close(fd);
        execv("/proc/self/exe", argv);
        _exit(127);
    }
    close(fds[1]);
    free(config);
    if (mid < 0) {
        snprintf(msg, len, "fork: %s", strerror(errno));
        close(fds[0]);
        return -1;
    }
    while (waitpid(mid, NULL, 0) < 0 && errno == EINTR)
        ;
    char buf[32] = "";
    size_t got = 0;
    for (;;) {
        ssize_t r = read(fds[0], buf + got, sizeof buf - 1 - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
        if (got >= sizeof buf - 1 || memchr(buf, '\n', got))
            break;
    }
    close(fds[0]);
    buf[got] = '\0';
    long pid;
    char *nl = strchr(buf, '\n');
    if (nl)
        *nl = '\0';
    if (sm_parse_long(buf, &pid) < 0 || pid <= 0) {
        snprintf(msg, len, "the demo driver (%s demo --driver) did not start", exe);
        return -1;
    }
    return (pid_t)pid;
}

/* ---- demo / demo --stop ------------------------------------------------------------------- */

typedef struct demo_args {
    bool stop;
    long count;
    double duration_s;
    char *driver; /* hidden: run the driver of this run in the foreground */
    long ready_fd;
} demo_args;

enum { D_STOP = 1, D_COUNT, D_DURATION, D_DRIVER, D_READY_FD };
static const cli_opt demo_opts[] = {
    {"stop", 0, NULL, "end every demo driver and remove every demo sandbox", D_STOP},
    {"count", 'n', "N", "sandboxes to start (4-64, default 8)", D_COUNT},
    {"duration", 0, "S", "how long the simulated agent keeps issuing commands (default 600)",
     D_DURATION},
    /* the detached driver's own, hidden from --help */
    {"driver", 0, "RUN", NULL, D_DRIVER},
    {"ready-fd", 0, "FD", NULL, D_READY_FD},
    {NULL, 0, NULL, NULL, 0}};

static int demo_opt(sm_cli *cli, void *args, int id, const char *arg)
{
    demo_args *a = args;
    switch (id) {
    case D_STOP: a->stop = true; return 0;
    case D_COUNT:
        if (sm_parse_long(arg, &a->count) || a->count < DEMO_MIN_COUNT || a->count > DEMO_MAX_COUNT)
            return cli_usage(cli, "--count wants a number from %d to %d, not '%s'", DEMO_MIN_COUNT,
                             DEMO_MAX_COUNT, arg);
        return 0;
    case D_DURATION:
        if (sm_parse_double(arg, &a->duration_s) || a->duration_s <= 0)
            return cli_usage(cli, "--duration wants a positive number of seconds, not '%s'", arg);
        return 0;
    case D_DRIVER:
        free(a->driver);
        a->driver = xstrdup(arg);
        return 0;
    case D_READY_FD:
        if (sm_parse_long(arg, &a->ready_fd) || a->ready_fd < 0)
            return cli_usage(cli, "--ready-fd wants a file descriptor, not '%s'", arg);
        return 0;
    }
    return 0;
}

/* Ends every demo driver recorded in the demo directory: SIGTERM, a grace period for the
 * command in flight, then SIGKILL. Stale pid files are removed. */
static void demo_stop_drivers(void)
{
    char *dir = demo_dir();
    DIR *d = opendir(dir);
    if (!d) {
        free(dir);
        return;
    }
    pid_t pids[64];
    char *files[64];
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len < 5 || strcmp(e->d_name + len - 4, ".pid"))
            continue;
        char *path = xasprintf("%s/%s", dir, e->d_name), buf[32];
        long pid = 0;
        if (sm_read_small(path, buf, sizeof buf) < 0 || sm_parse_long(buf, &pid) < 0 || pid <= 0 ||
            !pid_alive((pid_t)pid) || !pid_is_driver((pid_t)pid) || n == 64) {
            unlink(path);
            free(path);
            continue;
        }
        kill((pid_t)pid, SIGTERM);
        pids[n] = (pid_t)pid;
        files[n++] = path;
    }
    closedir(d);
    double deadline = sm_now_mono() + 5.0;
    for (size_t i = 0; i < n; i++) {
        while (pid_alive(pids[i]) && sm_now_mono() < deadline)
            usleep(50000);
        if (pid_alive(pids[i]) && pid_is_driver(pids[i]))
            kill(pids[i], SIGKILL);
        unlink(files[i]);
        free(files[i]);
    }
    free(dir);
}

static int demo_stop(sm_cli *cli, sm_provider *p)
{
    demo_stop_drivers();
    sm_sandbox_info *list = NULL;
    size_t n = 0;
    sm_error err;
    sm_error_clear(&err);
    if (demo_list(p, NULL, &list, &n, &err) != SM_OK)
        return cli_fail(cli, &err);
    int status = CLI_OK;
    cJSON *removed = cJSON_CreateArray();
    for (size_t i = 0; i < n; i++) {
        sm_error_clear(&err);
        if (demo_remove(p, list[i].id, &err) != SM_OK) {
            int one = cli_fail(cli, &err);
            status = status ? status : one;
        } else {
            cJSON_AddItemToArray(removed, cJSON_CreateString(list[i].id));
        }
    }
    if (cli->json) {
        cJSON *doc = cJSON_CreateObject();
        cJSON_AddItemToObject(doc, "removed", removed);
        cli_print_json(cli, doc);
    } else {
        int k = cJSON_GetArraySize(removed);
        fprintf(cli->out, "removed %d demo sandbox%s\n", k, k == 1 ? "" : "es");
        cJSON_Delete(removed);
    }
    sm_sandbox_info_list_free(list, n);
    return status;
}

static int demo_start(sm_cli *cli, sm_provider *p, const demo_args *a)
{
    char run[9];
    sm_random_hex(run, 8);
    int count = (int)a->count, made = 0, status = CLI_OK;
    const demo_role **roles = xcalloc((size_t)count, sizeof *roles);
    char **names = xcalloc((size_t)count, sizeof *names);
    char **ids = xcalloc((size_t)count, sizeof *ids);
    demo_cast(count, roles, names);
    sm_error err;
    for (; made < count; made++) {
        sm_spec spec;
        demo_spec(&spec, roles[made], names[made], run);
        sm_sandbox *s = sm_sandbox_new(p, false);
        sm_error_clear(&err);
        int rc = sm_sandbox_start(s, &spec, &err);
        if (rc == SM_OK)
            ids[made] = xstrdup(sm_sandbox_id(s));
        sm_sandbox_free(s);
        sm_spec_free(&spec);
        if (rc != SM_OK) {
            status = cli_error(cli, CLI_FAIL, "demo: creating the %s sandbox failed: %s",
                               names[made], err.msg[0] ? err.msg : sm_error_code_name(err.code));
            break;
        }
    }
    pid_t driver = -1;
    if (status == CLI_OK) {
        char msg[512];
        driver = driver_start(cli, run, a->duration_s, msg, sizeof msg);
        if (driver < 0)
            status = cli_error(cli, CLI_FAIL, "demo: %s", msg);
    }
    if (status != CLI_OK) {
        for (int i = 0; i < made; i++) {
            sm_error_clear(&err);
            demo_remove(p, ids[i], &err);
        }
    } else if (cli->json) {
        cJSON *doc = cJSON_CreateObject();
        cJSON_AddStringToObject(doc, "run", run);
        cJSON *arr = cJSON_AddArrayToObject(doc, "sandboxes");
        for (int i = 0; i < count; i++) {
            cJSON *o = cJSON_CreateObject();
            cJSON_AddStringToObject(o, "id", ids[i]);
            cJSON_AddStringToObject(o, "role", names[i]);
            cJSON_AddItemToArray(arr, o);
        }
        cJSON_AddNumberToObject(doc, "driver_pid", driver);
        cli_print_json(cli, doc);
    } else {
        fprintf(cli->out, "demo run %s: %d sandboxes (label %s=%s), driver pid %d for %gs\n", run,
                count, DEMO_LABEL, run, (int)driver, a->duration_s);
        for (int i = 0; i < count; i++)
            fprintf(cli->out, "  %s  %s\n", ids[i], names[i]);
        fprintf(cli->out, "open the dashboard: sandman; stop: sandman demo --stop\n");
    }
    for (int i = 0; i < count; i++) {
        free(names[i]);
        free(ids[i]);
    }
    free(roles);
    free(names);
    free(ids);
    return status;
}

static void demo_init(void *args)
{
    demo_args *a = args;
    a->count = 8;
    a->duration_s = 600;
    a->ready_fd = -1;
}

static void demo_done(void *args)
{
    free(((demo_args *)args)->driver);
}

static int cmd_demo(sm_cli *cli, cli_call *c)
{
    demo_args *a = c->args;
    sm_provider *p = c->provider;
    if (a->driver)
        return driver_run(cli, a->driver, a->duration_s, (int)a->ready_fd);
    if (strcmp(sm_provider_name(p), DEMO_PROVIDER))
        return cli_error(cli, CLI_USAGE,
                         "demo runs on the %s provider only; context '%s' uses '%s' (try -p %s)",
                         DEMO_PROVIDER, sm_provider_context(p), sm_provider_name(p), DEMO_PROVIDER);
    if (!(sm_provider_caps(p) & SM_CAP_LIST))
        return cli_error(cli, CLI_FAIL, "provider '%s' cannot list its sandboxes",
                         sm_provider_name(p));
    return a->stop ? demo_stop(cli, p) : demo_start(cli, p, a);
}

const sm_cmd sm_cmd_demo = {
    .name = "demo",
    .usage = "[--stop] [--count N] [--duration S]",
    .summary = "start a simulated agent rollout on the local provider (watch it in the dashboard)",
    .flags = CLI_PROVIDER,
    .opts = demo_opts,
    .args_size = sizeof(demo_args),
    .init = demo_init,
    .opt = demo_opt,
    .run = cmd_demo,
    .done = demo_done,
};
