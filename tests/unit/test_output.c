/* Kept output: the tail of a stream, keeping/listing/reading execs, the ring's bound, the
 * entrypoint's log across its rotation, redaction, and the last meaningful stderr line. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/failure.h"
#include "core/output.h"
#include "core/redact.h"
#include "core/util.h"

static char dir[64];

static int setup(void **state)
{
    snprintf(dir, sizeof dir, "/tmp/sandman-output-XXXXXX");
    assert_non_null(mkdtemp(dir));
    setenv("SANDMAN_STATE_DIR", dir, 1);
    unsetenv("SANDMAN_OUTPUT_CAP");
    sm_state_dir_reset();
    return 0;
}

static int teardown(void **state)
{
    sm_rm_rf(dir);
    sm_state_dir_reset();
    sm_redact_reset();
    return 0;
}

static void test_tail_keeps_the_end(void **state)
{
    sm_output_tail t;
    sm_output_tail_init(&t, 1024);
    char line[32];
    for (int i = 0; i < 1000; i++) {
        int n = snprintf(line, sizeof line, "line %d\n", i);
        sm_output_tail_feed(&t, line, (size_t)n);
    }
    assert_true(t.len >= 1024 && t.len <= 2048);
    assert_non_null(strstr(t.data + t.len - 9, "line 999\n"));
    sm_output_tail_free(&t);
}

static void keep(const char *id, const char *cmd, const char *out, const char *err, int rc)
{
    sm_output_tail o, e;
    sm_output_tail_init(&o, (size_t)sm_output_cap());
    sm_output_tail_init(&e, (size_t)sm_output_cap());
    sm_output_tail_feed(&o, out, strlen(out));
    sm_output_tail_feed(&e, err, strlen(err));
    assert_true(sm_output_keep_exec("local", id, cmd, sm_now_wall(), 3, rc, &o, &e) > 0);
    sm_output_tail_free(&o);
    sm_output_tail_free(&e);
}

static void test_keep_list_read_ring(void **state)
{
    sm_redact_register("hunter2-secret");
    keep("aaa", "make test", "built\n", "boom hunter2-secret\n", 2);
    sm_output_entry e;
    assert_int_equal(sm_output_read("local", "aaa", -1, &e), SM_OK);
    assert_int_equal(e.n, 1);
    assert_int_equal(e.return_code, 2);
    assert_string_equal(e.cmd, "make test");
    assert_string_equal(e.out, "built\n");
    assert_string_equal(e.err, "boom ***\n"); /* a registered secret never kept */
    sm_output_entry_free(&e);
    for (int i = 0; i < SM_OUTPUT_KEEP + 5; i++)
        keep("aaa", "again", "x\n", "", 0);
    sm_output_entry *list;
    size_t n;
    sm_output_list("local", "aaa", &list, &n);
    assert_int_equal(n, SM_OUTPUT_KEEP); /* the ring: the oldest went */
    assert_int_equal(list[0].n, 7);
    assert_int_equal(list[n - 1].n, SM_OUTPUT_KEEP + 6);
    for (size_t i = 0; i < n; i++)
        sm_output_entry_free(&list[i]);
    free(list);
    assert_int_equal(sm_output_read("local", "aaa", 1, &e), SM_ERR_NOT_FOUND);
    assert_int_equal(sm_output_read("local", "bbb", -1, &e), SM_ERR_NOT_FOUND);
    assert_int_equal(sm_output_remove("local", "aaa"), SM_OK);
    sm_output_list("local", "aaa", &list, &n);
    assert_int_equal(n, 0);
    free(list);
}

static void test_entry_log_follow_across_rotation(void **state)
{
    char *d = xasprintf("%s/output/local/eee", dir);
    sm_mkdir_p(d, 0700);
    char *cur = xasprintf("%s/entry.log", d), *old = xasprintf("%s.1", cur);
    FILE *f = fopen(cur, "w");
    fputs("one\ntwo ghp_abcdefghijklmnopqrstuvwxyz0123456789\n", f);
    fclose(f);
    long long off = 0;
    unsigned long long ino = 0;
    char *buf = NULL;
    size_t len = 0;
    assert_true(sm_output_follow_entry("local", "eee", &off, &ino, &buf, &len) > 0);
    assert_string_equal(buf, "one\ntwo ghp_***\n");
    /* the writer appends, then rotates: the rest of the old file, then the new one */
    f = fopen(cur, "a");
    fputs("three\n", f);
    fclose(f);
    rename(cur, old);
    f = fopen(cur, "w");
    fputs("four\n", f);
    fclose(f);
    free(buf);
    buf = NULL;
    len = 0;
    sm_output_follow_entry("local", "eee", &off, &ino, &buf, &len);
    assert_string_equal(buf, "three\nfour\n");
    free(buf);
    sm_output_entry e;
    assert_int_equal(sm_output_read("local", "eee", 0, &e), SM_OK);
    assert_string_equal(e.cmd, "(entrypoint)");
    assert_string_equal(e.out, "one\ntwo ghp_***\nthree\nfour\n");
    sm_output_entry_free(&e);
    free(cur);
    free(old);
    free(d);
}

static void test_last_meaningful_line(void **state)
{
    char line[200];
    const char *tb = "Traceback (most recent call last):\n  File \"x.py\", line 1\n"
                     "ModuleNotFoundError: No module named 'numpy'\r\n\n   \n----\n";
    assert_true(sm_failure_last_line(tb, strlen(tb), line, sizeof line));
    assert_string_equal(line, "ModuleNotFoundError: No module named 'numpy'");
    assert_false(sm_failure_last_line("\n\n  \n", 5, line, sizeof line));
    sm_failure f;
    sm_failure_init(&f);
    f.kind = SM_FAIL_EXIT_NONZERO;
    f.exit_code = 1;
    sm_failure_reason_from_stderr(&f, tb, strlen(tb));
    assert_string_equal(f.reason, "exit 1: ModuleNotFoundError: No module named 'numpy'");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_tail_keeps_the_end, setup, teardown),
        cmocka_unit_test_setup_teardown(test_keep_list_read_ring, setup, teardown),
        cmocka_unit_test_setup_teardown(test_entry_log_follow_across_rotation, setup, teardown),
        cmocka_unit_test_setup_teardown(test_last_meaningful_line, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
