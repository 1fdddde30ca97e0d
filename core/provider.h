/* Providers as front ends see them (DESIGN.md §2): an opaque sm_provider built from a config
 * context, its name, capability bits, list and runtime notes, and what it says about
 * sandboxes. Front ends ask for capability bits; they never branch on a provider's name nor
 * read its vtable (that is core/provider_impl.h, for providers/ and core). */
#ifndef SM_PROVIDER_H
#define SM_PROVIDER_H

#include <stdbool.h>
#include <stddef.h>

#include "core/config.h"
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

/* The registry's names, sorted; the array is static storage valid until the next register
 * call. */
size_t sm_provider_names(const char **names, size_t max);
/* What the registry knows of a provider without building it; -1 for an unknown name. */
int sm_provider_about(const char *name, const char **summary, unsigned *caps);
/* The runtime notes of a provider built with its defaults (`sandman providers`), or NULL
 * when it has none or cannot be built. Caller frees. */
char *sm_provider_describe_default(const char *name);

/* Builds a provider: validates config keys against the provider's allowed keys, then its
 * init. config may be NULL ({}). On success *out is owned by the caller (sm_provider_free). */
int sm_provider_new(const char *name, const cJSON *config, sm_provider **out, sm_error *err);
/* The one place a provider is assembled from configuration: the context named (NULL: the
 * config's default, see sm_config_resolve) with its options, default_metadata and image
 * rewrites. On success *out is owned by the caller (sm_provider_free). */
int sm_provider_open(const sm_config *config, const char *context, sm_provider **out,
                     sm_error *err);
void sm_provider_free(sm_provider *p);

/* The front ends' view of a built provider. */
const char *sm_provider_name(const sm_provider *p);
/* The config block it came from (or the provider name). */
const char *sm_provider_context(const sm_provider *p);
unsigned sm_provider_caps(const sm_provider *p);
/* What exists now (SM_CAP_LIST; SM_ERR_UNSUPPORTED without it), oldest first. *out is
 * malloc'd (sm_sandbox_info_list_free). */
int sm_provider_list(sm_provider *p, const sm_list_filter *f, sm_sandbox_info **out, size_t *n,
                     sm_error *err);
/* Runtime notes (cgroup version, limits enforced, ...), or NULL. Caller frees. */
char *sm_provider_describe(sm_provider *p);

/* Looks up a sandbox by id or unique id prefix through the provider's list (ended ones too).
 * *full is malloc'd. Errors: SM_ERR_NOT_FOUND, SM_ERR_AMBIGUOUS (names the candidates). */
int sm_provider_resolve_id(sm_provider *p, const char *prefix, char **full, sm_error *err);
#endif
