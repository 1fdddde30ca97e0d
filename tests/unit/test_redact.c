/* Redaction: registered values, and secrets recognised by their form whatever they are called
 * (token prefixes, AWS keys, JWTs, PEM keys, URL passwords, Bearer/Authorization, NAME=value),
 * without touching ordinary text or breaking the JSON it runs over. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/redact.h"

static void expect_redacted(const char *in, const char *want)
{
    char *got = sm_redact_dup(in);
    assert_string_equal(got, want);
    free(got);
    char small[512];
    sm_redact_into(in, small, sizeof small);
    assert_string_equal(small, want);
}

#define GHP "ghp_Ab1Ab1Ab1Ab1Ab1Ab1Ab1Ab1Ab1Ab1Ab1Ab1"

static void test_token_prefixes(void **state)
{
    (void)state;
    expect_redacted("github_pat=" GHP, "github_pat=***");
    expect_redacted("token " GHP " used", "token ghp_*** used");
    expect_redacted("label x=" GHP ",y", "label x=ghp_***,y");
    expect_redacted("github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJ",
                    "github_pat_***");
    expect_redacted("glpat-abcdefghij0123456789", "glpat-***");
    expect_redacted("/models/hf_cache_directory_long1/x", "/models/hf_cache_directory_long1/x");
    expect_redacted("slack xoxb-1234-5678-abcdefgh", "slack xoxb-***");
    expect_redacted("key sk-proj-abcdefghijkl0123456789", "key sk-***");
    expect_redacted("hf_abcdefghijklmnopqrstuvwxyzABCDEFGH", "hf_***");
    expect_redacted("aws AKIAQQQQQQQQQQQQQQQQ done", "aws AKIA*** done");
    /* lookalikes stay */
    expect_redacted("task-sk-learn pip install scikit-learn sk-learn",
                    "task-sk-learn pip install scikit-learn sk-learn");
    expect_redacted("AKIAshort ghp_short hf_hub_download", "AKIAshort ghp_short hf_hub_download");
    expect_redacted("my" GHP, "my" GHP); /* not at a word start: not the token form */
}

static void test_structured_forms(void **state)
{
    (void)state;
    expect_redacted("git clone https://bob:pa55word@git.example.com/r.git",
                    "git clone https://bob:***@git.example.com/r.git");
    expect_redacted("redis://:hunter2@cache:6379/0", "redis://:***@cache:6379/0");
    expect_redacted("https://git@github.com/x and http://host:8080/p",
                    "https://git@github.com/x and http://host:8080/p");
    expect_redacted("curl -H 'Authorization: Bearer abc.def-ghi_jkl' x",
                    "curl -H 'Authorization: Bearer ***' x");
    expect_redacted("Authorization: Basic dXNlcjpwYXNz", "Authorization: Basic ***");
    expect_redacted("Authorization: tok-SECRET-1234", "Authorization: ***");
    expect_redacted("bearer  0123456789abcdef", "bearer  ***");
    expect_redacted("jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.c2lnbmF0dXJl end",
                    "jwt *** end");
    expect_redacted("-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\n-----END RSA PRIVATE "
                    "KEY-----\n",
                    "-----BEGIN RSA PRIVATE KEY-----***-----END RSA PRIVATE KEY-----\n");
    expect_redacted("-----BEGIN CERTIFICATE-----\nMIIB\n", "-----BEGIN CERTIFICATE-----\nMIIB\n");
    expect_redacted("export API_KEY=abc123 GITHUB_TOKEN=xyz; db_password=p@ss --secret=s3",
                    "export API_KEY=*** GITHUB_TOKEN=***; db_password=*** --secret=***");
    expect_redacted("gh_pat=x1y2z3 pat=aaa path=/tmp/x PATH=/bin",
                    "gh_pat=*** pat=*** path=/tmp/x PATH=/bin");
    expect_redacted("https://api.example.com/v1?access_token=abc&x=1",
                    "https://api.example.com/v1?access_token=***&x=1");
    expect_redacted("a=1 b=2 ==x", "a=1 b=2 ==x");
    expect_redacted("--env wants KEY=VALUE", "--env wants KEY=VALUE"); /* placeholders */
    expect_redacted("GH_TOKEN=$GITHUB_TOKEN make", "GH_TOKEN=$GITHUB_TOKEN make");
    expect_redacted("", "");
    expect_redacted(NULL, "");
}

static void test_key_names(void **state)
{
    (void)state;
    const char *secret[] = {"github_pat",  "GH_PAT",   "api_token", "aws_secret", "password",
                            "PASSWD",      "api_key",  "apikey",    "auth",       "credentials",
                            "private_key", "x-cookie", "BEARER"};
    for (size_t i = 0; i < sizeof secret / sizeof secret[0]; i++)
        assert_true(sm_redact_key_is_secret(secret[i]));
    const char *plain[] = {"path", "PATH", "image", "user", "team", "spatial", "run"};
    for (size_t i = 0; i < sizeof plain / sizeof plain[0]; i++)
        assert_false(sm_redact_key_is_secret(plain[i]));
}

static void test_json_stays_valid(void **state)
{
    (void)state;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(
        o, "cmd",
        "export API_KEY=ab\"cd; curl https://u:p@h/ -H 'Authorization: Bearer xyzxyzxyz'");
    cJSON_AddStringToObject(o, "pem", "-----BEGIN PRIVATE KEY-----\nMIIB");
    cJSON_AddStringToObject(o, "tok", GHP);
    char *json = cJSON_PrintUnformatted(o);
    char *red = sm_redact_dup(json);
    cJSON *back = cJSON_Parse(red);
    assert_non_null(back);
    assert_null(strstr(red, "Ab1Ab1"));
    assert_null(strstr(red, "MIIB"));
    assert_null(strstr(red, "xyzxyzxyz"));
    assert_null(strstr(red, "u:p@"));
    cJSON_Delete(back);
    cJSON_Delete(o);
    free(json);
    free(red);
}

static void test_registered_and_fast(void **state)
{
    (void)state;
    sm_redact_register("osb-secret-0123456789");
    expect_redacted("auth failed for osb-secret-0123456789 at http://osb.example:8080",
                    "auth failed for *** at http://osb.example:8080");
    /* a command's own output keeps everything but sandman's registered credentials */
    char *out =
        sm_redact_registered_dup("API_KEY=abc https://u:p@h/ " GHP " osb-secret-0123456789");
    assert_string_equal(out, "API_KEY=abc https://u:p@h/ " GHP " ***");
    free(out);
    /* One pass, whatever the text: a 64 KiB line full of places where a secret could start
     * (word starts, '=', "--", "://") takes well under 20 ms even on a loaded machine (about
     * 0.3 ms idle); anything quadratic would take seconds. */
    static char big[65536];
    const char *piece = "a=b --c https://h/ ghp_x sk-1 eyJ Bearer x ";
    size_t pl = strlen(piece), n = 0;
    while (n + pl < sizeof big) {
        memcpy(big + n, piece, pl);
        n += pl;
    }
    big[n] = '\0';
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int i = 0; i < 10; i++)
        free(sm_redact_dup(big));
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double ms =
        ((double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6) / 10;
    assert_true(ms < 20.0);
    sm_redact_reset();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_token_prefixes),      cmocka_unit_test(test_structured_forms),
        cmocka_unit_test(test_key_names),           cmocka_unit_test(test_json_stays_valid),
        cmocka_unit_test(test_registered_and_fast),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
