/* The provider contract (DESIGN.md §2): a vtable of operations plus capability bits, and the
 * registry that maps names to vtables and builds providers from config blocks.
 * Front ends ask for capability bits; they never branch on a provider's name. */
#ifndef SM_PROVIDER_H
#define SM_PROVIDER_H

#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"
#include "core/kv.h"
#include "core/spec.h"
#include "core/telemetry.h"

typedef struct cJSON cJSON;
typedef struct sm_pty sm_pty;
typedef struct sm_provider sm_provider;

typedef enum sm_status {
    SM_STATUS_STARTING = 0,
    SM_STATUS_RUNNING,
    SM_STATUS_STOPPED,
    SM_STATUS_ERROR,
    SM_STATUS_UNKNOWN,
} sm_status;

const char *sm_status_name(sm_status s);
int sm_status_parse(const char *name, sm_status *out);

/* Capability bits for the optional operations. */
enum {
    SM_CAP_PTY = 1u << 0,        /* pty_open */
    SM_CAP_PTY_ATTACH = 1u << 1, /* pty_attach (takeover, replay since offset) */
    SM_CAP_ENDPOINT = 1u << 2,   /* endpoint(port) */
    SM_CAP_LIST = 1u << 3,       /* list(filter): what exists now, made by any process */
    SM_CAP_STATS = 1u << 4,      /* stats(handle) */
    SM_CAP_CONNECT = 1u << 5,    /* serialize/connect */
    SM_CAP_PAUSE = 1u << 6,      /* pause/resume */
};

/* Names of the capability bits, for `sandman providers`. */
void sm_caps_names(unsigned caps, char *buf, size_t len);

/* A live reference to one sandbox. raw belongs to the provider (freed by handle_free). */
typedef struct sm_handle {
    char *id;
    char *provider; /* provider name */
    void *raw;
    char *warning; /* set by create: what the sandbox runs without, for the user (owned) */
} sm_handle;

/* What a provider knows about one sandbox (status, list). All strings owned. */
typedef struct sm_sandbox_info {
    char *id;
    char *provider;
    sm_status status;
    char *image;
    double created_at; /* epoch s */
    double ready_at;   /* epoch s, -1 unknown */
    double ended_at;   /* epoch s, -1 while alive */
    double ttl_s;      /* -1 = none */
    char *workdir;
    sm_map labels;
    sm_map env_names; /* names only; values never leave the provider */
    sm_resources resources;
    int *ports;
    size_t nports;
    sm_failure failure; /* why it ended, or the last failure seen */
    char *detail;       /* provider note, e.g. "limits not enforced: cgroups not writable" */
    cJSON *extra;       /* provider specifics (pid, cgroup paths, ...) */
} sm_sandbox_info;

void sm_sandbox_info_init(sm_sandbox_info *i);
void sm_sandbox_info_free(sm_sandbox_info *i);
void sm_sandbox_info_list_free(sm_sandbox_info *list, size_t n);
/* Sorts a list oldest first (by created_at), the order providers' list returns. */
void sm_sandbox_info_sort(sm_sandbox_info *list, size_t n);
cJSON *sm_sandbox_info_to_json(const sm_sandbox_info *i);
/* Seconds of TTL left at wall time now; -1 without a TTL; 0 once expired or ended. */
double sm_sandbox_info_ttl_left(const sm_sandbox_info *i, double now);

/* A PTY session held by a sandbox (to re-attach to). */
typedef struct sm_pty_session_info {
    char id[64];
    int pid;
    bool running;
    bool attached;
    long long bytes; /* output produced so far */
    char command[96];
} sm_pty_session_info;

typedef struct sm_list_filter {
    const sm_map *labels; /* every label must match (NULL = any) */
    bool all;             /* include ended sandboxes (and, for engines, every container) */
} sm_list_filter;

typedef struct sm_provider_ops {
    const char *name;
    const char *summary;
    unsigned caps;
    const char *const *config_keys; /* allowed config keys (NULL-terminated) */

    /* Required. */
    int (*init)(sm_provider *p, const cJSON *config, sm_error *err);
    void (*destroy)(sm_provider *p);
    int (*create)(sm_provider *p, const sm_spec *spec, sm_handle **out, sm_error *err);
    int (*exec)(sm_provider *p, sm_handle *h, const sm_exec_request *req, sm_exec_result *res,
                sm_error *err);
    int (*upload)(sm_provider *p, sm_handle *h, const char *local, const char *remote,
                  sm_error *err);
    int (*download)(sm_provider *p, sm_handle *h, const char *remote, const char *local,
                    sm_error *err);
    /* Fills info; a transient error yields status UNKNOWN rather than an error code. */
    int (*status)(sm_provider *p, sm_handle *h, sm_sandbox_info *info, sm_error *err);
    /* Ends the sandbox and removes every trace; already gone = success. */
    int (*close)(sm_provider *p, sm_handle *h, sm_error *err);
    void (*handle_free)(sm_provider *p, sm_handle *h);

    /* Optional (behind capability bits). */
    int (*pty_open)(sm_provider *p, sm_handle *h, const sm_pty_spec *spec, sm_pty **out,
                    sm_error *err);
    int (*pty_attach)(sm_provider *p, sm_handle *h, const char *session_id, bool takeover,
                      long long since, sm_pty **out, sm_error *err);
    /* The PTY sessions a sandbox holds (with SM_CAP_PTY_ATTACH). */
    int (*pty_sessions)(sm_provider *p, sm_handle *h, sm_pty_session_info **out, size_t *n,
                        sm_error *err);
    int (*endpoint)(sm_provider *p, sm_handle *h, int port, sm_endpoint *out, sm_error *err);
    int (*list)(sm_provider *p, const sm_list_filter *f, sm_sandbox_info **out, size_t *n,
                sm_error *err);
    int (*stats)(sm_provider *p, sm_handle *h, sm_sample *out, sm_error *err);
    cJSON *(*serialize)(sm_provider *p, sm_handle *h);
    int (*connect)(sm_provider *p, const cJSON *descriptor, sm_handle **out, sm_error *err);
    int (*pause)(sm_provider *p, sm_handle *h, sm_error *err);
    int (*resume)(sm_provider *p, sm_handle *h, sm_error *err);
    /* Runtime notes for `sandman providers` (e.g. cgroup version, limits enforced); may be
     * NULL. Returns a malloc'd line. */
    char *(*describe)(sm_provider *p);
} sm_provider_ops;

struct sm_provider {
    const sm_provider_ops *ops;
    char *context;           /* config block name (or the provider name) */
    sm_map default_metadata; /* merged under every spec's metadata */
    sm_map image_rewrites;   /* ordered prefix rules: from -> to */
    void *impl;
};

/* Registry. Registering the same name twice (or an empty name) is an error. */
int sm_provider_register(const sm_provider_ops *ops, sm_error *err);
const sm_provider_ops *sm_provider_lookup(const char *name);
/* Sorted names; the array is static storage valid until the next register call. */
size_t sm_provider_names(const char **names, size_t max);
/* Test support: forget every registration. */
void sm_provider_registry_reset(void);

/* Builds a provider: validates config keys against ops->config_keys, then ops->init.
 * config may be NULL ({}). On success *out is owned by the caller (sm_provider_free). */
int sm_provider_new(const char *name, const cJSON *config, sm_provider **out, sm_error *err);
void sm_provider_free(sm_provider *p);

void sm_handle_free(sm_provider *p, sm_handle *h);
sm_handle *sm_handle_new(const char *id, const char *provider);

/* Looks up a sandbox by id or unique id prefix through the provider's list (ended ones too).
 * *full is malloc'd. Errors: SM_ERR_NOT_FOUND, SM_ERR_AMBIGUOUS (names the candidates). */
int sm_provider_resolve_id(sm_provider *p, const char *prefix, char **full, sm_error *err);

#endif
