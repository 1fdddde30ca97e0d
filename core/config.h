/* Configuration (DESIGN.md §5), compatible with NeMo Gym's YAML provider files.
 *
 * A file maps block names to blocks. A block holds exactly one provider key (its value: that
 * provider's options, null meaning {}) plus the reserved keys `default_metadata` (labels merged
 * under every spec's metadata) and `rewrite_image` (a list of {from, to} prefix rules).
 * The top-level key `sandman` is reserved for settings: {context: NAME, theme: NAME}.
 * Values may use ${oc.env:VAR} and ${oc.env:VAR,default} (default may be null), resolved at
 * load time; an unset VAR without a default is an error naming VAR.
 * Search order: explicit path (-c), $SANDMAN_CONFIG, $XDG_CONFIG_HOME/sandman/config.yaml
 * (else ~/.config/sandman/config.yaml). No file at all is an empty config, not an error. */
#ifndef SM_CONFIG_H
#define SM_CONFIG_H

#include "core/error.h"
#include "core/kv.h"

typedef struct cJSON cJSON;

/* One resolved provider context. */
typedef struct sm_context {
    char *name;     /* block name, or the provider name for a bare provider */
    char *provider; /* provider key */
    cJSON *options; /* provider options (owned; an object, possibly empty) */
    sm_map default_metadata;
    sm_map image_rewrites; /* from -> to, in file order */
} sm_context;

typedef struct sm_config {
    char *path; /* file it came from, NULL when none */
    sm_context *contexts;
    size_t ncontexts;
    char *default_context; /* sandman.context, may be NULL */
    char *theme;           /* sandman.theme, may be NULL */
} sm_config;

/* Parses YAML text into JSON (mappings -> objects, sequences -> arrays, plain scalars typed
 * as YAML 1.1 core: null/~, true/false, ints, floats; quoted scalars stay strings), with
 * ${oc.env:...} interpolation. origin names the source in errors ("config.yaml:3:5: ...").
 * Returns NULL and fills err on malformed YAML. Caller deletes. */
cJSON *sm_yaml_parse(const char *text, size_t len, const char *origin, sm_error *err);

/* Interpolates ${oc.env:VAR} / ${oc.env:VAR,default} in one scalar. *is_null set when the
 * whole value resolved to a null default. Returns malloc'd text, or NULL with err set. */
char *sm_config_interpolate(const char *value, int *is_null, sm_error *err);

int sm_config_load(const char *explicit_path, sm_config *out, sm_error *err);
int sm_config_load_string(const char *yaml, const char *origin, sm_config *out, sm_error *err);
void sm_config_free(sm_config *c);

/* Picks a context: name = block name; else a registered provider name with defaults; NULL =
 * sandman.context (or sandbox_provider), else the file's only block, else "local". Unknown
 * name -> SM_ERR_CONFIG listing blocks and providers.
 * The returned context is a deep copy (sm_context_free). */
int sm_config_resolve(const sm_config *c, const char *name, sm_context *out, sm_error *err);
void sm_context_free(sm_context *ctx);

#endif
