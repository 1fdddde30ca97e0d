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

#endif
