/* The docker provider's settings: defaults and the checks of each key (docker_config.h). */
#include "providers/docker/docker_config.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/json.h"
#include "core/util.h"
#include "providers/docker/docker_args.h"

/* networking and shared_storage are NeMo Gym's Compose settings: accepted, not used. */
const char *const docker_config_keys[] = {"host",  "api_version", "create",         "exec",
                                          "probe", "networking",  "shared_storage", NULL};
static const char *const create_keys[] = {"keepalive_shell",
                                          "keepalive_cmd",
                                          "use_init",
                                          "network",
                                          "read_only",
                                          "cap_drop",
                                          "security_opt",
                                          "pids_limit",
                                          "apply_resource_limits",
                                          "publish_host",
                                          "start_timeout_s",
                                          "extra_run_args",
                                          NULL};
static const char *const exec_keys[] = {"default_timeout_s", "extra_exec_args", "concurrency",
                                        "exec_shell", NULL};
static const char *const probe_keys[] = {"command",    "expected_stdout", "timeout_s",
                                         "deadline_s", "stable_count",    "stable_delay_s",
                                         NULL};

static void strv_free(char **v)
{
    for (size_t i = 0; v && v[i]; i++)
        free(v[i]);
    free(v);
}

static int get_strv(const cJSON *obj, const char *key, char ***out, const char *what, sm_error *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v || cJSON_IsNull(v))
        return SM_OK;
    if (!cJSON_IsArray(v))
        return sm_error_set(err, SM_ERR_CONFIG, SM_FAIL_INVALID_REQUEST,
                            "%s.%s must be a list of strings", what, key);
    size_t n = (size_t)cJSON_GetArraySize(v), i = 0;
    char **list = xcalloc(n + 1, sizeof *list);
    const cJSON *it;
    cJSON_ArrayForEach(it, v)
    {
        if (!cJSON_IsString(it)) {
            strv_free(list);
            return sm_error_set(err, SM_ERR_CONFIG, SM_FAIL_INVALID_REQUEST,
                                "%s.%s must be a list of strings", what, key);
        }
        list[i++] = xstrdup(it->valuestring);
    }
    strv_free(*out);
    *out = list;
    return SM_OK;
}

/* A string option whose explicit null means "none" (network, probe command). */
static int get_nullable_string(const cJSON *obj, const char *key, char **out, const char *what,
                               sm_error *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (v && cJSON_IsNull(v)) {
        free(*out);
        *out = NULL;
        return SM_OK;
    }
    return sm_json_get_string(obj, key, out, what, err);
}

static void cfg_defaults(docker_cfg *c)
{
    memset(c, 0, sizeof *c);
    c->keepalive_shell = xstrdup("/bin/sh");
    c->keepalive_cmd = xstrdup("while :; do sleep 2147483647; done");
    c->use_init = true;
    c->apply_resource_limits = true;
    c->publish_host = xstrdup("127.0.0.1");
    c->default_timeout_s = SM_DEFAULT_EXEC_TIMEOUT_S;
    c->probe_command = xstrdup(DOCKER_DEFAULT_PROBE_COMMAND);
    c->probe_expected = xstrdup(DOCKER_DEFAULT_PROBE_EXPECTED);
    c->probe_timeout_s = 30;
    c->probe_deadline_s = -1;
    c->probe_stable_count = 1;
    c->start_timeout_s = 600;
    c->concurrency = 32;
}

void docker_cfg_free(docker_cfg *c)
{
    free(c->host);
    free(c->api_version);
    free(c->keepalive_shell);
    free(c->keepalive_cmd);
    free(c->network);
    strv_free(c->cap_drop);
    strv_free(c->security_opt);
    free(c->publish_host);
    free(c->probe_command);
    free(c->probe_expected);
    strv_free(c->extra_run_args);
    strv_free(c->extra_exec_args);
    free(c->exec_shell);
    free(c->warnings);
    memset(c, 0, sizeof *c);
}

int docker_cfg_parse(const cJSON *config, docker_cfg *c, sm_error *err)
{
    cfg_defaults(c);
    int rc = sm_json_get_string(config, "host", &c->host, "docker", err);
    const cJSON *api = cJSON_GetObjectItemCaseSensitive(config, "api_version");
    if (!rc && cJSON_IsNumber(api)) {
        /* YAML reads 1.41 as a number; API versions always have two minor digits. */
        c->api_version = xasprintf("%.2f", api->valuedouble);
    } else if (!rc) {
        rc = sm_json_get_string(config, "api_version", &c->api_version, "docker", err);
    }
    if (!rc && c->api_version && (!strcmp(c->api_version, "auto") || !*c->api_version)) {
        free(c->api_version);
        c->api_version = NULL;
    }
    if (!rc && c->api_version) {
        unsigned maj, min;
        char extra;
        if (sscanf(c->api_version, "%u.%u%c", &maj, &min, &extra) != 2)
            rc = sm_error_set(err, SM_ERR_CONFIG, SM_FAIL_INVALID_REQUEST,
                              "docker.api_version must look like 1.41 (or auto), not '%s'",
                              c->api_version);
    }
    const cJSON *cr = NULL, *ex = NULL, *pr = NULL;
    if (!rc)
        rc = sm_json_get_object(config, "create", &cr, "docker", err);
    if (!rc)
        rc = sm_json_get_object(config, "exec", &ex, "docker", err);
    if (!rc)
        rc = sm_json_get_object(config, "probe", &pr, "docker", err);
    if (!rc && cr)
        rc = sm_json_check_keys(cr, create_keys, "docker.create config", err);
    if (!rc && ex)
        rc = sm_json_check_keys(ex, exec_keys, "docker.exec config", err);
    if (!rc && pr)
        rc = sm_json_check_keys(pr, probe_keys, "docker.probe config", err);

    const char *w = "docker.create";
    if (!rc)
        rc = sm_json_get_string(cr, "keepalive_shell", &c->keepalive_shell, w, err);
    if (!rc)
        rc = sm_json_get_string(cr, "keepalive_cmd", &c->keepalive_cmd, w, err);
    if (!rc)
        rc = sm_json_get_bool(cr, "use_init", &c->use_init, w, err);
    if (!rc)
        rc = get_nullable_string(cr, "network", &c->network, w, err);
    if (!rc)
        rc = sm_json_get_bool(cr, "read_only", &c->read_only, w, err);
    if (!rc)
        rc = get_strv(cr, "cap_drop", &c->cap_drop, w, err);
    if (!rc)
        rc = get_strv(cr, "security_opt", &c->security_opt, w, err);
    if (!rc)
        rc = sm_json_get_long(cr, "pids_limit", &c->pids_limit, w, err);
    if (!rc)
        rc = sm_json_get_bool(cr, "apply_resource_limits", &c->apply_resource_limits, w, err);
    if (!rc)
        rc = sm_json_get_string(cr, "publish_host", &c->publish_host, w, err);
    if (!rc)
        rc = sm_json_get_number(cr, "start_timeout_s", &c->start_timeout_s, w, err);
    if (!rc)
        rc = get_strv(cr, "extra_run_args", &c->extra_run_args, w, err);
    w = "docker.exec";
    if (!rc)
        rc = sm_json_get_number(ex, "default_timeout_s", &c->default_timeout_s, w, err);
    if (!rc)
        rc = get_strv(ex, "extra_exec_args", &c->extra_exec_args, w, err);
    if (!rc)
        rc = sm_json_get_long(ex, "concurrency", &c->concurrency, w, err);
    if (!rc)
        rc = get_nullable_string(ex, "exec_shell", &c->exec_shell, w, err);
    w = "docker.probe";
    if (!rc)
        rc = get_nullable_string(pr, "command", &c->probe_command, w, err);
    if (!rc)
        rc = get_nullable_string(pr, "expected_stdout", &c->probe_expected, w, err);
    if (!rc)
        rc = sm_json_get_number(pr, "timeout_s", &c->probe_timeout_s, w, err);
    if (!rc)
        rc = sm_json_get_number(pr, "deadline_s", &c->probe_deadline_s, w, err);
    if (!rc)
        rc = sm_json_get_long(pr, "stable_count", &c->probe_stable_count, w, err);
    if (!rc)
        rc = sm_json_get_number(pr, "stable_delay_s", &c->probe_stable_delay_s, w, err);

    if (!rc && (!c->keepalive_shell || !*c->keepalive_shell))
        rc = sm_error_set(err, SM_ERR_CONFIG, SM_FAIL_INVALID_REQUEST,
                          "docker.create.keepalive_shell must not be empty");
    if (!rc && (!c->publish_host || !*c->publish_host))
        rc = sm_error_set(err, SM_ERR_CONFIG, SM_FAIL_INVALID_REQUEST,
                          "docker.create.publish_host must not be empty");
    if (!rc && !(c->default_timeout_s > 0 && c->default_timeout_s <= SM_MAX_EXEC_TIMEOUT_S))
        rc = sm_error_set(err, SM_ERR_CONFIG, SM_FAIL_INVALID_REQUEST,
                          "docker.exec.default_timeout_s must be positive, up to %.0f seconds (1 "
                          "week)",
                          SM_MAX_EXEC_TIMEOUT_S);
    if (!rc && c->probe_timeout_s <= 0)
        rc = sm_error_set(err, SM_ERR_CONFIG, SM_FAIL_INVALID_REQUEST,
                          "docker.probe.timeout_s must be positive");
    if (!rc && c->probe_stable_count < 1)
        rc = sm_error_set(err, SM_ERR_CONFIG, SM_FAIL_INVALID_REQUEST,
                          "docker.probe.stable_count must be at least 1");
    if (!rc && !(c->start_timeout_s > 0))
        rc = sm_error_set(err, SM_ERR_CONFIG, SM_FAIL_INVALID_REQUEST,
                          "docker.create.start_timeout_s must be positive");
    if (!rc && c->concurrency < 1)
        rc = sm_error_set(err, SM_ERR_CONFIG, SM_FAIL_INVALID_REQUEST,
                          "docker.exec.concurrency must be at least 1");
    if (!rc && c->probe_stable_delay_s < 0)
        rc = sm_error_set(err, SM_ERR_CONFIG, SM_FAIL_INVALID_REQUEST,
                          "docker.probe.stable_delay_s must not be negative");
    if (!rc && c->exec_shell && !*c->exec_shell) {
        free(c->exec_shell);
        c->exec_shell = NULL;
    }
    /* flags of the docker CLI that have no Engine API field here: named once, in the warning
     * create shows (a malformed value fails the create that uses it, as docker would) */
    for (int i = 0; !rc && i < 2; i++) {
        char *const *args = i ? c->extra_exec_args : c->extra_run_args;
        const char *key = i ? "docker.exec.extra_exec_args" : "docker.create.extra_run_args";
        sm_strbuf skipped = {0};
        cJSON *scratch = cJSON_CreateObject();
        if (i)
            docker_args_exec(args, key, scratch, &skipped, NULL);
        else
            docker_args_run(args, key, scratch, &skipped, NULL);
        cJSON_Delete(scratch);
        if (skipped.len) {
            char *w2 = xasprintf("%s%s%s ignores %s (no Docker Engine API equivalent)",
                                 c->warnings ? c->warnings : "", c->warnings ? "; " : "", key,
                                 skipped.data);
            free(c->warnings);
            c->warnings = w2;
        }
        sm_strbuf_free(&skipped);
    }
    /* NeMo Gym's Compose settings: sandman runs no Compose projects */
    const char *unused[] = {"networking", "shared_storage"};
    for (size_t i = 0; !rc && i < SM_ARRAY_LEN(unused); i++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(config, unused[i]);
        if (v && !cJSON_IsNull(v)) {
            char *w2 =
                xasprintf("%s%sdocker.%s is ignored (sandman's docker provider runs no "
                          "Compose projects)",
                          c->warnings ? c->warnings : "", c->warnings ? "; " : "", unused[i]);
            free(c->warnings);
            c->warnings = w2;
        }
    }
    if (!rc && c->probe_command && !*c->probe_command) {
        free(c->probe_command);
        c->probe_command = NULL;
    }
    if (!rc && c->probe_deadline_s == 0)
        c->probe_deadline_s = -1;
    return rc;
}
