/* The provider registry, provider assembly from a config context (the one place it happens),
 * the front ends' accessors, handles and sandbox info. */
#include "core/provider_impl.h"

#include <cjson/cJSON.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/json.h"
#include "core/strbuf.h"
#include "core/util.h"

#define MAX_PROVIDERS 32

static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static const sm_provider_ops *registry[MAX_PROVIDERS];
static size_t nregistry;

static const char *const status_names[] = {"starting", "running", "stopped", "error", "unknown"};

const char *sm_status_name(sm_status s)
{
    if ((int)s < 0 || s > SM_STATUS_UNKNOWN)
        return "unknown";
    return status_names[s];
}

void sm_caps_names(unsigned caps, char *buf, size_t len)
{
    static const char *names[] = {"pty",   "pty_attach", "endpoint", "list",
                                  "stats", "connect",    "pause"};
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < SM_ARRAY_LEN(names); i++) {
        if (!(caps & (1u << i)))
            continue;
        int n = snprintf(buf + used, len - used, "%s%s", used ? "," : "", names[i]);
        if (n < 0 || (size_t)n >= len - used)
            break;
        used += (size_t)n;
    }
}

int sm_provider_register(const sm_provider_ops *ops, sm_error *err)
{
    if (!ops || !ops->name || !*ops->name)
        return sm_error_set(err, SM_ERR_INVALID, SM_FAIL_INVALID_REQUEST,
                            "provider name must not be empty");
    pthread_mutex_lock(&reg_lock);
    for (size_t i = 0; i < nregistry; i++) {
        if (!strcmp(registry[i]->name, ops->name)) {
            pthread_mutex_unlock(&reg_lock);
            return sm_error_set(err, SM_ERR_EXISTS, SM_FAIL_INVALID_REQUEST,
                                "provider '%s' is already registered", ops->name);
        }
    }
    if (nregistry == MAX_PROVIDERS) {
        pthread_mutex_unlock(&reg_lock);
        return sm_error_set(err, SM_ERR_INVALID, SM_FAIL_INVALID_REQUEST,
                            "too many providers (at most %d)", MAX_PROVIDERS);
    }
    registry[nregistry++] = ops;
    pthread_mutex_unlock(&reg_lock);
    return SM_OK;
}

const sm_provider_ops *sm_provider_lookup(const char *name)
{
    const sm_provider_ops *found = NULL;
    pthread_mutex_lock(&reg_lock);
    for (size_t i = 0; i < nregistry && name; i++)
        if (!strcmp(registry[i]->name, name))
            found = registry[i];
    pthread_mutex_unlock(&reg_lock);
    return found;
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

size_t sm_provider_names(const char **names, size_t max)
{
    pthread_mutex_lock(&reg_lock);
    size_t n = nregistry < max ? nregistry : max;
    for (size_t i = 0; i < n; i++)
        names[i] = registry[i]->name;
    pthread_mutex_unlock(&reg_lock);
    qsort(names, n, sizeof *names, cmp_name);
    return n;
}

void sm_provider_registry_reset(void)
{
    pthread_mutex_lock(&reg_lock);
    nregistry = 0;
    pthread_mutex_unlock(&reg_lock);
}

int sm_provider_new(const char *name, const cJSON *config, sm_provider **out, sm_error *err)
{
    const sm_provider_ops *ops = sm_provider_lookup(name);
    *out = NULL;
    if (!ops) {
        const char *names[MAX_PROVIDERS];
        size_t n = sm_provider_names(names, MAX_PROVIDERS);
        sm_strbuf b = {0};
        for (size_t i = 0; i < n; i++)
            sm_strbuf_printf(&b, "%s%s", i ? ", " : "", names[i]);
        sm_error_set(err, SM_ERR_CONFIG, SM_FAIL_INVALID_REQUEST,
                     "unknown provider '%s' (registered: %s)", name ? name : "",
                     n ? b.data : "none");
        sm_strbuf_free(&b);
        return SM_ERR_CONFIG;
    }
    if (config && !cJSON_IsNull(config) && !cJSON_IsObject(config))
        return sm_error_set(err, SM_ERR_CONFIG, SM_FAIL_INVALID_REQUEST,
                            "%s config must be a mapping", name);
    if (config && ops->config_keys) {
        char what[64];
        snprintf(what, sizeof what, "%s config", name);
        if (sm_json_check_keys(config, ops->config_keys, what, err) != SM_OK) {
            if (err)
                err->code = SM_ERR_CONFIG;
            return SM_ERR_CONFIG;
        }
    }
    sm_provider *p = xcalloc(1, sizeof *p);
    p->ops = ops;
    p->context = xstrdup(name);
    int rc = ops->init(p, (config && cJSON_IsObject(config)) ? config : NULL, err);
    if (rc != SM_OK) {
        sm_map_free(&p->default_metadata);
        free(p->context);
        free(p);
        return rc;
    }
    *out = p;
    return SM_OK;
}

int sm_provider_open(const sm_config *config, const char *context, sm_provider **out, sm_error *err)
{
    *out = NULL;
    sm_context ctx;
    int rc = sm_config_resolve(config, context, &ctx, err);
    if (rc != SM_OK)
        return rc;
    sm_provider *p = NULL;
    rc = sm_provider_new(ctx.provider, ctx.options, &p, err);
    if (rc == SM_ERR_CONFIG || rc == SM_ERR_INVALID)
        sm_context_explain(&ctx, err); /* file, line and block of the option */
    if (rc == SM_OK) {
        free(p->context);
        p->context = xstrdup(ctx.name);
        sm_map_copy(&p->default_metadata, &ctx.default_metadata);
        sm_map_copy(&p->image_rewrites, &ctx.image_rewrites);
        *out = p;
    }
    sm_context_free(&ctx);
    return rc;
}

int sm_provider_about(const char *name, const char **summary, unsigned *caps)
{
    const sm_provider_ops *ops = sm_provider_lookup(name);
    if (!ops)
        return -1;
    *summary = ops->summary ? ops->summary : "";
    *caps = ops->caps;
    return 0;
}

char *sm_provider_describe_default(const char *name)
{
    const sm_provider_ops *ops = sm_provider_lookup(name);
    sm_provider *p = NULL;
    if (!ops || !ops->describe || sm_provider_new(name, NULL, &p, NULL) != SM_OK)
        return NULL;
    char *note = sm_provider_describe(p);
    sm_provider_free(p);
    return note;
}

const char *sm_provider_name(const sm_provider *p)
{
    return p->ops->name;
}

const char *sm_provider_context(const sm_provider *p)
{
    return p->context;
}

unsigned sm_provider_caps(const sm_provider *p)
{
    return p->ops->caps;
}

int sm_provider_list(sm_provider *p, const sm_list_filter *f, sm_sandbox_info **out, size_t *n,
                     sm_error *err)
{
    *out = NULL;
    *n = 0;
    if (!(p->ops->caps & SM_CAP_LIST) || !p->ops->list)
        return sm_error_set(err, SM_ERR_UNSUPPORTED, SM_FAIL_INVALID_REQUEST,
                            "provider '%s' cannot list its sandboxes", p->ops->name);
    return p->ops->list(p, f, out, n, err);
}

char *sm_provider_describe(sm_provider *p)
{
    return p->ops->describe ? p->ops->describe(p) : NULL;
}

void sm_provider_free(sm_provider *p)
{
    if (!p)
        return;
    if (p->ops->destroy)
        p->ops->destroy(p);
    sm_map_free(&p->default_metadata);
    sm_map_free(&p->image_rewrites);
    free(p->context);
    free(p);
}

sm_handle *sm_handle_new(const char *id, const char *provider)
{
    sm_handle *h = xcalloc(1, sizeof *h);
    h->id = xstrdup(id);
    h->provider = xstrdup(provider);
    return h;
}

void sm_handle_free(sm_provider *p, sm_handle *h)
{
    if (!h)
        return;
    if (p && p->ops->handle_free)
        p->ops->handle_free(p, h);
    free(h->id);
    free(h->provider);
    free(h->warning);
    free(h);
}

void sm_sandbox_info_init(sm_sandbox_info *i)
{
    memset(i, 0, sizeof *i);
    i->status = SM_STATUS_UNKNOWN;
    i->created_at = -1;
    i->ready_at = -1;
    i->ended_at = -1;
    i->ttl_s = -1;
    sm_failure_init(&i->failure);
}

void sm_sandbox_info_free(sm_sandbox_info *i)
{
    free(i->id);
    free(i->provider);
    free(i->image);
    free(i->workdir);
    free(i->detail);
    free(i->ports);
    sm_map_free(&i->labels);
    sm_map_free(&i->env_names);
    sm_resources_free(&i->resources);
    cJSON_Delete(i->extra);
    sm_sandbox_info_init(i);
}

static int cmp_created(const void *a, const void *b)
{
    const sm_sandbox_info *x = a, *y = b;
    return (x->created_at > y->created_at) - (x->created_at < y->created_at);
}

void sm_sandbox_info_sort(sm_sandbox_info *list, size_t n)
{
    if (n > 1)
        qsort(list, n, sizeof *list, cmp_created);
}

void sm_sandbox_info_list_free(sm_sandbox_info *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        sm_sandbox_info_free(&list[i]);
    free(list);
}

static void add_time(cJSON *o, const char *key, double t)
{
    if (t < 0) {
        cJSON_AddNullToObject(o, key);
        return;
    }
    char buf[40];
    sm_format_time(t, buf, sizeof buf);
    cJSON_AddStringToObject(o, key, buf);
}

cJSON *sm_sandbox_info_to_json(const sm_sandbox_info *i)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "id", i->id ? i->id : "");
    cJSON_AddStringToObject(o, "provider", i->provider ? i->provider : "");
    cJSON_AddStringToObject(o, "status", sm_status_name(i->status));
    if (i->image)
        cJSON_AddStringToObject(o, "image", i->image);
    else
        cJSON_AddNullToObject(o, "image");
    add_time(o, "created_at", i->created_at);
    add_time(o, "ready_at", i->ready_at);
    add_time(o, "ended_at", i->ended_at);
    if (i->ttl_s >= 0)
        cJSON_AddNumberToObject(o, "ttl_s", i->ttl_s);
    else
        cJSON_AddNullToObject(o, "ttl_s");
    if (i->workdir)
        cJSON_AddStringToObject(o, "workdir", i->workdir);
    cJSON_AddItemToObject(o, "labels", sm_map_to_json(&i->labels));
    cJSON *names = cJSON_AddArrayToObject(o, "env_names");
    for (size_t k = 0; k < i->env_names.n; k++)
        cJSON_AddItemToArray(names, cJSON_CreateString(i->env_names.items[k].key));
    cJSON_AddItemToObject(o, "resources", sm_resources_to_json(&i->resources));
    cJSON *ports = cJSON_AddArrayToObject(o, "ports");
    for (size_t k = 0; k < i->nports; k++)
        cJSON_AddItemToArray(ports, cJSON_CreateNumber(i->ports[k]));
    if (i->failure.kind != SM_FAIL_NONE)
        cJSON_AddItemToObject(o, "failure", sm_failure_to_json(&i->failure));
    else
        cJSON_AddNullToObject(o, "failure");
    if (i->detail)
        cJSON_AddStringToObject(o, "detail", i->detail);
    if (i->extra)
        cJSON_AddItemToObject(o, "provider_info", cJSON_Duplicate(i->extra, 1));
    return o;
}

double sm_sandbox_info_ttl_left(const sm_sandbox_info *i, double now)
{
    if (i->ttl_s < 0 || i->created_at < 0)
        return -1;
    if (i->status == SM_STATUS_STOPPED || i->status == SM_STATUS_ERROR)
        return 0;
    double left = i->created_at + i->ttl_s - now;
    return left > 0 ? left : 0;
}

int sm_provider_resolve_id(sm_provider *p, const char *prefix, char **full, sm_error *err)
{
    *full = NULL;
    if (!prefix || !*prefix)
        return sm_error_set(err, SM_ERR_INVALID, SM_FAIL_INVALID_REQUEST,
                            "sandbox id must not be empty");
    if (!(p->ops->caps & SM_CAP_LIST) || !p->ops->list) {
        *full = xstrdup(prefix); /* cannot enumerate: take the id as given */
        return SM_OK;
    }
    sm_list_filter f = {.labels = NULL, .all = true};
    sm_sandbox_info *list = NULL;
    size_t n = 0;
    int rc = p->ops->list(p, &f, &list, &n, err);
    if (rc != SM_OK)
        return rc;
    size_t matches = 0, pick = 0;
    for (size_t i = 0; i < n; i++) {
        /* an exact id always wins, as does an engine's container name (nemo-gym-<hex>) */
        const char *name = list[i].extra ? sm_json_str(list[i].extra, "name") : NULL;
        if (!strcmp(list[i].id, prefix) || (name && !strcmp(name, prefix))) {
            matches = 1;
            pick = i;
            break;
        }
        if (sm_str_has_prefix(list[i].id, prefix)) {
            matches++;
            pick = i;
        }
    }
    if (matches == 1) {
        *full = xstrdup(list[pick].id);
    } else if (matches == 0) {
        sm_error_set(err, SM_ERR_NOT_FOUND, SM_FAIL_NOT_FOUND,
                     "no sandbox matches '%s' in context '%s'", prefix, p->context);
        err->failure.kind = SM_FAIL_NOT_FOUND;
        rc = SM_ERR_NOT_FOUND;
    } else {
        sm_strbuf b = {0};
        size_t shown = 0;
        for (size_t i = 0; i < n; i++) {
            if (!sm_str_has_prefix(list[i].id, prefix))
                continue;
            if (shown++ < 5)
                sm_strbuf_printf(&b, "%s%s", shown > 1 ? ", " : "", list[i].id);
        }
        if (shown > 5)
            sm_strbuf_printf(&b, ", ...");
        sm_error_set(err, SM_ERR_AMBIGUOUS, SM_FAIL_INVALID_REQUEST,
                     "id prefix '%s' matches %zu sandboxes (%s); give more characters", prefix,
                     matches, b.data);
        sm_strbuf_free(&b);
        rc = SM_ERR_AMBIGUOUS;
    }
    sm_sandbox_info_list_free(list, n);
    return rc;
}
