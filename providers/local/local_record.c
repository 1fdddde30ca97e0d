/* The on-disk record of a local sandbox: loading it, deciding its status (the supervisor's
 * lock says whether it lives; its end file says why it ended) and describing it. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "core/json.h"
#include "core/util.h"
#include "providers/local/launch.h"
#include "providers/local/local.h"

const char *local_root(void)
{
    static __thread char buf[4096];
    snprintf(buf, sizeof buf, "%s/local", sm_state_dir());
    return buf;
}

char *local_dir(const char *id)
{
    return xasprintf("%s/%s", local_root(), id);
}

static bool supervisor_alive(const char *dir)
{
    char *path = xasprintf("%s/lock", dir);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    free(path);
    if (fd < 0)
        return false;
    bool alive = flock(fd, LOCK_SH | LOCK_NB) < 0 && errno == EWOULDBLOCK;
    close(fd);
    return alive;
}

bool local_record_init_alive(const local_record *r)
{
    return r->init_pid > 0 && r->starttime && sm_proc_start(r->init_pid, NULL) == r->starttime;
}

bool local_record_alive(const local_record *r)
{
    return r->sup_alive || local_record_init_alive(r);
}

/* Keeps the first damage found; a damaged record is still a sandbox (rm must reach it). */
static void note_damage(local_record *r, const char *file, const char *why)
{
    if (!r->damaged)
        r->damaged = xasprintf("%s: %s", file, why);
}

/* Whether dir/name exists. A record without spec.json is one being created (its supervisor,
 * which makes the lock, starts after the record is written) unless it has a lock, or rm has
 * marked it as one it could not remove completely. */
static bool has(const char *dir, const char *name)
{
    char *path = xasprintf("%s/%s", dir, name);
    bool yes = access(path, F_OK) == 0;
    free(path);
    return yes;
}

pid_t local_record_lock_holder(const char *dir)
{
    char *path = xasprintf("%s/lock", dir);
    struct stat st;
    int rc = stat(path, &st);
    free(path);
    FILE *f = rc == 0 ? fopen("/proc/locks", "re") : NULL;
    if (!f)
        return 0;
    char line[256];
    pid_t pid = 0;
    while (!pid && fgets(line, sizeof line, f)) {
        long p;
        unsigned maj, min;
        unsigned long long ino;
        if (sscanf(line, "%*d: FLOCK %*s %*s %ld %x:%x:%llu", &p, &maj, &min, &ino) == 4 &&
            ino == (unsigned long long)st.st_ino && maj == major(st.st_dev) &&
            min == minor(st.st_dev))
            pid = (pid_t)p;
    }
    fclose(f);
    return pid;
}

static void load_end(const char *dir, local_record *r)
{
    struct launch e;
    char *path = xasprintf("%s/end", dir);
    int rc = launch_read(path, &e);
    free(path);
    if (rc < 0)
        return;
    const char *kind = launch_get(&e, "kind", NULL);
    if (!kind || sm_failure_kind_parse(kind, &r->end.kind) != 0) {
        /* Written by the supervisor as it ends; while its lock is held it has not ended. */
        launch_free(&e);
        note_damage(r, "end", kind ? "an unknown kind of end" : "truncated or unreadable");
        r->ended = !supervisor_alive(dir);
        r->end.kind = SM_FAIL_SANDBOX_ERROR;
        return;
    }
    r->ended = true;
    sm_failure_init(&r->end);
    sm_failure_kind_parse(kind, &r->end.kind);
    snprintf(r->end.operation, sizeof r->end.operation, "lifecycle");
    snprintf(r->end.sandbox_id, sizeof r->end.sandbox_id, "%s", r->id);
    snprintf(r->end.provider, sizeof r->end.provider, "local");
    snprintf(r->end.reason, sizeof r->end.reason, "%s", launch_get(&e, "reason", ""));
    r->end.exit_code = (int)launch_get_ll(&e, "exit_code", -1);
    r->end.signal = (int)launch_get_ll(&e, "signal", 0);
    r->end.oom_kills = launch_get_ll(&e, "oom_kills", -1);
    r->end.memory_limit = launch_get_ll(&e, "memory_limit", -1);
    r->end.pids_events = launch_get_ll(&e, "pids_events", -1);
    double ended;
    r->ended_at = sm_parse_double(launch_get(&e, "ended_at", ""), &ended) == 0 ? ended : -1;
    launch_free(&e);
}

int local_record_load(const char *id, local_record *r, sm_error *err)
{
    memset(r, 0, sizeof *r);
    r->id = xstrdup(id);
    r->dir = local_dir(id);
    r->created_at = r->ready_at = r->ended_at = -1;
    sm_failure_init(&r->end);
    struct stat st;
    if (lstat(r->dir, &st) < 0 || !S_ISDIR(st.st_mode)) {
        local_record_free(r);
        return sm_error_set(err, SM_ERR_NOT_FOUND, SM_FAIL_NOT_FOUND, "no local sandbox '%s'", id);
    }
    char *path = xasprintf("%s/spec.json", r->dir), *text = NULL;
    int rc = sm_read_file(path, &text, NULL), read_errno = errno;
    free(path);
    if (rc < 0 && read_errno == ENOENT && sm_now_wall() - (double)st.st_mtime < 10 &&
        !has(r->dir, "removing") && !has(r->dir, "lock")) {
        /* A creator between making the directory and writing the record. */
        local_record_free(r);
        return sm_error_set(err, SM_ERR_NOT_FOUND, SM_FAIL_NOT_FOUND, "no local sandbox '%s'", id);
    }
    r->spec = rc == 0 ? cJSON_Parse(text) : NULL;
    free(text);
    if (!cJSON_IsObject(r->spec)) {
        if (rc < 0 && has(r->dir, "removing"))
            note_damage(r, "partly removed", "an earlier rm could not remove everything");
        else
            note_damage(r, "spec.json",
                        rc < 0 ? strerror(read_errno) : "truncated or not a JSON object");
        cJSON_Delete(r->spec);
        r->spec = cJSON_CreateObject();
    }
    r->created_at = sm_json_num(r->spec, "created_at", -1);
    local_cg_from_json(cJSON_GetObjectItemCaseSensitive(r->spec, "cgroups"), &r->cg);
    if (r->damaged) {
        /* The cgroups are in the launch file too (each sandbox cgroup, then its leaf); rm
         * must find them to kill and remove. */
        struct launch l;
        path = xasprintf("%s/launch.conf", r->dir);
        if (launch_read(path, &l) == 0) {
            const char *dirs[2 * CG__COUNT];
            size_t n = launch_get_all(&l, "cg", dirs, 2 * CG__COUNT), k = 0;
            local_cg_free(&r->cg);
            const size_t leaf = strlen("/" LOCAL_CG_LEAF);
            for (size_t i = 0; i < n && k < CG__COUNT; i++) {
                size_t len = strlen(dirs[i]);
                if (len <= leaf || strcmp(dirs[i] + len - leaf, "/" LOCAL_CG_LEAF))
                    r->cg.dir[k++] = xstrdup(dirs[i]);
            }
            r->cg.version = (int)launch_get_ll(&l, "cg_version", 0);
            launch_free(&l);
        }
        free(path);
    }
    struct launch ready;
    path = xasprintf("%s/ready", r->dir);
    if (launch_read(path, &ready) == 0) {
        r->ready = true;
        r->init_pid = (pid_t)launch_get_ll(&ready, "pid", 0);
        r->sup_pid = (pid_t)launch_get_ll(&ready, "supervisor", 0);
        r->starttime = (unsigned long long)launch_get_ll(&ready, "starttime", 0);
        double t;
        r->ready_at = sm_parse_double(launch_get(&ready, "ready_at", ""), &t) == 0 ? t : -1;
        launch_free(&ready);
        if (r->init_pid <= 0 || r->sup_pid <= 0 || !r->starttime)
            note_damage(r, "ready", "truncated or unreadable");
    }
    free(path);
    load_end(r->dir, r);
    if (!r->ended)
        r->sup_alive = supervisor_alive(r->dir);
    if (r->sup_alive && r->sup_pid <= 0)
        r->sup_pid = local_record_lock_holder(r->dir);
    return SM_OK;
}

void local_record_free(local_record *r)
{
    free(r->id);
    free(r->dir);
    free(r->damaged);
    cJSON_Delete(r->spec);
    local_cg_free(&r->cg);
    memset(r, 0, sizeof *r);
}

sm_status local_record_status(const local_record *r, sm_failure *why)
{
    if (why)
        sm_failure_init(why);
    if (r->damaged) {
        if (why) {
            why->kind = SM_FAIL_SANDBOX_ERROR;
            snprintf(why->operation, sizeof why->operation, "lifecycle");
            snprintf(why->sandbox_id, sizeof why->sandbox_id, "%s", r->id);
            snprintf(why->provider, sizeof why->provider, "local");
            snprintf(why->reason, sizeof why->reason, "damaged record: %s%s", r->damaged,
                     local_record_alive(r) ? "; its processes are still running (rm removes it)"
                                           : " (rm removes it)");
        }
        return SM_STATUS_ERROR;
    }
    if (r->ended) {
        if (why)
            *why = r->end;
        return r->end.kind == SM_FAIL_SANDBOX_ERROR ? SM_STATUS_ERROR : SM_STATUS_STOPPED;
    }
    if (r->sup_alive)
        return r->ready ? SM_STATUS_RUNNING : SM_STATUS_STARTING;
    /* No supervisor and no end record. A creator may still be between writing the record and
     * starting the supervisor; otherwise the supervisor died without saying why. */
    double budget = sm_json_num(r->spec, "ready_timeout_s", 60);
    if (!r->ready && r->created_at > 0 && sm_now_wall() - r->created_at < budget)
        return SM_STATUS_STARTING;
    if (why) {
        why->kind = SM_FAIL_SUPERVISOR_LOST;
        snprintf(why->operation, sizeof why->operation, "lifecycle");
        snprintf(why->sandbox_id, sizeof why->sandbox_id, "%s", r->id);
        snprintf(why->provider, sizeof why->provider, "local");
        snprintf(why->reason, sizeof why->reason,
                 local_record_init_alive(r)
                     ? "the supervisor died; sandbox processes are still running (rm cleans up)"
                     : "the supervisor died without recording why the sandbox ended");
    }
    return SM_STATUS_ERROR;
}

int local_record_running(const char *id, local_record *r, sm_error *err)
{
    int rc = local_record_load(id, r, err);
    if (rc != SM_OK)
        return rc;
    sm_failure why;
    sm_status st = local_record_status(r, &why);
    if (st == SM_STATUS_RUNNING && local_record_init_alive(r))
        return SM_OK;
    char label[128] = "";
    sm_failure_label(&why, label, sizeof label);
    sm_error_set(err, SM_ERR_RUNTIME, why.kind != SM_FAIL_NONE ? why.kind : SM_FAIL_SANDBOX_ERROR,
                 "sandbox %s is %s%s%s%s", id, sm_status_name(st), label[0] ? " (" : "", label,
                 label[0] ? ")" : "");
    if (err)
        err->failure = why.kind != SM_FAIL_NONE ? why : err->failure;
    if (err && why.kind != SM_FAIL_NONE)
        snprintf(err->failure.reason, sizeof err->failure.reason, "%s", err->msg);
    local_record_free(r);
    return SM_ERR_RUNTIME;
}

void local_record_info(const local_record *r, sm_sandbox_info *i)
{
    sm_sandbox_info_init(i);
    i->id = xstrdup(r->id);
    i->provider = xstrdup("local");
    i->status = local_record_status(r, &i->failure);
    const char *img = sm_json_str(r->spec, "image");
    i->image = xstrdup(img ? img : "host");
    i->created_at = r->created_at;
    i->ready_at = r->ready_at;
    i->ended_at = r->ended ? r->ended_at : -1;
    i->ttl_s = sm_json_num(r->spec, "ttl_s", -1);
    const char *wd = sm_json_str(r->spec, "workdir");
    i->workdir = wd ? xstrdup(wd) : NULL;
    char ebuf[64];
    sm_map_from_json(cJSON_GetObjectItemCaseSensitive(r->spec, "metadata"), &i->labels, ebuf,
                     sizeof ebuf);
    const cJSON *env = cJSON_GetObjectItemCaseSensitive(r->spec, "env"), *it;
    cJSON_ArrayForEach(it, env) sm_map_set(&i->env_names, it->string, "");
    sm_resources_from_json(cJSON_GetObjectItemCaseSensitive(r->spec, "resources"), &i->resources,
                           NULL);
    const cJSON *ports = cJSON_GetObjectItemCaseSensitive(r->spec, "ports");
    int np = cJSON_GetArraySize(ports);
    if (np > 0) {
        i->ports = xcalloc((size_t)np, sizeof(int));
        cJSON_ArrayForEach(it, ports) i->ports[i->nports++] = (int)it->valuedouble;
    }
    const char *note = sm_json_str(r->spec, "limits_note");
    if (note)
        i->detail = xasprintf("limits not enforced: %s", note);
    i->extra = cJSON_CreateObject();
    cJSON_AddStringToObject(i->extra, "dir", r->dir);
    if (r->init_pid > 0)
        cJSON_AddNumberToObject(i->extra, "init_pid", r->init_pid);
    cJSON_AddStringToObject(i->extra, "network",
                            sm_json_str(r->spec, "network") ? sm_json_str(r->spec, "network")
                                                            : "none");
    cJSON_AddNumberToObject(i->extra, "cgroup_version", r->cg.version);
    cJSON_AddBoolToObject(i->extra, "limits_enforced", note == NULL);
    const char *ctx = sm_json_str(r->spec, "context");
    if (ctx)
        cJSON_AddStringToObject(i->extra, "context", ctx);
}
