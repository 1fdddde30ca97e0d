/* Unit tests for core/spec.c: the seed's validation rules for specs, resources, ports, PTY
 * specs, endpoints, and the JSON form of exec results. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/spec.h"
#include "core/util.h"

/* ---------------------------------------------------------------- helpers */

static int spec_from(const char *json, sm_spec *s, sm_error *e)
{
    cJSON *j = cJSON_Parse(json);
    if (!j)
        fail_msg("bad test JSON: %s", json);
    sm_error_clear(e);
    int rc = sm_spec_from_json(j, s, e);
    cJSON_Delete(j);
    return rc;
}

static void spec_fails(const char *json, const char *expected)
{
    sm_spec s;
    sm_error e;
    int rc = spec_from(json, &s, &e);
    if (rc == SM_OK) {
        sm_spec_free(&s);
        fail_msg("spec %s should be rejected", json);
    }
    assert_int_equal(rc, SM_ERR_INVALID);
    assert_int_equal(e.code, SM_ERR_INVALID);
    assert_int_equal(e.failure.kind, SM_FAIL_INVALID_REQUEST);
    assert_string_equal(e.msg, expected);
    /* a failed parse leaves nothing behind */
    assert_null(s.image);
    assert_null(s.ports);
    assert_int_equal(s.nports, 0);
}

static void spec_ok(const char *json, sm_spec *s)
{
    sm_error e;
    if (spec_from(json, s, &e) != SM_OK)
        fail_msg("spec %s rejected: %s", json, e.msg);
}

/* ---------------------------------------------------------------- ports */

static void test_ports_valid(void **state)
{
    sm_spec s;
    spec_ok("{\"ports\": [80, \"8080\", 1, 65535]}", &s);
    assert_int_equal(s.nports, 4);
    assert_int_equal(s.ports[0], 80);
    assert_int_equal(s.ports[1], 8080);
    assert_int_equal(s.ports[2], 1);
    assert_int_equal(s.ports[3], 65535);
    assert_true(sm_spec_has_port(&s, 8080));
    assert_false(sm_spec_has_port(&s, 81));
    sm_spec_free(&s);

    spec_ok("{\"ports\": null}", &s);
    assert_int_equal(s.nports, 0);
    sm_spec_free(&s);
    spec_ok("{\"ports\": []}", &s);
    assert_int_equal(s.nports, 0);
    sm_spec_free(&s);
}

static void test_ports_invalid(void **state)
{
    spec_fails("{\"ports\": [0]}", "port 0 is out of range (allowed: 1..65535)");
    spec_fails("{\"ports\": [65536]}", "port 65536 is out of range (allowed: 1..65535)");
    spec_fails("{\"ports\": [-1]}", "port -1 is out of range (allowed: 1..65535)");
    spec_fails("{\"ports\": [\"0\"]}", "port 0 is out of range (allowed: 1..65535)");
    spec_fails("{\"ports\": [80, 80]}", "port 80 is listed twice (ports must be unique)");
    spec_fails("{\"ports\": [\"80\", 80]}", "port 80 is listed twice (ports must be unique)");
    spec_fails("{\"ports\": [80, \"80\"]}", "port 80 is listed twice (ports must be unique)");
    spec_fails("{\"ports\": [true]}", "ports must hold integers or numeric strings, not booleans");
    spec_fails("{\"ports\": [false]}", "ports must hold integers or numeric strings, not booleans");
    spec_fails("{\"ports\": [null]}",
               "ports must hold integers or numeric strings, not this value");
    spec_fails("{\"ports\": [80.5]}", "port 80.5 is not an integer (allowed: 1..65535)");
    spec_fails("{\"ports\": [\"80.0\"]}", "port '80.0' is not a number (allowed: 1..65535)");
    spec_fails("{\"ports\": [\"http\"]}", "port 'http' is not a number (allowed: 1..65535)");
    spec_fails("{\"ports\": [\"\"]}", "port '' is not a number (allowed: 1..65535)");
    spec_fails("{\"ports\": 80}", "ports must be a list of port numbers");
    spec_fails("{\"ports\": {\"a\": 80}}", "ports must be a list of port numbers");
}

static void test_add_port_and_validate(void **state)
{
    sm_spec s;
    sm_error e;
    sm_spec_init(&s);
    assert_int_equal(sm_spec_add_port(&s, "8080", &e), SM_OK);
    sm_error_clear(&e);
    assert_int_equal(sm_spec_add_port(&s, "8080", &e), SM_ERR_INVALID);
    assert_string_equal(e.msg, "port 8080 is listed twice (ports must be unique)");
    assert_int_equal(sm_spec_add_port(&s, "x1", &e), SM_ERR_INVALID);
    assert_string_equal(e.msg, "port 'x1' is not a number (allowed: 1..65535)");
    assert_int_equal(sm_spec_add_port(&s, "70000", &e), SM_ERR_INVALID);
    assert_string_equal(e.msg, "port 70000 is out of range (allowed: 1..65535)");
    assert_int_equal(s.nports, 1);
    sm_spec_free(&s);

    assert_int_equal(sm_port_validate(1, NULL), SM_OK);
    assert_int_equal(sm_port_validate(65535, NULL), SM_OK);
    assert_int_equal(sm_port_validate(0, NULL), SM_ERR_INVALID);
    assert_int_equal(sm_port_validate(65536, NULL), SM_ERR_INVALID);

    /* sm_spec_validate checks ports put in by hand too */
    sm_spec_init(&s);
    s.ports = xcalloc(2, sizeof(int));
    s.ports[0] = 22;
    s.ports[1] = 22;
    s.nports = 2;
    sm_error_clear(&e);
    assert_int_equal(sm_spec_validate(&s, &e), SM_ERR_INVALID);
    assert_string_equal(e.msg, "port 22 is listed twice (ports must be unique)");
    s.ports[1] = 0;
    assert_int_equal(sm_spec_validate(&s, &e), SM_ERR_INVALID);
    assert_string_equal(e.msg, "port 0 is out of range (allowed: 1..65535)");
    s.ports[1] = 23;
    assert_int_equal(sm_spec_validate(&s, &e), SM_OK);
    sm_spec_free(&s);
}

/* ---------------------------------------------------------------- resources */

static void test_resources_keys(void **state)
{
    sm_resources r;
    sm_error e;
    sm_error_clear(&e);
    cJSON *j = cJSON_Parse("{\"cpu\": 1, \"ram\": 512}");
    assert_int_equal(sm_resources_from_json(j, &r, &e), SM_ERR_INVALID);
    assert_string_equal(e.msg,
                        "unknown key 'ram' in resources (allowed: cpu, disk_gib, gpu, gpu_type, "
                        "memory_mib)");
    cJSON_Delete(j);
    sm_resources_free(&r);

    spec_fails("{\"resources\": {\"ram\": 1}}",
               "unknown key 'ram' in resources (allowed: cpu, disk_gib, gpu, gpu_type, "
               "memory_mib)");
    spec_fails("{\"resources\": [1]}", "resources must be a mapping");
}

static void test_resources_coercion(void **state)
{
    sm_resources r;
    sm_error e;
    cJSON *j = cJSON_Parse("{\"cpu\": \"1.5\", \"memory_mib\": \"512\", \"disk_gib\": 10, "
                           "\"gpu\": \"2\", \"gpu_type\": \"a100\"}");
    assert_int_equal(sm_resources_from_json(j, &r, &e), SM_OK);
    assert_int_equal(r.set,
                     SM_RES_CPU | SM_RES_MEMORY | SM_RES_DISK | SM_RES_GPU | SM_RES_GPU_TYPE);
    assert_true(r.cpu == 1.5);
    assert_int_equal(r.memory_mib, 512);
    assert_int_equal(r.disk_gib, 10);
    assert_int_equal(r.gpu, 2);
    assert_string_equal(r.gpu_type, "a100");
    cJSON *out = sm_resources_to_json(&r);
    assert_true(cJSON_GetObjectItem(out, "cpu")->valuedouble == 1.5);
    assert_true(cJSON_GetObjectItem(out, "memory_mib")->valuedouble == 512);
    assert_string_equal(cJSON_GetObjectItem(out, "gpu_type")->valuestring, "a100");
    cJSON_Delete(out);
    sm_resources_free(&r);
    cJSON_Delete(j);

    sm_error_clear(&e);
    j = cJSON_Parse("{\"cpu\": true}");
    assert_int_equal(sm_resources_from_json(j, &r, &e), SM_ERR_INVALID);
    assert_string_equal(e.msg, "resources.cpu must be a number");
    cJSON_Delete(j);
    sm_resources_free(&r);

    spec_fails("{\"resources\": {\"cpu\": \"lots\"}}", "resources.cpu must be a number");
    spec_fails("{\"resources\": {\"memory_mib\": 1.5}}", "resources.memory_mib must be an integer");
    spec_fails("{\"resources\": {\"memory_mib\": \"512MB\"}}",
               "resources.memory_mib must be an integer");
    spec_fails("{\"resources\": {\"gpu\": true}}", "resources.gpu must be an integer");
    spec_fails("{\"resources\": {\"gpu_type\": 3}}", "resources.gpu_type must be a string");
}

static void test_resources_unset(void **state)
{
    sm_resources r;
    sm_error e;
    assert_int_equal(sm_resources_from_json(NULL, &r, &e), SM_OK);
    assert_int_equal(r.set, 0);
    cJSON *j = cJSON_Parse("{\"cpu\": null, \"memory_mib\": null, \"gpu_type\": null}");
    assert_int_equal(sm_resources_from_json(j, &r, &e), SM_OK);
    assert_int_equal(r.set, 0); /* null means not requested, never 0 */
    assert_null(r.gpu_type);
    cJSON *out = sm_resources_to_json(&r);
    assert_null(out->child);
    cJSON_Delete(out);
    cJSON_Delete(j);

    j = cJSON_Parse("{\"memory_mib\": 256}");
    assert_int_equal(sm_resources_from_json(j, &r, &e), SM_OK);
    assert_int_equal(r.set, SM_RES_MEMORY);
    cJSON_Delete(j);
}

static void test_resources_values(void **state)
{
    spec_fails("{\"resources\": {\"cpu\": 0}}",
               "resources.cpu must be > 0 (vCPU, fractions allowed), not 0");
    spec_fails("{\"resources\": {\"cpu\": -0.5}}",
               "resources.cpu must be > 0 (vCPU, fractions allowed), not -0.5");
    spec_fails("{\"resources\": {\"memory_mib\": 0}}",
               "resources.memory_mib must be a positive integer, not 0");
    spec_fails("{\"resources\": {\"memory_mib\": -1}}",
               "resources.memory_mib must be a positive integer, not -1");
    /* Too small to mean anything is refused, never applied as no limit at all. */
    spec_fails("{\"resources\": {\"cpu\": 1e-9}}",
               "resources.cpu 1e-09 is too small (allowed: 0.01 to 1024 vCPU; the kernel's "
               "smallest quota is 1 ms per 100 ms)");
    spec_fails("{\"resources\": {\"cpu\": 0.0099}}",
               "resources.cpu 0.0099 is too small (allowed: 0.01 to 1024 vCPU; the kernel's "
               "smallest quota is 1 ms per 100 ms)");
    spec_fails("{\"resources\": {\"memory_mib\": 5}}",
               "resources.memory_mib 5 is too small (allowed: 6..16777216 MiB; less does not "
               "hold a shell)");
    spec_fails("{\"resources\": {\"disk_gib\": 0}}",
               "resources.disk_gib must be a positive integer");
    spec_fails("{\"resources\": {\"gpu\": -1}}", "resources.gpu must not be negative");
    sm_spec s;
    spec_ok("{\"resources\": {\"cpu\": 0.01, \"memory_mib\": 6}}", &s); /* the smallest */
    sm_spec_free(&s);
    spec_ok("{\"resources\": {\"cpu\": 0.25, \"gpu\": 0}}", &s); /* no GPU is a valid request */
    assert_true(s.resources.cpu == 0.25);
    assert_int_equal(s.resources.gpu, 0);
    assert_true(s.resources.set & SM_RES_GPU);
    sm_spec_free(&s);
}

/* Upper bounds: far above any real request, low enough that nothing downstream overflows
 * (memory in bytes, timers in ms, TTL shown in days). */
static void test_upper_bounds(void **state)
{
    spec_fails("{\"resources\": {\"memory_mib\": 17592186044417}}",
               "resources.memory_mib 17592186044417 is too large (allowed: 6..16777216 MiB, "
               "16 TiB)");
    spec_fails("{\"resources\": {\"memory_mib\": 8796093022208}}",
               "resources.memory_mib 8796093022208 is too large (allowed: 6..16777216 MiB, "
               "16 TiB)");
    spec_fails("{\"resources\": {\"cpu\": 1024.5}}",
               "resources.cpu 1024.5 is too large (allowed: up to 1024 vCPU)");
    spec_fails("{\"resources\": {\"disk_gib\": 1048577}}",
               "resources.disk_gib 1048577 is too large (allowed: 1..1048576 GiB, 1 PiB)");
    spec_fails("{\"resources\": {\"gpu\": 1025}}",
               "resources.gpu 1025 is too large (allowed: 0..1024)");
    spec_fails("{\"ttl_s\": 1e300}",
               "ttl_s 1e+300 is too large (allowed: up to 315360000 seconds, 10 years)");
    spec_fails("{\"ttl_s\": 315360001}",
               "ttl_s 3.1536e+08 is too large (allowed: up to 315360000 seconds, 10 years)");
    spec_fails("{\"ready_timeout_s\": 86401}",
               "ready_timeout_s 86401 is too large (allowed: up to 86400 seconds, 1 day)");
    /* the bounds themselves are allowed */
    sm_spec s;
    spec_ok("{\"ttl_s\": 315360000, \"ready_timeout_s\": 86400, \"resources\": {\"cpu\": 1024, "
            "\"memory_mib\": 16777216, \"disk_gib\": 1048576, \"gpu\": 1024}}",
            &s);
    assert_int_equal(s.resources.memory_mib, SM_MAX_MEMORY_MIB);
    sm_spec_free(&s);
    /* a spec built in code is held to the same bounds, NaN included */
    sm_error e;
    sm_spec_init(&s);
    s.ttl_s = 0.0 / 0.0;
    assert_int_equal(sm_spec_validate(&s, &e), SM_ERR_INVALID);
    assert_non_null(strstr(e.msg, "nan is too large (allowed: up to 315360000 seconds"));
    s.ttl_s = -1;
    s.resources.set = SM_RES_MEMORY;
    s.resources.memory_mib = SM_MAX_MEMORY_MIB + 1;
    assert_int_equal(sm_spec_validate(&s, &e), SM_ERR_INVALID);
    s.resources.memory_mib = SM_MAX_MEMORY_MIB;
    assert_int_equal(sm_spec_validate(&s, &e), SM_OK);
    sm_spec_free(&s);
    /* exec timeouts: 0 or less is the default, up to a week */
    assert_int_equal(sm_exec_timeout_validate(0, &e), SM_OK);
    assert_int_equal(sm_exec_timeout_validate(604800, &e), SM_OK);
    assert_int_equal(sm_exec_timeout_validate(604801, &e), SM_ERR_INVALID);
    assert_string_equal(e.msg, "exec timeout 604801 s is out of range (allowed: up to 604800 "
                               "seconds, 1 week; 0 or less for the default)");
    assert_int_equal(sm_exec_timeout_validate(1e300, &e), SM_ERR_INVALID);
}

/* ---------------------------------------------------------------- spec fields */

static void test_spec_unknown_key(void **state)
{
    spec_fails("{\"image\": \"x\", \"imag\": \"y\"}",
               "unknown key 'imag' in sandbox spec (allowed: entrypoint, env, files, image, "
               "metadata, ports, provider_options, ready_timeout_s, resources, ttl_s, workdir)");
    spec_fails("[1]", "sandbox spec must be a mapping");
}

static void test_spec_paths(void **state)
{
    spec_fails("{\"workdir\": \"tmp/x\"}", "workdir 'tmp/x' must be an absolute path");
    spec_fails("{\"workdir\": \"/tmp/../etc\"}",
               "workdir '/tmp/../etc' must not contain '..' components (write the plain absolute "
               "path)");
    spec_fails("{\"workdir\": \"/a/./b\"}",
               "workdir '/a/./b' must not contain '.' components (write the plain absolute path)");
    spec_fails("{\"files\": {\"/ok.txt\": \"a\", \"rel.txt\": \"b\"}}",
               "files: path 'rel.txt' must be absolute");
    sm_spec s;
    spec_ok("{\"workdir\": \"/work\", \"files\": {\"/a/b.txt\": \"hi\"}}", &s);
    assert_string_equal(s.workdir, "/work");
    assert_string_equal(sm_map_get(&s.files, "/a/b.txt"), "hi");
    sm_spec_free(&s);
}

static void test_spec_other_rules(void **state)
{
    spec_fails("{\"image\": \"\"}", "image must not be empty");
    spec_fails("{\"image\": 3}", "spec.image must be a string");
    spec_fails("{\"ttl_s\": 0}", "ttl_s must be a positive number of seconds, not 0");
    spec_fails("{\"ready_timeout_s\": 0}",
               "ready_timeout_s must be a positive number of seconds, not 0");
    spec_fails("{\"ttl_s\": -5}", "ttl_s must be a positive number of seconds, not -5");
    spec_fails("{\"ttl_s\": \"soon\"}", "spec.ttl_s must be a number");
    spec_fails("{\"env\": {\"A=B\": \"x\"}}", "env: invalid variable name 'A=B'");
    spec_fails("{\"env\": {\"\": \"x\"}}", "env: invalid variable name ''");
    spec_fails("{\"env\": [\"A=1\"]}", "env: must be a mapping of strings");
    spec_fails("{\"metadata\": {\"a\": {\"b\": 1}}}",
               "metadata: value of 'a' must be a string, not a mapping");
    spec_fails("{\"entrypoint\": []}", "entrypoint must not be an empty list");
    spec_fails("{\"entrypoint\": \"sleep\"}", "entrypoint must be a list of strings");
    spec_fails("{\"entrypoint\": [\"sleep\", 1]}", "entrypoint[1] must be a string");
    spec_fails("{\"provider_options\": [1]}", "provider_options must be a mapping");
}

static void test_spec_full_and_copy(void **state)
{
    sm_spec s, c;
    spec_ok("{\"image\": \"python:3.12\", \"ttl_s\": \"60\", \"ready_timeout_s\": 5.5, "
            "\"workdir\": \"/w\", \"env\": {\"A\": \"1\", \"N\": 2}, "
            "\"metadata\": {\"team\": \"x\"}, \"resources\": {\"cpu\": 2}, "
            "\"entrypoint\": [\"sleep\", \"inf\"], \"provider_options\": {\"k\": [1]}, "
            "\"ports\": [8000]}",
            &s);
    assert_string_equal(s.image, "python:3.12");
    assert_true(s.ttl_s == 60); /* numeric strings are accepted */
    assert_true(s.ready_timeout_s == 5.5);
    assert_string_equal(sm_map_get(&s.env, "N"), "2");
    assert_string_equal(s.entrypoint[1], "inf");
    assert_null(s.entrypoint[2]);

    sm_spec_copy(&c, &s);
    sm_spec_free(&s);
    assert_string_equal(c.image, "python:3.12");
    assert_string_equal(sm_map_get(&c.metadata, "team"), "x");
    assert_string_equal(c.entrypoint[0], "sleep");
    assert_int_equal(c.nports, 1);
    assert_int_equal(c.ports[0], 8000);
    assert_true(cJSON_IsArray(cJSON_GetObjectItem(c.provider_options, "k")));

    cJSON *j = sm_spec_to_json(&c, false);
    assert_null(cJSON_GetObjectItem(j, "env"));
    const cJSON *names = cJSON_GetObjectItem(j, "env_names");
    assert_int_equal(cJSON_GetArraySize(names), 2);
    assert_string_equal(cJSON_GetArrayItem(names, 0)->valuestring, "A");
    cJSON_Delete(j);

    j = sm_spec_to_json(&c, true);
    assert_string_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "env"), "A")->valuestring, "1");
    sm_spec back;
    sm_error e;
    assert_int_equal(sm_spec_from_json(j, &back, &e), SM_OK);
    assert_string_equal(back.image, "python:3.12");
    assert_true(back.ttl_s == 60);
    assert_true(back.resources.cpu == 2);
    assert_int_equal(back.ports[0], 8000);
    assert_string_equal(back.entrypoint[1], "inf");
    sm_spec_free(&back);
    cJSON_Delete(j);
    sm_spec_free(&c);
}

static void test_spec_defaults(void **state)
{
    sm_spec s;
    spec_ok("{}", &s);
    assert_null(s.image);
    assert_true(s.ttl_s < 0);
    assert_true(s.ready_timeout_s < 0);
    assert_null(s.entrypoint);
    assert_null(s.provider_options);
    assert_int_equal(s.resources.set, 0);
    sm_spec_free(&s);
}

/* ---------------------------------------------------------------- pty spec */

static void test_pty_spec(void **state)
{
    sm_pty_spec p;
    sm_error e;
    sm_pty_spec_init(&p);
    assert_int_equal(p.rows, 24);
    assert_int_equal(p.cols, 80);
    assert_true(p.pty);
    assert_null(p.command);
    assert_int_equal(sm_pty_spec_validate(&p, &e), SM_OK);

    p.rows = 1;
    p.cols = 10000;
    assert_int_equal(sm_pty_spec_validate(&p, &e), SM_OK);
    p.rows = 0;
    assert_int_equal(sm_pty_spec_validate(&p, &e), SM_ERR_INVALID);
    assert_string_equal(e.msg, "pty size 0x10000 is out of range (rows and cols: 1..10000)");
    p.rows = 24;
    p.cols = 10001;
    assert_int_equal(sm_pty_spec_validate(&p, &e), SM_ERR_INVALID);
    assert_string_equal(e.msg, "pty size 24x10001 is out of range (rows and cols: 1..10000)");
    p.cols = -3;
    assert_int_equal(sm_pty_spec_validate(&p, &e), SM_ERR_INVALID);

    /* pipe mode ignores the size */
    p.pty = false;
    p.rows = 0;
    p.cols = 0;
    assert_int_equal(sm_pty_spec_validate(&p, &e), SM_OK);

    p.cwd = "rel";
    assert_int_equal(sm_pty_spec_validate(&p, &e), SM_ERR_INVALID);
    assert_string_equal(e.msg, "pty cwd 'rel' must be an absolute path");
    p.cwd = "/abs";
    assert_int_equal(sm_pty_spec_validate(&p, &e), SM_OK);
}

/* ---------------------------------------------------------------- endpoints */

static void endpoint_ok(const char *in, const char *want)
{
    sm_endpoint ep;
    sm_error e;
    sm_error_clear(&e);
    if (sm_endpoint_set(&ep, in, &e) != SM_OK)
        fail_msg("endpoint '%s' rejected: %s", in, e.msg);
    assert_string_equal(ep.url, want);
    assert_int_equal(ep.headers.n, 0);
    sm_endpoint_free(&ep);
    assert_null(ep.url);
}

static void endpoint_bad(const char *in, const char *shown)
{
    sm_endpoint ep;
    sm_error e;
    sm_error_clear(&e);
    assert_int_equal(sm_endpoint_set(&ep, in, &e), SM_ERR_INVALID);
    char want[256];
    snprintf(want, sizeof want, "endpoint '%s' is not an absolute URL (need scheme://host)", shown);
    assert_string_equal(e.msg, want);
    assert_null(ep.url);
}

static void test_endpoint(void **state)
{
    endpoint_ok("http://127.0.0.1:8080", "http://127.0.0.1:8080");
    endpoint_ok(" http://h:1/x ", "http://h:1/x");
    endpoint_ok("\thttps://example.com/path?q=1\n", "https://example.com/path?q=1");
    endpoint_ok("wss://[::1]:9/", "wss://[::1]:9/");
    endpoint_ok("git+ssh://host", "git+ssh://host");

    endpoint_bad("localhost:8080", "localhost:8080");
    endpoint_bad("/path", "/path");
    endpoint_bad("", "");
    endpoint_bad("   ", "");
    endpoint_bad(" http:// ", "http://");
    endpoint_bad("http:///x", "http:///x");
    endpoint_bad("http://:80", "http://:80");
    endpoint_bad("://host", "://host");
    endpoint_bad("1http://host", "1http://host");
    endpoint_bad("ht tp://host", "ht tp://host");

    sm_endpoint ep;
    sm_error e;
    assert_int_equal(sm_endpoint_set(&ep, NULL, &e), SM_ERR_INVALID);
    assert_string_equal(e.msg, "endpoint URL is missing");
}

/* ---------------------------------------------------------------- exec results */

static void test_exec_request_init(void **state)
{
    sm_exec_request r;
    memset(&r, 0x5a, sizeof r);
    sm_exec_request_init(&r);
    assert_null(r.cmd);
    assert_null(r.env);
    assert_int_equal(r.stdout_fd, -1);
    assert_int_equal(r.stderr_fd, -1);
    assert_true(r.timeout_s == 0);
}

static void test_exec_result_json(void **state)
{
    sm_exec_result r;
    sm_exec_result_init(&r);
    cJSON *j = sm_exec_result_to_json(&r);
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(j, "stdout")));
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(j, "stderr")));
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(j, "error_type")));
    assert_true(cJSON_GetObjectItem(j, "return_code")->valuedouble == 0);
    assert_null(cJSON_GetObjectItem(j, "failure"));
    cJSON_Delete(j);

    /* a command that ran and failed: output present, failure object present */
    r.out = xstrdup("hi\n");
    r.out_len = 3;
    r.err = xstrdup("");
    r.err_len = 0;
    r.return_code = 3;
    r.duration_s = 0.5;
    r.failure.kind = SM_FAIL_EXIT_NONZERO;
    r.failure.exit_code = 3;
    j = sm_exec_result_to_json(&r);
    assert_string_equal(cJSON_GetObjectItem(j, "stdout")->valuestring, "hi\n");
    assert_string_equal(cJSON_GetObjectItem(j, "stderr")->valuestring, "");
    assert_true(cJSON_GetObjectItem(j, "return_code")->valuedouble == 3);
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(j, "error_type")));
    assert_true(cJSON_GetObjectItem(j, "duration_s")->valuedouble == 0.5);
    const cJSON *f = cJSON_GetObjectItem(j, "failure");
    assert_non_null(f);
    assert_string_equal(cJSON_GetObjectItem(f, "kind")->valuestring, "exit_nonzero");
    assert_string_equal(cJSON_GetObjectItem(f, "label")->valuestring, "exit 3");
    cJSON_Delete(j);
    sm_exec_result_free(&r);
    assert_null(r.out);
    assert_int_equal(r.failure.kind, SM_FAIL_NONE);

    /* NUL bytes in captured output cannot go into a JSON string: they become U+FFFD */
    r.out = xmalloc(3);
    memcpy(r.out, "a\0b", 3);
    r.out_len = 3;
    j = sm_exec_result_to_json(&r);
    assert_string_equal(cJSON_GetObjectItem(j, "stdout")->valuestring, "a\xEF\xBF\xBD"
                                                                       "b");
    cJSON_Delete(j);
    sm_exec_result_free(&r);

    /* a runtime failure: 125 + error_type */
    sm_failure fl;
    sm_failure_init(&fl);
    fl.kind = SM_FAIL_EXEC_TIMEOUT;
    fl.timeout_s = 5;
    sm_exec_result_runtime(&r, "timeout", &fl);
    assert_int_equal(r.return_code, SM_RUNTIME_RETURN_CODE);
    j = sm_exec_result_to_json(&r);
    assert_true(cJSON_GetObjectItem(j, "return_code")->valuedouble == 125);
    assert_string_equal(cJSON_GetObjectItem(j, "error_type")->valuestring, "timeout");
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(j, "stdout")));
    f = cJSON_GetObjectItem(j, "failure");
    assert_string_equal(cJSON_GetObjectItem(f, "kind")->valuestring, "exec_timeout");
    assert_true(cJSON_GetObjectItem(f, "timeout_s")->valuedouble == 5);
    cJSON_Delete(j);

    sm_exec_result_free(&r);
    sm_exec_result_runtime(&r, "sandbox", NULL);
    assert_int_equal(r.return_code, 125);
    assert_string_equal(r.error_type, "sandbox");
    assert_int_equal(r.failure.kind, SM_FAIL_NONE);
    sm_exec_result_free(&r);

    /* a command killed at its timeout: the reason ends what it wrote to stderr, on its own line */
    r.err = xstrdup("partial");
    r.err_len = 7;
    sm_exec_result_timed_out(&r, 2.5);
    assert_int_equal(r.return_code, 125);
    assert_string_equal(r.error_type, "timeout");
    assert_int_equal(r.failure.kind, SM_FAIL_EXEC_TIMEOUT);
    assert_true(r.failure.timeout_s == 2.5);
    assert_string_equal(r.err, "partial\ncommand timed out after 2.5s and was killed\n");
    assert_int_equal(r.err_len, strlen(r.err));
    sm_exec_result_free(&r);
    sm_exec_result_timed_out(&r, 3); /* nothing written: just the reason */
    assert_string_equal(r.err, "command timed out after 3s and was killed\n");
    sm_exec_result_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ports_valid),
        cmocka_unit_test(test_ports_invalid),
        cmocka_unit_test(test_add_port_and_validate),
        cmocka_unit_test(test_resources_keys),
        cmocka_unit_test(test_resources_coercion),
        cmocka_unit_test(test_resources_unset),
        cmocka_unit_test(test_resources_values),
        cmocka_unit_test(test_upper_bounds),
        cmocka_unit_test(test_spec_unknown_key),
        cmocka_unit_test(test_spec_paths),
        cmocka_unit_test(test_spec_other_rules),
        cmocka_unit_test(test_spec_full_and_copy),
        cmocka_unit_test(test_spec_defaults),
        cmocka_unit_test(test_pty_spec),
        cmocka_unit_test(test_endpoint),
        cmocka_unit_test(test_exec_request_init),
        cmocka_unit_test(test_exec_result_json),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
