/* Unit tests for the docker provider's settings (docker_config.c) and its translation of docker
 * CLI flags into Engine API fields (docker_args.c): every key of NeMo Gym's docker config is
 * accepted with the seed's defaults, bad values are refused naming the key, flags without an API
 * equivalent are named, malformed flag values are errors naming the flag. No engine needed. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/config.h"
#include "core/json.h"
#include "providers/docker/docker_args.h"
#include "providers/docker/docker_config.h"

static cJSON *yaml(const char *text)
{
    sm_error e;
    sm_error_clear(&e);
    cJSON *j = sm_yaml_parse(text, strlen(text), "t.yaml", &e);
    if (!j)
        fail_msg("yaml: %s", e.msg);
    return j;
}

static void test_defaults(void **state)
{
    docker_cfg c;
    sm_error e;
    sm_error_clear(&e);
    assert_int_equal(docker_cfg_parse(NULL, &c, &e), SM_OK);
    assert_true(c.start_timeout_s == 600);
    assert_int_equal(c.concurrency, 32);
    assert_null(c.exec_shell); /* bash when there is one, else sh */
    assert_null(c.extra_run_args);
    assert_null(c.extra_exec_args);
    assert_true(c.probe_stable_delay_s == 0);
    assert_null(c.warnings);
    docker_cfg_free(&c);
}

static void test_every_nemo_key(void **state)
{
    cJSON *j = yaml("create:\n"
                    "  keepalive_shell: /bin/sh\n"
                    "  keepalive_cmd: 'while :; do sleep 2147483647; done'\n"
                    "  start_timeout_s: 45\n"
                    "  use_init: true\n"
                    "  network: null\n"
                    "  read_only: false\n"
                    "  cap_drop: []\n"
                    "  security_opt: []\n"
                    "  pids_limit: null\n"
                    "  extra_run_args: [--shm-size, 1g, --gpus, all]\n"
                    "  apply_resource_limits: true\n"
                    "  publish_host: 127.0.0.1\n"
                    "exec:\n"
                    "  default_timeout_s: 180\n"
                    "  extra_exec_args: [-e, A=1, -it]\n"
                    "  concurrency: 4\n"
                    "  exec_shell: /bin/bash\n"
                    "probe:\n"
                    "  command: printf docker-sandbox-ready\n"
                    "  expected_stdout: docker-sandbox-ready\n"
                    "  timeout_s: 30\n"
                    "  deadline_s: 60\n"
                    "  stable_count: 2\n"
                    "  stable_delay_s: 0.5\n"
                    "networking: {loopback_forwarding: true}\n"
                    "shared_storage: {host_path: /srv/x}\n");
    docker_cfg c;
    sm_error e;
    sm_error_clear(&e);
    assert_int_equal(docker_cfg_parse(j, &c, &e), SM_OK);
    assert_true(c.start_timeout_s == 45);
    assert_int_equal(c.concurrency, 4);
    assert_string_equal(c.exec_shell, "/bin/bash");
    assert_string_equal(c.extra_run_args[2], "--gpus");
    assert_string_equal(c.extra_exec_args[1], "A=1");
    assert_true(c.probe_stable_delay_s == 0.5);
    assert_string_equal(c.warnings,
                        "docker.create.extra_run_args ignores --gpus all (no Docker Engine API "
                        "equivalent); docker.exec.extra_exec_args ignores -it (no Docker Engine "
                        "API equivalent); docker.networking is ignored (sandman's docker provider "
                        "runs no Compose projects); docker.shared_storage is ignored (sandman's "
                        "docker provider runs no Compose projects)");
    docker_cfg_free(&c);
    cJSON_Delete(j);
}

static void parse_fails(const char *text, const char *want)
{
    cJSON *j = yaml(text);
    docker_cfg c;
    sm_error e;
    sm_error_clear(&e);
    assert_int_not_equal(docker_cfg_parse(j, &c, &e), SM_OK);
    assert_string_equal(e.msg, want);
    docker_cfg_free(&c);
    cJSON_Delete(j);
}

static void test_bad_values(void **state)
{
    parse_fails("exec: {concurrency: 0}\n", "docker.exec.concurrency must be at least 1");
    parse_fails("exec: {concurrency: many}\n", "docker.exec.concurrency must be an integer");
    parse_fails("create: {start_timeout_s: 0}\n", "docker.create.start_timeout_s must be positive");
    parse_fails("probe: {stable_delay_s: -1}\n",
                "docker.probe.stable_delay_s must not be negative");
    parse_fails("create: {extra_run_args: --shm-size=1g}\n",
                "docker.create.extra_run_args must be a list of strings");
    parse_fails("exec: {extra_exec_args: [1]}\n",
                "docker.exec.extra_exec_args must be a list of strings");
    parse_fails("exec: {exec_shell: [bash]}\n", "docker.exec.exec_shell must be a string");
}

static cJSON *run_args(const char *const *args, char *ignored_out, size_t len, sm_error *e)
{
    cJSON *body = cJSON_CreateObject();
    sm_strbuf ign = {0};
    int rc = docker_args_run((char *const *)args, "x", body, &ign, e);
    snprintf(ignored_out, len, "%s", ign.data ? ign.data : "");
    sm_strbuf_free(&ign);
    if (rc != SM_OK) {
        cJSON_Delete(body);
        return NULL;
    }
    return body;
}

static void test_run_flags(void **state)
{
    const char *args[] = {"--shm-size=2g", "-e",     "A=1",       "--env",
                          "B=2",           "-v",     "/h:/c:ro",  "--ulimit",
                          "nofile=10:20",  "--cpus", "1.5",       "--tmpfs",
                          "/run:size=1m",  "-l",     "k=v",       "--privileged",
                          "-hnemo",        "--tty",  "--weird=1", NULL};
    char ign[200];
    sm_error e;
    sm_error_clear(&e);
    cJSON *b = run_args(args, ign, sizeof ign, &e);
    assert_non_null(b);
    const cJSON *hc = cJSON_GetObjectItemCaseSensitive(b, "HostConfig");
    assert_true(sm_json_num(hc, "ShmSize", 0) == 2.0 * 1024 * 1024 * 1024);
    assert_true(sm_json_num(hc, "NanoCpus", 0) == 1.5e9);
    assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(hc, "Privileged")));
    char *s = sm_json_print(cJSON_GetObjectItemCaseSensitive(b, "Env"));
    assert_string_equal(s, "[\"A=1\",\"B=2\"]");
    free(s);
    s = sm_json_print(cJSON_GetObjectItemCaseSensitive(hc, "Binds"));
    assert_string_equal(s, "[\"/h:/c:ro\"]");
    free(s);
    s = sm_json_print(cJSON_GetObjectItemCaseSensitive(hc, "Ulimits"));
    assert_string_equal(s, "[{\"Name\":\"nofile\",\"Soft\":10,\"Hard\":20}]");
    free(s);
    assert_string_equal(sm_json_str(cJSON_GetObjectItemCaseSensitive(hc, "Tmpfs"), "/run"),
                        "size=1m");
    assert_string_equal(sm_json_str(cJSON_GetObjectItemCaseSensitive(b, "Labels"), "k"), "v");
    assert_string_equal(sm_json_str(b, "Hostname"), "nemo");
    assert_string_equal(ign, "--tty, --weird");
    cJSON_Delete(b);
}

static void run_fails(const char *const *args, const char *want)
{
    char ign[200];
    sm_error e;
    sm_error_clear(&e);
    assert_null(run_args(args, ign, sizeof ign, &e));
    assert_string_equal(e.msg, want);
}

static void test_run_flag_errors(void **state)
{
    const char *a1[] = {"--shm-size", "lots", NULL};
    run_fails(a1, "x: --shm-size 'lots' must be a size such as 512m or 2g");
    const char *a2[] = {"--ulimit", "nofile", NULL};
    run_fails(a2, "x: --ulimit 'nofile' must be name=soft[:hard]");
    const char *a3[] = {"--cpus", "0", NULL};
    run_fails(a3, "x: --cpus '0' must be a positive number of CPUs");
    const char *a4[] = {"-e", NULL};
    run_fails(a4, "x: -e needs a value");
    const char *a5[] = {"--pids-limit", "1x", NULL};
    run_fails(a5, "x: --pids-limit '1x' must be an integer");
    const char *a6[] = {"--tmpfs", "run", NULL};
    run_fails(a6, "x: --tmpfs 'run' must be an absolute path[:options]");
}

static void test_exec_flags(void **state)
{
    const char *args[] = {"-u",           "1000", "--workdir=/w",  "-e", "X=1",
                          "--privileged", "-t",   "--detach-keys", NULL};
    cJSON *body = cJSON_CreateObject();
    cJSON_AddStringToObject(body, "User", "0"); /* the request's own: the flags come after */
    sm_strbuf ign = {0};
    sm_error e;
    sm_error_clear(&e);
    assert_int_equal(docker_args_exec((char *const *)args, "x", body, &ign, &e), SM_OK);
    assert_string_equal(sm_json_str(body, "User"), "1000");
    assert_string_equal(sm_json_str(body, "WorkingDir"), "/w");
    assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(body, "Privileged")));
    assert_null(cJSON_GetObjectItemCaseSensitive(body, "HostConfig"));
    assert_string_equal(ign.data, "-t, --detach-keys");
    sm_strbuf_free(&ign);
    cJSON_Delete(body);
}

static void test_args_from_json(void **state)
{
    sm_error e;
    sm_error_clear(&e);
    cJSON *j = cJSON_CreateString("--shm-size 1g  --env A=1");
    char **v = docker_args_from_json(j, "run_args", &e);
    assert_string_equal(v[0], "--shm-size");
    assert_string_equal(v[3], "A=1");
    assert_null(v[4]);
    docker_args_free(v);
    cJSON_Delete(j);
    j = cJSON_CreateNumber(3);
    assert_null(docker_args_from_json(j, "provider_options.run_args", &e));
    assert_string_equal(e.msg, "provider_options.run_args must be a string or a list of strings");
    cJSON_Delete(j);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),        cmocka_unit_test(test_every_nemo_key),
        cmocka_unit_test(test_bad_values),      cmocka_unit_test(test_run_flags),
        cmocka_unit_test(test_run_flag_errors), cmocka_unit_test(test_exec_flags),
        cmocka_unit_test(test_args_from_json),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
