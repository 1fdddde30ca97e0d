/* A small YAML -> cJSON reader (libyaml events), for config files and themes: typing,
 * anchors and merge keys, positions of keys for errors that name a line, and bounds against
 * hostile documents. It knows no config block rules (core/config.c).
 *
 * Typing rules (documented choices):
 * - plain scalars: null/Null/NULL/~/empty -> null; true/True/TRUE/false/False/FALSE -> bool;
 *   decimal ints without leading zeros (|n| <= 2^53) -> number; floats with a '.' or an
 *   exponent (1.5, .5, 1e3) -> number; everything else (yes/no, 0755, .inf, 0x1f) -> string.
 * - quoted and block scalars are strings; the !!str tag forces a string.
 * - anchors/aliases are supported by copying the anchored node; `<<` merge keys too.
 * - read eagerly (sm_yaml_parse), values are interpolated (core/config_interp.c); read lazily
 *   (config files), ${...} text is kept for each block to resolve on its own. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "core/config_internal.h"
#include "core/util.h"

#define MAX_NODES 100000 /* bounds alias expansion ("billion laughs") */

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

char *sm_yaml_child_path(const char *path, const char *key, long index)
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
        char *s = sm_config_interp(v, &is_null, &changed, false, y->err);
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
        char *cp = y->lazy ? sm_yaml_child_path(path, key, -1) : NULL;
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
        char *cp = y->lazy ? sm_yaml_child_path(path, NULL, i) : NULL;
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
    if (depth > SM_YAML_MAX_DEPTH) {
        yfail(y, mark, "nesting deeper than %d levels", SM_YAML_MAX_DEPTH);
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

cJSON *sm_yaml_read(const char *text, size_t len, const char *origin, bool lazy,
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
    return sm_yaml_read(text, len, origin, false, NULL, NULL, err);
}
