/* Internal interface of the docker provider: settings, the Engine API client (core/http.h over
 * the unix socket or TCP+TLS of DOCKER_HOST), the per-handle cache, and the parts that live in
 * separate files (exec and PTY sessions in docker_exec.c, file transfer in docker_fs.c).
 * Sandbox ids are full container ids; the CLI resolves unique prefixes (such as the 12-character
 * short ids `docker ps` shows) through list(). */
#ifndef SM_DOCKER_H
#define SM_DOCKER_H

#include <pthread.h>
#include <stdbool.h>

#include "core/http.h"
#include "core/provider_impl.h"
#include "core/strbuf.h"

/* Labels sandman puts on its containers (beside the spec's metadata). */
#define DOCKER_LABEL_PROVIDER "sandman.provider" /* = "docker": what `ls` shows without --all */
#define DOCKER_LABEL_ATTEMPT  "sandman.attempt"  /* unique per create attempt (lost replies) */
#define DOCKER_LABEL_CONTEXT  "sandman.context"  /* the config block that made it */
#define DOCKER_LABEL_TTL      "sandman.ttl_s"    /* the enforced TTL (keep-alive sleep) */
/* Environment variable that marks every process of one exec, so that a timeout or a signal can
 * find and kill them: the Engine API has no "kill this exec" call. */
#define DOCKER_EXEC_MARKER "SANDMAN_EXEC_ID"

typedef struct docker_cfg {
    char *host;        /* unix:///..., tcp://host:port, http(s)://... */
    char *api_version; /* NULL = negotiate with /_ping */
    /* create */
    char *keepalive_shell;
    char *keepalive_cmd;
    bool use_init;
    char *network; /* NULL = engine default */
    bool read_only;
    char **cap_drop; /* NULL-terminated */
    char **security_opt;
    long pids_limit; /* <= 0 = none */
    bool apply_resource_limits;
    char *publish_host;
    /* exec */
    double default_timeout_s;
    /* probe */
    char *probe_command; /* NULL = no probe */
    char *probe_expected;
    double probe_timeout_s;
    double probe_deadline_s; /* < 0 = one attempt (or the spec's ready_timeout_s) */
    long probe_stable_count;
} docker_cfg;

typedef struct docker_provider {
    docker_cfg cfg;
    sm_http *http;
    bool tls;
    pthread_mutex_t lock;
    char api[16];   /* "1.41" once known */
    char *tcp_host; /* the engine's host for endpoints on wildcard addresses (TCP only) */
} docker_provider;

typedef struct docker_executor docker_executor;

/* handle->raw: what does not change during a container's life, read once, and the handle's
 * exec helper (docker_executor.c). */
typedef struct docker_cache {
    bool inspected;
    double created_at; /* epoch s */
    double ttl_s;      /* -1 = none */
    long long mem_limit;
    double cpu_limit;
    long long pids_limit;
    char *workdir;
    long long oom_seen;        /* OOM kills already attributed (the cgroup counter), -1 unknown */
    docker_executor *executor; /* NULL until the handle's first exec */
} docker_cache;

/* "/v1.41<path>", negotiating the API version on first use. Caller frees; NULL + err when
 * the engine cannot be reached. */
char *docker_path(docker_provider *dp, sm_error *err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* A JSON call: SM_OK with *status on any answer; transport failures fill err. */
int docker_call(docker_provider *dp, const char *method, const char *path, const cJSON *body,
                double timeout_s, bool idempotent, int *status, cJSON **reply, sm_error *err);
/* Sets err from a non-2xx answer: "<op> <id>: <daemon message> (HTTP n)". */
int docker_http_error(sm_error *err, int status, const char *body_or_null, const cJSON *reply,
                      sm_failure_kind otherwise, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
/* GET /containers/{id}/json. SM_ERR_NOT_FOUND (kind not_found) when it does not exist. */
int docker_inspect(docker_provider *dp, const char *id, cJSON **out, sm_error *err);
/* The handle's cache, filled by one inspect on first use. */
docker_cache *docker_cache_get(docker_provider *dp, sm_handle *h, sm_error *err);
/* The handle's cache as it is (created empty when absent; nothing is read). */
docker_cache *docker_cache_of(sm_handle *h);
/* Epoch seconds of an RFC 3339 time with any fraction and zone; -1 for Go's zero time. */
double docker_parse_time(const char *s);
/* Removes a container (force, with its anonymous volumes); gone already = SM_OK. */
int docker_remove(docker_provider *dp, const char *id, sm_error *err);

/* One command in a container, demultiplexed. argv is the process; env entries are "K=V".
 * Output goes to the fds when >= 0, else into out/errb (which may be NULL to drop it).
 * Returns SM_OK when the command ran (its code in *code, *timed_out when the budget ran out
 * and the marked processes were killed); an error when the engine refused it. */
typedef struct docker_run {
    const char *const *argv;
    const char *cwd;
    const sm_map *env;
    const char *user;
    double timeout_s;
    int stdout_fd, stderr_fd;
    sm_strbuf *out, *errb;
    /* results */
    int code;
    bool timed_out;
} docker_run;

int docker_exec_run(docker_provider *dp, const char *cid, docker_run *r, sm_error *err);
/* Where a docker_run's output goes (its fds or buffers); stream 1 is stdout, others stderr. */
bool docker_run_sink(void *ud, unsigned stream, const char *data, size_t len);
/* POST /containers/{id}/exec; *eid gets the exec id. */
int docker_exec_create(docker_provider *dp, const char *cid, cJSON *body, char *eid, size_t len,
                       sm_error *err);

/* The handle's exec helper (docker_executor.c): runs `<keep-alive shell> -c cmd` with r's cwd,
 * env and timeout (r->argv and r->user unused: commands with a user are declined) as an exec
 * would, in a few milliseconds. DOCKER_EXECUTOR_DECLINED: nothing ran, use docker_exec_run.
 * SM_OK: r holds the result (r->timed_out: killed at the deadline). Another error: the command
 * ran but its exit status was lost. */
#define DOCKER_EXECUTOR_DECLINED 1000
int docker_executor_run(docker_provider *dp, sm_handle *h, const char *cmd, docker_run *r,
                        sm_error *err);
/* Ends the helper (it exits when its session closes). */
void docker_executor_free(docker_executor *x);
/* The signal behind an exit code of 129..192 (the engines report a process killed by signal N
 * as 128 + N, as shells do); 0 for other codes. */
int docker_exit_signal(int code);
/* Forgets the recorded OOM-kill count of a removed container. */
void docker_oom_forget(const char *cid);
/* Sends sig to every process of the container that carries marker (runs as root), and to
 * every process of the session of exec eid's first process (with children: the sessions its
 * children lead, for the exec helper) when eid is not NULL and that process can be found. */
int docker_kill_marked(docker_provider *dp, const char *cid, const char *marker, const char *eid,
                       bool children, int sig, sm_error *err);

int docker_exec(sm_provider *p, sm_handle *h, const sm_exec_request *req, sm_exec_result *res,
                sm_error *err);
int docker_pty_open(sm_provider *p, sm_handle *h, const sm_pty_spec *spec, sm_pty **out,
                    sm_error *err);
int docker_upload(sm_provider *p, sm_handle *h, const char *local, const char *remote,
                  sm_error *err);
int docker_download(sm_provider *p, sm_handle *h, const char *remote, const char *local,
                    sm_error *err);

/* Frames of Docker's multiplexed stream (8-byte header: stream, 0, 0, 0, big-endian size). */
typedef struct docker_demux {
    unsigned char hdr[8];
    size_t hdr_len;
    unsigned stream;
    size_t left; /* payload bytes left in the current frame */
    /* sinks: stream 1 -> out, 2 and 3 (the engine's own errors) -> err */
    bool (*sink)(void *ud, unsigned stream, const char *data, size_t len);
    void *ud;
} docker_demux;

/* Feeds bytes; returns false when a sink refused them. */
bool docker_demux_feed(docker_demux *d, const char *data, size_t len);

#endif
