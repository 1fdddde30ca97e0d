/* sm_map: a small ordered string map. */
#include "core/kv.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

static sm_kv *find(const sm_map *m, const char *key)
{
    for (size_t i = 0; i < m->n; i++)
        if (!strcmp(m->items[i].key, key))
            return &m->items[i];
    return NULL;
}

void sm_map_set(sm_map *m, const char *key, const char *value)
{
    sm_kv *kv = find(m, key);
    if (kv) {
        free(kv->value);
        kv->value = xstrdup(value);
        return;
    }
    if (m->n == m->cap) {
        m->cap = m->cap ? m->cap * 2 : 8;
        m->items = xrealloc(m->items, m->cap * sizeof *m->items);
    }
    m->items[m->n].key = xstrdup(key);
    m->items[m->n].value = xstrdup(value);
    m->n++;
}

const char *sm_map_get(const sm_map *m, const char *key)
{
    sm_kv *kv = find(m, key);
    return kv ? kv->value : NULL;
}

void sm_map_copy(sm_map *dst, const sm_map *src)
{
    sm_map_free(dst);
    for (size_t i = 0; i < src->n; i++)
        sm_map_set(dst, src->items[i].key, src->items[i].value);
}

void sm_map_merge_under(sm_map *dst, const sm_map *src)
{
    for (size_t i = 0; i < src->n; i++)
        if (!find(dst, src->items[i].key))
            sm_map_set(dst, src->items[i].key, src->items[i].value);
}

void sm_map_free(sm_map *m)
{
    for (size_t i = 0; i < m->n; i++) {
        free(m->items[i].key);
        free(m->items[i].value);
    }
    free(m->items);
    m->items = NULL;
    m->n = m->cap = 0;
}

int sm_map_set_kv(sm_map *m, const char *kv)
{
    const char *eq = strchr(kv, '=');
    if (!eq || eq == kv)
        return -1;
    char *key = xstrndup(kv, (size_t)(eq - kv));
    sm_map_set(m, key, eq + 1);
    free(key);
    return 0;
}

cJSON *sm_map_to_json(const sm_map *m)
{
    cJSON *o = cJSON_CreateObject();
    for (size_t i = 0; i < m->n; i++)
        cJSON_AddStringToObject(o, m->items[i].key, m->items[i].value);
    return o;
}

int sm_map_from_json(const cJSON *obj, sm_map *m, char *errbuf, size_t errlen)
{
    if (obj == NULL || cJSON_IsNull(obj))
        return 0;
    if (!cJSON_IsObject(obj)) {
        snprintf(errbuf, errlen, "must be a mapping of strings");
        return -1;
    }
    const cJSON *it;
    cJSON_ArrayForEach(it, obj)
    {
        char num[64];
        if (cJSON_IsString(it)) {
            sm_map_set(m, it->string, it->valuestring);
        } else if (cJSON_IsNumber(it)) {
            double d = it->valuedouble; /* converted only when in range (else undefined) */
            if (d >= -0x1p63 && d < 0x1p63 && d == (double)(long long)d)
                snprintf(num, sizeof num, "%lld", (long long)it->valuedouble);
            else
                snprintf(num, sizeof num, "%.17g", it->valuedouble);
            sm_map_set(m, it->string, num);
        } else if (cJSON_IsBool(it)) {
            sm_map_set(m, it->string, cJSON_IsTrue(it) ? "true" : "false");
        } else if (cJSON_IsNull(it)) {
            sm_map_set(m, it->string, "");
        } else {
            snprintf(errbuf, errlen, "value of '%s' must be a string, not a %s", it->string,
                     cJSON_IsArray(it) ? "list" : "mapping");
            return -1;
        }
    }
    return 0;
}
