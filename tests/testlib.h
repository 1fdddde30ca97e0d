/* Shared test helpers: a private state directory per test process, temp files, and a
 * provider built from the real registry. Tests include this after cmocka's headers. */
#ifndef SM_TESTLIB_H
#define SM_TESTLIB_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "core/provider_impl.h"

/* Creates a fresh temp dir, points $SANDMAN_STATE_DIR at it and registers built-ins.
 * Returns the dir (static storage). */
const char *sm_test_setup_state(void);
/* Removes the temp state dir (after removing any sandboxes left in it). */
void sm_test_teardown_state(void);
/* The two as cmocka group setup and teardown functions. */
int sm_test_group_setup(void **state);
int sm_test_group_teardown(void **state);
/* How many sandboxes of p carry every label of labels (ended ones too); fails the test when
 * the provider cannot list. */
int sm_test_count_labelled(sm_provider *p, const sm_map *labels);
/* Closes every sandbox of p that carries every label of labels (NULL: every one it lists, ended
 * ones too), ignoring errors: cleanup after a test that failed half-way. */
void sm_test_close_labelled(sm_provider *p, const sm_map *labels);
/* Writes text to a new temp file; returns its malloc'd path. */
char *sm_test_write_temp(const char *text);
/* True when the test may use cgroup limits (root with writable v1/v2 controllers). */
int sm_test_have_cgroup_limits(void);

/* The private Docker engine (tests/integration/docker_engine.bash) of a C test: started in a
 * fresh directory, stopped at exit. Exits 77 when told to skip (SANDMAN_SKIP_DOCKER=1) and 1
 * when it cannot start; `test` names the test in messages. */
typedef struct sm_test_engine {
    char dir[256];
    char host[512];   /* DOCKER_HOST form: unix:///... */
    char image[256];  /* the test image, imported, not pulled */
    char run[64];     /* a label value that marks this run's containers */
    char script[512]; /* docker_engine.bash, for tests that call its helpers */
} sm_test_engine;
void sm_test_engine_start(const char *test, sm_test_engine *e);
void sm_test_engine_stop(void);

#endif
