/* NeMo Gym's docker provider file against a real engine (a private podman service started by
 * docker_engine.bash, or SANDMAN_DOCKER_HOST): a provider file in NeMo Gym's layout with every
 * key of the seed's docker config loads, and each key reaches the container (extra_run_args,
 * provider_options volumes and run_args, extra_exec_args, start_timeout_s, stable_delay_s); the
 * flags with no API equivalent are named in create's warning; the exec shell is bash when the
 * container has one, else sh, or exec_shell when pinned; exec.concurrency bounds the execs one
 * provider has at the engine. Without podman it fails, unless SANDMAN_SKIP_DOCKER=1 (77). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <cjson/cJSON.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/config.h"
#include "core/sandbox.h"
#include "core/util.h"
#include "tests/testlib.h"

static sm_test_engine E; /* the private engine */

/* The provider of block `sandbox` of a NeMo Gym-layout file; the host and the run label are the
 * test's. */
static sm_provider *open_yaml(const char *yaml_fmt, ...)
{
    va_list ap;
    va_start(ap, yaml_fmt);
    char *yaml = xvasprintf(yaml_fmt, ap);
    va_end(ap);
    char *path = sm_test_write_temp(yaml);
    free(yaml);
    sm_config c;
    sm_error e;
    sm_error_clear(&e);
    if (sm_config_load(path, &c, &e) != SM_OK)
        fail_msg("load: %s", e.msg);
    sm_provider *p = NULL;
    if (sm_provider_open(&c, NULL, &p, &e) != SM_OK)
        fail_msg("open: %s", e.msg);
    sm_config_free(&c);
    unlink(path);
    free(path);
    sm_map_set(&p->default_metadata, "sandman-test-run", E.run);
    return p;
}

static sm_sandbox *start(sm_provider *p, const char *provider_options_json)
{
    sm_spec spec;
    sm_spec_init(&spec);
    spec.image = xstrdup(E.image);
    if (provider_options_json)
        spec.provider_options = cJSON_Parse(provider_options_json);
    sm_sandbox *s = sm_sandbox_new(p, false);
    sm_error e;
    sm_error_clear(&e);
    if (sm_sandbox_start(s, &spec, &e) != SM_OK)
        fail_msg("start: %s", e.msg);
    sm_spec_free(&spec);
    return s;
}

static char *run(sm_sandbox *s, const char *cmd, int *rc)
{
    sm_exec_request rq;
    sm_exec_request_init(&rq);
    rq.cmd = cmd;
    sm_exec_result r;
    sm_error e;
    sm_error_clear(&e);
    if (sm_sandbox_exec(s, &rq, &r, &e) != SM_OK)
        fail_msg("exec '%s': %s", cmd, e.msg);
    *rc = r.return_code;
    char *out = xstrdup(r.out ? r.out : "");
    sm_exec_result_free(&r);
    return out;
}

static void expect_output(sm_sandbox *s, const char *cmd, const char *want)
{
    int rc = -1;
    char *out = run(s, cmd, &rc);
    if (rc != 0 || strcmp(out, want))
        fail_msg("'%s': expected [%s] (exit 0), got [%s] (exit %d)", cmd, want, out, rc);
    free(out);
}

static void done(sm_sandbox *s, sm_provider *p)
{
    sm_sandbox_stop(s, NULL);
    sm_sandbox_free(s);
    sm_provider_free(p);
}

/* ---------------------------------------------------------------- the shipped file */

/* NeMo Gym's docker provider file, with every key of the seed's docker config set. */
static const char shipped[] =
    "sandbox:\n"
    "  default_metadata:\n"
    "    sandbox-api: docker-cli\n"
    "  docker:\n"
    "    host: %s\n"
    "    create:\n"
    "      keepalive_shell: /bin/sh\n"
    "      keepalive_cmd: \"while :; do sleep 2147483647; done\"\n"
    "      start_timeout_s: 600\n"
    "      use_init: true\n"
    "      network: none\n"
    "      read_only: false\n"
    "      cap_drop: []\n"
    "      security_opt: []\n"
    "      pids_limit: null\n"
    "      extra_run_args: [--hostname, nemo-host, --env, FROM_EXTRA=run, --shm-size=96m,\n"
    "                       --label, from-extra=yes, --tty]\n"
    "      apply_resource_limits: true\n"
    "      publish_host: 127.0.0.1\n"
    "    exec:\n"
    "      default_timeout_s: 180\n"
    "      extra_exec_args: [--env, FROM_EXEC=exec, --workdir, /etc]\n"
    "      concurrency: 32\n"
    "      exec_shell: null\n"
    "    probe:\n"
    "      command: printf docker-sandbox-ready\n"
    "      expected_stdout: docker-sandbox-ready\n"
    "      timeout_s: 30\n"
    "      deadline_s: 60\n"
    "      stable_count: 2\n"
    "      stable_delay_s: 0.2\n"
    "    networking: {loopback_forwarding: true}\n";

static void test_shipped_file_every_key(void **state)
{
    sm_provider *p = open_yaml(shipped, E.host);
    char vol[] = "/tmp/sandman-dkn-vol-XXXXXX";
    assert_non_null(mkdtemp(vol));
    chmod(vol, 0755);
    char *marker = xasprintf("%s/marker", vol);
    sm_write_file_atomic(marker, "from the host\n", 14, 0644);
    char *opts = xasprintf("{\"volumes\": [\"%s:/data:ro\"], \"run_args\": [\"--env\", "
                           "\"FROM_RUN_ARGS=spec\"], \"image_auth\": {}}",
                           vol);
    double t0 = sm_now_mono();
    sm_sandbox *s = start(p, opts);
    /* stable_count 2 with stable_delay_s 0.2: at least one pause between the two passes */
    assert_true(sm_now_mono() - t0 >= 0.2);
    free(opts);

    /* create.extra_run_args and provider_options run the container */
    expect_output(s, "hostname", "nemo-host\n");
    expect_output(s, "echo $FROM_EXTRA $FROM_RUN_ARGS", "run spec\n");
    expect_output(s, "df -k /dev/shm | awk 'NR==2 {print $2}'", "98304\n");
    expect_output(s, "cat /data/marker", "from the host\n");
    int rc = -1;
    free(run(s, "touch /data/x 2>/dev/null", &rc));
    assert_int_not_equal(rc, 0); /* mounted :ro */
    /* exec.extra_exec_args: after the request's own */
    expect_output(s, "echo $FROM_EXEC; pwd", "exec\n/etc\n");

    /* what has no API equivalent is named, once, in create's warning */
    const char *w = sm_sandbox_warning(s);
    assert_non_null(w);
    if (!strstr(w, "docker.create.extra_run_args ignores --tty") ||
        !strstr(w, "docker.networking is ignored") ||
        !strstr(w, "provider_options.image_auth is not used"))
        fail_msg("warning: %s", w);
    done(s, p);
    unlink(marker);
    free(marker);
    sm_rm_rf(vol);
}

static void test_bad_run_arg_fails_create(void **state)
{
    sm_provider *p = open_yaml("sandbox:\n  docker:\n    host: %s\n    create:\n      network: "
                               "none\n      extra_run_args: [--shm-size, lots]\n",
                               E.host);
    sm_spec spec;
    sm_spec_init(&spec);
    spec.image = xstrdup(E.image);
    sm_sandbox *s = sm_sandbox_new(p, false);
    sm_error e;
    sm_error_clear(&e);
    assert_int_not_equal(sm_sandbox_start(s, &spec, &e), SM_OK);
    assert_string_equal(e.msg, "docker.create.extra_run_args: --shm-size 'lots' must be a size "
                               "such as 512m or 2g");
    sm_spec_free(&spec);
    sm_sandbox_free(s);
    sm_provider_free(p);
}

/* ---------------------------------------------------------------- exec shell */

/* Puts a "bash" into the container that says so, for the shell choice to be seen. */
static void install_fake_bash(sm_sandbox *s)
{
    int rc = -1;
    free(run(s, "printf '#!/bin/sh\\necho fake-bash \"$@\"\\n' >/bin/bash && chmod 755 /bin/bash",
             &rc));
    assert_int_equal(rc, 0);
}

static void test_exec_shell_default(void **state)
{
    sm_provider *p =
        open_yaml("sandbox:\n  docker:\n    host: %s\n    create: {network: none}\n", E.host);
    sm_sandbox *s = start(p, NULL);
    /* no bash in the image: sh (the exec helper runs commands from the second on) */
    for (int i = 0; i < 3; i++)
        expect_output(s, "echo plain", "plain\n");
    install_fake_bash(s);
    /* bash as soon as `command -v bash` finds one, on both exec paths */
    for (int i = 0; i < 2; i++)
        expect_output(s, "echo via", "fake-bash -c echo via\n");
    sm_sandbox *again = sm_sandbox_new(p, false); /* a fresh handle: its first exec is plain */
    sm_error e;
    sm_error_clear(&e);
    assert_int_equal(sm_sandbox_open(again, sm_sandbox_id(s), &e), SM_OK);
    expect_output(again, "echo first", "fake-bash -c echo first\n");
    sm_sandbox_free(again);
    done(s, p);
}

static void test_exec_shell_pinned(void **state)
{
    sm_provider *p = open_yaml("sandbox:\n  docker:\n    host: %s\n    create: {network: none}\n"
                               "    exec: {exec_shell: /bin/sh}\n",
                               E.host);
    sm_sandbox *s = start(p, NULL);
    install_fake_bash(s);
    for (int i = 0; i < 3; i++)
        expect_output(s, "echo pinned", "pinned\n");
    done(s, p);
}

/* ---------------------------------------------------------------- concurrency */

typedef struct waiter {
    sm_sandbox *s;
    char *out;
} waiter;

/* Each command marks itself running and waits (up to 8 s) to see the other one running too. */
static void *meet(void *arg)
{
    waiter *w = arg;
    int rc;
    w->out = run(w->s,
                 "mkdir -p /tmp/m; touch /tmp/m/$$; i=0; while [ $(ls /tmp/m | wc -l) -lt 2 ] && "
                 "[ $i -lt 80 ]; do sleep 0.1; i=$((i+1)); done; "
                 "if [ $(ls /tmp/m | wc -l) -ge 2 ]; then echo met; else echo alone; fi; "
                 "sleep 0.3; rm -f /tmp/m/$$",
                 &rc);
    return NULL;
}

static void two_at_once(sm_provider *p, const char *want)
{
    sm_sandbox *s = start(p, NULL);
    sm_sandbox *t = sm_sandbox_new(p, false);
    sm_error e;
    sm_error_clear(&e);
    assert_int_equal(sm_sandbox_open(t, sm_sandbox_id(s), &e), SM_OK);
    waiter a = {.s = s}, b = {.s = t};
    pthread_t ta, tb;
    pthread_create(&ta, NULL, meet, &a);
    pthread_create(&tb, NULL, meet, &b);
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
    if (strcmp(a.out, want) || strcmp(b.out, want))
        fail_msg("expected both [%s], got [%s] and [%s]", want, a.out, b.out);
    free(a.out);
    free(b.out);
    sm_sandbox_free(t);
    done(s, p);
}

static void test_concurrency_bounds_execs(void **state)
{
    /* one slot: the second command runs only after the first gave up waiting */
    two_at_once(open_yaml("sandbox:\n  docker:\n    host: %s\n    create: {network: none}\n"
                          "    exec: {concurrency: 1}\n",
                          E.host),
                "alone\n");
    /* two slots: they run together */
    two_at_once(open_yaml("sandbox:\n  docker:\n    host: %s\n    create: {network: none}\n"
                          "    exec: {concurrency: 2}\n",
                          E.host),
                "met\n");
}

int main(void)
{
    sm_test_engine_start("test_docker_nemo", &E);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shipped_file_every_key),
        cmocka_unit_test(test_bad_run_arg_fails_create),
        cmocka_unit_test(test_exec_shell_default),
        cmocka_unit_test(test_exec_shell_pinned),
        cmocka_unit_test(test_concurrency_bounds_execs),
    };
    int rc = cmocka_run_group_tests(tests, sm_test_group_setup, sm_test_group_teardown);
    sm_test_engine_stop();
    return rc;
}
