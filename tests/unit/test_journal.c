/* The event journal: appends, per-sandbox reads, the follower (only new lines, partial lines,
 * files that disappear), human summaries, and secrets never written. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <cjson/cJSON.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/journal.h"
#include "core/json.h"
#include "core/redact.h"
#include "core/util.h"

static char dir[64];

static int setup(void **state)
{
    snprintf(dir, sizeof dir, "/tmp/sandman-journal-XXXXXX");
    assert_non_null(mkdtemp(dir));
    setenv("SANDMAN_STATE_DIR", dir, 1);
    sm_state_dir_reset();
    return 0;
}

static int teardown(void **state)
{
    sm_rm_rf(dir);
    sm_state_dir_reset();
    return 0;
}

static void exec_event(const char *id, const char *cmd, int rc)
{
    cJSON *f = cJSON_CreateObject();
    cJSON_AddStringToObject(f, "cmd", cmd);
    cJSON_AddNumberToObject(f, "return_code", rc);
    cJSON_AddNumberToObject(f, "duration_ms", 12);
    sm_journal_append("local", id, "exec", "exec", f);
}

static void test_append_read_follow(void **state)
{
    sm_journal_follower *fol = sm_journal_follower_new(1 << 20);
    assert_null(sm_journal_follower_poll(fol));
    exec_event("aaa", "make test", 2);
    exec_event("bbb", "ls", 0);
    cJSON *ev = sm_journal_follower_poll(fol);
    assert_non_null(ev);
    assert_int_equal(cJSON_GetArraySize(ev), 2);
    cJSON_Delete(ev);
    assert_null(sm_journal_follower_poll(fol)); /* nothing new: nothing returned */

    exec_event("aaa", "pytest", 1);
    /* a half-written line is held back until it is complete */
    char *path = sm_journal_path("local", "aaa");
    int fd = open(path, O_WRONLY | O_APPEND);
    assert_int_equal(write(fd, "{\"ts\":\"2026-11-30T00:00:00.000Z\",\"type\":", 40), 40);
    ev = sm_journal_follower_poll(fol);
    assert_int_equal(cJSON_GetArraySize(ev), 1);
    assert_string_equal(sm_json_str(cJSON_GetArrayItem(ev, 0), "cmd"), "pytest");
    cJSON_Delete(ev);
    assert_int_equal(write(fd, "\"exec\",\"event\":\"exec\",\"cmd\":\"late\"}\n", 37), 37);
    close(fd);
    ev = sm_journal_follower_poll(fol);
    assert_int_equal(cJSON_GetArraySize(ev), 1);
    assert_string_equal(sm_json_str(cJSON_GetArrayItem(ev, 0), "cmd"), "late");
    cJSON_Delete(ev);

    cJSON *all;
    sm_journal_read("local", "aaa", &all);
    assert_int_equal(cJSON_GetArraySize(all), 3);
    cJSON_Delete(all);

    assert_int_equal(sm_journal_remove("local", "aaa"), SM_OK);
    assert_null(sm_journal_follower_poll(fol));
    exec_event("aaa", "again", 0); /* a new file under the same name is read from its start */
    ev = sm_journal_follower_poll(fol);
    assert_int_equal(cJSON_GetArraySize(ev), 1);
    cJSON_Delete(ev);
    free(path);
    sm_journal_follower_free(fol);
}

static void test_backlog_starts_at_a_line(void **state)
{
    for (int i = 0; i < 200; i++)
        exec_event("ccc", "echo a-fairly-long-command-line-to-fill-the-file", i);
    sm_journal_follower *fol = sm_journal_follower_new(1000);
    cJSON *ev = sm_journal_follower_poll(fol);
    int n = cJSON_GetArraySize(ev);
    assert_true(n > 0 && n < 20); /* only the tail, and only whole lines */
    assert_int_equal((int)sm_json_num(cJSON_GetArrayItem(ev, n - 1), "return_code", -1), 199);
    cJSON_Delete(ev);
    sm_journal_follower_free(fol);
}

/* Writes a journal line with a given time, as another process would have. */
static void line_at(const char *id, const char *ts, const char *cmd)
{
    char *path = sm_journal_path("local", id);
    char *dirp = xasprintf("%s/journal/local", dir);
    sm_mkdir_p(dirp, 0700);
    FILE *f = fopen(path, "a");
    assert_non_null(f);
    fprintf(f,
            "{\"ts\":\"%s\",\"type\":\"exec\",\"event\":\"exec\",\"sandbox_id\":\"%s\","
            "\"provider\":\"local\",\"cmd\":\"%s\"}\n",
            ts, id, cmd);
    fclose(f);
    free(path);
    free(dirp);
}

static void test_poll_in_time_order_across_sandboxes(void **state)
{
    line_at("aaa", "2026-01-01T10:00:01.000Z", "a1");
    line_at("aaa", "2026-01-01T10:00:03.000Z", "a3");
    line_at("bbb", "2026-01-01T10:00:02.000Z", "b2");
    line_at("bbb", "2026-01-01T10:00:04.000Z", "b4");
    line_at("ccc", "2026-01-01T10:00:03.000Z", "c3");
    sm_journal_follower *fol = sm_journal_follower_new(1 << 20);
    cJSON *ev = sm_journal_follower_poll(fol);
    assert_int_equal(cJSON_GetArraySize(ev), 5);
    const char *want[] = {"a1", "b2", "a3", "c3", "b4"};
    /* a3 and c3 have the same time: either order is right, both must be there */
    for (int i = 0; i < 5; i++) {
        const char *cmd = sm_json_str(cJSON_GetArrayItem(ev, i), "cmd");
        if (i == 2 || i == 3)
            assert_true(!strcmp(cmd, "a3") || !strcmp(cmd, "c3"));
        else
            assert_string_equal(cmd, want[i]);
    }
    cJSON_Delete(ev);
    sm_journal_follower_free(fol);
}

static void test_summaries_and_redaction(void **state)
{
    sm_redact_register("tok-SECRET-1234");
    exec_event("ddd", "curl -H 'Authorization: tok-SECRET-1234' x", 0);
    char *path = sm_journal_path("local", "ddd"), *text;
    assert_int_equal(sm_read_file(path, &text, NULL), 0);
    assert_null(strstr(text, "tok-SECRET-1234"));
    assert_non_null(strstr(text, "Authorization: ***"));
    free(text);
    free(path);
    sm_redact_reset();

    sm_failure f;
    sm_failure_init(&f);
    f.kind = SM_FAIL_OOM;
    f.oom_kills = 1;
    f.memory_limit = 64LL << 20;
    snprintf(f.operation, sizeof f.operation, "exec");
    sm_journal_failure("local", "ddd", &f);
    cJSON *all;
    sm_journal_read("local", "ddd", &all);
    char line[512];
    sm_journal_event_summary(cJSON_GetArrayItem(all, 0), line, sizeof line);
    assert_string_equal(line, "exit 0 in 12ms: curl -H 'Authorization: ***' x");
    sm_journal_event_summary(cJSON_GetArrayItem(all, 1), line, sizeof line);
    assert_string_equal(line, "exec: OOM killed - memory.oom_kill 1, limit 64MiB");
    cJSON_Delete(all);
}

/* A crash cut the last line short: the next append starts a line of its own, and readers skip
 * the damaged line and keep the rest. */
static void test_truncated_line_skipped(void **state)
{
    exec_event("eee", "first", 0);
    char *path = sm_journal_path("local", "eee");
    int fd = open(path, O_WRONLY | O_APPEND);
    const char cut[] = "{\"ts\":\"2026-11-30T00:00:00.000Z\",\"type\":\"exec\",\"cm";
    assert_int_equal(write(fd, cut, sizeof cut - 1), (ssize_t)(sizeof cut - 1));
    close(fd);
    sm_failure f;
    sm_failure_init(&f);
    f.kind = SM_FAIL_TTL_EXPIRED;
    sm_journal_failure("local", "eee", &f);
    cJSON *all;
    sm_journal_read("local", "eee", &all);
    assert_int_equal(cJSON_GetArraySize(all), 2);
    assert_string_equal(sm_json_str(cJSON_GetArrayItem(all, 0), "cmd"), "first");
    assert_string_equal(sm_json_str(cJSON_GetArrayItem(all, 1), "type"), "failure");
    cJSON_Delete(all);
    sm_failure got;
    assert_true(sm_journal_last_failure("local", "eee", &got));
    assert_int_equal(got.kind, SM_FAIL_TTL_EXPIRED);

    /* written by an older sandman: the cut line and the next event on one line */
    fd = open(path, O_WRONLY | O_APPEND);
    const char glued[] =
        "{\"ts\":\"2026-11-30T00:00:01.000Z\",\"ty{\"ts\":\"2026-11-30T00:00:02.000Z\","
        "\"type\":\"exec\",\"event\":\"exec\",\"cmd\":\"after\"}\n";
    assert_int_equal(write(fd, glued, sizeof glued - 1), (ssize_t)(sizeof glued - 1));
    close(fd);
    sm_journal_read("local", "eee", &all);
    assert_int_equal(cJSON_GetArraySize(all), 3);
    assert_string_equal(sm_json_str(cJSON_GetArrayItem(all, 2), "cmd"), "after");
    cJSON_Delete(all);
    free(path);
}

/* The last failure comes from the journal's tail: a long journal is not read whole, and the
 * newest failure is the one found. */
static void test_last_failure_reads_the_tail(void **state)
{
    sm_failure f;
    sm_failure_init(&f);
    f.kind = SM_FAIL_PIDS_LIMIT;
    sm_journal_failure("local", "fff", &f); /* far back: beyond what is read */
    char *path = sm_journal_path("local", "fff");
    FILE *out = fopen(path, "a");
    assert_non_null(out);
    for (int i = 0; i < 60000; i++) /* about 8 MiB of plain commands, a minute earlier */
        fprintf(
            out,
            "{\"ts\":\"2026-01-01T10:00:00.000Z\",\"type\":\"exec\",\"event\":\"exec\","
            "\"sandbox_id\":\"fff\",\"provider\":\"local\",\"cmd\":\"echo %d\","
            "\"return_code\":0,\"duration_ms\":3,\"pad\":\"................................\"}\n",
            i);
    fclose(out);
    sm_failure got;
    assert_false(sm_journal_last_failure("local", "fff", &got)); /* bounded: 4 MiB back at most */
    f.kind = SM_FAIL_OOM;
    f.oom_kills = 3;
    sm_journal_failure("local", "fff", &f);
    assert_true(sm_journal_last_failure("local", "fff", &got));
    assert_int_equal(got.kind, SM_FAIL_OOM);
    assert_int_equal(got.oom_kills, 3);
    cJSON *tail;
    sm_journal_read_tail("local", "fff", 4096, NULL, &tail);
    int n = cJSON_GetArraySize(tail);
    assert_true(n > 5 && n < 40); /* whole lines of the last 4 KiB only */
    assert_string_equal(sm_json_str(cJSON_GetArrayItem(tail, n - 1), "type"), "failure");
    cJSON_Delete(tail);
    free(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_append_read_follow, setup, teardown),
        cmocka_unit_test_setup_teardown(test_backlog_starts_at_a_line, setup, teardown),
        cmocka_unit_test_setup_teardown(test_poll_in_time_order_across_sandboxes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_summaries_and_redaction, setup, teardown),
        cmocka_unit_test_setup_teardown(test_truncated_line_skipped, setup, teardown),
        cmocka_unit_test_setup_teardown(test_last_failure_reads_the_tail, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
