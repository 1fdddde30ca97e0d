/* Which command lines stream until stopped (cli_command_streams): the palette refuses those
 * instead of running them on a worker that never comes back. -f alone, grouped or as
 * --follow streams; a value that happens to be "-f", words after "--" and verbs without a
 * stream option do not. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "cli/cli.h"

extern const sm_cmd sm_cmd_events, sm_cmd_logs, sm_cmd_ls, sm_cmd_exec;

static bool streams(const sm_cmd *cmd, const char *line)
{
    char buf[256], *argv[32];
    int argc = 0;
    snprintf(buf, sizeof buf, "%s %s", cmd->name, line);
    for (char *save = NULL, *w = strtok_r(buf, " ", &save); w && argc < 31;
         w = strtok_r(NULL, " ", &save))
        argv[argc++] = w;
    argv[argc] = NULL;
    return cli_command_streams(cmd, argc, argv);
}

static void test_follow_streams(void **state)
{
    (void)state;
    assert_true(streams(&sm_cmd_events, "-f"));
    assert_true(streams(&sm_cmd_events, "--follow"));
    assert_true(streams(&sm_cmd_events, "-o json --follow -l a=b"));
    assert_true(streams(&sm_cmd_events, "-l a=b -f"));
    assert_true(streams(&sm_cmd_logs, "abc -f"));
    assert_true(streams(&sm_cmd_logs, "--since 10m abc --follow"));
}

static void test_others_end(void **state)
{
    (void)state;
    assert_false(streams(&sm_cmd_events, "abc"));
    assert_false(streams(&sm_cmd_events, "abc --replay-script"));
    assert_false(streams(&sm_cmd_events, "-l -f abc")); /* "-f" is the label's value */
    assert_false(streams(&sm_cmd_logs, "abc --list"));
    assert_false(streams(&sm_cmd_logs, "abc --since -f")); /* the value again */
    assert_false(streams(&sm_cmd_logs, "-- -f"));
    assert_false(streams(&sm_cmd_ls, "-a"));
    assert_false(streams(&sm_cmd_exec, "abc -- tail -f /dev/null")); /* the command's own -f */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_follow_streams),
        cmocka_unit_test(test_others_end),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
