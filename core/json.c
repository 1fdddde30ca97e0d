/* cJSON glue: typed getters and unknown-key checks. */
#include "core/json.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"
#include "core/util.h"

static const cJSON *item(const cJSON *obj, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    return (v && !cJSON_IsNull(v)) ? v : NULL;
}

int sm_json_get_number(const cJSON *obj, const char *key, double *out, const char *what,
                       sm_error *err)
{
    const cJSON *v = item(obj, key);
    if (!v)
        return SM_OK;
    if (cJSON_IsNumber(v)) {
        *out = v->valuedouble;
        return SM_OK;
    }
    if (cJSON_IsString(v) && sm_parse_double(v->valuestring, out) == 0)
        return SM_OK;
    return sm_error_set(err, SM_ERR_INVALID, SM_FAIL_INVALID_REQUEST, "%s.%s must be a number",
                        what, key);
}

int sm_json_get_long(const cJSON *obj, const char *key, long *out, const char *what, sm_error *err)
{
    double d;
    const cJSON *v = item(obj, key);
    if (!v)
        return SM_OK;
    if (cJSON_IsBool(v) || sm_json_get_number(obj, key, &d, what, NULL) != SM_OK || d != floor(d) ||
        fabs(d) > 9e15)
        return sm_error_set(err, SM_ERR_INVALID, SM_FAIL_INVALID_REQUEST,
                            "%s.%s must be an integer", what, key);
    *out = (long)d;
    return SM_OK;
}

int sm_json_get_bool(const cJSON *obj, const char *key, bool *out, const char *what, sm_error *err)
{
    const cJSON *v = item(obj, key);
    if (!v)
        return SM_OK;
    if (cJSON_IsBool(v)) {
        *out = cJSON_IsTrue(v);
        return SM_OK;
    }
    if (cJSON_IsString(v)) {
        if (!strcasecmp(v->valuestring, "true") || !strcmp(v->valuestring, "1")) {
            *out = true;
            return SM_OK;
        }
        if (!strcasecmp(v->valuestring, "false") || !strcmp(v->valuestring, "0")) {
            *out = false;
            return SM_OK;
        }
    }
    return sm_error_set(err, SM_ERR_INVALID, SM_FAIL_INVALID_REQUEST, "%s.%s must be true or false",
                        what, key);
}

int sm_json_get_string(const cJSON *obj, const char *key, char **out, const char *what,
                       sm_error *err)
{
    const cJSON *v = item(obj, key);
    if (!v)
        return SM_OK;
    if (!cJSON_IsString(v))
        return sm_error_set(err, SM_ERR_INVALID, SM_FAIL_INVALID_REQUEST, "%s.%s must be a string",
                            what, key);
    free(*out);
    *out = xstrdup(v->valuestring);
    return SM_OK;
}

int sm_json_get_object(const cJSON *obj, const char *key, const cJSON **out, const char *what,
                       sm_error *err)
{
    const cJSON *v = item(obj, key);
    *out = NULL;
    if (!v)
        return SM_OK;
    if (!cJSON_IsObject(v))
        return sm_error_set(err, SM_ERR_INVALID, SM_FAIL_INVALID_REQUEST, "%s.%s must be a mapping",
                            what, key);
    *out = v;
    return SM_OK;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int sm_json_check_keys(const cJSON *obj, const char *const *allowed, const char *what,
                       sm_error *err)
{
    const cJSON *it;
    if (!obj)
        return SM_OK;
    cJSON_ArrayForEach(it, obj)
    {
        bool ok = false;
        for (size_t i = 0; allowed[i]; i++)
            if (!strcmp(allowed[i], it->string))
                ok = true;
        if (ok)
            continue;
        size_t n = 0;
        while (allowed[n])
            n++;
        const char **sorted = xcalloc(n + 1, sizeof *sorted);
        memcpy(sorted, allowed, n * sizeof *sorted);
        qsort(sorted, n, sizeof *sorted, cmp_str);
        sm_strbuf b = {0};
        for (size_t i = 0; i < n; i++)
            sm_strbuf_printf(&b, "%s%s", i ? ", " : "", sorted[i]);
        sm_error_set(err, SM_ERR_INVALID, SM_FAIL_INVALID_REQUEST,
                     "unknown key '%s' in %s (allowed: %s)", it->string, what, n ? b.data : "none");
        sm_strbuf_free(&b);
        free(sorted);
        return SM_ERR_INVALID;
    }
    return SM_OK;
}

char *sm_json_print(const cJSON *j)
{
    char *s = cJSON_PrintUnformatted(j);
    return s ? s : xstrdup("null");
}

const char *sm_json_str(const cJSON *obj, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

double sm_json_num(const cJSON *obj, const char *key, double dflt)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    return cJSON_IsNumber(v) ? v->valuedouble : dflt;
}
