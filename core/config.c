/* Configuration loading (DESIGN.md §5): a small YAML -> cJSON reader with ${oc.env:...}
 * interpolation, the block rules of NeMo Gym's provider files, and context resolution.
 * It must not know provider options: those are checked by each provider when it is built.
 *
 * Typing rules (documented choices):
 * - plain scalars: null/Null/NULL/~/empty -> null; true/True/TRUE/false/False/FALSE -> bool;
 *   decimal ints without leading zeros (|n| <= 2^53) -> number; floats with a '.' or an
 *   exponent (1.5, .5, 1e3) -> number; everything else (yes/no, 0755, .inf, 0x1f) -> string.
 * - quoted and block scalars are strings; the !!str tag forces a string.
 * - a scalar that used ${oc.env:...} is a string (or null for a whole-value null default),
 *   whatever the substituted text looks like; core/json.c's getters accept numeric/boolean
 *   strings where numbers/bools are expected.
 * - anchors/aliases are supported by copying the anchored node; `<<` merge keys too.
 * - only ${oc.env:...} is interpolated, in values (never in keys). In a config block, any
 *   other ${...} (a resolver such as oc.select, a reference to another key) is an error naming
 *   it, as OmegaConf would resolve it and sandman cannot; "\${" yields a literal "${". (The
 *   plain YAML reader, sm_yaml_parse, keeps other ${...} as text and escapes only
 *   "\${oc.env:".) An embedded null default ("a-${oc.env:X,null}") contributes nothing.
 * - a file is read once without interpolation; each sandbox block is then resolved on its own
 *   (a copy of its subtree), and an error is kept with the block (sm_context.error), so that it
 *   fails only a verb that selects it: OmegaConf resolves only what is read. Key positions are
 *   kept per block for errors that name a line. */
#include "core/config.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <yaml.h>

#include "core/json.h"
#include "core/provider_impl.h"
#include "core/redact.h"
#include "core/strbuf.h"
#include "core/util.h"

#define OC_ENV         "${oc.env:"
#define MAX_NODES      100000 /* bounds alias expansion ("billion laughs") */
#define MAX_DEPTH      200
#define MAX_INTERP_DEP 8

/* ---------------------------------------------------------------- interpolation */

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

char *sm_config_interpolate(const char *value, int *is_null, sm_error *err)
{
    int changed, dummy;
    return interp(value, is_null ? is_null : &dummy, &changed, err, 0, false);
}

/* ---------------------------------------------------------------- YAML */

/* Anchored nodes are kept as private copies: the originals may be consumed by `<<` merges. */
typedef struct anchor {
    char *name;
    cJSON *node;
    size_t nodes;
} anchor;

typedef struct yreader {
    yaml_parser_t parser;
    const char *text;
    const char *origin;
    sm_error *err;
    anchor *anchors;
    size_t nanchors;
    size_t nodes;
    bool lazy; /* keep ${...} text for each block to resolve on its own, record key positions */
    sm_config_pos *pos;
    size_t npos, cappos;
} yreader;

static void record_pos(yreader *y, const char *path, yaml_mark_t mark)
{
    if (!y->lazy)
        return;
    if (y->npos == y->cappos) {
        y->cappos = y->cappos ? 2 * y->cappos : 64;
        y->pos = xrealloc(y->pos, y->cappos * sizeof *y->pos);
    }
    y->pos[y->npos++] = (sm_config_pos){xstrdup(path), (int)mark.line + 1, (int)mark.column + 1};
}

static char *child_path(const char *path, const char *key, long index)
{
    if (index >= 0)
        return xasprintf("%s[%ld]", path, index);
    if (!key)
        key = "";
    return *path ? xasprintf("%s.%s", path, key) : xstrdup(key);
}

static int yfail(yreader *y, yaml_mark_t mark, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int yfail(yreader *y, yaml_mark_t mark, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = xvasprintf(fmt, ap);
    va_end(ap);
    sm_error_set(y->err, SM_ERR_CONFIG, SM_FAIL_INVALID_REQUEST, "%s:%zu:%zu: %s", y->origin,
                 mark.line + 1, mark.column + 1, msg);
    free(msg);
    return SM_ERR_CONFIG;
}

static int parser_error(yreader *y)
{
    yaml_parser_t *p = &y->parser;
    yaml_mark_t mark = p->problem_mark;
    if (p->error == YAML_READER_ERROR) {
        /* Reader errors carry only a byte offset; count lines ourselves. */
        mark.line = mark.column = 0;
        for (size_t i = 0; i < p->problem_offset && y->text[i]; i++) {
            if (y->text[i] == '\n') {
                mark.line++;
                mark.column = 0;
            } else {
                mark.column++;
            }
        }
    }
    if (p->error == YAML_MEMORY_ERROR)
        return yfail(y, mark, "out of memory");
    return yfail(y, mark, "%s", p->problem ? p->problem : "malformed YAML");
}

static int next_event(yreader *y, yaml_event_t *ev)
{
    if (!yaml_parser_parse(&y->parser, ev))
        return parser_error(y);
    return SM_OK;
}

static bool all_digits(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (*s < '0' || *s > '9')
            return false;
    return true;
}

static bool is_yaml_int(const char *s)
{
    if (*s == '-' || *s == '+')
        s++;
    if (!all_digits(s))
        return false;
    return s[0] != '0' || s[1] == '\0'; /* 0755: octal in YAML 1.1, decimal in 1.2 */
}

static bool is_yaml_float(const char *s)
{
    bool digits = false, dot = false, exp = false;
    if (*s == '-' || *s == '+')
        s++;
    for (; *s >= '0' && *s <= '9'; s++)
        digits = true;
    if (*s == '.') {
        dot = true;
        for (s++; *s >= '0' && *s <= '9'; s++)
            digits = true;
    }
    if (!digits)
        return false;
    if (*s == 'e' || *s == 'E') {
        exp = true;
        s++;
        if (*s == '-' || *s == '+')
            s++;
        if (!all_digits(s))
            return false;
        return true;
    }
    return *s == '\0' && (dot || exp);
}

/* YAML-1.1-core-ish typing of a plain scalar. */
static cJSON *typed_scalar(const char *v)
{
    static const char *const nulls[] = {"", "~", "null", "Null", "NULL"};
    static const char *const trues[] = {"true", "True", "TRUE"};
    static const char *const falses[] = {"false", "False", "FALSE"};
    for (size_t i = 0; i < SM_ARRAY_LEN(nulls); i++)
        if (!strcmp(v, nulls[i]))
            return cJSON_CreateNull();
    for (size_t i = 0; i < SM_ARRAY_LEN(trues); i++)
        if (!strcmp(v, trues[i]))
            return cJSON_CreateTrue();
    for (size_t i = 0; i < SM_ARRAY_LEN(falses); i++)
        if (!strcmp(v, falses[i]))
            return cJSON_CreateFalse();
    if (is_yaml_int(v)) {
        double d = strtod(v, NULL);
        if (fabs(d) <= 9007199254740992.0) /* beyond 2^53 a double would change the value */
            return cJSON_CreateNumber(d);
    } else if (is_yaml_float(v)) {
        double d;
        if (sm_parse_double(v, &d) == 0)
            return cJSON_CreateNumber(d);
    }
    return cJSON_CreateString(v);
}

#define TAG_PREFIX "tag:yaml.org,2002:"

/* Decides how a scalar is read from its tag: 1 = string, 0 = typed by content, -1 = error. */
static int tag_mode(yreader *y, const yaml_event_t *ev, bool plain)
{
    const char *tag = (const char *)ev->data.scalar.tag;
    if (!tag || !strcmp(tag, "!"))
        return plain ? 0 : 1;
    if (!strcmp(tag, TAG_PREFIX "str"))
        return 1;
    static const char *const core[] = {TAG_PREFIX "null", TAG_PREFIX "bool", TAG_PREFIX "int",
                                       TAG_PREFIX "float"};
    for (size_t i = 0; i < SM_ARRAY_LEN(core); i++)
        if (!strcmp(tag, core[i]))
            return 0;
    yfail(y, ev->start_mark, "unsupported YAML tag '%s'", tag);
    return -1;
}

static cJSON *scalar_value(yreader *y, const yaml_event_t *ev)
{
    const char *v = (const char *)ev->data.scalar.value;
    bool plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
    int mode = tag_mode(y, ev, plain);
    if (mode < 0)
        return NULL;
    if (!y->lazy && strstr(v, "${")) {
        int is_null = 0, changed = 0;
        char *s = interp(v, &is_null, &changed, y->err, 0, false);
        if (!s) {
            sm_error_prefix(y->err, "%s:%zu:%zu", y->origin, ev->start_mark.line + 1,
                            ev->start_mark.column + 1);
            if (y->err)
                y->err->code = SM_ERR_CONFIG;
            return NULL;
        }
        if (changed) {
            cJSON *j = is_null ? cJSON_CreateNull() : cJSON_CreateString(s);
            free(s);
            return j;
        }
        free(s);
    }
    return mode == 1 ? cJSON_CreateString(v) : typed_scalar(v);
}

static void remember_anchor(yreader *y, const yaml_char_t *name, const cJSON *node, size_t n)
{
    if (!name)
        return;
    y->anchors = xrealloc(y->anchors, (y->nanchors + 1) * sizeof *y->anchors);
    y->anchors[y->nanchors].name = xstrdup((const char *)name);
    y->anchors[y->nanchors].node = cJSON_Duplicate(node, 1);
    y->anchors[y->nanchors].nodes = n;
    y->nanchors++;
}

static int count_node(yreader *y, yaml_mark_t mark, size_t n)
{
    y->nodes += n;
    if (y->nodes > MAX_NODES)
        return yfail(y, mark, "document too large (more than %d nodes after alias expansion)",
                     MAX_NODES);
    return SM_OK;
}

static cJSON *parse_node(yreader *y, yaml_event_t *ev, size_t *count, int depth, const char *path);

/* Adds the keys of src (a mapping) that obj does not hold yet: YAML merge-key semantics. */
static void merge_under(cJSON *obj, cJSON *src)
{
    cJSON *it = src->child;
    while (it) {
        cJSON *next = it->next;
        if (!cJSON_GetObjectItemCaseSensitive(obj, it->string)) {
            cJSON *item = cJSON_DetachItemViaPointer(src, it);
            cJSON_AddItemToObject(obj, item->string, item);
        }
        it = next;
    }
}

static cJSON *parse_mapping(yreader *y, size_t *count, int depth, const char *path)
{
    cJSON *obj = cJSON_CreateObject();
    cJSON *merges = cJSON_CreateArray(); /* mappings named by `<<`, applied at the end */
    yaml_event_t ev;
    for (;;) {
        if (next_event(y, &ev) != SM_OK)
            goto fail;
        if (ev.type == YAML_MAPPING_END_EVENT) {
            yaml_event_delete(&ev);
            break;
        }
        if (ev.type != YAML_SCALAR_EVENT) {
            yfail(y, ev.start_mark, "mapping keys must be strings");
            yaml_event_delete(&ev);
            goto fail;
        }
        yaml_mark_t key_mark = ev.start_mark;
        const char *kv = (const char *)ev.data.scalar.value;
        bool plain = ev.data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
        int mode = tag_mode(y, &ev, plain);
        if (mode < 0) {
            yaml_event_delete(&ev);
            goto fail;
        }
        bool is_merge = plain && !ev.data.scalar.tag && !strcmp(kv, "<<");
        if (mode == 0 && !is_merge) {
            cJSON *typed = typed_scalar(kv);
            bool ok = cJSON_IsString(typed);
            cJSON_Delete(typed);
            if (!ok) {
                yfail(y, key_mark, "mapping key '%s' must be a string (quote it)", kv);
                yaml_event_delete(&ev);
                goto fail;
            }
        }
        char *key = xstrdup(kv);
        yaml_event_delete(&ev);

        if (!is_merge && cJSON_GetObjectItemCaseSensitive(obj, key)) {
            yfail(y, key_mark, "duplicate key '%s'", key);
            free(key);
            goto fail;
        }
        if (next_event(y, &ev) != SM_OK) {
            free(key);
            goto fail;
        }
        yaml_mark_t val_mark = ev.start_mark;
        size_t n = 0;
        char *cp = y->lazy ? child_path(path, key, -1) : NULL;
        if (cp && !is_merge)
            record_pos(y, cp, key_mark);
        cJSON *val = parse_node(y, &ev, &n, depth + 1, cp ? cp : "");
        free(cp);
        if (!val) {
            free(key);
            goto fail;
        }
        *count += n;
        if (is_merge) {
            bool ok = cJSON_IsObject(val);
            if (cJSON_IsArray(val)) {
                ok = true;
                for (cJSON *m = val->child; m; m = m->next)
                    ok = ok && cJSON_IsObject(m);
            }
            if (!ok) {
                yfail(y, val_mark, "the value of '<<' must be a mapping or a list of mappings");
                cJSON_Delete(val);
                free(key);
                goto fail;
            }
            cJSON_AddItemToArray(merges, val);
        } else {
            cJSON_AddItemToObject(obj, key, val);
        }
        free(key);
    }
    /* Explicit keys win over merged ones; earlier merge sources win over later ones. */
    for (cJSON *m = merges->child; m; m = m->next) {
        if (cJSON_IsArray(m)) {
            for (cJSON *s = m->child; s; s = s->next)
                merge_under(obj, s);
        } else {
            merge_under(obj, m);
        }
    }
    cJSON_Delete(merges);
    return obj;
fail:
    cJSON_Delete(merges);
    cJSON_Delete(obj);
    return NULL;
}

static cJSON *parse_sequence(yreader *y, size_t *count, int depth, const char *path)
{
    cJSON *arr = cJSON_CreateArray();
    yaml_event_t ev;
    for (long i = 0;; i++) {
        if (next_event(y, &ev) != SM_OK)
            goto fail;
        if (ev.type == YAML_SEQUENCE_END_EVENT) {
            yaml_event_delete(&ev);
            return arr;
        }
        size_t n = 0;
        char *cp = y->lazy ? child_path(path, NULL, i) : NULL;
        if (cp)
            record_pos(y, cp, ev.start_mark);
        cJSON *item = parse_node(y, &ev, &n, depth + 1, cp ? cp : "");
        free(cp);
        if (!item)
            goto fail;
        *count += n;
        cJSON_AddItemToArray(arr, item);
    }
fail:
    cJSON_Delete(arr);
    return NULL;
}

/* Builds the node that starts with *ev (consumed). *count receives its node count. */
static cJSON *parse_node(yreader *y, yaml_event_t *ev, size_t *count, int depth, const char *path)
{
    cJSON *node = NULL;
    const yaml_char_t *anchor_name = NULL;
    yaml_mark_t mark = ev->start_mark;
    *count = 1;
    if (depth > MAX_DEPTH) {
        yfail(y, mark, "nesting deeper than %d levels", MAX_DEPTH);
        yaml_event_delete(ev);
        return NULL;
    }
    switch (ev->type) {
    case YAML_SCALAR_EVENT:
        node = scalar_value(y, ev);
        anchor_name = ev->data.scalar.anchor;
        break;
    case YAML_SEQUENCE_START_EVENT:
        node = parse_sequence(y, count, depth, path);
        anchor_name = ev->data.sequence_start.anchor;
        break;
    case YAML_MAPPING_START_EVENT:
        node = parse_mapping(y, count, depth, path);
        anchor_name = ev->data.mapping_start.anchor;
        break;
    case YAML_ALIAS_EVENT: {
        const char *name = (const char *)ev->data.alias.anchor;
        for (size_t i = y->nanchors; i-- > 0;) {
            if (!strcmp(y->anchors[i].name, name)) {
                *count = y->anchors[i].nodes;
                if (count_node(y, mark, *count) != SM_OK)
                    break;
                node = cJSON_Duplicate(y->anchors[i].node, 1);
                break;
            }
        }
        if (!node && y->nodes <= MAX_NODES)
            yfail(y, mark, "alias '*%s' names no anchor defined before it", name);
        yaml_event_delete(ev);
        return node;
    }
    default: yfail(y, mark, "unexpected YAML event"); break;
    }
    if (node && ev->type == YAML_SCALAR_EVENT && count_node(y, mark, 1) != SM_OK) {
        cJSON_Delete(node);
        node = NULL;
    }
    if (node)
        remember_anchor(y, anchor_name, node, *count);
    yaml_event_delete(ev);
    return node;
}

/* Parses a YAML document. lazy: no interpolation, and the positions of keys and items are
 * handed over in *pos (caller frees with pos_free). */
static cJSON *yaml_read(const char *text, size_t len, const char *origin, bool lazy,
                        sm_config_pos **pos, size_t *npos, sm_error *err)
{
    yreader y = {
        .text = text ? text : "", .origin = origin ? origin : "config", .err = err, .lazy = lazy};
    cJSON *root = NULL;
    bool have_doc = false, failed = false;
    yaml_event_t ev;
    if (!yaml_parser_initialize(&y.parser)) {
        sm_error_set(err, SM_ERR_CONFIG, SM_FAIL_INVALID_REQUEST, "%s: out of memory", y.origin);
        return NULL;
    }
    yaml_parser_set_input_string(&y.parser, (const unsigned char *)y.text, text ? len : 0);
    for (;;) {
        if (next_event(&y, &ev) != SM_OK)
            goto fail;
        yaml_event_type_t type = ev.type;
        if (type == YAML_STREAM_END_EVENT) {
            yaml_event_delete(&ev);
            break;
        }
        if (type == YAML_DOCUMENT_START_EVENT && have_doc) {
            yfail(&y, ev.start_mark, "only one YAML document per file is supported");
            yaml_event_delete(&ev);
            goto fail;
        }
        if (type == YAML_SCALAR_EVENT || type == YAML_SEQUENCE_START_EVENT ||
            type == YAML_MAPPING_START_EVENT || type == YAML_ALIAS_EVENT) {
            size_t n = 0;
            root = parse_node(&y, &ev, &n, 0, "");
            if (!root)
                goto fail;
            continue;
        }
        if (type == YAML_DOCUMENT_START_EVENT)
            have_doc = true;
        yaml_event_delete(&ev);
    }
    goto done;
fail:
    failed = true;
    cJSON_Delete(root);
    root = NULL;
done:
    for (size_t i = 0; i < y.nanchors; i++) {
        free(y.anchors[i].name);
        cJSON_Delete(y.anchors[i].node);
    }
    free(y.anchors);
    yaml_parser_delete(&y.parser);
    if (pos && !failed) {
        *pos = y.pos;
        *npos = y.npos;
    } else {
        for (size_t i = 0; i < y.npos; i++)
            free(y.pos[i].path);
        free(y.pos);
    }
    if (failed)
        return NULL;
    return root ? root : cJSON_CreateNull(); /* empty stream or comments only */
}

cJSON *sm_yaml_parse(const char *text, size_t len, const char *origin, sm_error *err)
{
    return yaml_read(text, len, origin, false, NULL, NULL, err);
}

/* ---------------------------------------------------------------- config structure */

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

static bool known_provider(const char *name)
{
    return in_list(nemo_providers, name) || sm_provider_lookup(name);
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
        char *cp =
            cJSON_IsArray(node) ? child_path(path, NULL, i) : child_path(path, c->string, -1);
        int rc = SM_OK;
        if (cJSON_IsString(c) && strstr(c->valuestring, "${")) {
            int is_null = 0, changed = 0;
            char *v = interp(c->valuestring, &is_null, &changed, err, 0, true);
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
        } else if ((cJSON_IsObject(c) || cJSON_IsArray(c)) && depth < MAX_DEPTH) {
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
        char *cp = child_path(path, c->string, -1);
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
    cJSON *root = yaml_read(yaml, yaml ? strlen(yaml) : 0, origin, true, &L.pos, &L.npos, e);
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

/* ---------------------------------------------------------------- resolution */

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
            if (in_list(nemo_providers, src->provider))
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
