/* Unit tests for core/attribution.c: env precedence, the run id, labels, image rewrites and
 * label sanitising. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/attribution.h"
#include "core/util.h"

static const char *const all_vars[] = {
    "NEMO_GYM_TEAM",
    "SLURM_JOB_ACCOUNT",
    "NEMO_GYM_USER",
    "SLURM_JOB_USER",
    "NEMO_GYM_WORKLOAD",
    "SLURM_JOB_NAME",
    "NEMO_GYM_CONFIG_PATH",
    "NEMO_GYM_RUN_ID",
    "SLURM_JOB_ID",
    "SLURM_ARRAY_TASK_ID",
    "SLURM_ARRAY_JOB_ID",
    "LOGNAME",
    "USER",
    "LNAME",
    "USERNAME",
};

static int clear_env(void **state)
{
    for (size_t i = 0; i < SM_ARRAY_LEN(all_vars); i++)
        unsetenv(all_vars[i]);
    return 0;
}

/* What the OS login fallback gives with no login variable set: the password database's
 * name, or NULL for root. */
static char *expected_login(void)
{
    struct passwd *pw = getpwuid(geteuid());
    const char *name = pw ? pw->pw_name : NULL;
    if (!name || !*name || !strcmp(name, "root"))
        return NULL;
    return xstrdup(name);
}

static void test_team_precedence(void **state)
{
    sm_attribution a;
    sm_attribution_resolve(NULL, &a);
    assert_null(a.team);
    sm_attribution_free(&a);

    setenv("SLURM_JOB_ACCOUNT", "slurm-acct", 1);
    sm_attribution_resolve(NULL, &a);
    assert_string_equal(a.team, "slurm-acct");
    sm_attribution_free(&a);

    setenv("NEMO_GYM_TEAM", "gym-team", 1);
    sm_attribution_resolve(NULL, &a);
    assert_string_equal(a.team, "gym-team");
    sm_attribution_free(&a);

    sm_attribution ex = {.team = "explicit-team"};
    sm_attribution_resolve(&ex, &a);
    assert_string_equal(a.team, "explicit-team");
    sm_attribution_free(&a);

    /* an empty explicit value does not count */
    ex.team = "";
    sm_attribution_resolve(&ex, &a);
    assert_string_equal(a.team, "gym-team");
    sm_attribution_free(&a);
}

static void test_user_precedence_and_root(void **state)
{
    sm_attribution a;
    char *login = expected_login();
    sm_attribution_resolve(NULL, &a);
    if (login)
        assert_string_equal(a.user, login);
    else
        assert_null(a.user);
    sm_attribution_free(&a);

    setenv("SLURM_JOB_USER", "slurm-user", 1);
    sm_attribution_resolve(NULL, &a);
    assert_string_equal(a.user, "slurm-user");
    sm_attribution_free(&a);

    setenv("NEMO_GYM_USER", "gym-user", 1);
    sm_attribution_resolve(NULL, &a);
    assert_string_equal(a.user, "gym-user");
    sm_attribution_free(&a);

    /* an explicit root is kept (seed: only the OS login root says nothing) */
    setenv("NEMO_GYM_USER", "root", 1);
    sm_attribution_resolve(NULL, &a);
    assert_string_equal(a.user, "root");
    sm_attribution_free(&a);

    unsetenv("NEMO_GYM_USER");
    setenv("SLURM_JOB_USER", "root", 1);
    sm_attribution_resolve(NULL, &a);
    assert_string_equal(a.user, "root");
    sm_attribution_free(&a);

    sm_attribution ex = {.user = "alice"};
    sm_attribution_resolve(&ex, &a);
    assert_string_equal(a.user, "alice");
    sm_attribution_free(&a);
    free(login);
}

/* The OS login as Python's getpass.getuser() finds it: LOGNAME, USER, LNAME, USERNAME, then
 * the password database; a login of root is left out. */
static void test_user_login_order(void **state)
{
    sm_attribution a;
    setenv("USERNAME", "from-username", 1);
    sm_attribution_resolve(NULL, &a);
    assert_string_equal(a.user, "from-username");
    sm_attribution_free(&a);

    setenv("LNAME", "from-lname", 1);
    setenv("USER", "from-user", 1);
    sm_attribution_resolve(NULL, &a);
    assert_string_equal(a.user, "from-user");
    sm_attribution_free(&a);

    setenv("LOGNAME", "from-logname", 1);
    sm_attribution_resolve(NULL, &a);
    assert_string_equal(a.user, "from-logname");
    sm_attribution_free(&a);

    /* the login is root: no user label, even when a later variable names someone */
    setenv("LOGNAME", "root", 1);
    sm_attribution_resolve(NULL, &a);
    assert_null(a.user);
    sm_attribution_free(&a);

    /* a blank variable is not a login: the next one is used */
    setenv("LOGNAME", " ", 1);
    sm_attribution_resolve(NULL, &a);
    assert_string_equal(a.user, "from-user");
    sm_attribution_free(&a);

    setenv("SLURM_JOB_USER", "slurm-user", 1); /* Slurm's user comes before the login */
    sm_attribution_resolve(NULL, &a);
    assert_string_equal(a.user, "slurm-user");
    sm_attribution_free(&a);
}

static void test_workload_precedence(void **state)
{
    sm_attribution a;
    setenv("NEMO_GYM_CONFIG_PATH", "/cfg/run.yaml", 1);
    sm_attribution_resolve(NULL, &a);
    assert_string_equal(a.workload, "/cfg/run.yaml");
    sm_attribution_free(&a);

    setenv("SLURM_JOB_NAME", "job-name", 1);
    sm_attribution_resolve(NULL, &a);
    assert_string_equal(a.workload, "job-name");
    sm_attribution_free(&a);

    setenv("NEMO_GYM_WORKLOAD", "math-rl", 1);
    sm_attribution_resolve(NULL, &a);
    assert_string_equal(a.workload, "math-rl");
    sm_attribution_free(&a);
}

static void test_blank_env_ignored(void **state)
{
    sm_attribution a;
    setenv("NEMO_GYM_TEAM", "", 1);
    setenv("SLURM_JOB_ACCOUNT", "acct", 1);
    setenv("NEMO_GYM_WORKLOAD", "  \t ", 1);
    setenv("SLURM_JOB_NAME", "  padded  ", 1);
    setenv("NEMO_GYM_USER", " ", 1);
    setenv("SLURM_JOB_USER", "bob", 1);
    sm_attribution_resolve(NULL, &a);
    assert_string_equal(a.team, "acct");
    assert_string_equal(a.workload, "padded"); /* surrounding whitespace is dropped */
    assert_string_equal(a.user, "bob");
    sm_attribution_free(&a);
}

static bool is_hex12(const char *s)
{
    if (strlen(s) != 12)
        return false;
    for (; *s; s++)
        if (!strchr("0123456789abcdef", *s))
            return false;
    return true;
}

static void *run_id_thread(void *arg)
{
    return (void *)sm_run_id();
}

static void test_run_id(void **state)
{
    const char *r1 = sm_run_id();
    assert_true(is_hex12(r1));
    char saved[13];
    strcpy(saved, r1);
    assert_string_equal(sm_run_id(), saved); /* stable */

    pthread_t t[4];
    for (int i = 0; i < 4; i++)
        assert_int_equal(pthread_create(&t[i], NULL, run_id_thread, NULL), 0);
    for (int i = 0; i < 4; i++) {
        void *res;
        pthread_join(t[i], &res);
        assert_string_equal((const char *)res, saved);
    }

    setenv("NEMO_GYM_RUN_ID", " run-42 ", 1);
    const char *env_id = sm_run_id();
    assert_string_equal(env_id, "run-42");
    setenv("NEMO_GYM_RUN_ID", "run-43", 1);
    assert_string_equal(sm_run_id(), "run-43");
    assert_string_equal(env_id, "run-42"); /* earlier pointers stay valid */

    setenv("NEMO_GYM_RUN_ID", "   ", 1);
    assert_string_equal(sm_run_id(), saved); /* blank: the process id again */
    unsetenv("NEMO_GYM_RUN_ID");
    assert_string_equal(sm_run_id(), saved);

    sm_attribution a;
    sm_attribution_resolve(NULL, &a);
    assert_string_equal(a.run, saved);
    sm_attribution_free(&a);
    setenv("NEMO_GYM_RUN_ID", "from-env", 1);
    sm_attribution_resolve(NULL, &a);
    assert_string_equal(a.run, "from-env");
    sm_attribution_free(&a);
    sm_attribution ex = {.run = "explicit-run"};
    sm_attribution_resolve(&ex, &a);
    assert_string_equal(a.run, "explicit-run");
    sm_attribution_free(&a);
    assert_null(a.run);
}

/* NEMO_GYM_RUN_ID first, then the Slurm array task (SLURM_ARRAY_JOB_ID_SLURM_ARRAY_TASK_ID:
 * every task of an array has its own SLURM_JOB_ID), then the Slurm job, then the process's
 * own id. */
static void test_run_id_slurm(void **state)
{
    const char *own = sm_run_id();
    assert_true(is_hex12(own));
    char saved[13];
    strcpy(saved, own);

    setenv("SLURM_ARRAY_TASK_ID", "3", 1); /* a task id alone is no job */
    assert_string_equal(sm_run_id(), saved);
    setenv("SLURM_JOB_ID", " 42 ", 1);
    assert_string_equal(sm_run_id(), "42"); /* nor is it an array without the array's id */
    setenv("SLURM_ARRAY_JOB_ID", "40", 1);
    assert_string_equal(sm_run_id(), "40_3");
    unsetenv("SLURM_ARRAY_TASK_ID");
    assert_string_equal(sm_run_id(), "42");
    setenv("SLURM_ARRAY_TASK_ID", "  ", 1); /* blank: not an array task */
    assert_string_equal(sm_run_id(), "42");

    setenv("NEMO_GYM_RUN_ID", "gym-run", 1); /* NeMo Gym's own wins over Slurm */
    assert_string_equal(sm_run_id(), "gym-run");
    unsetenv("NEMO_GYM_RUN_ID");

    sm_attribution a;
    setenv("SLURM_ARRAY_TASK_ID", "7", 1);
    sm_attribution_resolve(NULL, &a);
    assert_string_equal(a.run, "40_7");
    sm_attribution_free(&a);

    unsetenv("SLURM_JOB_ID");
    assert_string_equal(sm_run_id(), "40_7"); /* the array's ids suffice */
    unsetenv("SLURM_ARRAY_JOB_ID");
    assert_string_equal(sm_run_id(), saved);
}

static void test_labels(void **state)
{
    sm_attribution a = {.team = "t1", .user = "u1", .workload = NULL, .run = "r1"};
    sm_map labels = {0};
    sm_map_set(&labels, "nemo-gym.nvidia.com/team", "mine");
    sm_map_set(&labels, "other", "x");
    sm_attribution_to_labels(&a, NULL, &labels);
    assert_int_equal(labels.n, 4);
    assert_string_equal(sm_map_get(&labels, "nemo-gym.nvidia.com/team"), "mine");
    assert_string_equal(sm_map_get(&labels, "nemo-gym.nvidia.com/user"), "u1");
    assert_string_equal(sm_map_get(&labels, "nemo-gym.nvidia.com/run"), "r1");
    assert_null(sm_map_get(&labels, "nemo-gym.nvidia.com/workload"));
    assert_string_equal(sm_map_get(&labels, "other"), "x");
    sm_map_free(&labels);

    sm_attribution_to_labels(&a, "x.io/", &labels);
    assert_int_equal(labels.n, 3);
    assert_string_equal(sm_map_get(&labels, "x.io/team"), "t1");
    assert_null(sm_map_get(&labels, "nemo-gym.nvidia.com/team"));
    sm_map_free(&labels);
}

static void test_rewrite_image(void **state)
{
    sm_map rules = {0};
    sm_map_set(&rules, "docker.io/library/", "mirror.local/lib/");
    sm_map_set(&rules, "docker.io/", "mirror.local/");
    sm_map_set(&rules, "ghcr.io/", "");

    char *s = sm_rewrite_image("docker.io/library/python:3.12", &rules);
    assert_string_equal(s, "mirror.local/lib/python:3.12");
    free(s);
    s = sm_rewrite_image("docker.io/org/app:1", &rules);
    assert_string_equal(s, "mirror.local/org/app:1");
    free(s);
    s = sm_rewrite_image("ghcr.io/x/y", &rules);
    assert_string_equal(s, "x/y");
    free(s);
    s = sm_rewrite_image("quay.io/x/y", &rules);
    assert_string_equal(s, "quay.io/x/y");
    free(s);
    s = sm_rewrite_image("python", NULL);
    assert_string_equal(s, "python");
    free(s);
    assert_null(sm_rewrite_image(NULL, &rules));
    sm_map_free(&rules);

    /* first matching rule in order wins, even if a later one is longer */
    sm_map_set(&rules, "a/", "first/");
    sm_map_set(&rules, "a/b/", "second/");
    s = sm_rewrite_image("a/b/c", &rules);
    assert_string_equal(s, "first/b/c");
    free(s);
    sm_map_free(&rules);
}

static void check_sanitize(const char *in, const char *want)
{
    char *s = sm_label_sanitize(in);
    assert_string_equal(s, want);
    free(s);
}

static void test_label_sanitize(void **state)
{
    check_sanitize("simple", "simple");
    check_sanitize("Mixed.Case_ok-1", "Mixed.Case_ok-1");
    check_sanitize("a b", "a_b");
    check_sanitize("a  /  b", "a_b"); /* a run collapses to one '_' */
    check_sanitize("a_ b", "a__b");   /* a kept '_' is not part of the run */
    check_sanitize("/cfg/run.yaml", "cfg_run.yaml");
    check_sanitize("--..x..--", "x");
    check_sanitize("  héllo wörld  ", "h_llo_w_rld");
    check_sanitize("", "metadata");
    check_sanitize("///", "metadata");
    check_sanitize("._-", "metadata");
    check_sanitize(NULL, "metadata");

    char in[200];
    memset(in, 'x', sizeof in - 1);
    in[sizeof in - 1] = '\0';
    char *s = sm_label_sanitize(in);
    assert_int_equal(strlen(s), 63);
    assert_int_equal(strspn(s, "x"), 63);
    free(s);

    /* the cut never leaves a separator at the end */
    memset(in, 'y', 62);
    strcpy(in + 62, "-zzz");
    s = sm_label_sanitize(in);
    assert_int_equal(strlen(s), 62);
    assert_int_equal(strspn(s, "y"), 62);
    free(s);

    /* leading trim happens before the cap */
    memset(in, '_', 10);
    memset(in + 10, 'k', 70);
    in[80] = '\0';
    s = sm_label_sanitize(in);
    assert_int_equal(strlen(s), 63);
    assert_int_equal(strspn(s, "k"), 63);
    free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_team_precedence, clear_env),
        cmocka_unit_test_setup(test_user_precedence_and_root, clear_env),
        cmocka_unit_test_setup(test_user_login_order, clear_env),
        cmocka_unit_test_setup(test_workload_precedence, clear_env),
        cmocka_unit_test_setup(test_blank_env_ignored, clear_env),
        cmocka_unit_test_setup(test_run_id, clear_env),
        cmocka_unit_test_setup(test_run_id_slurm, clear_env),
        cmocka_unit_test(test_labels),
        cmocka_unit_test(test_rewrite_image),
        cmocka_unit_test(test_label_sanitize),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
