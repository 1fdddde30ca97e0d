/* The docker provider's settings: the config keys it accepts, their defaults and parsing. The
 * bottom floor of the provider: it knows nothing of the engine. */
#ifndef SM_DOCKER_CONFIG_H
#define SM_DOCKER_CONFIG_H

#include <stdbool.h>

#include "core/error.h"
#include "core/spec.h"

typedef struct cJSON cJSON;

/* The probe create runs unless configured otherwise (create proves it without an exec). */
#define DOCKER_DEFAULT_PROBE_COMMAND  "printf docker-sandbox-ready"
#define DOCKER_DEFAULT_PROBE_EXPECTED "docker-sandbox-ready"

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
    double start_timeout_s; /* one create or start request */
    char **extra_run_args;  /* docker run flags, translated at create (docker_args.h) */
    /* exec */
    double default_timeout_s;
    char **extra_exec_args; /* docker exec flags, translated per exec */
    long concurrency;       /* engine calls of execs at once, per provider */
    char *exec_shell;       /* NULL = bash when the container has it, else sh */
    /* probe */
    char *probe_command; /* NULL = no probe */
    char *probe_expected;
    double probe_timeout_s;
    double probe_deadline_s; /* < 0 = one attempt (or the spec's ready_timeout_s) */
    long probe_stable_count;
    double probe_stable_delay_s; /* pause between passes when stable_count > 1 */
    /* what the block asks for that this provider does not do: one line, or NULL */
    char *warnings;
} docker_cfg;

/* The top-level keys of a docker config block (NULL-terminated), for the registry's check. */
extern const char *const docker_config_keys[];

/* Fills c with the defaults, then the block's values (config may be NULL). On an error
 * (SM_ERR_CONFIG naming the key and what is allowed) c still holds what was parsed: the caller
 * frees it with docker_cfg_free either way. */
int docker_cfg_parse(const cJSON *config, docker_cfg *c, sm_error *err);
void docker_cfg_free(docker_cfg *c);

#endif
