/* Configuration loading (DESIGN.md §5): the block rules of NeMo Gym's provider files over the
 * YAML reader (core/yaml.c), settings, secrets registered for redaction, the file search
 * order. Picking a context is core/config_resolve.c. It must not know provider options: those
 * are checked by each provider when it is built.
 * A file is read once without interpolation; each sandbox block is then resolved on its own
 * (a copy of its subtree), and an error is kept with the block (sm_context.error), so that it
 * fails only a verb that selects it: OmegaConf resolves only what is read. Key positions are
 * kept per block for errors that name a line. */
#include "core/config.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/config_internal.h"
#include "core/json.h"
#include "core/provider_impl.h"
#include "core/redact.h"
#include "core/strbuf.h"
#include "core/util.h"

static int cfail(sm_error *err, const char *origin, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int cfail(sm_error *err, const char *origin, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = xvasprintf(fmt, ap);
    va_end(ap);
    sm_error_set(err, SM_ERR_CONFIG, SM_FAIL_INVALID_REQUEST, "%s: %s", origin, msg);
    free(msg);
    return SM_ERR_CONFIG;
}

/* Turns an error from a core/json.c helper into a config error naming the file. */
static int as_config_error(sm_error *err, const char *origin)
{
    sm_error_prefix(err, "%s", origin);
    if (err)
        err->code = SM_ERR_CONFIG;
    return SM_ERR_CONFIG;
}

static void register_secrets(const cJSON *node, bool secret)
{
    if (cJSON_IsString(node) && secret) {
        sm_redact_register(node->valuestring);
        return;
    }
    for (const cJSON *c = node ? node->child : NULL; c; c = c->next)
        register_secrets(
            c, secret || (cJSON_IsObject(node) && c->string && sm_redact_key_is_secret(c->string)));
}

static int parse_rewrites(const char *origin, const char *block, const cJSON *list, sm_map *rules,
                          sm_error *err)
{
    static const char *const rule_keys[] = {"from", "to", NULL};
    if (cJSON_IsNull(list))
        return SM_OK;
    if (!cJSON_IsArray(list))
        return cfail(err, origin, "block '%s': rewrite_image must be a list of {from, to} rules",
                     block);
    int i = 0;
    for (const cJSON *r = list->child; r; r = r->next, i++) {
        char what[160];
        snprintf(what, sizeof what, "block '%s' rewrite_image[%d]", block, i);
        if (!cJSON_IsObject(r))
            return cfail(err, origin, "%s must be a mapping {from: PREFIX, to: PREFIX}", what);
        if (sm_json_check_keys(r, rule_keys, what, err) != SM_OK)
            return as_config_error(err, origin);
        const char *from = sm_json_str(r, "from"), *to = sm_json_str(r, "to");
        if (!from || !*from || !to)
            return cfail(err, origin, "%s needs string values for both 'from' and 'to'", what);
        if (!sm_map_get(rules, from)) /* first rule wins; a repeat could never match */
            sm_map_set(rules, from, to);
    }
    return SM_OK;
}

static int parse_block(const char *origin, const char *name, const cJSON *val, sm_context *ctx,
                       sm_error *err)
{
    const cJSON *provider = NULL;
    size_t nproviders = 0;
    sm_strbuf found = {0};
    sm_strbuf_puts(&found, "");
    int rc = SM_OK;
    for (const cJSON *c = val->child; c; c = c->next) {
        if (!strcmp(c->string, "default_metadata")) {
            char buf[200];
            /* a label whose value is null (${oc.env:X,null} with X unset) is left out */
            cJSON *labels = cJSON_Duplicate(c, 1);
            for (cJSON *l = labels->child, *next; l; l = next) {
                next = l->next;
                if (cJSON_IsNull(l))
                    cJSON_Delete(cJSON_DetachItemViaPointer(labels, l));
            }
            int bad = sm_map_from_json(labels, &ctx->default_metadata, buf, sizeof buf);
            cJSON_Delete(labels);
            if (bad < 0) {
                rc = cfail(err, origin, "block '%s': default_metadata %s", name, buf);
                goto out;
            }
            sm_redact_register_map(&ctx->default_metadata); /* same rule as provider options */
        } else if (!strcmp(c->string, "rewrite_image")) {
            if ((rc = parse_rewrites(origin, name, c, &ctx->image_rewrites, err)) != SM_OK)
                goto out;
        } else {
            sm_strbuf_printf(&found, "%s%s", nproviders ? ", " : "", c->string);
            nproviders++;
            provider = c;
        }
    }
    if (nproviders != 1) {
        if (nproviders == 0)
            rc = cfail(err, origin,
                       "block '%s' holds no provider key; a block holds exactly one provider key "
                       "plus optional default_metadata and rewrite_image",
                       name);
        else
            rc = cfail(err, origin,
                       "block '%s' holds %zu provider keys (%s); a block holds exactly one "
                       "provider key plus optional default_metadata and rewrite_image",
                       name, nproviders, found.data);
        goto out;
    }
    if (cJSON_IsNull(provider)) {
        ctx->options = cJSON_CreateObject();
    } else if (cJSON_IsObject(provider)) {
        ctx->options = cJSON_Duplicate(provider, 1);
    } else {
        rc = cfail(err, origin,
                   "block '%s': the options of provider '%s' must be a mapping (or empty)", name,
                   provider->string);
        goto out;
    }
    ctx->provider = xstrdup(provider->string);
    register_secrets(ctx->options, false);
out:
    sm_strbuf_free(&found);
    return rc;
}

static int parse_settings(const char *origin, const cJSON *val, sm_config *out, sm_error *err)
{
    static const char *const keys[] = {"context", "theme", NULL};
    if (cJSON_IsNull(val))
        return SM_OK;
    if (!cJSON_IsObject(val))
        return cfail(err, origin,
                     "top-level key 'sandman' must be a mapping (allowed keys: "
                     "context, theme)");
    if (sm_json_check_keys(val, keys, "sandman", err) != SM_OK ||
        sm_json_get_string(val, "context", &out->default_context, "sandman", err) != SM_OK ||
        sm_json_get_string(val, "theme", &out->theme, "sandman", err) != SM_OK)
        return as_config_error(err, origin);
    if (out->default_context && !*out->default_context) {
        free(out->default_context);
        out->default_context = NULL;
    }
    return SM_OK;
}

/* Providers NeMo Gym knows by name: a block naming one is a sandbox block even when this
 * sandman lacks it (it is then listed and refused by name, never replaced). */
static const char *const nemo_providers[] = {
    "apptainer", "daytona", "docker", "e2b",         "ecs_fargate", "enroot", "idegym",
    "local",     "mfn",     "modal",  "opensandbox", "openshell",   "remote", NULL};
/* The keys of NeMo Gym's server blocks (NAME: {KIND: {INSTANCE: {...}}}). */
static const char *const server_kinds[] = {"responses_api_agents", "resources_servers",
                                           "responses_api_models", NULL};

static bool in_list(const char *const *list, const char *s)
{
    for (size_t i = 0; list[i]; i++)
        if (!strcmp(list[i], s))
            return true;
    return false;
}

bool sm_config_nemo_provider(const char *name)
{
    return in_list(nemo_providers, name);
}

static bool known_provider(const char *name)
{
    return sm_config_nemo_provider(name) || sm_provider_lookup(name);
}

static bool reserved_key(const char *k)
{
    return !strcmp(k, "default_metadata") || !strcmp(k, "rewrite_image");
}

typedef struct loader {
    const char *origin;
    sm_config_pos *pos;
    size_t npos;
    sm_config *out;
} loader;

static const sm_config_pos *find_pos(const loader *L, const char *path)
{
    for (size_t i = 0; i < L->npos; i++)
        if (!strcmp(L->pos[i].path, path))
            return &L->pos[i];
    return NULL;
}

/* Resolves every ${...} of one block, in place. Errors name the file, line and block. */
static int interp_tree(const loader *L, const char *block, cJSON *node, const char *path, int depth,
                       sm_error *err)
{
    long i = 0;
    for (cJSON *c = node->child, *next; c; c = next, i++) {
        next = c->next;
        char *cp = cJSON_IsArray(node) ? sm_yaml_child_path(path, NULL, i)
                                       : sm_yaml_child_path(path, c->string, -1);
        int rc = SM_OK;
        if (cJSON_IsString(c) && strstr(c->valuestring, "${")) {
            int is_null = 0, changed = 0;
            char *v = sm_config_interp(c->valuestring, &is_null, &changed, true, err);
            if (!v) {
                const sm_config_pos *p = find_pos(L, cp);
                if (p)
                    sm_error_prefix(err, "%s:%d:%d: block '%s'", L->origin, p->line, p->col, block);
                else
                    sm_error_prefix(err, "%s: block '%s'", L->origin, block);
                if (err)
                    err->code = SM_ERR_CONFIG;
                rc = SM_ERR_CONFIG;
            } else {
                cJSON *repl = is_null ? cJSON_CreateNull() : cJSON_CreateString(v);
                free(v);
                if (cJSON_IsObject(node))
                    cJSON_ReplaceItemInObjectCaseSensitive(node, c->string,
                                                           repl); /* keeps the key */
                else
                    cJSON_ReplaceItemViaPointer(node, c, repl);
            }
        } else if ((cJSON_IsObject(c) || cJSON_IsArray(c)) && depth < SM_YAML_MAX_DEPTH) {
            rc = interp_tree(L, block, c, cp, depth + 1, err);
        }
        free(cp);
        if (rc != SM_OK)
            return rc;
    }
    return SM_OK;
}

/* The provider key of a block-shaped mapping: its one non-reserved key, else NULL. */
static const char *sole_provider(const cJSON *val, size_t *nprov)
{
    const char *prov = NULL;
    *nprov = 0;
    for (const cJSON *c = val->child; c; c = c->next)
        if (!reserved_key(c->string)) {
            prov = c->string;
            (*nprov)++;
        }
    return *nprov == 1 ? prov : NULL;
}

/* Adds a context for the block at path (its name); its errors are kept, not returned. */
static void add_context(loader *L, const char *name, const char *path, const cJSON *val)
{
    sm_config *out = L->out;
    out->contexts = xrealloc(out->contexts, (out->ncontexts + 1) * sizeof *out->contexts);
    sm_context *ctx = &out->contexts[out->ncontexts++];
    memset(ctx, 0, sizeof *ctx);
    ctx->name = xstrdup(name);
    ctx->origin = xstrdup(L->origin);
    ctx->nested = strcmp(name, path) != 0;
    const sm_config_pos *bp = find_pos(L, path);
    ctx->line = bp ? bp->line : 1;
    size_t plen = strlen(path);
    for (size_t i = 0; i < L->npos; i++) {
        const char *p = L->pos[i].path;
        if (strncmp(p, path, plen) || p[plen] != '.')
            continue;
        ctx->pos = xrealloc(ctx->pos, (ctx->npos + 1) * sizeof *ctx->pos);
        ctx->pos[ctx->npos++] =
            (sm_config_pos){xstrdup(p + plen + 1), L->pos[i].line, L->pos[i].col};
    }
    size_t nprov;
    const char *prov = sole_provider(val, &nprov);
    if (prov)
        ctx->provider = xstrdup(prov);
    sm_error e;
    sm_error_clear(&e);
    cJSON *copy = cJSON_Duplicate(val, 1);
    int rc = interp_tree(L, name, copy, path, 0, &e);
    if (rc == SM_OK) {
        free(ctx->provider);
        ctx->provider = NULL;
        rc = parse_block(L->origin, name, copy, ctx, &e);
        if (rc != SM_OK && !ctx->provider && prov)
            ctx->provider = xstrdup(prov);
    }
    cJSON_Delete(copy);
    if (rc != SM_OK)
        ctx->error = xstrdup(e.msg);
    if (!ctx->options)
        ctx->options = cJSON_CreateObject();
}

static sm_config_other *add_other(loader *L, const char *name, const char *kind, const char *detail)
{
    sm_config *out = L->out;
    out->others = xrealloc(out->others, (out->nothers + 1) * sizeof *out->others);
    sm_config_other *o = &out->others[out->nothers++];
    memset(o, 0, sizeof *o);
    o->name = xstrdup(name);
    o->kind = xstrdup(kind);
    o->detail = xstrdup(detail);
    o->origin = xstrdup(L->origin);
    const sm_config_pos *p = find_pos(L, name);
    o->line = p ? p->line : 1;
    return o;
}

/* Finds the sandbox_provider settings inside a server block: a name is remembered as what the
 * block uses, an inline {provider: {...}} becomes a context named by its key path. */
static void scan_server(loader *L, sm_config_other *o, const cJSON *node, const char *path,
                        int depth)
{
    if (depth > 12 || !cJSON_IsObject(node))
        return;
    for (const cJSON *c = node->child; c; c = c->next) {
        char *cp = sm_yaml_child_path(path, c->string, -1);
        if (!strcmp(c->string, "sandbox_provider")) {
            if (cJSON_IsString(c) && *c->valuestring && !o->uses) {
                int is_null = 0;
                char *v = sm_config_interpolate(c->valuestring, &is_null, NULL);
                if (v && *v && !is_null)
                    o->uses = xstrdup(v);
                free(v);
            } else if (cJSON_IsObject(c)) {
                add_context(L, cp, cp, c);
                if (!o->uses)
                    o->uses = xstrdup(cp);
            }
        } else {
            scan_server(L, o, c, cp, depth + 1);
        }
        free(cp);
    }
}

static const char *value_kind(const cJSON *v)
{
    if (cJSON_IsArray(v))
        return "a list";
    if (cJSON_IsObject(v))
        return "a mapping";
    if (cJSON_IsNull(v))
        return "null";
    return "a scalar";
}

int sm_config_load_string(const char *yaml, const char *origin, sm_config *out, sm_error *err)
{
    memset(out, 0, sizeof *out);
    origin = origin ? origin : "config";
    if (err)
        sm_error_clear(err);
    sm_error tmp;
    sm_error *e = err ? err : &tmp;
    sm_error_clear(e);
    loader L = {.origin = origin, .out = out};
    cJSON *root = sm_yaml_read(yaml, yaml ? strlen(yaml) : 0, origin, true, &L.pos, &L.npos, e);
    if (!root)
        return e->code ? e->code : SM_ERR_CONFIG;
    int rc = SM_OK;
    char *fallback = NULL; /* NeMo Gym's `sandbox_provider: NAME` */
    if (cJSON_IsNull(root))
        goto done;
    if (!cJSON_IsObject(root)) {
        rc = cfail(e, origin, "the top level must be a mapping of block names to blocks");
        goto done;
    }
    bool merged = false; /* a NeMo Gym run config: unknown one-key mappings are not blocks */
    for (const cJSON *c = root->child; c; c = c->next) {
        size_t nprov;
        const char *prov = cJSON_IsObject(c) ? sole_provider(c, &nprov) : NULL;
        if (prov && in_list(server_kinds, prov) && cJSON_GetArraySize(c) == 1)
            merged = true;
        if (!cJSON_IsObject(c) && strcmp(c->string, "sandbox_provider") &&
            strcmp(c->string, "sandman"))
            merged = true;
    }
    for (cJSON *c = root->child; c; c = c->next) {
        if (!strcmp(c->string, "sandman")) {
            /* settings are always read: resolved here */
            if (cJSON_IsObject(c) && (rc = interp_tree(&L, "sandman", c, "sandman", 0, e)) != SM_OK)
                goto done;
            if ((rc = parse_settings(origin, c, out, e)) != SM_OK)
                goto done;
            continue;
        }
        if (!strcmp(c->string, "sandbox_provider") && !cJSON_IsObject(c)) {
            if (cJSON_IsString(c) && *c->valuestring && !fallback) {
                int is_null = 0;
                char *v = sm_config_interpolate(c->valuestring, &is_null, NULL);
                if (v && *v && !is_null)
                    fallback = v;
                else
                    free(v);
            }
            continue;
        }
        if (!cJSON_IsObject(c)) {
            add_other(&L, c->string, "value", value_kind(c));
            continue;
        }
        size_t nprov;
        const char *prov = sole_provider(c, &nprov);
        if (prov && in_list(server_kinds, prov) && cJSON_GetArraySize(c) == 1) {
            sm_config_other *o = add_other(&L, c->string, "server", prov);
            scan_server(&L, o, c, c->string, 0);
            continue;
        }
        bool any_known = false, any_reserved = false;
        for (const cJSON *k = c->child; k; k = k->next) {
            any_known = any_known || known_provider(k->string);
            any_reserved = any_reserved || reserved_key(k->string);
        }
        /* A sandbox block: one provider key (in a sandman file, any; in a merged run config, one
         * a provider list knows), or the shape of one gone wrong (reserved keys, several
         * providers). Anything else is a helper mapping of the run config. */
        if ((prov && (!merged || any_known)) || any_reserved || (nprov > 1 && any_known) ||
            (!merged && nprov == 0))
            add_context(&L, c->string, c->string, c);
        else
            add_other(&L, c->string, "mapping",
                      prov ? "its one key is no sandbox provider" : "a mapping of several keys");
    }
    if (!out->default_context && fallback)
        out->default_context = xstrdup(fallback);
done:
    free(fallback);
    cJSON_Delete(root);
    for (size_t i = 0; i < L.npos; i++)
        free(L.pos[i].path);
    free(L.pos);
    if (rc != SM_OK)
        sm_config_free(out);
    return rc;
}

/* Where the implicit config lives: $XDG_CONFIG_HOME or ~/.config. NULL when unknown. */
static char *default_path(void)
{
    const char *xdg = getenv("XDG_CONFIG_HOME");
    if (xdg && xdg[0] == '/')
        return xasprintf("%s/sandman/config.yaml", xdg);
    const char *home = getenv("HOME");
    if (!home || !*home) {
        struct passwd pw, *res = NULL;
        char buf[4096];
        if (getpwuid_r(getuid(), &pw, buf, sizeof buf, &res) == 0 && res && res->pw_dir)
            return xasprintf("%s/.config/sandman/config.yaml", res->pw_dir);
        return NULL;
    }
    return xasprintf("%s/.config/sandman/config.yaml", home);
}

int sm_config_load(const char *explicit_path, sm_config *out, sm_error *err)
{
    memset(out, 0, sizeof *out);
    char *path = NULL;
    bool required = true;
    if (explicit_path && *explicit_path) {
        path = xstrdup(explicit_path);
    } else if (getenv("SANDMAN_CONFIG") && *getenv("SANDMAN_CONFIG")) {
        path = xstrdup(getenv("SANDMAN_CONFIG"));
    } else {
        path = default_path();
        required = false;
        if (!path)
            return SM_OK;
    }
    char *text = NULL;
    size_t len = 0;
    if (sm_read_file(path, &text, &len) != 0) {
        int e = errno;
        if (!required && (e == ENOENT || e == ENOTDIR)) {
            free(path);
            return SM_OK;
        }
        sm_error_set(err, SM_ERR_CONFIG, SM_FAIL_INVALID_REQUEST, "config file %s: %s", path,
                     strerror(e));
        free(path);
        return SM_ERR_CONFIG;
    }
    if (strlen(text) != len) {
        sm_error_set(err, SM_ERR_CONFIG, SM_FAIL_INVALID_REQUEST,
                     "config file %s: contains a NUL byte", path);
        free(text);
        free(path);
        return SM_ERR_CONFIG;
    }
    int rc = sm_config_load_string(text, path, out, err);
    free(text);
    if (rc == SM_OK)
        out->path = path;
    else
        free(path);
    return rc;
}

void sm_context_free(sm_context *ctx)
{
    if (!ctx)
        return;
    free(ctx->name);
    free(ctx->provider);
    cJSON_Delete(ctx->options);
    sm_map_free(&ctx->default_metadata);
    sm_map_free(&ctx->image_rewrites);
    free(ctx->origin);
    for (size_t i = 0; i < ctx->npos; i++)
        free(ctx->pos[i].path);
    free(ctx->pos);
    free(ctx->error);
    memset(ctx, 0, sizeof *ctx);
}

void sm_config_free(sm_config *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->ncontexts; i++)
        sm_context_free(&c->contexts[i]);
    free(c->contexts);
    for (size_t i = 0; i < c->nothers; i++) {
        free(c->others[i].name);
        free(c->others[i].kind);
        free(c->others[i].detail);
        free(c->others[i].uses);
        free(c->others[i].origin);
    }
    free(c->others);
    free(c->path);
    free(c->default_context);
    free(c->theme);
    memset(c, 0, sizeof *c);
}
