/* Helpers the config unit tests share (see config_testutil.c). */
#ifndef SM_TEST_CONFIG_TESTUTIL_H
#define SM_TEST_CONFIG_TESTUTIL_H

#include "core/config.h"

typedef struct cJSON cJSON;

/* Loads YAML text (origin "config.yaml") that must load; fails the test otherwise. */
void load_ok(const char *text, sm_config *c);
/* A block's own error is kept with it: the file loads, selecting the block fails with exactly
 * expected (selecting another block or a bare provider does not). */
void block_fails(const char *text, const char *block, const char *expected);
/* The item key of o; fails the test when it is missing. */
const cJSON *get(const cJSON *o, const char *key);
void assert_str_item(const cJSON *o, const char *key, const char *want);
void assert_num_item(const cJSON *o, const char *key, double want);
/* cmocka setup/teardown: a registry holding only the fake providers docker and zeta. */
int setup_registry(void **state);
int teardown_registry(void **state);

#endif
