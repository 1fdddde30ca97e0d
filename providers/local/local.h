/* Internal interface of the local provider's client side (the part linked into sandman):
 * provider settings, the on-disk sandbox record, cgroups, exec/PTY over the control socket and
 * file transfer. The state of sandbox ID lives in <state>/local/ID/:
 *   spec.json   the spec and settings, written once by the creator
 *   launch.conf what the supervisor needs to start it
 *   lock        flock'ed by the supervisor for its whole life
 *   ready       init pid + start time, once the sandbox answers
 *   end         why it ended, written by the supervisor
 *   ctl.sock    the init's control socket
 *   removing    made by rm before it removes the directory
 *   tmp/ work/ upper/ ovl/ root/   the sandbox's private filesystem parts */
#ifndef SM_LOCAL_H
#define SM_LOCAL_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "core/provider_impl.h"

/* The hierarchies a sandbox is placed on. The first slots are the controllers whose limits and
 * counters we use (cpu and cpuacct share a directory when co-mounted); every other mounted v1
 * hierarchy (freezer, devices, cpuset, name=systemd, ...) takes a slot from CG_OTHER on, so that
 * the sandbox's cgroup namespace is rooted at its own cgroup on all of them. */
enum local_ctrl {
    CG_MEMORY,
    CG_CPU,
    CG_CPUACCT,
    CG_PIDS,
    CG_BLKIO,
    CG_UNIFIED,
    CG_OTHER,
    CG__COUNT = CG_OTHER + 16
};

/* The sandbox's processes live in <its cgroup>/LOCAL_CG_LEAF while its limits are written on
 * <its cgroup>: its cgroup namespace is rooted at the leaf, so even a cgroup hierarchy mounted
 * from nested namespaces inside shows no file that holds a limit. */
#define LOCAL_CG_LEAF "sandbox"

/* local.pids_limit, when not 0 (no limit): the sandbox's init, a shell and a few children
 * need a handful; the kernel's pids.max takes at most PID_MAX_LIMIT (2^22). */
#define LOCAL_MIN_PIDS 8
#define LOCAL_MAX_PIDS 4194304

/* The host's cgroup layout as seen by this process. */
typedef struct local_cg_layout {
    int version;           /* 1 = v1 or hybrid, 2 = pure v2, 0 = none usable */
    char *base[CG__COUNT]; /* <mount><own cgroup>/sandman: where <id> goes */
    char *note;            /* why limits are not enforced, NULL when they are */
    char *unplaced; /* hierarchies a sandbox cannot be placed on (not mounted or not writable) */
} local_cg_layout;

typedef struct local_provider {
    char *network; /* "none", "private" or "host" */
    long pids_limit;
    char *image; /* default image */
    char *shell;
    char *workdir; /* default workdir */
    double default_timeout_s;
    char *supervisor; /* path of sandman-supervisor */
    char *seccomp;    /* "default" or "unconfined" */
    char *shell_rc;   /* "clean" (default) or "host": the host image's interactive shell rc */
    bool nested_userns, no_new_privs;
    bool pids_limit_set;  /* pids_limit was configured, so it is asked for, not a default */
    bool warn_unenforced; /* unenforced_limits: warn (run without limits that cannot be applied) */
    bool expose_home;     /* host image: show /root and /home (hidden by default) */
    char **hide;          /* host image: more absolute paths to hide */
    size_t nhide;
    local_cg_layout cg;
} local_provider;

/* Cgroup paths of one sandbox (NULL where not created): <base>/<id>, which holds its limits;
 * its processes are in <dir>/LOCAL_CG_LEAF. Co-mounted controllers repeat the same path. */
typedef struct local_cgroups {
    int version;
    char *dir[CG__COUNT];
} local_cgroups;

/* One sandbox as read from its directory. */
typedef struct local_record {
    char *id;
    char *dir;
    cJSON *spec; /* spec.json */
    bool ready, ended, sup_alive;
    char *damaged; /* what of the record is unreadable ("spec.json: ..."), or NULL */
    pid_t init_pid, sup_pid;
    unsigned long long starttime;
    double created_at, ready_at;
    sm_failure end; /* why it ended */
    double ended_at;
    local_cgroups cg;
} local_record;

/* Returns the directory holding every local sandbox (<state>/local); static storage. */
const char *local_root(void);
char *local_dir(const char *id);

int local_record_load(const char *id, local_record *r, sm_error *err);
void local_record_free(local_record *r);
sm_status local_record_status(const local_record *r, sm_failure *why);
bool local_record_init_alive(const local_record *r);
/* The supervisor holding <dir>/lock, found in /proc/locks (what the ready file says may be
 * damaged). 0 when none. */
pid_t local_record_lock_holder(const char *dir);
/* Whether any of the sandbox still runs (its supervisor or its init). */
bool local_record_alive(const local_record *r);
void local_record_info(const local_record *r, sm_sandbox_info *info);
/* Loads a record that must be running; otherwise a clear runtime error. */
int local_record_running(const char *id, local_record *r, sm_error *err);

void local_cg_detect(local_cg_layout *cg);
/* The layout described by the text of /proc/self/mountinfo and /proc/self/cgroup (pure_v2: the
 * host mounts cgroup2 at /sys/fs/cgroup), without checking what this user may write. */
void local_cg_parse(local_cg_layout *cg, const char *mountinfo, const char *self_cgroup,
                    bool pure_v2);
void local_cg_layout_free(local_cg_layout *cg);
/* Places the sandbox in a cgroup of its own on every usable hierarchy and writes its limits.
 * A limit that was asked for (resources.cpu, resources.memory_mib, a configured pids_limit)
 * and cannot be applied fails the create (SM_ERR_RUNTIME, saying why and how to get limits),
 * unless lp->warn_unenforced: then *warning (malloc'd) says so for the caller to show. *note
 * (malloc'd, NULL when every limit holds) is what status keeps. On failure nothing is left. */
int local_cg_create(const local_provider *lp, const char *id, const sm_resources *res,
                    local_cgroups *out, char **note, char **warning, sm_error *err);
/* The launch lines of the cgroups: cg= for every sandbox cgroup, then for every leaf (the
 * supervisor joins them in order, so the init ends in the leaves, and removes them in order,
 * each with everything below it), and where the supervisor reads its end counters. */
void local_cg_launch(FILE *f, const local_cgroups *cg);
/* The record's "cgroups" object, and back. */
cJSON *local_cg_to_json(const local_cgroups *cg);
void local_cg_from_json(const cJSON *o, local_cgroups *cg);
/* Kills what is left in the sandbox's cgroups and removes them with every cgroup below. */
void local_cg_remove(const local_cgroups *cg);
void local_cg_free(local_cgroups *cg);
/* The counter files of one sandbox kept open between samples and re-read with pread (the
 * sampler reads them every tick; walking the cgroup paths each time costs more than reading). */
enum {
    CGF_CPUACCT,
    CGF_CPU_STAT,
    CGF_MEM_USAGE,
    CGF_MEM_STAT,
    CGF_MEM_EVENTS,
    CGF_PIDS,
    CGF_PIDS_EVENTS,
    CGF_IO,
    CGF__COUNT
};
typedef struct local_cg_files {
    int fd[CGF__COUNT]; /* 0 = not opened yet, -1 = read by path */
} local_cg_files;
void local_cg_files_close(local_cg_files *f);

/* Reads the counters (through f when given); the limits (cpu quota, memory and pids maximum)
 * only when read_limits, since they do not change after create. */
void local_cg_stats(const local_cgroups *cg, local_cg_files *f, sm_sample *s, bool read_limits);
/* The OOM-kill and pids-limit counters, for attributing one command's failure. */
void local_cg_counters(const local_cgroups *cg, long long *oom, long long *pids_events);
long long local_cg_memory_limit(const local_cgroups *cg);

int local_exec(sm_provider *p, sm_handle *h, const sm_exec_request *req, sm_exec_result *res,
               sm_error *err);
int local_pty_open(sm_provider *p, sm_handle *h, const sm_pty_spec *spec, sm_pty **out,
                   sm_error *err);
int local_pty_attach(sm_provider *p, sm_handle *h, const char *session_id, bool takeover,
                     long long since, sm_pty **out, sm_error *err);
int local_pty_sessions(sm_provider *p, sm_handle *h, sm_pty_session_info **out, size_t *n,
                       sm_error *err);
/* Connects to a running sandbox's control socket. */
int local_ctl_connect(const local_record *r, int *fd, sm_error *err);
/* The environment for a command: defaults, the spec's env, then extra. Caller frees. */
char **local_build_env(const local_record *r, const sm_map *extra, const char *term);

int local_upload(sm_provider *p, sm_handle *h, const char *local, const char *remote,
                 sm_error *err);
int local_download(sm_provider *p, sm_handle *h, const char *remote, const char *local,
                   sm_error *err);
int local_path_kind(sm_provider *p, sm_handle *h, const char *remote, sm_remote_kind *kind,
                    sm_error *err);
int local_tar_get(sm_provider *p, sm_handle *h, const char *remote, sm_write_fn out, void *ud,
                  sm_error *err);
int local_tar_put(sm_provider *p, sm_handle *h, const char *remote_dir, sm_read_fn in, void *ud,
                  sm_error *err);

/* The provider's status, list, stats and handle_free (local_list.c, local_stats.c). */
int local_status(sm_provider *p, sm_handle *h, sm_sandbox_info *info, sm_error *err);
int local_list(sm_provider *p, const sm_list_filter *f, sm_sandbox_info **out, size_t *n,
               sm_error *err);
int local_stats(sm_provider *p, sm_handle *h, sm_sample *s, sm_error *err);
void local_handle_free(sm_provider *p, sm_handle *h);

#endif
