/* The provider side of the contract (DESIGN.md §2): the vtable a provider fills, the struct
 * core builds around it, handles and the registry. Only providers/ and core include this;
 * front ends see providers through core/provider.h (name, caps, list, describe). */
#ifndef SM_PROVIDER_IMPL_H
#define SM_PROVIDER_IMPL_H

#include "core/archive.h"
#include "core/provider.h"

/* A live reference to one sandbox. raw belongs to the provider (freed by handle_free). */
typedef struct sm_handle {
    char *id;
    char *provider; /* provider name */
    void *raw;
    char *warning; /* set by create: what the sandbox runs without, for the user (owned) */
} sm_handle;

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

    /* Optional, for runtimes that keep the entrypoint's output themselves (docker logs): that
     * output, both streams in order, the last max bytes at most, malloc'd into *out. The local
     * supervisor writes it into the kept output as it comes and has none. */
    int (*entry_output)(sm_provider *p, sm_handle *h, size_t max, char **out, size_t *len,
                        sm_error *err);

    /* Tar streams for directory transfer (core/transfer.c); every provider should have them.
     * Relative remote paths are taken from the sandbox's workdir; the sandbox side acts as its
     * root (modes kept, root-only directories reachable). path_kind: what remote is, never
     * following a final link (a link is SM_KIND_OTHER). */
    int (*path_kind)(sm_provider *p, sm_handle *h, const char *remote, sm_remote_kind *kind,
                     sm_error *err);
    /* Writes a tar of remote (a file, a link or a whole directory; its top entry named by
     * remote's last component, as the Docker engine's archive API does) to out. */
    int (*tar_get)(sm_provider *p, sm_handle *h, const char *remote, sm_write_fn out, void *ud,
                   sm_error *err);
    /* Extracts the tar read from in into the directory remote_dir (created with its parents).
     * The stream may come from anywhere: names that leave remote_dir must not be written. */
    int (*tar_put)(sm_provider *p, sm_handle *h, const char *remote_dir, sm_read_fn in, void *ud,
                   sm_error *err);
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
/* Test support: forget every registration. */
void sm_provider_registry_reset(void);

void sm_handle_free(sm_provider *p, sm_handle *h);
sm_handle *sm_handle_new(const char *id, const char *provider);

#endif
