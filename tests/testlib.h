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
/* Writes text to a new temp file; returns its malloc'd path. */
char *sm_test_write_temp(const char *text);
/* True when the test may use cgroup limits (root with writable v1/v2 controllers). */
int sm_test_have_cgroup_limits(void);

#endif
