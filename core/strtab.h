/* sm_strtab: a string-keyed hash table of owned pointers (open addressing), for per-sandbox
 * state kept across ticks (histories, cached handles, event summaries). Single-threaded. */
#ifndef SM_STRTAB_H
#define SM_STRTAB_H

#include <stddef.h>

typedef void (*sm_strtab_free_fn)(void *value, void *ud);

typedef struct sm_strtab {
    struct sm_strtab_slot *slots;
    size_t cap;
    size_t count;
    sm_strtab_free_fn free_value;
    void *ud;
} sm_strtab;

void sm_strtab_init(sm_strtab *t, sm_strtab_free_fn free_value, void *ud);
void sm_strtab_clear(sm_strtab *t); /* frees every value; the table stays usable */
void *sm_strtab_get(const sm_strtab *t, const char *key);
/* Stores value under key (freeing a previous value). */
void sm_strtab_put(sm_strtab *t, const char *key, void *value);
/* Keeps only the keys listed; frees the values of the others. */
void sm_strtab_retain(sm_strtab *t, const char *const *keys, size_t n);

#endif
