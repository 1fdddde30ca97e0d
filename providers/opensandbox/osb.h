/* The opensandbox provider's shared state (providers/opensandbox): its settings (the keys of
 * NeMo Gym's sandbox.opensandbox block, osb_config.c), the lifecycle client and per-handle
 * execd clients. Internal to this folder. */
#ifndef SM_OSB_H
#define SM_OSB_H

#include <pthread.h>

#include "core/http.h"
#include "core/provider_impl.h"

typedef struct osb_cfg {
    char *domain, *api_key, *protocol;
    double request_timeout_s;
    bool use_server_proxy, disable_pooling;
    double keepalive_expiry_s;
    long connect_retries;
    double create_request_timeout_s, create_timeout_s;
    long create_retries;
    double create_retry_delay_s, create_retry_max_delay_s;
    char *image_pull_policy;
    bool skip_health_check;
    double connect_attempt_timeout_s, connect_poll_s;
    char *probe_command, *probe_expected;
    double probe_timeout_s, probe_deadline_s;
    long probe_stable_count;
    double probe_stable_delay_s;
    long op_retries;
    double op_retry_delay_s, op_retry_max_delay_s, close_timeout_s;
    bool attribution_enabled;
    char *team, *user, *workload, *run, *key_prefix;
    char *warnings; /* one line: what is accepted but not honoured */
} osb_cfg;

typedef struct osb {
    osb_cfg cfg;
    sm_http *api;
    char *key_header; /* "OPEN-SANDBOX-API-KEY: ..." (registered with core/redact.c) */
} osb;

/* What a handle knows (raw). */
typedef struct osb_box {
    pthread_mutex_t lock;
    sm_http *execd;    /* built on first use from the 44772 endpoint */
    double expires_at; /* epoch s, -1 none */
    int *ports;
    size_t nports;
    char *workdir; /* the spec's, kept in a label so another process finds it */
} osb_box;

/* Label keys (after the configured key prefix) of what a sandbox carries for us. */
#define OSB_ATTEMPT_KEY "sandman-create-attempt"
#define OSB_PORTS_KEY   "sandman-ports"
#define OSB_WORKDIR_KEY "sandman-workdir"

extern const char *const osb_config_keys[];
int osb_cfg_parse(const cJSON *config, osb_cfg *c, sm_error *err);
void osb_cfg_free(osb_cfg *c);

/* A lifecycle call: JSON in and out, the key header, errors naming the operation. */
int osb_call(osb *o, const char *method, const char *path, const cJSON *body, double timeout_s,
             bool idempotent, int *status, cJSON **reply, sm_error *err);
osb_box *osb_box_of(sm_handle *h);
/* The create request's body for spec, tagged with attempt (osb_body.c); NULL with err set on
 * bad provider_options or no image. Caller deletes. */
cJSON *osb_create_body(osb *o, sm_provider *p, const sm_spec *spec, const char *attempt,
                       sm_error *err);
/* A path as a label value and back (osb_body.c); NULL when it does not fit or is not one.
 * Caller frees. */
char *osb_workdir_label(const char *path);
char *osb_workdir_unlabel(const char *v);
/* The execd client of a sandbox (endpoint of port 44772, direct or through the server). */
int osb_execd(osb *o, sm_handle *h, sm_http **out, sm_error *err);

int osb_exec(sm_provider *p, sm_handle *h, const sm_exec_request *req, sm_exec_result *res,
             sm_error *err);
int osb_upload(sm_provider *p, sm_handle *h, const char *local, const char *remote, sm_error *err);
int osb_download(sm_provider *p, sm_handle *h, const char *remote, const char *local,
                 sm_error *err);

#endif
