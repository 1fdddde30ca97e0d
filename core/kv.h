/* sm_map: a small ordered string map (env, labels, spec files). Keys are unique; set replaces
 * in place so the first insertion order is kept. Linear search: these maps hold tens of items. */
#ifndef SM_KV_H
#define SM_KV_H

#include <stddef.h>

typedef struct cJSON cJSON;

typedef struct sm_kv {
    char *key;
    char *value;
} sm_kv;

typedef struct sm_map {
    sm_kv *items;
    size_t n;
    size_t cap;
} sm_map;

void sm_map_set(sm_map *m, const char *key, const char *value);
const char *sm_map_get(const sm_map *m, const char *key);
void sm_map_copy(sm_map *dst, const sm_map *src); /* dst is cleared first */
/* Adds every src entry whose key is not already in dst (src sits "under" dst). */
void sm_map_merge_under(sm_map *dst, const sm_map *src);
void sm_map_free(sm_map *m);
/* Parses "K=V" (V may be empty, K may not); returns -1 when there is no '=' or K is empty. */
int sm_map_set_kv(sm_map *m, const char *kv);

/* JSON object of strings <-> map. Non-string scalars are stringified; nested values refused. */
cJSON *sm_map_to_json(const sm_map *m);
int sm_map_from_json(const cJSON *obj, sm_map *m, char *errbuf, size_t errlen);

#endif
