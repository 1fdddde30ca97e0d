/* Configuration (DESIGN.md §5), compatible with NeMo Gym's YAML provider files.
 *
 * A file maps block names to blocks. A block holds exactly one provider key (its value: that
 * provider's options, null meaning {}) plus the reserved keys `default_metadata` (labels merged
 * under every spec's metadata) and `rewrite_image` (a list of {from, to} prefix rules).
 * The top-level key `sandman` is reserved for settings: {context: NAME, theme: NAME}.
 * A merged NeMo Gym run config loads too: top-level scalars and lists, helper mappings (with
 * anchors) and server blocks (`NAME: {responses_api_agents: {...}}`) are listed but ignored
 * unless selected, and a `sandbox_provider` inside a server block (a block's name, or an inline
 * `{provider: {...}}`) says which sandbox the file asks for.
 * Values may use ${oc.env:VAR} and ${oc.env:VAR,default} (default may be null). Each block is
 * resolved on its own and its errors (an unset VAR, another resolver, a malformed block) are kept
 * with it: they fail only a verb that selects that block, as OmegaConf resolves only what is read.
 * Search order: explicit path (-c), $SANDMAN_CONFIG, $XDG_CONFIG_HOME/sandman/config.yaml
 * (else ~/.config/sandman/config.yaml). No file at all is an empty config, not an error. */
#ifndef SM_CONFIG_H
#define SM_CONFIG_H

#include <stdbool.h>

#include "core/error.h"
#include "core/kv.h"

typedef struct cJSON cJSON;

/* Where a key of a block sits in its file (paths relative to the block: "docker.create.x"). */
typedef struct sm_config_pos {
    char *path;
    int line, col;
} sm_config_pos;

/* One resolved provider context. */
typedef struct sm_context {
    char *name;     /* block name, or the provider name for a bare provider */
    char *provider; /* provider key */
    cJSON *options; /* provider options (owned; an object, possibly empty) */
    sm_map default_metadata;
    sm_map image_rewrites; /* from -> to, in file order */
    /* where it came from: NULL origin for a bare provider */
    char *origin;
    int line;
    sm_config_pos *pos;
    size_t npos;
    char *error;  /* the block's own error, reported when it is selected (NULL: usable) */
    bool nested;  /* an inline sandbox_provider inside a server block (name = its key path) */
    bool ignored; /* an unknown one-key mapping in a merged run config: not a sandbox block */
} sm_context;

/* A top-level key that is not a sandbox block, for listings and "that is not a sandbox" errors. */
typedef struct sm_config_other {
    char *name;
    char *kind;   /* "server", "value" (scalar or list), "mapping" */
    char *detail; /* the server kind, or what the value is */
    char *uses;   /* a server block's sandbox_provider: a block name or a nested context's name */
    char *origin;
    int line;
} sm_config_other;

typedef struct sm_config {
    char *path; /* file it came from, NULL when none */
    sm_context *contexts;
    size_t ncontexts;
    sm_config_other *others;
    size_t nothers;
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
 * sandman.context (or sandbox_provider), else the one sandbox a server block's
 * sandbox_provider names, else the file's only sandbox block, else "local". Unknown name ->
 * SM_ERR_CONFIG listing blocks and providers; a block naming a provider that is not built in,
 * a server block or a block with an error of its own -> SM_ERR_CONFIG saying so (never another
 * provider in its place). The returned context is a deep copy (sm_context_free). */
int sm_config_resolve(const sm_config *c, const char *name, sm_context *out, sm_error *err);
/* The name sm_config_resolve(c, NULL) would pick (static storage or c's), never NULL. */
const char *sm_config_default_name(const sm_config *c);
void sm_context_free(sm_context *ctx);

/* Makes a provider's error about ctx's options point into the file: "FILE:LINE: block 'NAME':
 * <message>", the line of the key the message names (else the block's). No-op for a context
 * that came from no file. */
void sm_context_explain(const sm_context *ctx, sm_error *err);

#endif
