/* Registry of secret values and the redaction applied to every message we emit. */
#include "core/redact.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/kv.h"
#include "core/strbuf.h"
#include "core/util.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char **secrets;
static size_t nsecrets;

void sm_redact_register(const char *secret)
{
    if (!secret || strlen(secret) < 4)
        return;
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < nsecrets; i++) {
        if (!strcmp(secrets[i], secret)) {
            pthread_mutex_unlock(&lock);
            return;
        }
    }
    secrets = xrealloc(secrets, (nsecrets + 1) * sizeof *secrets);
    secrets[nsecrets++] = xstrdup(secret);
    pthread_mutex_unlock(&lock);
}

bool sm_redact_key_is_secret(const char *key)
{
    static const char *words[] = {"key",    "token", "secret",    "password",
                                  "passwd", "auth",  "credential"};
    char low[128];
    size_t n = 0;
    for (; key && key[n] && n + 1 < sizeof low; n++)
        low[n] = (char)tolower((unsigned char)key[n]);
    low[n] = '\0';
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (strstr(low, words[i]))
            return true;
    return false;
}

void sm_redact_register_map(const sm_map *m)
{
    for (size_t i = 0; m && i < m->n; i++)
        if (sm_redact_key_is_secret(m->items[i].key))
            sm_redact_register(m->items[i].value);
}

cJSON *sm_redact_map_to_json(const sm_map *m)
{
    cJSON *o = cJSON_CreateObject();
    for (size_t i = 0; m && i < m->n; i++) {
        char *v = sm_redact_dup(m->items[i].value);
        cJSON_AddStringToObject(o, m->items[i].key, v);
        free(v);
    }
    return o;
}

char *sm_redact_dup(const char *src)
{
    sm_strbuf b = {0};
    pthread_mutex_lock(&lock);
    const char *p = src ? src : "";
    while (*p) {
        size_t best = 0;
        for (size_t i = 0; i < nsecrets; i++) {
            size_t l = strlen(secrets[i]);
            if (l > best && strncmp(p, secrets[i], l) == 0)
                best = l;
        }
        if (best) {
            sm_strbuf_puts(&b, "***");
            p += best;
        } else {
            sm_strbuf_append(&b, p, 1);
            p++;
        }
    }
    pthread_mutex_unlock(&lock);
    return sm_strbuf_take(&b);
}

void sm_redact_into(const char *src, char *dst, size_t len)
{
    if (!len)
        return;
    if (nsecrets == 0) { /* fast path: nothing registered */
        size_t n = strlen(src);
        if (n >= len)
            n = len - 1;
        memmove(dst, src, n);
        dst[n] = '\0';
        return;
    }
    char *r = sm_redact_dup(src);
    size_t n = strlen(r);
    if (n >= len)
        n = len - 1;
    memcpy(dst, r, n);
    dst[n] = '\0';
    free(r);
}

void sm_redact_reset(void)
{
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < nsecrets; i++)
        free(secrets[i]);
    free(secrets);
    secrets = NULL;
    nsecrets = 0;
    pthread_mutex_unlock(&lock);
}
