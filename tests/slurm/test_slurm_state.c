/* Unit tests for how the slurm provider reads a sandbox from its job's state and the record its
 * job wrote (slurm_job.c): each Slurm job state a user can meet maps to the status and failure
 * kind that sandman shows, the node's own end record and a cancel mark win over the job state,
 * and a create that failed on the node shows the node's words. No cluster needed. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/util.h"
#include "providers/slurm/slurm.h"

static char dir[] = "/tmp/sandman-slurm-state-XXXXXX";

static void put(const char *name, const char *text)
{
    char *p = xasprintf("%s/%s", dir, name);
    assert_int_equal(sm_write_file_atomic(p, text, strlen(text), 0600), 0);
    free(p);
}

static void drop(const char *name)
{
    char *p = xasprintf("%s/%s", dir, name);
    unlink(p);
    free(p);
}

/* The info for a job in state/reason on node n3. */
static void info_for(const char *state, const char *reason, sm_sandbox_info *info)
{
    slurm_job j;
    memset(&j, 0, sizeof j);
    snprintf(j.state, sizeof j.state, "%s", state);
    snprintf(j.reason, sizeof j.reason, "%s", reason);
    snprintf(j.node, sizeof j.node, "n3");
    slurm_provider sp = {.state_dir = "/nonexistent"};
    slurm_info(&sp, "abc123", dir, &j, info);
}

static void expect(const char *state, const char *reason, sm_status st, sm_failure_kind k)
{
    sm_sandbox_info info;
    info_for(state, reason, &info);
    if (info.status != st || info.failure.kind != k)
        fail_msg("job %s (%s): got %s/%s, expected %s/%s", state, reason,
                 sm_status_name(info.status), sm_failure_kind_name(info.failure.kind),
                 sm_status_name(st), sm_failure_kind_name(k));
    sm_sandbox_info_free(&info);
}

static int setup(void **state)
{
    (void)state;
    assert_non_null(mkdtemp(dir));
    put("meta.json", "{\"job_id\": 42, \"created_at\": 1700000000, \"labels\": {\"team\": \"x\"}}");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    sm_rm_rf(dir);
    return 0;
}

static void test_job_states(void **state)
{
    (void)state;
    expect("PENDING", "Resources", SM_STATUS_STARTING, SM_FAIL_NONE);
    expect("RUNNING", "None", SM_STATUS_STARTING, SM_FAIL_NONE); /* node's sandbox not ready */
    put("local_id", "deadbeef0001\n");
    expect("RUNNING", "None", SM_STATUS_RUNNING, SM_FAIL_NONE);
    expect("TIMEOUT", "TimeLimit", SM_STATUS_STOPPED, SM_FAIL_TTL_EXPIRED);
    expect("CANCELLED", "None", SM_STATUS_STOPPED, SM_FAIL_KILLED_BY_USER);
    expect("OUT_OF_MEMORY", "OutOfMemory", SM_STATUS_STOPPED, SM_FAIL_OOM);
    expect("NODE_FAIL", "NodeDown", SM_STATUS_ERROR, SM_FAIL_SANDBOX_ERROR);
    expect("PREEMPTED", "None", SM_STATUS_STOPPED, SM_FAIL_KILLED_BY_USER);
    expect("COMPLETED", "None", SM_STATUS_STOPPED, SM_FAIL_NONE);
    expect("", "", SM_STATUS_STOPPED, SM_FAIL_SANDBOX_ERROR); /* the controller forgot it */
    drop("local_id");
}

static void test_what_the_user_reads(void **state)
{
    (void)state;
    sm_sandbox_info info;
    info_for("PENDING", "Resources", &info);
    assert_string_equal(info.detail, "pending (Resources)");
    assert_string_equal(sm_map_get(&info.labels, "team"), "x");
    cJSON *node = cJSON_GetObjectItemCaseSensitive(info.extra, "node");
    assert_string_equal(node->valuestring, "n3");
    assert_int_equal(cJSON_GetObjectItemCaseSensitive(info.extra, "job_id")->valueint, 42);
    sm_sandbox_info_free(&info);
    info_for("NODE_FAIL", "NodeDown", &info);
    assert_non_null(strstr(info.failure.reason, "node n3 failed"));
    sm_sandbox_info_free(&info);
    /* a create that failed on the node says why, in the node's words */
    put("failed", "1\n");
    put("create.err", "sandman: image dir:/nope: no such directory\n");
    info_for("FAILED", "NonZeroExitCode", &info);
    assert_int_equal(info.status, SM_STATUS_ERROR);
    assert_int_equal(info.failure.kind, SM_FAIL_CREATE_FAILED);
    assert_non_null(strstr(info.failure.reason, "image dir:/nope: no such directory"));
    sm_sandbox_info_free(&info);
    drop("failed");
    drop("create.err");
}

static void test_record_wins_over_job(void **state)
{
    (void)state;
    put("local_id", "deadbeef0001\n");
    /* the node's sandbox ended at its TTL: the job may still be finishing */
    put("end.json", "{\"status\": \"stopped\", \"failure\": {\"kind\": \"ttl_expired\"}}");
    expect("RUNNING", "None", SM_STATUS_STOPPED, SM_FAIL_TTL_EXPIRED);
    expect("", "", SM_STATUS_STOPPED, SM_FAIL_TTL_EXPIRED);
    drop("end.json");
    /* scancel'd: the job's script marked it before ending the sandbox */
    put("cancelled", "");
    expect("RUNNING", "None", SM_STATUS_STOPPED, SM_FAIL_KILLED_BY_USER);
    expect("COMPLETED", "None", SM_STATUS_STOPPED, SM_FAIL_KILLED_BY_USER);
    drop("cancelled");
    drop("local_id");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_job_states),
        cmocka_unit_test(test_what_the_user_reads),
        cmocka_unit_test(test_record_wins_over_job),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
