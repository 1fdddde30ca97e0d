/* cJSON glue: typed, forgiving getters for config and replies (numbers may arrive as numeric
 * strings after ${oc.env:...} interpolation), unknown-key checks with helpful messages. */
#ifndef SM_JSON_H
#define SM_JSON_H

#include <cjson/cJSON.h>
#include <stdbool.h>

#include "core/error.h"

/* Each getter: key absent or null -> *out untouched, returns SM_OK. Wrong type -> SM_ERR_INVALID
 * with "<what>.<key> must be ...". */
int sm_json_get_number(const cJSON *obj, const char *key, double *out, const char *what,
                       sm_error *err);
int sm_json_get_long(const cJSON *obj, const char *key, long *out, const char *what, sm_error *err);
int sm_json_get_bool(const cJSON *obj, const char *key, bool *out, const char *what, sm_error *err);
/* *out is replaced by a malloc'd copy (previous value freed). */
int sm_json_get_string(const cJSON *obj, const char *key, char **out, const char *what,
                       sm_error *err);
/* The child object (NULL when absent/null); non-object is an error. */
int sm_json_get_object(const cJSON *obj, const char *key, const cJSON **out, const char *what,
                       sm_error *err);

/* Every key of obj must be in allowed (NULL-terminated). Error names the key and lists the
 * allowed ones sorted: "unknown key 'x' in local config (allowed: a, b)". */
int sm_json_check_keys(const cJSON *obj, const char *const *allowed, const char *what,
                       sm_error *err);

/* Compact one-line serialisation; caller frees. */
char *sm_json_print(const cJSON *j);
const char *sm_json_str(const cJSON *obj, const char *key); /* NULL unless a string */
double sm_json_num(const cJSON *obj, const char *key, double dflt);

#endif
