/* What the config files share among themselves (core/yaml.c, config_interp.c, config.c,
 * config_resolve.c); not for front ends, which see core/config.h only. */
#ifndef SM_CONFIG_INTERNAL_H
#define SM_CONFIG_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "core/config.h"

/* Nesting bound of YAML nodes and of the per-block interpolation walk. */
#define SM_YAML_MAX_DEPTH 200

/* Interpolates one scalar as sm_config_interpolate does; *changed is set when the text held an
 * interpolation or an escape. strict: any ${...} other than ${oc.env:...} is an error (config
 * blocks) and "\${" is the escape; otherwise other ${...} stay text and only "\${oc.env:"
 * escapes (the plain YAML reader). Returns malloc'd text, or NULL with err set. */
char *sm_config_interp(const char *value, int *is_null, int *changed, bool strict, sm_error *err);

/* Parses a YAML document. lazy: no interpolation, and the positions of keys and items are
 * handed over in *pos and *npos (the caller frees each path and the array). NULL with err set on
 * malformed YAML; caller deletes the tree. */
cJSON *sm_yaml_read(const char *text, size_t len, const char *origin, bool lazy,
                    sm_config_pos **pos, size_t *npos, sm_error *err);
/* The path of a child: "path.key", or "path[index]" when index >= 0. Caller frees. */
char *sm_yaml_child_path(const char *path, const char *key, long index);

/* A provider NeMo Gym knows by name (a block naming one is a sandbox block even when this
 * sandman lacks it: it is then refused by name, never replaced). */
bool sm_config_nemo_provider(const char *name);

#endif
