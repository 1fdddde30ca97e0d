/* The fleet model: scans folded into rows, the text of the shared cells (what the dashboard,
 * `top` and `ls` print), a failed scan's stale rows, journal events before and after their
 * sandbox appears, state dropped with the sandboxes that leave, and `ls`'s failures read from
 * the journal. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fleet.h"
#include "core/journal.h"
#include "core/util.h"

/* The cells as of one fixed moment (set when a list is made), so that ages and TTLs do not
 * tick while a test reads them. */
static double g_now;

static sm_sandbox_info *list_of(size_t n, const char *const *ids, sm_status status)
{
    g_now = sm_now_wall();
    sm_sandbox_info *l = xcalloc(n ? n : 1, sizeof *l);
    for (size_t i = 0; i < n; i++) {
        sm_sandbox_info_init(&l[i]);
        l[i].id = xstrdup(ids[i]);
        l[i].provider = xstrdup("local");
        l[i].image = xstrdup("host");
        l[i].status = status;
        l[i].created_at = g_now - 90;
        l[i].ttl_s = -1;
    }
    return l;
}

/* A snapshot of n sandboxes, each sampled at ts with cpu seconds used so far. */
static sm_fleet_snapshot *scan_of(size_t n, const char *const *ids, sm_status status, double ts,
                                  double cpu, long long oom)
{
    sm_sample *s = xcalloc(n ? n : 1, sizeof *s);
    bool *ok = xcalloc(n ? n : 1, sizeof *ok);
    for (size_t i = 0; i < n; i++) {
        sm_sample_init(&s[i]);
        s[i].ts = ts;
        s[i].wall = ts;
        s[i].cpu_time_s = cpu;
        s[i].mem_working_set = 3LL << 20;
        s[i].mem_limit = 64LL << 20;
        s[i].pids = 4;
        s[i].pids_limit = 4096;
        s[i].io_read_bytes = (long long)(ts * 1024);
        s[i].io_write_bytes = 0;
        s[i].oom_kills = oom;
        s[i].pids_events = 0;
        s[i].nr_throttled = 0;
        ok[i] = status == SM_STATUS_RUNNING;
    }
    return sm_fleet_snapshot_new(list_of(n, ids, status), n, s, ok);
}

static const char *cell(const sm_fleet *f, size_t row, sm_fleet_col c)
{
    static char buf[256];
    sm_fleet_cell(f, &f->rows[row], c, g_now, buf, sizeof buf);
    return buf;
}

static cJSON *oom_event(const char *provider, const char *id)
{
    cJSON *ev = cJSON_CreateObject();
    char ts[40];
    sm_format_time(sm_now_wall(), ts, sizeof ts);
    cJSON_AddStringToObject(ev, "ts", ts);
    cJSON_AddStringToObject(ev, "provider", provider);
    cJSON_AddStringToObject(ev, "sandbox_id", id);
    cJSON_AddStringToObject(ev, "type", "exec");
    sm_failure f;
    sm_failure_init(&f);
    f.kind = SM_FAIL_OOM;
    f.exit_code = 137;
    cJSON_AddItemToObject(ev, "failure", sm_failure_to_json(&f));
    cJSON *arr = cJSON_CreateArray();
    cJSON_AddItemToArray(arr, ev);
    return arr;
}

static void test_cells_of_a_running_sandbox(void **state)
{
    const char *ids[] = {"aaaaaaaaaaaaaaaa"};
    sm_fleet *f = sm_fleet_new("local");
    assert_false(f->loaded);
    assert_int_equal(sm_fleet_apply(f, scan_of(1, ids, SM_STATUS_RUNNING, 10, 1.0, 0), NULL),
                     SM_OK);
    assert_true(f->loaded);
    assert_string_equal(cell(f, 0, SM_COL_CPU), "-"); /* a rate needs two samples */
    sm_fleet_apply(f, scan_of(1, ids, SM_STATUS_RUNNING, 12, 2.0, 0), NULL);
    assert_int_equal(f->n, 1);
    assert_int_equal(f->counts[SM_STATUS_RUNNING], 1);
    assert_string_equal(cell(f, 0, SM_COL_ID), "aaaaaaaaaaaaaaaa");
    assert_string_equal(cell(f, 0, SM_COL_STATUS), "running");
    assert_string_equal(cell(f, 0, SM_COL_IMAGE), "host");
    assert_string_equal(cell(f, 0, SM_COL_CPU), "50.0");
    assert_string_equal(cell(f, 0, SM_COL_MEM), "3MiB/64MiB");
    assert_string_equal(cell(f, 0, SM_COL_PIDS), "4");
    assert_string_equal(cell(f, 0, SM_COL_PIDS_LIMIT), "4/4096");
    assert_string_equal(cell(f, 0, SM_COL_IO), "1KiB/0B");
    assert_string_equal(cell(f, 0, SM_COL_TTL), "-"); /* no TTL */
    assert_string_equal(cell(f, 0, SM_COL_AGE), "1m30s");
    assert_string_equal(cell(f, 0, SM_COL_FAILURE), "");
    assert_string_equal(sm_fleet_col_title(SM_COL_MEM), "MEM/LIMIT");
    sm_fleet_free(f);
}

static void test_cells_of_an_ended_sandbox(void **state)
{
    const char *ids[] = {"bbbb"};
    sm_fleet *f = sm_fleet_new("local");
    sm_fleet_snapshot *snap = scan_of(1, ids, SM_STATUS_STOPPED, 10, 1.0, 0);
    sm_fleet_apply(f, snap, NULL);
    f->infos[0].ttl_s = 600; /* the one TTL rule: ended once the sandbox is */
    assert_string_equal(cell(f, 0, SM_COL_TTL), "ended");
    assert_string_equal(cell(f, 0, SM_COL_CPU), "-");
    assert_string_equal(cell(f, 0, SM_COL_MEM), "-");
    assert_string_equal(cell(f, 0, SM_COL_PIDS_LIMIT), "-");
    f->infos[0].status = SM_STATUS_RUNNING;
    g_now = sm_now_wall();
    f->infos[0].created_at = g_now - 100;
    assert_string_equal(cell(f, 0, SM_COL_TTL), "8m20s");
    sm_fleet_free(f);
}

static void test_failed_scan_keeps_stale_rows(void **state)
{
    const char *ids[] = {"cccc"};
    sm_fleet *f = sm_fleet_new("local");
    sm_fleet_apply(f, scan_of(1, ids, SM_STATUS_RUNNING, 10, 1.0, 0), NULL);
    sm_fleet_apply(f, scan_of(1, ids, SM_STATUS_RUNNING, 12, 2.0, 0), NULL);
    sm_error err;
    sm_error_clear(&err);
    sm_error_set(&err, SM_ERR_RUNTIME, SM_FAIL_PROVIDER_UNREACHABLE, "engine hung");
    assert_int_equal(sm_fleet_apply(f, sm_fleet_snapshot_failed(&err), NULL), SM_ERR_RUNTIME);
    assert_int_equal(f->n, 1); /* the last good rows stay */
    assert_string_equal(f->error, "provider unreachable: engine hung");
    assert_string_equal(f->err.msg, "engine hung");
    assert_false(sm_fleet_row_live(f, &f->rows[0]));
    assert_string_equal(cell(f, 0, SM_COL_CPU), "-"); /* old figures are not shown as live */
    assert_string_equal(cell(f, 0, SM_COL_FAILURE), "provider unreachable");
    sm_fleet_apply(f, scan_of(1, ids, SM_STATUS_RUNNING, 14, 3.0, 0), NULL);
    assert_string_equal(f->error, "");
    assert_string_equal(cell(f, 0, SM_COL_CPU), "50.0");
    assert_string_equal(cell(f, 0, SM_COL_FAILURE), "");
    sm_fleet_free(f);
}

static void test_events_before_and_after_the_sandbox(void **state)
{
    const char *ids[] = {"dddd", "eeee"};
    sm_fleet *f = sm_fleet_new("local");
    /* an event of a sandbox not listed yet, and one of another provider's */
    sm_fleet_apply(f, NULL, oom_event("local", "dddd"));
    sm_fleet_apply(f, NULL, oom_event("docker", "eeee"));
    assert_int_equal(cJSON_GetArraySize(f->events), 1);
    sm_fleet_apply(f, scan_of(2, ids, SM_STATUS_RUNNING, 10, 1.0, 0), NULL);
    assert_string_equal(cell(f, 0, SM_COL_FAILURE), "OOM killed");
    assert_int_equal(cJSON_GetArraySize(f->rows[0].st->recent), 1);
    assert_string_equal(cell(f, 1, SM_COL_FAILURE), "");
    sm_fleet_apply(f, NULL, oom_event("local", "eeee")); /* after: the row changes at once */
    assert_string_equal(cell(f, 1, SM_COL_FAILURE), "OOM killed");
    for (int i = 0; i < SM_FLEET_RECENT_EVENTS + 5; i++)
        sm_fleet_apply(f, NULL, oom_event("local", "eeee"));
    assert_int_equal(cJSON_GetArraySize(f->rows[1].st->recent), SM_FLEET_RECENT_EVENTS);
    sm_fleet_reset(f, "docker"); /* another context: nothing of this one is left */
    assert_int_equal(f->n, 0);
    assert_int_equal(cJSON_GetArraySize(f->events), 0);
    sm_fleet_free(f);
}

static void test_counter_jump_is_a_failure(void **state)
{
    const char *ids[] = {"ffff"};
    sm_fleet *f = sm_fleet_new("local");
    sm_fleet_apply(f, scan_of(1, ids, SM_STATUS_RUNNING, 10, 1.0, 0), NULL);
    assert_string_equal(cell(f, 0, SM_COL_FAILURE), "");
    sm_fleet_apply(f, scan_of(1, ids, SM_STATUS_RUNNING, 12, 2.0, 1), NULL);
    assert_string_equal(cell(f, 0, SM_COL_FAILURE), "OOM killed");
    sm_fleet_free(f);
}

static void test_state_goes_with_the_sandbox(void **state)
{
    char idbuf[300][16];
    const char *ids[300], *kept[150];
    for (int i = 0; i < 300; i++) {
        snprintf(idbuf[i], sizeof idbuf[i], "id%03d", i);
        ids[i] = idbuf[i];
    }
    for (int i = 0; i < 150; i++)
        kept[i] = ids[i * 2];
    sm_fleet *f = sm_fleet_new("local");
    sm_fleet_apply(f, scan_of(300, ids, SM_STATUS_RUNNING, 10, 1.0, 0), NULL);
    assert_int_equal(f->state.count, 300);
    sm_fleet_apply(f, scan_of(150, kept, SM_STATUS_RUNNING, 12, 2.0, 0), NULL);
    assert_int_equal(f->state.count, 150);
    for (size_t i = 0; i < f->n; i++) {
        assert_string_equal(f->rows[i].info->id, kept[i]);
        assert_int_equal(f->rows[i].st->history.len, 2); /* its own history, kept */
    }
    sm_fleet_apply(f, scan_of(300, ids, SM_STATUS_RUNNING, 14, 3.0, 0), NULL);
    assert_int_equal(f->rows[1].st->history.len, 1); /* one that left starts afresh */
    sm_fleet_free(f);
}

/* What `ls` does: one scan without samples, then each sandbox's failure from its journal. */
static void test_failures_read_from_the_journal(void **state)
{
    char dir[64];
    snprintf(dir, sizeof dir, "/tmp/sandman-fleet-XXXXXX");
    assert_non_null(mkdtemp(dir));
    setenv("SANDMAN_STATE_DIR", dir, 1);
    sm_state_dir_reset();
    sm_failure oom;
    sm_failure_init(&oom);
    oom.kind = SM_FAIL_OOM;
    sm_journal_failure("local", "gggg", &oom);
    const char *ids[] = {"gggg", "hhhh"};
    sm_fleet *f = sm_fleet_new("local");
    sm_fleet_apply(f, sm_fleet_snapshot_new(list_of(2, ids, SM_STATUS_RUNNING), 2, NULL, NULL),
                   NULL);
    assert_string_equal(cell(f, 0, SM_COL_FAILURE), "");
    sm_fleet_read_failures(f);
    assert_string_equal(cell(f, 0, SM_COL_FAILURE), "OOM killed");
    assert_int_equal(f->rows[0].st->last_failure.kind, SM_FAIL_OOM);
    assert_string_equal(cell(f, 1, SM_COL_FAILURE), "");
    assert_string_equal(cell(f, 0, SM_COL_CPU), "-"); /* nothing sampled */
    sm_fleet_free(f);
    sm_rm_rf(dir);
    sm_state_dir_reset();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cells_of_a_running_sandbox),
        cmocka_unit_test(test_cells_of_an_ended_sandbox),
        cmocka_unit_test(test_failed_scan_keeps_stale_rows),
        cmocka_unit_test(test_events_before_and_after_the_sandbox),
        cmocka_unit_test(test_counter_jump_is_a_failure),
        cmocka_unit_test(test_state_goes_with_the_sandbox),
        cmocka_unit_test(test_failures_read_from_the_journal),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
