/* Picking a provider context from a loaded config (sm_config_resolve and its default), and
 * pointing a provider's option error at the file line it came from (sm_context_explain).
 * Errors list what could have been meant; a block that cannot be used is never replaced by
 * another provider. */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "core/config_internal.h"
#include "core/provider_impl.h"
#include "core/strbuf.h"
#include "core/util.h"

static const sm_context *find_context(const sm_config *c, const char *name)
{
    for (size_t i = 0; c && i < c->ncontexts; i++)
        if (!strcmp(c->contexts[i].name, name))
            return &c->contexts[i];
    return NULL;
}

static const sm_config_other *find_other(const sm_config *c, const char *name)
{
    for (size_t i = 0; c && i < c->nothers; i++)
        if (!strcmp(c->others[i].name, name))
            return &c->others[i];
    return NULL;
}

/* The server block whose sandbox_provider gave name, when the default came from one. */
static const sm_config_other *user_of(const sm_config *c, const char *name)
{
    for (size_t i = 0; c && i < c->nothers; i++)
        if (c->others[i].uses && !strcmp(c->others[i].uses, name))
            return &c->others[i];
    return NULL;
}

const char *sm_config_default_name(const sm_config *c)
{
    if (!c)
        return "local";
    if (c->default_context)
        return c->default_context;
    /* what the run config's servers ask for, when they agree */
    const char *uses = NULL;
    bool several = false;
    for (size_t i = 0; i < c->nothers; i++) {
        const char *u = c->others[i].uses;
        if (!u)
            continue;
        if (uses && strcmp(uses, u))
            several = true;
        uses = uses ? uses : u;
    }
    if (uses && !several)
        return uses;
    const char *only = NULL;
    size_t n = 0;
    for (size_t i = 0; i < c->ncontexts; i++)
        if (!c->contexts[i].nested) {
            only = c->contexts[i].name;
            n++;
        }
    return n == 1 ? only : "local";
}

static void copy_context(sm_context *out, const sm_context *src)
{
    out->name = xstrdup(src->name);
    out->provider = src->provider ? xstrdup(src->provider) : NULL;
    out->options = src->options ? cJSON_Duplicate(src->options, 1) : cJSON_CreateObject();
    sm_map_copy(&out->default_metadata, &src->default_metadata);
    sm_map_copy(&out->image_rewrites, &src->image_rewrites);
    out->origin = src->origin ? xstrdup(src->origin) : NULL;
    out->line = src->line;
    out->npos = src->npos;
    out->pos = src->npos ? xcalloc(src->npos, sizeof *out->pos) : NULL;
    for (size_t i = 0; i < src->npos; i++)
        out->pos[i] = (sm_config_pos){xstrdup(src->pos[i].path), src->pos[i].line, src->pos[i].col};
    out->error = src->error ? xstrdup(src->error) : NULL;
    out->nested = src->nested;
}

static char *provider_list(void)
{
    const char *names[64];
    size_t n = sm_provider_names(names, SM_ARRAY_LEN(names));
    sm_strbuf b = {0};
    sm_strbuf_puts(&b, "");
    for (size_t i = 0; i < n; i++)
        sm_strbuf_printf(&b, "%s%s", i ? ", " : "", names[i]);
    if (!n)
        sm_strbuf_puts(&b, "none");
    return sm_strbuf_take(&b);
}

static char *sandbox_blocks(const sm_config *c)
{
    sm_strbuf b = {0};
    sm_strbuf_puts(&b, "");
    for (size_t i = 0; c && i < c->ncontexts; i++)
        sm_strbuf_printf(&b, "%s%s", i ? ", " : "", c->contexts[i].name);
    if (!b.len)
        sm_strbuf_puts(&b, "none");
    return sm_strbuf_take(&b);
}

int sm_config_resolve(const sm_config *c, const char *name, sm_context *out, sm_error *err)
{
    memset(out, 0, sizeof *out);
    bool implicit = !name || !*name;
    if (implicit)
        name = sm_config_default_name(c);
    const char *file = c && c->path ? c->path : "the config";
    const sm_context *src = find_context(c, name);
    if (src && src->origin)
        file = src->origin;
    else if (c && c->ncontexts && c->contexts[0].origin)
        file = c->contexts[0].origin;
    if (src) {
        if (src->error)
            return sm_error_set(err, SM_ERR_CONFIG, SM_FAIL_INVALID_REQUEST, "%s", src->error);
        if (!sm_provider_lookup(src->provider)) {
            char *avail = provider_list();
            if (sm_config_nemo_provider(src->provider))
                sm_error_set(err, SM_ERR_CONFIG, SM_FAIL_INVALID_REQUEST,
                             "provider '%s' (block '%s' in %s) is not built into this sandman; "
                             "available: %s",
                             src->provider, src->name, file, avail);
            else
                sm_error_set(err, SM_ERR_CONFIG, SM_FAIL_INVALID_REQUEST,
                             "provider '%s' (block '%s' in %s) is not a sandbox provider sandman "
                             "or NeMo Gym knows; available: %s",
                             src->provider, src->name, file, avail);
            free(avail);
            return SM_ERR_CONFIG;
        }
        copy_context(out, src);
        return SM_OK;
    }
    const sm_config_other *o = find_other(c, name);
    if (o && o->origin)
        file = o->origin;
    if (o) {
        char *blocks = sandbox_blocks(c);
        if (!strcmp(o->kind, "server"))
            sm_error_set(
                err, SM_ERR_CONFIG, SM_FAIL_INVALID_REQUEST,
                "block '%s' in %s is a NeMo Gym server block (%s), not a sandbox block%s%s%s"
                "; sandbox blocks: %s",
                name, file, o->detail, o->uses ? "; it uses sandbox_provider '" : "",
                o->uses ? o->uses : "", o->uses ? "'" : "", blocks);
        else
            sm_error_set(err, SM_ERR_CONFIG, SM_FAIL_INVALID_REQUEST,
                         "top-level key '%s' in %s is not a sandbox block (%s); sandbox blocks: "
                         "%s",
                         name, file, o->detail, blocks);
        free(blocks);
        return SM_ERR_CONFIG;
    }
    const sm_config_other *user = implicit ? user_of(c, name) : NULL;
    if (user && user->origin)
        file = user->origin;
    if (user && !sm_provider_lookup(name)) {
        char *blocks = sandbox_blocks(c);
        sm_error_set(err, SM_ERR_CONFIG, SM_FAIL_INVALID_REQUEST,
                     "server block '%s' in %s uses sandbox_provider '%s', which the file does not "
                     "define (add a provider file with a '%s:' block, or pick one with -p); "
                     "sandbox blocks: %s",
                     user->name, file, name, name, blocks);
        free(blocks);
        return SM_ERR_CONFIG;
    }
    if (sm_provider_lookup(name)) {
        out->name = xstrdup(name);
        out->provider = xstrdup(name);
        out->options = cJSON_CreateObject();
        return SM_OK;
    }
    sm_strbuf blocks = {0};
    for (size_t i = 0; c && i < c->ncontexts; i++)
        sm_strbuf_printf(&blocks, "%s%s", i ? ", " : "", c->contexts[i].name);
    char *provs = provider_list();
    sm_error_set(err, SM_ERR_CONFIG, SM_FAIL_INVALID_REQUEST,
                 "unknown provider context '%s' (blocks: %s; providers: %s)", name,
                 blocks.len ? blocks.data : "none", provs);
    sm_strbuf_free(&blocks);
    free(provs);
    return SM_ERR_CONFIG;
}

/* The dotted key path an option error names: "unknown key 'K' in P config" -> P.K; else the
 * message's first word when it looks like one ("docker.create.pids_limit must be ..."). */
static char *error_path(const char *msg)
{
    const char *u = strstr(msg, "unknown key '");
    if (u) {
        const char *k = u + strlen("unknown key '");
        const char *ke = strchr(k, '\'');
        const char *in = ke ? strstr(ke, "' in ") : NULL;
        if (in) {
            const char *pp = in + strlen("' in ");
            const char *pe = strstr(pp, " config");
            if (pe)
                return xasprintf("%.*s.%.*s", (int)(pe - pp), pp, (int)(ke - k), k);
        }
    }
    size_t n = strspn(msg, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-[]");
    if (n && memchr(msg, '.', n))
        return xstrndup(msg, n);
    return NULL;
}

void sm_context_explain(const sm_context *ctx, sm_error *err)
{
    if (!ctx || !ctx->origin || !err)
        return;
    int line = ctx->line;
    char *path = error_path(err->msg);
    while (path && *path) {
        const sm_config_pos *hit = NULL;
        for (size_t i = 0; i < ctx->npos && !hit; i++)
            if (!strcmp(ctx->pos[i].path, path))
                hit = &ctx->pos[i];
        if (hit) {
            line = hit->line;
            break;
        }
        char *cut = strrchr(path, '.'), *br = strrchr(path, '[');
        if (br > cut)
            cut = br;
        if (!cut)
            break;
        *cut = '\0';
    }
    free(path);
    sm_error_prefix(err, "%s:%d: block '%s'", ctx->origin, line, ctx->name);
    err->code = SM_ERR_CONFIG;
}
