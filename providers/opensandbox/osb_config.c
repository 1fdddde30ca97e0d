/* The opensandbox provider's settings: NeMo Gym's sandbox.opensandbox block (connection,
 * create, probe, operations, attribution), every key of the shipped file accepted; the ones
 * sandman cannot honour are named in one warning line. */
#include "providers/opensandbox/osb.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "core/json.h"
#include "core/util.h"

const char *const osb_config_keys[] = {"connection",  "create",      "probe", "operations",
                                       "attribution", "sandbox-api", NULL};
static const char *const conn_keys[] = {"domain",
                                        "api_key",
                                        "protocol",
                                        "request_timeout_s",
                                        "use_server_proxy",
                                        "disable_connection_pooling",
                                        "keepalive_expiry_s",
                                        "max_keepalive_connections",
                                        "max_connections",
                                        "connect_retries",
                                        "transport_backend",
                                        NULL};
static const char *const create_keys[] = {"request_timeout_s", "timeout_s",
                                          "retries",           "retry_delay_s",
                                          "retry_max_delay_s", "image_pull_policy",
                                          "skip_health_check", "connect_attempt_timeout_s",
                                          "connect_poll_s",    NULL};
static const char *const probe_keys[] = {"command",    "expected_stdout", "timeout_s",
                                         "deadline_s", "stable_count",    "stable_delay_s",
                                         NULL};
static const char *const op_keys[] = {"retries",
                                      "retry_delay_s",
                                      "retry_max_delay_s",
                                      "command_retries",
                                      "close_timeout_s",
                                      "background_exec",
                                      "background_poll_initial_s",
                                      "background_poll_interval_s",
                                      NULL};
static const char *const attr_keys[] = {"enabled", "team",       "user", "workload",
                                        "run",     "key_prefix", NULL};

static void warn(osb_cfg *c, const char *fmt, const char *key)
{
    char *line = xasprintf(fmt, key);
    char *w = xasprintf("%s%s%s", c->warnings ? c->warnings : "", c->warnings ? "; " : "", line);
    free(line);
    free(c->warnings);
    c->warnings = w;
}

/* A number that may be null (= unset, -1). */
static int num_or_null(const cJSON *o, const char *k, double *out, const char *what, sm_error *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    if (v && cJSON_IsNull(v)) {
        *out = -1;
        return SM_OK;
    }
    return sm_json_get_number(o, k, out, what, err);
}

int osb_cfg_parse(const cJSON *config, osb_cfg *c, sm_error *err)
{
    memset(c, 0, sizeof *c);
    c->protocol = xstrdup("http");
    c->request_timeout_s = 300;
    c->keepalive_expiry_s = 3.0;
    c->connect_retries = 2;
    c->create_request_timeout_s = 1200;
    c->create_timeout_s = 1500;
    c->create_retries = 2;
    c->create_retry_delay_s = 5;
    c->create_retry_max_delay_s = 60;
    c->image_pull_policy = xstrdup("IfNotPresent");
    c->connect_attempt_timeout_s = 30;
    c->connect_poll_s = 2;
    c->probe_command = xstrdup("printf nemo-gym-sandbox-ready");
    c->probe_expected = xstrdup("nemo-gym-sandbox-ready");
    c->probe_timeout_s = 30;
    c->probe_deadline_s = -1;
    c->probe_stable_count = 1;
    c->op_retries = 3;
    c->op_retry_delay_s = 1;
    c->op_retry_max_delay_s = 15;
    c->close_timeout_s = 30;
    c->attribution_enabled = true;
    c->key_prefix = xstrdup("nemo-gym.nvidia.com/");
    const cJSON *cn = NULL, *cr = NULL, *pr = NULL, *op = NULL, *at = NULL;
    int rc = sm_json_get_object(config, "connection", &cn, "opensandbox", err);
    if (!rc)
        rc = sm_json_get_object(config, "create", &cr, "opensandbox", err);
    if (!rc)
        rc = sm_json_get_object(config, "probe", &pr, "opensandbox", err);
    if (!rc)
        rc = sm_json_get_object(config, "operations", &op, "opensandbox", err);
    if (!rc)
        rc = sm_json_get_object(config, "attribution", &at, "opensandbox", err);
    if (!rc && cn)
        rc = sm_json_check_keys(cn, conn_keys, "opensandbox.connection config", err);
    if (!rc && cr)
        rc = sm_json_check_keys(cr, create_keys, "opensandbox.create config", err);
    if (!rc && pr)
        rc = sm_json_check_keys(pr, probe_keys, "opensandbox.probe config", err);
    if (!rc && op)
        rc = sm_json_check_keys(op, op_keys, "opensandbox.operations config", err);
    if (!rc && at)
        rc = sm_json_check_keys(at, attr_keys, "opensandbox.attribution config", err);
    const char *w = "opensandbox.connection";
    if (!rc)
        rc = sm_json_get_string(cn, "domain", &c->domain, w, err);
    if (!rc)
        rc = sm_json_get_string(cn, "api_key", &c->api_key, w, err);
    if (!rc)
        rc = sm_json_get_string(cn, "protocol", &c->protocol, w, err);
    if (!rc)
        rc = num_or_null(cn, "request_timeout_s", &c->request_timeout_s, w, err);
    if (!rc)
        rc = sm_json_get_bool(cn, "use_server_proxy", &c->use_server_proxy, w, err);
    if (!rc)
        rc = sm_json_get_bool(cn, "disable_connection_pooling", &c->disable_pooling, w, err);
    if (!rc)
        rc = sm_json_get_number(cn, "keepalive_expiry_s", &c->keepalive_expiry_s, w, err);
    if (!rc)
        rc = sm_json_get_long(cn, "connect_retries", &c->connect_retries, w, err);
    w = "opensandbox.create";
    if (!rc)
        rc = num_or_null(cr, "request_timeout_s", &c->create_request_timeout_s, w, err);
    if (!rc)
        rc = num_or_null(cr, "timeout_s", &c->create_timeout_s, w, err);
    if (!rc)
        rc = sm_json_get_long(cr, "retries", &c->create_retries, w, err);
    if (!rc)
        rc = sm_json_get_number(cr, "retry_delay_s", &c->create_retry_delay_s, w, err);
    if (!rc)
        rc = sm_json_get_number(cr, "retry_max_delay_s", &c->create_retry_max_delay_s, w, err);
    if (!rc)
        rc = sm_json_get_string(cr, "image_pull_policy", &c->image_pull_policy, w, err);
    if (!rc)
        rc = sm_json_get_bool(cr, "skip_health_check", &c->skip_health_check, w, err);
    if (!rc)
        rc = sm_json_get_number(cr, "connect_attempt_timeout_s", &c->connect_attempt_timeout_s, w,
                                err);
    if (!rc)
        rc = sm_json_get_number(cr, "connect_poll_s", &c->connect_poll_s, w, err);
    w = "opensandbox.probe";
    if (!rc)
        rc = sm_json_get_string(pr, "command", &c->probe_command, w, err);
    if (!rc)
        rc = sm_json_get_string(pr, "expected_stdout", &c->probe_expected, w, err);
    if (!rc)
        rc = sm_json_get_number(pr, "timeout_s", &c->probe_timeout_s, w, err);
    if (!rc)
        rc = num_or_null(pr, "deadline_s", &c->probe_deadline_s, w, err);
    if (!rc)
        rc = sm_json_get_long(pr, "stable_count", &c->probe_stable_count, w, err);
    if (!rc)
        rc = sm_json_get_number(pr, "stable_delay_s", &c->probe_stable_delay_s, w, err);
    w = "opensandbox.operations";
    if (!rc)
        rc = sm_json_get_long(op, "retries", &c->op_retries, w, err);
    if (!rc)
        rc = sm_json_get_number(op, "retry_delay_s", &c->op_retry_delay_s, w, err);
    if (!rc)
        rc = sm_json_get_number(op, "retry_max_delay_s", &c->op_retry_max_delay_s, w, err);
    if (!rc)
        rc = sm_json_get_number(op, "close_timeout_s", &c->close_timeout_s, w, err);
    w = "opensandbox.attribution";
    if (!rc)
        rc = sm_json_get_bool(at, "enabled", &c->attribution_enabled, w, err);
    if (!rc)
        rc = sm_json_get_string(at, "team", &c->team, w, err);
    if (!rc)
        rc = sm_json_get_string(at, "user", &c->user, w, err);
    if (!rc)
        rc = sm_json_get_string(at, "workload", &c->workload, w, err);
    if (!rc)
        rc = sm_json_get_string(at, "run", &c->run, w, err);
    if (!rc)
        rc = sm_json_get_string(at, "key_prefix", &c->key_prefix, w, err);
    if (rc)
        return rc;
    if (!c->domain || !*c->domain)
        return sm_error_set(err, SM_ERR_CONFIG, SM_FAIL_INVALID_REQUEST,
                            "opensandbox.connection.domain is required (host:port of the "
                            "OpenSandbox server, e.g. ${oc.env:OPENSANDBOX_DOMAIN})");
    if (strcmp(c->protocol, "http") && strcmp(c->protocol, "https"))
        return sm_error_set(err, SM_ERR_CONFIG, SM_FAIL_INVALID_REQUEST,
                            "opensandbox.connection.protocol must be http or https, not '%s'",
                            c->protocol);
    if (c->probe_stable_count < 1)
        return sm_error_set(err, SM_ERR_CONFIG, SM_FAIL_INVALID_REQUEST,
                            "opensandbox.probe.stable_count must be at least 1");
    if (c->create_retries < 0 || c->op_retries < 0 || c->probe_timeout_s <= 0)
        return sm_error_set(err, SM_ERR_CONFIG, SM_FAIL_INVALID_REQUEST,
                            "opensandbox: retries must not be negative and probe.timeout_s "
                            "must be positive");
    /* accepted, not honoured: said once, in `sandman providers` and on create */
    const cJSON *v;
    if ((v = cJSON_GetObjectItemCaseSensitive(cn, "transport_backend")) && !cJSON_IsNull(v))
        warn(c, "connection.%s is ignored (sandman always uses libcurl)", "transport_backend");
    if ((v = cJSON_GetObjectItemCaseSensitive(cn, "max_connections")) && !cJSON_IsNull(v))
        warn(c, "connection.%s is not enforced (at most 16 kept connections)", "max_connections");
    if ((v = cJSON_GetObjectItemCaseSensitive(cn, "max_keepalive_connections")) && !cJSON_IsNull(v))
        warn(c, "connection.%s is fixed at 16 here", "max_keepalive_connections");
    if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(op, "background_exec")))
        warn(c, "operations.%s is not implemented yet (commands run in the foreground)",
             "background_exec");
    if ((v = cJSON_GetObjectItemCaseSensitive(op, "command_retries")) && cJSON_IsNumber(v) &&
        v->valuedouble > 0)
        warn(c,
             "operations.%s is ignored: commands are never replayed (only a 502 at "
             "submission is retried)",
             "command_retries");
    return SM_OK;
}

void osb_cfg_free(osb_cfg *c)
{
    free(c->domain);
    free(c->api_key);
    free(c->protocol);
    free(c->image_pull_policy);
    free(c->probe_command);
    free(c->probe_expected);
    free(c->team);
    free(c->user);
    free(c->workload);
    free(c->run);
    free(c->key_prefix);
    free(c->warnings);
    memset(c, 0, sizeof *c);
}
