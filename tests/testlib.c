/* Shared test helpers (testlib.h). */
#include "tests/testlib.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
