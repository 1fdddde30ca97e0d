/* The local provider's launch file: escaped key=value lines (libc only). */
#include "providers/local/launch.h"

#include <stdlib.h>
#include <string.h>

static char *unescape(const char *s)
{
    char *out = malloc(strlen(s) + 1), *o = out;
    if (!out)
        return NULL;
    for (; *s; s++) {
        if (*s == '\\' && s[1] == 'n') {
            *o++ = '\n';
            s++;
        } else if (*s == '\\' && s[1] == '\\') {
            *o++ = '\\';
            s++;
        } else {
            *o++ = *s;
        }
    }
    *o = '\0';
    return out;
}

int launch_read(const char *path, struct launch *l)
{
    memset(l, 0, sizeof *l);
    FILE *f = fopen(path, "re");
    if (!f)
        return -1;
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    size_t lcap = 0;
    while ((n = getline(&line, &cap, f)) > 0) {
        if (line[n - 1] == '\n')
            line[--n] = '\0';
        char *eq = strchr(line, '=');
        if (!eq)
            continue;
        *eq = '\0';
        if (l->n == lcap) {
            lcap = lcap ? lcap * 2 : 32;
            struct launch_kv *nkv = realloc(l->kv, lcap * sizeof *nkv);
            if (!nkv)
                break;
            l->kv = nkv;
        }
        l->kv[l->n].key = strdup(line);
        l->kv[l->n].value = unescape(eq + 1);
        if (!l->kv[l->n].key || !l->kv[l->n].value)
            break;
        l->n++;
    }
    free(line);
    fclose(f);
    return 0;
}

void launch_free(struct launch *l)
{
    for (size_t i = 0; i < l->n; i++) {
        free(l->kv[i].key);
        free(l->kv[i].value);
    }
    free(l->kv);
    memset(l, 0, sizeof *l);
}

const char *launch_get(const struct launch *l, const char *key, const char *dflt)
{
    for (size_t i = 0; i < l->n; i++)
        if (!strcmp(l->kv[i].key, key))
            return l->kv[i].value;
    return dflt;
}

long long launch_get_ll(const struct launch *l, const char *key, long long dflt)
{
    const char *v = launch_get(l, key, NULL);
    if (!v || !*v)
        return dflt;
    char *end;
    long long r = strtoll(v, &end, 10);
    return *end ? dflt : r;
}

size_t launch_get_all(const struct launch *l, const char *key, const char **out, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < l->n && n < max; i++)
        if (!strcmp(l->kv[i].key, key))
            out[n++] = l->kv[i].value;
    return n;
}

void launch_put(FILE *f, const char *key, const char *value)
{
    fprintf(f, "%s=", key);
    for (const char *p = value ? value : ""; *p; p++) {
        if (*p == '\n')
            fputs("\\n", f);
        else if (*p == '\\')
            fputs("\\\\", f);
        else
            fputc(*p, f);
    }
    fputc('\n', f);
}
