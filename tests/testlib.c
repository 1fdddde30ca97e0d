/* Shared test helpers (testlib.h). */
#include "tests/testlib.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/util.h"
#include "providers/builtin.h"

static char state_dir[256];

const char *sm_test_setup_state(void)
{
    snprintf(state_dir, sizeof state_dir, "/tmp/sandman-test-XXXXXX");
    if (!mkdtemp(state_dir)) {
        perror("mkdtemp");
        abort();
    }
    setenv("SANDMAN_STATE_DIR", state_dir, 1);
    sm_state_dir_reset();
    sm_builtin_register_all();
    return state_dir;
}

void sm_test_close_labelled(sm_provider *p, const sm_map *labels)
{
    sm_list_filter f = {.labels = labels, .all = true};
    sm_sandbox_info *list = NULL;
    size_t n = 0;
    if (p->ops->list(p, &f, &list, &n, NULL) != SM_OK)
        return;
    for (size_t i = 0; i < n; i++) {
        sm_handle *h = sm_handle_new(list[i].id, p->ops->name);
        p->ops->close(p, h, NULL);
        sm_handle_free(p, h);
    }
    sm_sandbox_info_list_free(list, n);
}

int sm_test_count_labelled(sm_provider *p, const sm_map *labels)
{
    sm_list_filter f = {.labels = labels, .all = true};
    sm_sandbox_info *list = NULL;
    size_t n = 0;
    sm_error e;
    sm_error_clear(&e);
    if (p->ops->list(p, &f, &list, &n, &e) != SM_OK)
        fail_msg("list: %s", e.msg);
    sm_sandbox_info_list_free(list, n);
    return (int)n;
}

void sm_test_teardown_state(void)
{
    if (!state_dir[0])
        return;
    sm_provider *p = NULL;
    if (sm_provider_new("local", NULL, &p, NULL) == SM_OK) {
        sm_test_close_labelled(p, NULL);
        sm_provider_free(p);
    }
    sm_rm_rf(state_dir);
    state_dir[0] = '\0';
    sm_state_dir_reset();
}

int sm_test_group_setup(void **state)
{
    sm_test_setup_state();
    return 0;
}

int sm_test_group_teardown(void **state)
{
    sm_test_teardown_state();
    return 0;
}

char *sm_test_write_temp(const char *text)
{
    char *path = xstrdup("/tmp/sandman-test-file-XXXXXX");
    int fd = mkstemp(path);
    if (fd < 0)
        abort();
    size_t n = strlen(text);
    if (write(fd, text, n) != (ssize_t)n)
        abort();
    close(fd);
    return path;
}

int sm_test_have_cgroup_limits(void)
{
    return getuid() == 0 && access("/sys/fs/cgroup/memory/memory.limit_in_bytes", F_OK) == 0;
}

static sm_test_engine *g_engine;
static char g_engine_test[64];

void sm_test_engine_stop(void)
{
    if (!g_engine || !g_engine->dir[0])
        return;
    char *cmd = xasprintf("bash '%s' stop '%s' >/dev/null 2>&1", g_engine->script, g_engine->dir);
    if (system(cmd) != 0)
        fprintf(stderr, "%s: stopping the engine failed\n", g_engine_test);
    free(cmd);
    g_engine->dir[0] = '\0';
}

void sm_test_engine_start(const char *test, sm_test_engine *e)
{
    memset(e, 0, sizeof *e);
    g_engine = e;
    snprintf(g_engine_test, sizeof g_engine_test, "%s", test);
    const char *src = getenv("SANDMAN_SRC");
    snprintf(e->script, sizeof e->script, "%s/tests/integration/docker_engine.bash",
             src ? src : ".");
    snprintf(e->dir, sizeof e->dir, "/tmp/sandman-dk-XXXXXX");
    if (!mkdtemp(e->dir)) {
        perror("mkdtemp");
        exit(1);
    }
    char *cmd = xasprintf("bash '%s' start '%s' %d", e->script, e->dir, (int)getpid());
    int st = system(cmd);
    free(cmd);
    if (WIFEXITED(st) && WEXITSTATUS(st) == 77) {
        sm_rm_rf(e->dir);
        printf("SKIPPED: no Docker engine (SANDMAN_SKIP_DOCKER=1)\n");
        exit(77);
    }
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        fprintf(stderr, "%s: cannot start a Docker engine for the tests\n", test);
        sm_test_engine_stop(); /* whatever was started */
        exit(1);
    }
    char *path = xasprintf("%s/engine.env", e->dir), *text = NULL;
    size_t len;
    if (sm_read_file(path, &text, &len) < 0) {
        fprintf(stderr, "%s: no %s\n", test, path);
        exit(1);
    }
    free(path);
    for (char *l = strtok(text, "\n"); l; l = strtok(NULL, "\n")) {
        if (sm_str_has_prefix(l, "DOCKER_TEST_HOST="))
            snprintf(e->host, sizeof e->host, "%s", l + 17);
        else if (sm_str_has_prefix(l, "DOCKER_TEST_IMAGE="))
            snprintf(e->image, sizeof e->image, "%s", l + 18);
        else if (sm_str_has_prefix(l, "DOCKER_TEST_RUN="))
            snprintf(e->run, sizeof e->run, "%s", l + 16);
    }
    free(text);
    atexit(sm_test_engine_stop);
}
