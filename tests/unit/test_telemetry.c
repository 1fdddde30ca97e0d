/* Telemetry maths and failure attribution: CPU % and byte rates between samples (counter
 * resets, unknown values), the history ring and series, counters turned into
 * failures, and which failure a sandbox row shows. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "core/diagnose.h"
#include "core/telemetry.h"

static sm_sample at(double ts, double cpu, long long io_r, long long oom)
{
    sm_sample s;
    sm_sample_init(&s);
    s.ts = ts;
    s.cpu_time_s = cpu;
    s.io_read_bytes = io_r;
    s.io_write_bytes = 0;
    s.oom_kills = oom;
    s.pids_events = 0;
    s.nr_throttled = 0;
    s.mem_working_set = (long long)(ts * 1000);
    return s;
}

static void test_rates(void **state)
{
    sm_sample a = at(10.0, 1.0, 1000, 0), b = at(12.0, 2.5, 5000, 1);
    sm_rates r;
    sm_rates_between(&a, &b, &r);
    assert_float_equal(r.cpu_pct, 75.0, 1e-9); /* 1.5 CPU seconds over 2 s */
    assert_float_equal(r.io_read_bps, 2000.0, 1e-9);
    assert_float_equal(r.io_write_bps, 0.0, 1e-9);
    assert_float_equal(r.net_rx_bps, -1.0, 1e-9); /* unknown stays unknown */
    assert_int_equal(r.new_oom_kills, 1);

    sm_sample c = at(14.0, 2.0, 100, 1); /* counters went backwards: a reset, not negative */
    sm_rates_between(&b, &c, &r);
    assert_float_equal(r.cpu_pct, 0.0, 1e-9);
    assert_float_equal(r.io_read_bps, 0.0, 1e-9);
    assert_int_equal(r.new_oom_kills, 0);

    sm_sample d = at(14.0, 9.0, 100, 1); /* no time passed */
    assert_float_equal(sm_sample_cpu_percent(&c, &d), -1.0, 1e-9);
    sm_sample two_cores = at(15.0, 4.0, 100, 1);
    assert_float_equal(sm_sample_cpu_percent(&c, &two_cores), 200.0, 1e-9);
}

static void test_history_ring(void **state)
{
    static sm_history h;
    memset(&h, 0, sizeof h);
    sm_rates r;
    sm_history_rates(&h, &r);
    assert_float_equal(r.cpu_pct, -1.0, 1e-9);
    for (int i = 0; i < SM_HISTORY_LEN + 5; i++) {
        sm_sample s = at(i, i * 0.5, i * 100, 0);
        sm_history_push(&h, &s);
    }
    assert_int_equal(h.len, SM_HISTORY_LEN);
    assert_float_equal(sm_history_at(&h, 0)->ts, SM_HISTORY_LEN + 4, 1e-9);
    assert_float_equal(sm_history_at(&h, SM_HISTORY_LEN - 1)->ts, 5, 1e-9);
    assert_null(sm_history_at(&h, SM_HISTORY_LEN));
    sm_history_rates(&h, &r);
    assert_float_equal(r.cpu_pct, 50.0, 1e-9);

    double v[10];
    assert_int_equal(sm_history_series(&h, SM_METRIC_CPU_PCT, v, 10), 10);
    for (int i = 0; i < 10; i++)
        assert_float_equal(v[i], 50.0, 1e-9);
    assert_int_equal(sm_history_series(&h, SM_METRIC_MEM, v, 3), 3);
    assert_float_equal(v[0], (SM_HISTORY_LEN + 2) * 1000.0, 1e-6); /* oldest first */
    assert_float_equal(v[2], (SM_HISTORY_LEN + 4) * 1000.0, 1e-6);

    static sm_history one;
    memset(&one, 0, sizeof one);
    sm_sample s = at(1, 1, 1, 0);
    sm_history_push(&one, &s);
    assert_int_equal(sm_history_series(&one, SM_METRIC_CPU_PCT, v, 10), 0); /* a rate needs two */
    assert_int_equal(sm_history_series(&one, SM_METRIC_MEM, v, 10), 1);
}

static void test_counters_to_failures(void **state)
{
    sm_sample a = at(1, 0, 0, 2), b = at(2, 0, 0, 3);
    b.mem_limit = 64LL << 20;
    sm_failure f;
    assert_true(sm_failure_from_counters(&a, &b, "abc", "local", &f));
    assert_int_equal(f.kind, SM_FAIL_OOM);
    char ev[256];
    sm_failure_evidence(&f, ev, sizeof ev);
    assert_string_equal(ev, "memory.oom_kill 3, limit 64MiB");
    sm_sample c = b;
    c.ts = 3;
    c.pids_events = 4;
    c.pids_limit = 20;
    assert_true(sm_failure_from_counters(&b, &c, "abc", "local", &f));
    assert_int_equal(f.kind, SM_FAIL_PIDS_LIMIT);
    sm_sample d = c;
    d.ts = 4;
    assert_false(sm_failure_from_counters(&c, &d, "abc", "local", &f));
}

static void test_diagnose_rules(void **state)
{
    sm_sandbox_info info;
    sm_sandbox_info_init(&info);
    info.status = SM_STATUS_RUNNING;
    sm_failure out, last;
    sm_failure_init(&last);
    sm_rates r = {.new_throttled = 0};
    bool warn;
    assert_false(sm_diagnose(&info, NULL, &r, &out, &warn));

    r.new_throttled = 28;
    assert_true(sm_diagnose(&info, NULL, &r, &out, &warn));
    assert_int_equal(out.kind, SM_FAIL_CPU_THROTTLED);
    assert_true(warn); /* throttling is a warning, never a failure */

    last.kind = SM_FAIL_EXEC_TIMEOUT;
    last.timeout_s = 180;
    assert_true(sm_diagnose(&info, &last, &r, &out, &warn));
    assert_int_equal(out.kind, SM_FAIL_EXEC_TIMEOUT);
    assert_false(warn);
    char label[64];
    sm_failure_label(&out, label, sizeof label);
    assert_string_equal(label, "exec timeout 180s");

    info.status = SM_STATUS_STOPPED; /* why it ended wins over its last command */
    info.failure.kind = SM_FAIL_TTL_EXPIRED;
    assert_true(sm_diagnose(&info, &last, &r, &out, &warn));
    assert_int_equal(out.kind, SM_FAIL_TTL_EXPIRED);

    info.status = SM_STATUS_ERROR;
    info.failure.kind = SM_FAIL_SUPERVISOR_LOST;
    assert_true(sm_diagnose(&info, NULL, NULL, &out, &warn));
    assert_int_equal(out.kind, SM_FAIL_SUPERVISOR_LOST);

    info.status = SM_STATUS_RUNNING;
    info.failure.kind = SM_FAIL_NONE;
    last.kind = SM_FAIL_EXIT_NONZERO;
    last.exit_code = 137;
    assert_true(sm_diagnose(&info, &last, NULL, &out, &warn));
    sm_failure_label(&out, label, sizeof label);
    assert_string_equal(label, "exit 137");
    sm_sandbox_info_free(&info);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rates),
        cmocka_unit_test(test_history_ring),
        cmocka_unit_test(test_counters_to_failures),
        cmocka_unit_test(test_diagnose_rules),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
