/* Unit tests for core/gc.c: which sandboxes a gc selection matches (labels and age narrow,
 * --expired/--orphaned/--ended are alternatives, foreign containers never), owner claims of
 * live, dead and reused processes, and durations. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <cjson/cJSON.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/attribution.h"
#include "core/gc.h"
#include "core/util.h"

static const double NOW = 1.8e9;

static void info(sm_sandbox_info *i, const char *id, sm_status st, double age, double ttl)
{
    sm_sandbox_info_init(i);
    i->id = xstrdup(id);
    i->status = st;
    i->created_at = NOW - age;
    i->ttl_s = ttl;
}

static bool match(const sm_gc_filter *f, const sm_sandbox_info *i, char *why)
{
    static char buf[512];
    return sm_gc_match(f, i, NOW, why ? why : buf, 512);
}

static void test_empty_filter_selects_nothing(void **state)
{
    sm_gc_filter f = {0};
    sm_map none = {0};
    f.labels = &none;
    assert_true(sm_gc_filter_empty(&f));
    f.all = true;
    assert_false(sm_gc_filter_empty(&f));
    f.all = false;
    sm_map_set(&none, SM_LABEL_RUN, "r1");
    assert_false(sm_gc_filter_empty(&f));
    sm_map_free(&none);
}

static void test_expired(void **state)
{
    sm_gc_filter f = {.expired = true};
    sm_sandbox_info fresh, past, by_ttl, oom, nottl;
    info(&fresh, "fresh", SM_STATUS_RUNNING, 10, 600);
    info(&past, "past", SM_STATUS_RUNNING, 700, 600); /* alive past its TTL (not enforced) */
    info(&by_ttl, "byttl", SM_STATUS_STOPPED, 30, 5);
    by_ttl.failure.kind = SM_FAIL_TTL_EXPIRED;
    info(&oom, "oom", SM_STATUS_STOPPED, 700, 600); /* ended by OOM before: ended, not expired */
    oom.failure.kind = SM_FAIL_OOM;
    info(&nottl, "nottl", SM_STATUS_RUNNING, 1e6, -1);
    char why[512];
    assert_false(match(&f, &fresh, NULL));
    assert_true(match(&f, &past, why));
    assert_non_null(strstr(why, "expired (ttl 600s ran out 1m40s ago)"));
    assert_true(match(&f, &by_ttl, why));
    assert_non_null(strstr(why, "expired"));
    assert_false(match(&f, &oom, NULL));
    assert_false(match(&f, &nottl, NULL));
    sm_sandbox_info_free(&fresh);
    sm_sandbox_info_free(&past);
    sm_sandbox_info_free(&by_ttl);
    sm_sandbox_info_free(&oom);
    sm_sandbox_info_free(&nottl);
}

/* A token of a process that has exited and been reaped. */
static void dead_token(char *buf, size_t len)
{
    int p[2];
    assert_int_equal(pipe(p), 0);
    pid_t pid = fork();
    if (pid == 0) {
        char c;
        close(p[1]);
        (void)!read(p[0], &c, 1);
        _exit(0);
    }
    close(p[0]);
    assert_int_equal(sm_gc_owner_token(pid, buf, len), 0);
    close(p[1]);
    waitpid(pid, NULL, 0);
}

static void test_owner_tokens(void **state)
{
    char mine[128], dead[128], other[160];
    assert_int_equal(sm_gc_owner_token(0, mine, sizeof mine), 0);
    assert_int_equal(sm_gc_owner_gone(mine), 0);
    dead_token(dead, sizeof dead);
    assert_int_equal(sm_gc_owner_gone(dead), 1);
    /* the same pid with another start time: a reused pid is not the owner */
    int pid = getpid();
    snprintf(other, sizeof other, "%.36s:%d:%llu", mine, pid, 1ULL);
    assert_int_equal(sm_gc_owner_gone(other), 1);
    /* another boot (or host): cannot tell, so never orphaned by it */
    snprintf(other, sizeof other, "00000000-0000-0000-0000-000000000000:%d:1", pid);
    assert_int_equal(sm_gc_owner_gone(other), -1);
    assert_int_equal(sm_gc_owner_gone("garbage"), -1);
    assert_int_equal(sm_gc_owner_gone(""), -1);

    sm_map labels = {0};
    sm_gc_claim(&labels);
    assert_string_equal(sm_map_get(&labels, SM_LABEL_OWNER), mine);
    sm_map_free(&labels);
}

static void test_orphaned(void **state)
{
    sm_gc_filter f = {.orphaned = true};
    char dead[128], mine[128], why[512];
    dead_token(dead, sizeof dead);
    sm_gc_owner_token(0, mine, sizeof mine);
    sm_sandbox_info lost, owned_dead, owned_alive, plain;
    info(&lost, "lost", SM_STATUS_ERROR, 5, -1);
    lost.failure.kind = SM_FAIL_SUPERVISOR_LOST;
    info(&owned_dead, "od", SM_STATUS_RUNNING, 5, -1);
    sm_map_set(&owned_dead.labels, SM_LABEL_OWNER, dead);
    info(&owned_alive, "oa", SM_STATUS_RUNNING, 5, -1);
    sm_map_set(&owned_alive.labels, SM_LABEL_OWNER, mine);
    info(&plain, "plain", SM_STATUS_RUNNING, 1e6, -1); /* sandman create: no claim */
    assert_true(match(&f, &lost, why));
    assert_non_null(strstr(why, "orphaned (its supervisor died)"));
    assert_true(match(&f, &owned_dead, why));
    assert_non_null(strstr(why, "that created it is gone"));
    assert_false(match(&f, &owned_alive, NULL));
    assert_false(match(&f, &plain, NULL));
    sm_sandbox_info_free(&lost);
    sm_sandbox_info_free(&owned_dead);
    sm_sandbox_info_free(&owned_alive);
    sm_sandbox_info_free(&plain);
}

static void test_labels_and_age_narrow_conditions_widen(void **state)
{
    sm_map want = {0};
    sm_map_set(&want, SM_LABEL_RUN, "r1");
    sm_gc_filter f = {.labels = &want};
    sm_sandbox_info a, b, c;
    info(&a, "a", SM_STATUS_RUNNING, 100, -1);
    sm_map_set(&a.labels, SM_LABEL_RUN, "r1");
    info(&b, "b", SM_STATUS_RUNNING, 100, -1);
    sm_map_set(&b.labels, SM_LABEL_RUN, "r2");
    info(&c, "c", SM_STATUS_STOPPED, 5000, -1);
    sm_map_set(&c.labels, SM_LABEL_RUN, "r1");
    assert_true(match(&f, &a, NULL)); /* --run alone: the whole run */
    assert_false(match(&f, &b, NULL));
    assert_true(match(&f, &c, NULL));
    f.older_than_s = 3600; /* and older than an hour */
    assert_false(match(&f, &a, NULL));
    assert_true(match(&f, &c, NULL));
    f.older_than_s = 0;
    f.ended = true; /* and ended */
    assert_false(match(&f, &a, NULL));
    assert_true(match(&f, &c, NULL));
    f.orphaned = true; /* ended or orphaned: a is neither */
    assert_false(match(&f, &a, NULL));
    assert_true(match(&f, &c, NULL));
    sm_gc_filter all = {.all = true};
    assert_true(match(&all, &b, NULL));
    sm_map_free(&want);
    sm_sandbox_info_free(&a);
    sm_sandbox_info_free(&b);
    sm_sandbox_info_free(&c);
}

static void test_foreign_containers_never(void **state)
{
    sm_gc_filter f = {.all = true};
    sm_sandbox_info other, gym;
    info(&other, "db", SM_STATUS_STOPPED, 1e6, -1);
    other.extra = cJSON_CreateObject();
    cJSON_AddBoolToObject(other.extra, "foreign", true);
    info(&gym, "gym", SM_STATUS_STOPPED, 1e6, -1);
    gym.extra = cJSON_CreateObject();
    cJSON_AddBoolToObject(gym.extra, "foreign", true);
    sm_map_set(&gym.labels, SM_LABEL_NEMO_GYM_SANDBOX, "1");
    assert_false(match(&f, &other, NULL));
    assert_true(match(&f, &gym, NULL));
    sm_sandbox_info_free(&other);
    sm_sandbox_info_free(&gym);
}

static void test_durations(void **state)
{
    double d;
    assert_int_equal(sm_parse_duration("90", &d), 0);
    assert_true(d == 90);
    assert_int_equal(sm_parse_duration("1h30m", &d), 0);
    assert_true(d == 5400);
    assert_int_equal(sm_parse_duration("2d", &d), 0);
    assert_true(d == 172800);
    assert_int_equal(sm_parse_duration("1w", &d), 0);
    assert_true(d == 604800);
    assert_int_equal(sm_parse_duration("", &d), -1);
    assert_int_equal(sm_parse_duration("-5m", &d), -1);
    assert_int_equal(sm_parse_duration("5y", &d), -1);
    assert_int_equal(sm_parse_duration("abc", &d), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_empty_filter_selects_nothing),
        cmocka_unit_test(test_expired),
        cmocka_unit_test(test_owner_tokens),
        cmocka_unit_test(test_orphaned),
        cmocka_unit_test(test_labels_and_age_narrow_conditions_widen),
        cmocka_unit_test(test_foreign_containers_never),
        cmocka_unit_test(test_durations),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
