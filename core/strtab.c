/* sm_strtab: string-keyed hash table of owned pointers. */
#include "core/strtab.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

struct sm_strtab_slot {
    char *key;
    void *value;
};

static uint64_t hash_str(const char *s)
{
    uint64_t h = 1469598103934665603ULL; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

void sm_strtab_init(sm_strtab *t, sm_strtab_free_fn free_value, void *ud)
{
    memset(t, 0, sizeof *t);
    t->free_value = free_value;
    t->ud = ud;
}

static void free_slots(sm_strtab *t, struct sm_strtab_slot *slots, size_t cap)
{
    for (size_t i = 0; i < cap; i++) {
        if (!slots[i].key)
            continue;
        if (slots[i].value && t->free_value)
            t->free_value(slots[i].value, t->ud);
        free(slots[i].key);
    }
    free(slots);
}

void sm_strtab_clear(sm_strtab *t)
{
    free_slots(t, t->slots, t->cap);
    t->slots = NULL;
    t->cap = t->count = 0;
}

static struct sm_strtab_slot *find(struct sm_strtab_slot *slots, size_t cap, const char *key)
{
    size_t mask = cap - 1;
    for (size_t i = hash_str(key) & mask;; i = (i + 1) & mask)
        if (!slots[i].key || !strcmp(slots[i].key, key))
            return &slots[i];
}

void *sm_strtab_get(const sm_strtab *t, const char *key)
{
    if (!t->cap)
        return NULL;
    struct sm_strtab_slot *s = find(t->slots, t->cap, key);
    return s->key ? s->value : NULL;
}

static void rehash(sm_strtab *t, size_t cap)
{
    struct sm_strtab_slot *slots = xcalloc(cap, sizeof *slots);
    for (size_t i = 0; i < t->cap; i++)
        if (t->slots[i].key)
            *find(slots, cap, t->slots[i].key) = t->slots[i];
    free(t->slots);
    t->slots = slots;
    t->cap = cap;
}

void sm_strtab_put(sm_strtab *t, const char *key, void *value)
{
    if ((t->count + 1) * 2 > t->cap)
        rehash(t, t->cap ? t->cap * 2 : 64);
    struct sm_strtab_slot *s = find(t->slots, t->cap, key);
    if (s->key) {
        if (s->value && s->value != value && t->free_value)
            t->free_value(s->value, t->ud);
    } else {
        s->key = xstrdup(key);
        t->count++;
    }
    s->value = value;
}

void sm_strtab_retain(sm_strtab *t, const char *const *keys, size_t n)
{
    size_t cap = 64;
    while (cap < n * 2 + 2)
        cap *= 2;
    struct sm_strtab_slot *kept = xcalloc(cap, sizeof *kept);
    size_t count = 0;
    for (size_t i = 0; i < n && t->cap; i++) {
        struct sm_strtab_slot *s = find(t->slots, t->cap, keys[i]);
        if (!s->key || !s->value)
            continue;
        struct sm_strtab_slot *d = find(kept, cap, keys[i]);
        if (d->key)
            continue;
        /* The old slot keeps its key so later probe chains stay intact; the value moves. */
        d->key = xstrdup(keys[i]);
        d->value = s->value;
        s->value = NULL;
        count++;
    }
    free_slots(t, t->slots, t->cap);
    t->slots = kept;
    t->cap = cap;
    t->count = count;
}
