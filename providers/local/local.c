/* The local provider: sandboxes on this host with namespaces and cgroups and no daemon.
 * create writes the sandbox record and launch file, creates cgroups with the limits, and
 * starts the static supervisor (sandman-supervisor), which outlives us; every later call
 * reads the record from the state directory, so any sandman process reaches any sandbox. */
#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/journal.h"
#include "core/json.h"
#include "core/redact.h"
#include "core/util.h"
#include "providers/local/launch.h"
#include "providers/local/local.h"
#include "providers/local/net.h"
#include "providers/local/local_provider.h"

static const char *const config_keys[] = {"network",      "pids_limit",
                                          "image",        "shell",
                                          "workdir",      "default_timeout_s",
                                          "seccomp",      "nested_userns",
                                          "no_new_privs", "unenforced_limits",
                                          "expose_home",  "hide",
                                          "shell_rc",     NULL};

static char *find_supervisor(void)
{
    const char *env = getenv("SANDMAN_SUPERVISOR");
    if (env && *env)
        return xstrdup(env);
    static const char *const rel[] = {"sandman-supervisor", "../sandman-supervisor",
                                      "../libexec/sandman/sandman-supervisor"};
    return sm_find_beside_self(rel, SM_ARRAY_LEN(rel));
}

/* expose_home (bool) and hide (a list of absolute paths) shape what a host image hides. */
static int local_hide_config(local_provider *lp, const cJSON *config, sm_error *err)
{
    int rc = sm_json_get_bool(config, "expose_home", &lp->expose_home, "local", err);
    const cJSON *hide = config ? cJSON_GetObjectItemCaseSensitive(config, "hide") : NULL, *it;
    if (rc || !hide || cJSON_IsNull(hide))
        return rc;
    if (!cJSON_IsArray(hide))
        return sm_error_set(err, SM_ERR_CONFIG, SM_FAIL_INVALID_REQUEST,
                            "local.hide must be a list of absolute paths");
    cJSON_ArrayForEach(it, hide)
    {
        if (!cJSON_IsString(it))
            return sm_error_set(err, SM_ERR_CONFIG, SM_FAIL_INVALID_REQUEST,
                                "local.hide must be a list of absolute paths");
        if (sm_spec_check_path("local.hide entry", it->valuestring, err) != SM_OK)
            return SM_ERR_CONFIG;
        if (!strcmp(it->valuestring, "/"))
            return sm_error_set(err, SM_ERR_CONFIG, SM_FAIL_INVALID_REQUEST,
                                "local.hide cannot hide / (use image dir:<rootfs> for a "
                                "root of your own)");
        lp->hide = xrealloc(lp->hide, (lp->nhide + 1) * sizeof *lp->hide);
        lp->hide[lp->nhide++] = xstrdup(it->valuestring);
    }
    return SM_OK;
}

static void local_destroy(sm_provider *p);

static int local_init(sm_provider *p, const cJSON *config, sm_error *err)
{
    local_provider *lp = xcalloc(1, sizeof *lp);
    lp->network = xstrdup("none");
    lp->pids_limit = 4096;
    lp->image = xstrdup("host");
    lp->shell = xstrdup("/bin/sh");
    lp->default_timeout_s = SM_DEFAULT_EXEC_TIMEOUT_S;
    lp->seccomp = xstrdup("default");
    lp->shell_rc = xstrdup("clean");
    lp->no_new_privs = true;
    p->impl = lp;
    int rc = sm_json_get_string(config, "network", &lp->network, "local", err);
    if (!rc)
        rc = sm_json_get_long(config, "pids_limit", &lp->pids_limit, "local", err);
    if (!rc)
        rc = sm_json_get_string(config, "image", &lp->image, "local", err);
    if (!rc)
        rc = sm_json_get_string(config, "shell", &lp->shell, "local", err);
    if (!rc)
        rc = sm_json_get_string(config, "workdir", &lp->workdir, "local", err);
    if (!rc)
        rc = sm_json_get_number(config, "default_timeout_s", &lp->default_timeout_s, "local", err);
    if (!rc)
        rc = sm_json_get_string(config, "seccomp", &lp->seccomp, "local", err);
    if (!rc)
        rc = sm_json_get_bool(config, "nested_userns", &lp->nested_userns, "local", err);
    if (!rc)
        rc = sm_json_get_bool(config, "no_new_privs", &lp->no_new_privs, "local", err);
    if (!rc && strcmp(lp->seccomp, "default") && strcmp(lp->seccomp, "unconfined"))
        rc = sm_error_set(err, SM_ERR_CONFIG, SM_FAIL_INVALID_REQUEST,
                          "local.seccomp must be default or unconfined, not '%s'", lp->seccomp);
    if (!rc)
        rc = sm_json_get_string(config, "shell_rc", &lp->shell_rc, "local", err);
    if (!rc && strcmp(lp->shell_rc, "clean") && strcmp(lp->shell_rc, "host"))
        rc = sm_error_set(err, SM_ERR_CONFIG, SM_FAIL_INVALID_REQUEST,
                          "local.shell_rc must be clean or host, not '%s'", lp->shell_rc);
    if (!rc && strcmp(lp->network, "none") && strcmp(lp->network, "host") &&
        strcmp(lp->network, "private"))
        rc = sm_error_set(err, SM_ERR_CONFIG, SM_FAIL_INVALID_REQUEST,
                          "local.network must be none, private or host, not '%s'", lp->network);
    char *unenforced = NULL;
    if (!rc)
        rc = sm_json_get_string(config, "unenforced_limits", &unenforced, "local", err);
    lp->warn_unenforced = unenforced && !strcmp(unenforced, "warn");
    if (!rc && unenforced && !lp->warn_unenforced && strcmp(unenforced, "refuse"))
        rc = sm_error_set(err, SM_ERR_CONFIG, SM_FAIL_INVALID_REQUEST,
                          "local.unenforced_limits must be refuse or warn, not '%s'", unenforced);
    free(unenforced);
    lp->pids_limit_set = cJSON_GetObjectItemCaseSensitive(config, "pids_limit") != NULL;
    if (!rc && (lp->pids_limit < 0 || (lp->pids_limit > 0 && lp->pids_limit < LOCAL_MIN_PIDS) ||
                lp->pids_limit > LOCAL_MAX_PIDS))
        rc = sm_error_set(err, SM_ERR_CONFIG, SM_FAIL_INVALID_REQUEST,
                          "local.pids_limit must be 0 (no limit) or %d..%d, not %ld",
                          LOCAL_MIN_PIDS, LOCAL_MAX_PIDS, lp->pids_limit);
    if (!rc && lp->workdir && lp->workdir[0] != '/')
        rc = sm_error_set(err, SM_ERR_CONFIG, SM_FAIL_INVALID_REQUEST,
                          "local.workdir must be an absolute path");
    if (!rc && lp->workdir)
        rc = sm_spec_check_path("local.workdir", lp->workdir, err);
    if (!rc)
        rc = local_hide_config(lp, config, err);
    if (!rc && !(lp->default_timeout_s > 0 && lp->default_timeout_s <= SM_MAX_EXEC_TIMEOUT_S))
        rc = sm_error_set(err, SM_ERR_CONFIG, SM_FAIL_INVALID_REQUEST,
                          "local.default_timeout_s must be positive, up to %.0f seconds (1 week)",
                          SM_MAX_EXEC_TIMEOUT_S);
    if (rc) {
        if (err)
            err->code = SM_ERR_CONFIG;
        local_destroy(p); /* the provider is not made: nothing of it is left */
        p->impl = NULL;
        return SM_ERR_CONFIG;
    }
    lp->supervisor = find_supervisor();
    local_cg_detect(&lp->cg);
    return SM_OK;
}

static void local_destroy(sm_provider *p)
{
    local_provider *lp = p->impl;
    if (!lp)
        return;
    free(lp->network);
    free(lp->image);
    free(lp->shell_rc);
    free(lp->shell);
    free(lp->workdir);
    free(lp->supervisor);
    free(lp->seccomp);
    for (size_t i = 0; i < lp->nhide; i++)
        free(lp->hide[i]);
    free(lp->hide);
    local_cg_layout_free(&lp->cg);
    free(lp);
}

/* "host" or "dir:/abs/rootfs". */
static int parse_image(const char *image, char **rootfs, sm_error *err)
{
    *rootfs = NULL;
    if (!strcmp(image, "host"))
        return SM_OK;
    if (sm_str_has_prefix(image, "dir:")) {
        const char *path = image + 4;
        struct stat st;
        if (path[0] != '/')
            return sm_error_set(err, SM_ERR_INVALID, SM_FAIL_CREATE_FAILED,
                                "image '%s': the rootfs path must be absolute", image);
        if (stat(path, &st) < 0 || !S_ISDIR(st.st_mode))
            return sm_error_set(err, SM_ERR_INVALID, SM_FAIL_CREATE_FAILED,
                                "image '%s': %s is not a directory", image, path);
        *rootfs = xstrdup(path);
        return SM_OK;
    }
    return sm_error_set(err, SM_ERR_INVALID, SM_FAIL_CREATE_FAILED,
                        "the local provider runs image 'host' or 'dir:/path/to/rootfs', not '%s'",
                        image);
}

static void write_launch(const char *dir, const local_provider *lp, const sm_spec *spec,
                         const char *id, const char *rootfs, const char *workdir,
                         const local_cgroups *cg)
{
    char *path = xasprintf("%s/launch.conf", dir), num[64];
    /* 0600: it holds the env values the sandbox is given, secrets among them */
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
    free(path);
    FILE *f = fd < 0 ? NULL : fdopen(fd, "w");
    if (!f) {
        if (fd >= 0)
            close(fd);
        return;
    }
    launch_put(f, "id", id);
    launch_put(f, "dir", dir);
    launch_put(f, "root", rootfs ? "dir" : "host");
    if (rootfs)
        launch_put(f, "rootfs", rootfs);
    launch_put(f, "workdir", workdir ? workdir : "");
    launch_put(f, "network", lp->network);
    launch_put(f, "seccomp", lp->seccomp);
    launch_put(f, "nested_userns", lp->nested_userns ? "1" : "0");
    launch_put(f, "no_new_privs", lp->no_new_privs ? "1" : "0");
    launch_put(f, "state_dir", sm_state_dir());
    launch_put(f, "expose_home", lp->expose_home ? "1" : "0");
    for (size_t i = 0; i < lp->nhide; i++)
        launch_put(f, "hide", lp->hide[i]);
    if (spec->resources.set & SM_RES_DISK) {
        snprintf(num, sizeof num, "%lld", (long long)spec->resources.disk_gib << 30);
        launch_put(f, "disk_bytes", num);
    }
    char host[64];
    snprintf(host, sizeof host, "sbx-%.8s", id);
    launch_put(f, "hostname", host);
    snprintf(num, sizeof num, "%d", geteuid() != 0);
    launch_put(f, "userns", num);
    snprintf(num, sizeof num, "%u", (unsigned)geteuid());
    launch_put(f, "uid", num);
    snprintf(num, sizeof num, "%u", (unsigned)getegid());
    launch_put(f, "gid", num);
    if (spec->ttl_s > 0) {
        snprintf(num, sizeof num, "%lld", (long long)(spec->ttl_s * 1000.0));
        launch_put(f, "ttl_ms", num);
        snprintf(num, sizeof num, "%g", spec->ttl_s);
        launch_put(f, "ttl_s", num);
    }
    snprintf(num, sizeof num, "%lld",
             (long long)((spec->ready_timeout_s > 0 ? spec->ready_timeout_s : 60) * 1000));
    launch_put(f, "ready_timeout_ms", num);
    char *journal = sm_journal_path("local", id);
    launch_put(f, "journal", journal);
    free(journal);
    local_cg_launch(f, cg);
    if (spec->resources.set & SM_RES_MEMORY) {
        snprintf(num, sizeof num, "%lld", (long long)spec->resources.memory_mib << 20);
        launch_put(f, "mem_limit", num);
    }
    for (size_t i = 0; spec->entrypoint && spec->entrypoint[i]; i++)
        launch_put(f, "entry", spec->entrypoint[i]);
    launch_put(f, "env", "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
    for (size_t i = 0; i < spec->env.n; i++) {
        char *kv = xasprintf("%s=%s", spec->env.items[i].key, spec->env.items[i].value);
        launch_put(f, "env", kv);
        free(kv);
    }
    fclose(f);
}

static cJSON *record_json(const local_provider *lp, sm_provider *p, const sm_spec *spec,
                          const char *id, const char *image, const char *workdir,
                          const local_cgroups *cg, const char *note)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "id", id);
    cJSON_AddStringToObject(o, "context", p->context);
    cJSON_AddStringToObject(o, "image", image);
    if (workdir)
        cJSON_AddStringToObject(o, "workdir", workdir);
    cJSON_AddNumberToObject(o, "created_at", sm_now_wall());
    if (spec->ttl_s > 0)
        cJSON_AddNumberToObject(o, "ttl_s", spec->ttl_s);
    cJSON_AddNumberToObject(o, "ready_timeout_s",
                            spec->ready_timeout_s > 0 ? spec->ready_timeout_s : 60);
    cJSON_AddItemToObject(o, "env", sm_map_to_json(&spec->env));
    cJSON_AddItemToObject(o, "metadata", sm_redact_map_to_json(&spec->metadata));
    cJSON_AddItemToObject(o, "resources", sm_resources_to_json(&spec->resources));
    cJSON *ports = cJSON_AddArrayToObject(o, "ports");
    for (size_t i = 0; i < spec->nports; i++)
        cJSON_AddItemToArray(ports, cJSON_CreateNumber(spec->ports[i]));
    cJSON_AddStringToObject(o, "network", lp->network);
    cJSON_AddStringToObject(o, "shell", lp->shell);
    /* provider options stay with the sandbox: a later exec from another context (or none)
     * runs with the timeout the sandbox was made with, as it runs its shell */
    cJSON_AddNumberToObject(o, "default_timeout_s", lp->default_timeout_s);
    cJSON_AddStringToObject(o, "shell_rc", lp->shell_rc);
    if (note)
        cJSON_AddStringToObject(o, "limits_note", note);
    cJSON_AddItemToObject(o, "cgroups", local_cg_to_json(cg));
    return o;
}

/* Starts the supervisor detached from us (double fork, new session) and waits for its
 * verdict line: "ok <pid>" or "err <message>". */
static int start_supervisor(const local_provider *lp, const char *dir, double timeout_s, char *msg,
                            size_t len)
{
    int pfd[2];
    if (pipe2(pfd, O_CLOEXEC) < 0) {
        snprintf(msg, len, "pipe: %s", strerror(errno));
        return -1;
    }
    /* posix_spawn, not fork: a caller with many threads (the dashboard, concurrent creates)
     * would copy its whole address space per sandbox. The supervisor detaches itself (it forks
     * once more) so it is never our child; the status pipe arrives as its descriptor 3. */
    char *const argv[] = {lp->supervisor, (char *)dir, "3", NULL};
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, pfd[1], 3);
    /* Nothing else we hold or inherited may reach the supervisor, and through it the sandbox. */
    posix_spawn_file_actions_addclosefrom_np(&fa, 4);
    posix_spawnattr_init(&attr);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSID);
    /* Nor our environment (the user's tokens and host paths): the supervisor needs none, and
     * the init, a process inside the sandbox for its whole life, keeps a copy of it. PATH is
     * where the init finds an entrypoint given by name. */
    char *const envp[] = {"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
                          NULL};
    pid_t child;
    int rc = posix_spawn(&child, lp->supervisor, &fa, &attr, argv, envp);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    close(pfd[1]);
    if (rc != 0) {
        close(pfd[0]);
        snprintf(msg, len, "starting %s: %s", lp->supervisor, strerror(rc));
        return -1;
    }
    waitpid(child, NULL, 0);
    char buf[1024];
    size_t got = 0;
    double deadline = sm_now_mono() + timeout_s;
    while (got + 1 < sizeof buf && !memchr(buf, '\n', got)) {
        int ms = (int)((deadline - sm_now_mono()) * 1000);
        struct pollfd p = {.fd = pfd[0], .events = POLLIN};
        if (ms <= 0 || poll(&p, 1, ms) <= 0) {
            snprintf(msg, len, "the sandbox did not become ready within %gs", timeout_s);
            close(pfd[0]);
            return -1;
        }
        ssize_t r = read(pfd[0], buf + got, sizeof buf - 1 - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    close(pfd[0]);
    buf[got] = '\0';
    char *nl = strchr(buf, '\n');
    if (nl)
        *nl = '\0';
    if (!strncmp(buf, "ok ", 3))
        return 0;
    if (!strncmp(buf, "err ", 4))
        snprintf(msg, len, "%s", buf + 4);
    else
        snprintf(msg, len, "the supervisor (%s) exited without starting the sandbox",
                 lp->supervisor);
    return -1;
}

/* Removes what exists of a sandbox: processes, cgroups, state directory, whatever state its
 * record is in (a damaged record still names its supervisor through its lock). Returns
 * SM_OK, or an error naming what is left. */
/* Whether pid is the supervisor of the sandbox in dir: it lives in that directory. */
static bool supervisor_of(pid_t pid, const char *dir)
{
    if (pid <= 0)
        return false;
    char link[64], cwd[PATH_MAX], real[PATH_MAX];
    snprintf(link, sizeof link, "/proc/%d/cwd", (int)pid);
    ssize_t n = readlink(link, cwd, sizeof cwd - 1);
    if (n <= 0 || !realpath(dir, real))
        return false;
    cwd[n] = '\0';
    return strcmp(cwd, real) == 0;
}

static int destroy_sandbox(const char *id, sm_error *err)
{
    local_record r;
    char left[512] = "";
    if (local_record_load(id, &r, NULL) == SM_OK) {
        if (!r.ended || r.damaged) {
            /* Ask the supervisor to end it (it records why), then wait for its lock. */
            /* The ready record names the supervisor; /proc/locks (slow: a walk of every lock
             * on the host) only when the record does not, or names a process that is not
             * this sandbox's supervisor (its working directory is the sandbox's). */
            pid_t sp = r.sup_alive && supervisor_of(r.sup_pid, r.dir) ? r.sup_pid : 0;
            if (sp <= 0 && r.sup_alive)
                sp = local_record_lock_holder(r.dir);
            if (sp <= 0)
                sp = r.sup_pid;
            int pidfd = (sp > 0 && r.sup_alive) ? (int)syscall(SYS_pidfd_open, sp, 0) : -1;
            if (pidfd >= 0) {
                /* The supervisor records the end and removes the cgroups, then exits. */
                kill(sp, SIGTERM);
                struct pollfd pf = {.fd = pidfd, .events = POLLIN};
                poll(&pf, 1, 5000);
                close(pidfd);
            }
            char *lock = xasprintf("%s/lock", r.dir);
            int fd = open(lock, O_RDONLY | O_CLOEXEC);
            free(lock);
            for (int i = 0; fd >= 0 && i < 3000; i++) {
                if (flock(fd, LOCK_SH | LOCK_NB) == 0)
                    break;
                usleep(1000);
            }
            if (fd >= 0)
                close(fd);
            if (local_record_init_alive(&r))
                kill(r.init_pid, SIGKILL);
        }
        local_net_stop(r.dir); /* a link whose cgroups could not take it along */
        local_cg_remove(&r.cg);
        struct stat st;
        for (int c = 0; c < CG__COUNT && !left[0]; c++)
            if (r.cg.dir[c] && stat(r.cg.dir[c], &st) == 0)
                snprintf(left, sizeof left, "its cgroup %s", r.cg.dir[c]);
        local_record_free(&r);
    }
    char *dir = local_dir(id), what[400];
    /* A cgroup left behind keeps the record that names it, for rm to try again. */
    if (!left[0] && sm_rm_rf_report(dir, what, sizeof what) < 0) {
        snprintf(left, sizeof left, "%s", what);
        /* Marks what is left as a sandbox being removed, not one being created, so ls and
         * rm still show and reach it. */
        char *mark = xasprintf("%s/removing", dir);
        int mfd = open(mark, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
        if (mfd >= 0)
            close(mfd);
        free(mark);
    }
    free(dir);
    if (left[0])
        return sm_error_set(err, SM_ERR_IO, SM_FAIL_SANDBOX_ERROR,
                            "sandbox %s ended, but rm could not remove %s", id, left);
    return SM_OK;
}

/* Whether the image lacks the workdir, reached through real directories only (a symlink in
 * the image would point into the host here: then the supervisor makes it, as before). */
static bool workdir_missing(const char *rootfs, const char *workdir)
{
    char *path = xasprintf("%s%s", rootfs, workdir);
    size_t base = strlen(rootfs);
    bool missing = false;
    for (char *p = path + base + 1;; p++) {
        if (*p != '/' && *p != '\0')
            continue;
        char save = *p;
        *p = '\0';
        struct stat st;
        int r = lstat(path, &st);
        *p = save;
        if (r < 0) {
            missing = errno == ENOENT;
            break;
        }
        if (!S_ISDIR(st.st_mode) || !save)
            break;
    }
    free(path);
    return missing;
}

static int local_create(sm_provider *p, const sm_spec *spec, sm_handle **out, sm_error *err)
{
    local_provider *lp = p->impl;
    *out = NULL;
    if (!lp->supervisor)
        return sm_error_set(err, SM_ERR_RUNTIME, SM_FAIL_CREATE_FAILED,
                            "cannot find sandman-supervisor beside the sandman binary (set "
                            "SANDMAN_SUPERVISOR to its path)");
    const char *image = spec->image ? spec->image : lp->image;
    char *rootfs = NULL;
    if (parse_image(image, &rootfs, err) != SM_OK)
        return SM_ERR_INVALID;
    if (spec->resources.set & (SM_RES_GPU | SM_RES_GPU_TYPE)) {
        free(rootfs);
        return sm_error_set(err, SM_ERR_INVALID, SM_FAIL_CREATE_FAILED,
                            "the local provider cannot give a sandbox GPUs");
    }
    const char *workdir = spec->workdir ? spec->workdir : lp->workdir;

    char id[13];
    sm_random_hex(id, 12);
    char *dir = local_dir(id);
    sm_mkdir_p(local_root(), 0700);
    int rc = SM_OK;
    /* host images need a private tmp and workdir; rootfs images an overlay upper and work */
    const char *host_dirs[] = {"root", "tmp", "work"}, *dir_dirs[] = {"root", "upper", "ovl"};
    const char **subdirs = rootfs ? dir_dirs : host_dirs;
    if (mkdir(dir, 0700) < 0)
        rc = sm_error_set(err, SM_ERR_IO, SM_FAIL_CREATE_FAILED, "cannot create %s: %s", dir,
                          strerror(errno));
    for (size_t i = 0; rc == SM_OK && i < 3; i++) {
        char *sd = xasprintf("%s/%s", dir, subdirs[i]);
        if (mkdir(sd, 0755) < 0)
            rc = sm_error_set(err, SM_ERR_IO, SM_FAIL_CREATE_FAILED, "cannot create %s: %s", sd,
                              strerror(errno));
        free(sd);
    }
    /* A workdir sandman makes is the agent's, whoever it runs as (exec -u): sticky and
     * world-writable like /tmp. One the image already has keeps its own mode. */
    if (rc == SM_OK && !rootfs) {
        char *tmp = xasprintf("%s/tmp", dir), *work = xasprintf("%s/work", dir);
        chmod(tmp, 01777);
        chmod(work, 01777);
        if (workdir && sm_str_has_prefix(workdir, "/tmp/")) {
            char *wd = xasprintf("%s%s", tmp, workdir + 4);
            sm_mkdir_p(wd, 0755);
            chmod(wd, 01777);
            free(wd);
        }
        free(tmp);
        free(work);
    } else if (rc == SM_OK && workdir && workdir_missing(rootfs, workdir)) {
        char *wd = xasprintf("%s/upper%s", dir, workdir); /* appears in the overlay */
        sm_mkdir_p(wd, 0755);
        chmod(wd, 01777);
        free(wd);
    }
    local_cgroups cg;
    char *note = NULL, *warning = NULL;
    memset(&cg, 0, sizeof cg);
    if (rc == SM_OK)
        rc = local_cg_create(lp, id, &spec->resources, &cg, &note, &warning, err);
    if (rc == SM_OK) {
        write_launch(dir, lp, spec, id, rootfs, workdir, &cg);
        cJSON *rec = record_json(lp, p, spec, id, image, workdir, &cg, note);
        char *text = sm_json_print(rec);
        cJSON_Delete(rec);
        char *path = xasprintf("%s/spec.json", dir);
        if (sm_write_file_atomic(path, text, strlen(text), 0600) < 0)
            rc = sm_error_set(err, SM_ERR_IO, SM_FAIL_CREATE_FAILED, "cannot write %s: %s", path,
                              strerror(errno));
        free(path);
        free(text);
    }
    if (rc == SM_OK) {
        char msg[600];
        double budget = spec->ready_timeout_s > 0 ? spec->ready_timeout_s : 60;
        if (start_supervisor(lp, dir, budget, msg, sizeof msg) < 0)
            rc = sm_error_set(err, SM_ERR_RUNTIME, SM_FAIL_CREATE_FAILED,
                              "creating a local sandbox failed: %s", msg);
    }
    if (rc == SM_OK && !strcmp(lp->network, "private")) /* its link and ports (net.c) */
        rc = local_net_start(dir, spec->ports, spec->nports, err);
    free(note);
    free(rootfs);
    if (rc != SM_OK) {
        local_cg_remove(&cg);
        destroy_sandbox(id, NULL);
        local_cg_free(&cg);
        free(dir);
        free(warning);
        return rc;
    }
    local_cg_free(&cg);
    free(dir);
    *out = sm_handle_new(id, "local");
    (*out)->warning = warning;
    return SM_OK;
}

static int local_close(sm_provider *p, sm_handle *h, sm_error *err)
{
    char *dir = local_dir(h->id);
    struct stat st;
    bool exists = stat(dir, &st) == 0;
    free(dir);
    return exists ? destroy_sandbox(h->id, err) : SM_OK;
}

static int local_endpoint(sm_provider *p, sm_handle *h, int port, sm_endpoint *out, sm_error *err)
{
    local_record r;
    int rc = local_record_running(h->id, &r, err);
    if (rc != SM_OK)
        return rc;
    /* The recorded spec decides, whichever handle asks (one opened by id has no spec). */
    const cJSON *ports = cJSON_GetObjectItemCaseSensitive(r.spec, "ports"), *it;
    int declared[64];
    size_t nd = 0;
    bool found = false;
    cJSON_ArrayForEach(it, ports)
    {
        if (!cJSON_IsNumber(it))
            continue;
        if ((int)it->valuedouble == port)
            found = true;
        if (nd < sizeof declared / sizeof declared[0])
            declared[nd++] = (int)it->valuedouble;
    }
    const char *net = sm_json_str(r.spec, "network");
    bool host = net && !strcmp(net, "host"), priv = net && !strcmp(net, "private");
    char url[64];
    snprintf(url, sizeof url, "http://127.0.0.1:%d", port);
    if (found && priv)
        rc = local_net_endpoint(r.dir, h->id, port, url, sizeof url, err);
    local_record_free(&r);
    if (!found) {
        char msg[400];
        sm_ports_undeclared_msg(port, declared, nd, msg, sizeof msg);
        return sm_error_set(err, SM_ERR_INVALID, SM_FAIL_INVALID_REQUEST, "%s", msg);
    }
    if (!host && !priv)
        return sm_error_set(err, SM_ERR_UNSUPPORTED, SM_FAIL_INVALID_REQUEST,
                            "sandbox %s has no network; set network: private (or network: "
                            "host) in the local provider's config to reach its ports",
                            h->id);
    return rc != SM_OK ? rc : sm_endpoint_set(out, url, err);
}

static cJSON *local_serialize(sm_provider *p, sm_handle *h)
{
    cJSON *d = cJSON_CreateObject();
    cJSON_AddStringToObject(d, "sandbox_id", h->id);
    return d;
}

static int local_connect(sm_provider *p, const cJSON *desc, sm_handle **out, sm_error *err)
{
    const char *id = sm_json_str(desc, "sandbox_id");
    if (!id || !*id)
        return sm_error_set(err, SM_ERR_INVALID, SM_FAIL_INVALID_REQUEST,
                            "descriptor has no sandbox_id");
    for (const char *c = id; *c; c++)
        if (!((*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'f')))
            return sm_error_set(err, SM_ERR_INVALID, SM_FAIL_INVALID_REQUEST,
                                "'%s' is not a local sandbox id (12 hex characters)", id);
    local_record r;
    int rc = local_record_load(id, &r, err);
    if (rc != SM_OK)
        return rc;
    local_record_free(&r);
    *out = sm_handle_new(id, "local");
    return SM_OK;
}

static char *local_describe(sm_provider *p)
{
    local_provider *lp = p->impl;
    const char *layout = lp->cg.version == 2   ? "cgroup v2"
                         : lp->cg.version == 1 ? "cgroup v1"
                                               : "no cgroups";
    char *unplaced = lp->cg.unplaced ? xasprintf("; sandboxes stay in sandman's own cgroup on %s",
                                                 lp->cg.unplaced)
                                     : xstrdup("");
    char *d =
        lp->cg.note
            ? xasprintf("%s; limits not enforced: %s%s", layout, lp->cg.note, unplaced)
            : xasprintf("%s; limits enforced (cpu, memory, pids %ld); network %s%s%s", layout,
                        lp->pids_limit, lp->network, geteuid() ? "; user namespace" : "", unplaced);
    free(unplaced);
    return d;
}

const sm_provider_ops sm_local_provider_ops = {
    .name = "local",
    .summary = "namespaces + cgroups on this host (no daemon)",
    .caps = SM_CAP_PTY | SM_CAP_PTY_ATTACH | SM_CAP_ENDPOINT | SM_CAP_LIST | SM_CAP_STATS |
            SM_CAP_CONNECT,
    .config_keys = config_keys,
    .init = local_init,
    .destroy = local_destroy,
    .create = local_create,
    .exec = local_exec,
    .upload = local_upload,
    .download = local_download,
    .path_kind = local_path_kind,
    .tar_get = local_tar_get,
    .tar_put = local_tar_put,
    .status = local_status,
    .close = local_close,
    .pty_open = local_pty_open,
    .pty_attach = local_pty_attach,
    .pty_sessions = local_pty_sessions,
    .endpoint = local_endpoint,
    .list = local_list,
    .stats = local_stats,
    .serialize = local_serialize,
    .handle_free = local_handle_free,
    .connect = local_connect,
    .describe = local_describe,
};
