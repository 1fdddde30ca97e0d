/* ${oc.env:VAR} and ${oc.env:VAR,default} interpolation of config values (DESIGN.md §5).
 * - only ${oc.env:...} is interpolated, in values (never in keys). In a config block, any
 *   other ${...} (a resolver such as oc.select, a reference to another key) is an error naming
 *   it, as OmegaConf would resolve it and sandman cannot; "\${" yields a literal "${". (The
 *   plain YAML reader, sm_yaml_parse, keeps other ${...} as text and escapes only
 *   "\${oc.env:".) An embedded null default ("a-${oc.env:X,null}") contributes nothing.
 * - a scalar that used ${oc.env:...} is a string (or null for a whole-value null default),
 *   whatever the substituted text looks like; core/json.c's getters accept numeric/boolean
 *   strings where numbers/bools are expected.
 * It knows nothing of YAML or blocks: callers hand it one scalar. */
#include <stdlib.h>
#include <string.h>

#include "core/config_internal.h"
#include "core/strbuf.h"
#include "core/util.h"

#define OC_ENV         "${oc.env:"
#define MAX_INTERP_DEP 8

static bool is_blank(char c)
{
    return c == ' ' || c == '\t';
}

static char *interp(const char *value, int *is_null, int *changed, sm_error *err, int depth,
                    bool strict);

/* Resolves one ${oc.env:...} starting at *pp (which points at OC_ENV); appends the value to
 * out. Sets *null_val when it resolved to a null default. Advances *pp past the '}'. */
static int interp_one(const char **pp, sm_strbuf *out, int *null_val, sm_error *err, int depth,
                      bool strict)
{
    const char *p = *pp + strlen(OC_ENV);
    while (is_blank(*p))
        p++;
    const char *name = p;
    while (*p && *p != ',' && *p != '}')
        p++;
    if (!*p)
        return sm_error_set(err, SM_ERR_CONFIG, SM_FAIL_INVALID_REQUEST,
                            "unterminated ${oc.env:...} interpolation");
    const char *name_end = p;
    while (name_end > name && is_blank(name_end[-1]))
        name_end--;
    if (name_end == name)
        return sm_error_set(err, SM_ERR_CONFIG, SM_FAIL_INVALID_REQUEST,
                            "empty variable name in ${oc.env:...}");
    char *var = xstrndup(name, (size_t)(name_end - name));
    char *def = NULL; /* malloc'd default text, NULL when there is none */
    bool def_null = false;
    int rc = SM_OK;

    if (*p == ',') {
        p++;
        while (is_blank(*p))
            p++;
        if (*p == '\'' || *p == '"') {
            char q = *p++;
            sm_strbuf b = {0};
            sm_strbuf_puts(&b, "");
            while (*p && *p != q) {
                if (*p == '\\' && (p[1] == q || p[1] == '\\'))
                    p++;
                sm_strbuf_append(&b, p, 1);
                p++;
            }
            if (!*p) {
                sm_strbuf_free(&b);
                rc = sm_error_set(err, SM_ERR_CONFIG, SM_FAIL_INVALID_REQUEST,
                                  "unterminated quoted default in ${oc.env:%s,...}", var);
                goto out;
            }
            p++;
            while (is_blank(*p))
                p++;
            def = sm_strbuf_take(&b);
            if (*p != '}') {
                rc = sm_error_set(err, SM_ERR_CONFIG, SM_FAIL_INVALID_REQUEST,
                                  "expected '}' after the quoted default of ${oc.env:%s,...}", var);
                goto out;
            }
        } else {
            const char *start = p;
            int nest = 0;
            while (*p) {
                if (p[0] == '$' && p[1] == '{') {
                    nest++;
                    p += 2;
                    continue;
                }
                if (*p == '}') {
                    if (nest == 0)
                        break;
                    nest--;
                }
                p++;
            }
            if (!*p) {
                rc = sm_error_set(err, SM_ERR_CONFIG, SM_FAIL_INVALID_REQUEST,
                                  "unterminated ${oc.env:...} interpolation");
                goto out;
            }
            const char *end = p;
            while (end > start && is_blank(end[-1]))
                end--;
            char *raw = xstrndup(start, (size_t)(end - start));
            if (!strcmp(raw, "null")) {
                def_null = true;
                free(raw);
            } else if (strstr(raw, strict ? "${" : OC_ENV)) {
                int inner_null = 0, inner_changed = 0;
                def = interp(raw, &inner_null, &inner_changed, err, depth + 1, strict);
                free(raw);
                if (!def) {
                    rc = err ? err->code : SM_ERR_CONFIG;
                    goto out;
                }
                def_null = inner_null != 0;
            } else {
                def = raw;
            }
        }
    }
    /* p is at the closing '}'. */
    const char *env = getenv(var);
    if (env) {
        sm_strbuf_puts(out, env); /* an empty variable counts as set (OmegaConf) */
    } else if (def_null) {
        *null_val = 1;
    } else if (def) {
        sm_strbuf_puts(out, def);
    } else {
        rc =
            sm_error_set(err, SM_ERR_CONFIG, SM_FAIL_INVALID_REQUEST,
                         "environment variable %s is not set (use ${oc.env:%s,default})", var, var);
        goto out;
    }
    *pp = p + 1;
out:
    free(var);
    free(def);
    return rc;
}

/* A ${...} that is not ${oc.env:...}: OmegaConf would resolve it (another resolver, or a
 * reference to another key); sandman does not, and says which one rather than keep the text. */
static int unsupported(const char *p, sm_error *err)
{
    const char *end = strchr(p, '}');
    int n = end ? (int)(end - p + 1) : (int)strlen(p);
    if (n > 80)
        n = 80;
    const char *colon = memchr(p, ':', end ? (size_t)(end - p) : strlen(p));
    if (colon)
        return sm_error_set(err, SM_ERR_CONFIG, SM_FAIL_INVALID_REQUEST,
                            "'%.*s' uses the resolver '%.*s', which sandman does not support "
                            "(only ${oc.env:VAR} and ${oc.env:VAR,default}; write \\${ for a "
                            "literal ${)",
                            n, p, (int)(colon - p - 2), p + 2);
    return sm_error_set(err, SM_ERR_CONFIG, SM_FAIL_INVALID_REQUEST,
                        "'%.*s' refers to another config key, which sandman does not resolve "
                        "(only ${oc.env:VAR} and ${oc.env:VAR,default}; write \\${ for a "
                        "literal ${)",
                        n, p);
}

static char *interp(const char *value, int *is_null, int *changed, sm_error *err, int depth,
                    bool strict)
{
    *is_null = 0;
    *changed = 0;
    if (depth > MAX_INTERP_DEP) {
        sm_error_set(err, SM_ERR_CONFIG, SM_FAIL_INVALID_REQUEST,
                     "${oc.env:...} defaults nested too deeply");
        return NULL;
    }
    sm_strbuf b = {0};
    sm_strbuf_puts(&b, "");
    int terms = 0, last_null = 0;
    bool literal = false;
    const char *p = value ? value : "";
    while (*p) {
        if (p[0] == '\\' && sm_str_has_prefix(p + 1, strict ? "${" : OC_ENV)) {
            sm_strbuf_puts(&b, "$");
            p += 2;
            literal = true;
            *changed = 1;
        } else if (sm_str_has_prefix(p, OC_ENV)) {
            last_null = 0;
            if (interp_one(&p, &b, &last_null, err, depth, strict) != SM_OK) {
                sm_strbuf_free(&b);
                return NULL;
            }
            terms++;
            *changed = 1;
        } else if (strict && p[0] == '$' && p[1] == '{') {
            unsupported(p, err);
            sm_strbuf_free(&b);
            return NULL;
        } else {
            sm_strbuf_append(&b, p, 1);
            p++;
            literal = true;
        }
    }
    /* Only a value that is exactly one interpolation can become null; embedded null
     * defaults contribute nothing to the surrounding text. */
    *is_null = terms == 1 && !literal && last_null;
    return sm_strbuf_take(&b);
}

char *sm_config_interp(const char *value, int *is_null, int *changed, bool strict, sm_error *err)
{
    return interp(value, is_null, changed, err, 0, strict);
}

char *sm_config_interpolate(const char *value, int *is_null, sm_error *err)
{
    int changed, dummy;
    return interp(value, is_null ? is_null : &dummy, &changed, err, 0, false);
}
