/* Sandbox model types and the seed's validation rules. */
#include "core/spec.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/json.h"
#include "core/util.h"

void sm_spec_init(sm_spec *s)
{
    memset(s, 0, sizeof *s);
    s->ttl_s = -1;
    s->ready_timeout_s = -1;
}

void sm_resources_free(sm_resources *r)
{
    free(r->gpu_type);
    memset(r, 0, sizeof *r);
}

static void free_strv(char **v)
{
    for (size_t i = 0; v && v[i]; i++)
        free(v[i]);
    free(v);
}

void sm_spec_free(sm_spec *s)
{
    free(s->image);
    free(s->workdir);
    sm_map_free(&s->env);
    sm_map_free(&s->files);
    sm_map_free(&s->metadata);
    sm_resources_free(&s->resources);
    free_strv(s->entrypoint);
    cJSON_Delete(s->provider_options);
    free(s->ports);
    sm_spec_init(s);
}

void sm_spec_copy(sm_spec *dst, const sm_spec *src)
{
    sm_spec_init(dst);
    dst->image = src->image ? xstrdup(src->image) : NULL;
    dst->workdir = src->workdir ? xstrdup(src->workdir) : NULL;
    dst->ttl_s = src->ttl_s;
    dst->ready_timeout_s = src->ready_timeout_s;
    sm_map_copy(&dst->env, &src->env);
    sm_map_copy(&dst->files, &src->files);
    sm_map_copy(&dst->metadata, &src->metadata);
    dst->resources = src->resources;
    dst->resources.gpu_type = src->resources.gpu_type ? xstrdup(src->resources.gpu_type) : NULL;
    if (src->entrypoint) {
        size_t n = 0;
        while (src->entrypoint[n])
            n++;
        dst->entrypoint = xcalloc(n + 1, sizeof(char *));
        for (size_t i = 0; i < n; i++)
            dst->entrypoint[i] = xstrdup(src->entrypoint[i]);
    }
    dst->provider_options =
        src->provider_options ? cJSON_Duplicate(src->provider_options, 1) : NULL;
    if (src->nports) {
        dst->ports = xcalloc(src->nports, sizeof(int));
        memcpy(dst->ports, src->ports, src->nports * sizeof(int));
        dst->nports = src->nports;
    }
}

int sm_port_validate(long port, sm_error *err)
{
    if (port < 1 || port > 65535)
        return sm_error_set(err, SM_ERR_INVALID, SM_FAIL_INVALID_REQUEST,
                            "port %ld is out of range (allowed: 1..65535)", port);
    return SM_OK;
}

int sm_spec_has_port(const sm_spec *s, int port)
{
    for (size_t i = 0; i < s->nports; i++)
        if (s->ports[i] == port)
            return 1;
    return 0;
}

void sm_ports_undeclared_msg(int port, const int *ports, size_t nports, char *buf, size_t len)
{
    char list[256] = "";
    size_t o = 0;
    for (size_t i = 0; i < nports && o + 16 < sizeof list; i++)
        o += (size_t)snprintf(list + o, sizeof list - o, "%s%d", i ? ", " : "", ports[i]);
    if (nports == 0)
        snprintf(buf, len,
                 "port %d was not declared in the sandbox's ports (it declares none; endpoints "
                 "exist only for ports declared when the sandbox is created)",
                 port);
    else
        snprintf(buf, len, "port %d was not declared in the sandbox's ports (declared: %s)", port,
                 list);
}

static int add_port_value(sm_spec *s, long port, sm_error *err)
{
    if (sm_port_validate(port, err) != SM_OK)
        return SM_ERR_INVALID;
    if (sm_spec_has_port(s, (int)port))
        return sm_error_set(err, SM_ERR_INVALID, SM_FAIL_INVALID_REQUEST,
                            "port %ld is listed twice (ports must be unique)", port);
    s->ports = xrealloc(s->ports, (s->nports + 1) * sizeof(int));
    s->ports[s->nports++] = (int)port;
    return SM_OK;
}

int sm_spec_add_port(sm_spec *s, const char *text, sm_error *err)
{
    long port;
    if (sm_parse_long(text, &port) != 0)
        return sm_error_set(err, SM_ERR_INVALID, SM_FAIL_INVALID_REQUEST,
                            "port '%s' is not a number (allowed: 1..65535)", text);
    return add_port_value(s, port, err);
}

static bool is_abs_path(const char *p)
{
    return p && p[0] == '/';
}

int sm_spec_check_path(const char *what, const char *path, sm_error *err)
{
    if (!is_abs_path(path))
        return sm_error_set(err, SM_ERR_INVALID, SM_FAIL_INVALID_REQUEST,
                            "%s '%s' must be an absolute path", what, path ? path : "");
    for (const char *c = path; *c; c++) {
        if (c[0] != '/' || c[1] != '.')
            continue;
        size_t dots = c[2] == '.' ? 2 : 1;
        if (c[1 + dots] == '/' || !c[1 + dots])
            return sm_error_set(err, SM_ERR_INVALID, SM_FAIL_INVALID_REQUEST,
                                "%s '%s' must not contain '%s' components (write the plain "
                                "absolute path)",
                                what, path, dots == 2 ? ".." : ".");
    }
    return SM_OK;
}

int sm_spec_validate(const sm_spec *s, sm_error *err)
{
    if (s->image && !*s->image)
        return sm_error_set(err, SM_ERR_INVALID, SM_FAIL_INVALID_REQUEST,
                            "image must not be empty");
    if (s->ttl_s >= 0 && !(s->ttl_s > 0))
        return sm_error_set(err, SM_ERR_INVALID, SM_FAIL_INVALID_REQUEST,
                            "ttl_s must be a positive number of seconds, not %g", s->ttl_s);
    if (!(s->ttl_s <= SM_MAX_TTL_S)) /* NaN too */
        return sm_error_set(err, SM_ERR_INVALID, SM_FAIL_INVALID_REQUEST,
                            "ttl_s %g is too large (allowed: up to %.0f seconds, 10 years)",
                            s->ttl_s, SM_MAX_TTL_S);
    if (s->ready_timeout_s >= 0 && !(s->ready_timeout_s > 0))
        return sm_error_set(err, SM_ERR_INVALID, SM_FAIL_INVALID_REQUEST,
                            "ready_timeout_s must be a positive number of seconds, not %g",
                            s->ready_timeout_s);
    if (!(s->ready_timeout_s <= SM_MAX_READY_TIMEOUT_S))
        return sm_error_set(err, SM_ERR_INVALID, SM_FAIL_INVALID_REQUEST,
                            "ready_timeout_s %g is too large (allowed: up to %.0f seconds, 1 day)",
                            s->ready_timeout_s, SM_MAX_READY_TIMEOUT_S);
    if (s->workdir && !is_abs_path(s->workdir))
        return sm_error_set(err, SM_ERR_INVALID, SM_FAIL_INVALID_REQUEST,
                            "workdir '%s' must be an absolute path", s->workdir);
    if (s->workdir && sm_spec_check_path("workdir", s->workdir, err) != SM_OK)
        return SM_ERR_INVALID;
    const sm_resources *r = &s->resources;
    if ((r->set & SM_RES_CPU) && !(r->cpu > 0))
        return sm_error_set(err, SM_ERR_INVALID, SM_FAIL_INVALID_REQUEST,
                            "resources.cpu must be > 0 (vCPU, fractions allowed), not %g", r->cpu);
    if ((r->set & SM_RES_CPU) && r->cpu < SM_MIN_CPU)
        return sm_error_set(err, SM_ERR_INVALID, SM_FAIL_INVALID_REQUEST,
                            "resources.cpu %g is too small (allowed: %g to %.0f vCPU; the kernel's "
                            "smallest quota is 1 ms per 100 ms)",
                            r->cpu, SM_MIN_CPU, SM_MAX_CPU);
    if ((r->set & SM_RES_CPU) && r->cpu > SM_MAX_CPU)
        return sm_error_set(err, SM_ERR_INVALID, SM_FAIL_INVALID_REQUEST,
                            "resources.cpu %g is too large (allowed: up to %.0f vCPU)", r->cpu,
                            SM_MAX_CPU);
    if ((r->set & SM_RES_MEMORY) && r->memory_mib <= 0)
        return sm_error_set(err, SM_ERR_INVALID, SM_FAIL_INVALID_REQUEST,
                            "resources.memory_mib must be a positive integer, not %ld",
                            r->memory_mib);
    if ((r->set & SM_RES_MEMORY) && r->memory_mib < SM_MIN_MEMORY_MIB)
        return sm_error_set(err, SM_ERR_INVALID, SM_FAIL_INVALID_REQUEST,
                            "resources.memory_mib %ld is too small (allowed: %ld..%ld MiB; less "
                            "does not hold a shell)",
                            r->memory_mib, SM_MIN_MEMORY_MIB, SM_MAX_MEMORY_MIB);
    if ((r->set & SM_RES_MEMORY) && r->memory_mib > SM_MAX_MEMORY_MIB)
        return sm_error_set(err, SM_ERR_INVALID, SM_FAIL_INVALID_REQUEST,
                            "resources.memory_mib %ld is too large (allowed: %ld..%ld MiB, 16 TiB)",
                            r->memory_mib, SM_MIN_MEMORY_MIB, SM_MAX_MEMORY_MIB);
    if ((r->set & SM_RES_DISK) && r->disk_gib <= 0)
        return sm_error_set(err, SM_ERR_INVALID, SM_FAIL_INVALID_REQUEST,
                            "resources.disk_gib must be a positive integer");
    if ((r->set & SM_RES_DISK) && r->disk_gib > SM_MAX_DISK_GIB)
        return sm_error_set(err, SM_ERR_INVALID, SM_FAIL_INVALID_REQUEST,
                            "resources.disk_gib %ld is too large (allowed: 1..%ld GiB, 1 PiB)",
                            r->disk_gib, SM_MAX_DISK_GIB);
    if ((r->set & SM_RES_GPU) && r->gpu < 0)
        return sm_error_set(err, SM_ERR_INVALID, SM_FAIL_INVALID_REQUEST,
                            "resources.gpu must not be negative");
    if ((r->set & SM_RES_GPU) && r->gpu > SM_MAX_GPU)
        return sm_error_set(err, SM_ERR_INVALID, SM_FAIL_INVALID_REQUEST,
                            "resources.gpu %ld is too large (allowed: 0..%ld)", r->gpu, SM_MAX_GPU);
    for (size_t i = 0; i < s->files.n; i++) {
        if (!is_abs_path(s->files.items[i].key))
            return sm_error_set(err, SM_ERR_INVALID, SM_FAIL_INVALID_REQUEST,
                                "files: path '%s' must be absolute", s->files.items[i].key);
        if (sm_spec_check_path("files: path", s->files.items[i].key, err) != SM_OK)
            return SM_ERR_INVALID;
    }
    for (size_t i = 0; i < s->env.n; i++) {
        const char *k = s->env.items[i].key;
        if (!*k || strchr(k, '='))
            return sm_error_set(err, SM_ERR_INVALID, SM_FAIL_INVALID_REQUEST,
                                "env: invalid variable name '%s'", k);
    }
    for (size_t i = 0; i < s->nports; i++) {
        if (sm_port_validate(s->ports[i], err) != SM_OK)
            return SM_ERR_INVALID;
        for (size_t j = 0; j < i; j++)
            if (s->ports[i] == s->ports[j])
                return sm_error_set(err, SM_ERR_INVALID, SM_FAIL_INVALID_REQUEST,
                                    "port %d is listed twice (ports must be unique)", s->ports[i]);
    }
    if (s->entrypoint && !s->entrypoint[0])
        return sm_error_set(err, SM_ERR_INVALID, SM_FAIL_INVALID_REQUEST,
                            "entrypoint must not be an empty list");
    return SM_OK;
}

static const char *const resource_keys[] = {"cpu", "memory_mib", "disk_gib",
                                            "gpu", "gpu_type",   NULL};

int sm_resources_from_json(const cJSON *obj, sm_resources *r, sm_error *err)
{
    memset(r, 0, sizeof *r);
    if (!obj || cJSON_IsNull(obj))
        return SM_OK;
    if (!cJSON_IsObject(obj))
        return sm_error_set(err, SM_ERR_INVALID, SM_FAIL_INVALID_REQUEST,
                            "resources must be a mapping");
    if (sm_json_check_keys(obj, resource_keys, "resources", err) != SM_OK)
        return SM_ERR_INVALID;
    const cJSON *v;
    if ((v = cJSON_GetObjectItemCaseSensitive(obj, "cpu")) && !cJSON_IsNull(v)) {
        if (cJSON_IsBool(v) || sm_json_get_number(obj, "cpu", &r->cpu, "resources", err))
            return sm_error_set(err, SM_ERR_INVALID, SM_FAIL_INVALID_REQUEST,
                                "resources.cpu must be a number");
        r->set |= SM_RES_CPU;
    }
    if ((v = cJSON_GetObjectItemCaseSensitive(obj, "memory_mib")) && !cJSON_IsNull(v)) {
        if (sm_json_get_long(obj, "memory_mib", &r->memory_mib, "resources", err))
            return SM_ERR_INVALID;
        r->set |= SM_RES_MEMORY;
    }
    if ((v = cJSON_GetObjectItemCaseSensitive(obj, "disk_gib")) && !cJSON_IsNull(v)) {
        if (sm_json_get_long(obj, "disk_gib", &r->disk_gib, "resources", err))
            return SM_ERR_INVALID;
        r->set |= SM_RES_DISK;
    }
    if ((v = cJSON_GetObjectItemCaseSensitive(obj, "gpu")) && !cJSON_IsNull(v)) {
        if (sm_json_get_long(obj, "gpu", &r->gpu, "resources", err))
            return SM_ERR_INVALID;
        r->set |= SM_RES_GPU;
    }
    if ((v = cJSON_GetObjectItemCaseSensitive(obj, "gpu_type")) && !cJSON_IsNull(v)) {
        if (sm_json_get_string(obj, "gpu_type", &r->gpu_type, "resources", err))
            return SM_ERR_INVALID;
        r->set |= SM_RES_GPU_TYPE;
    }
    return SM_OK;
}

cJSON *sm_resources_to_json(const sm_resources *r)
{
    cJSON *o = cJSON_CreateObject();
    if (r->set & SM_RES_CPU)
        cJSON_AddNumberToObject(o, "cpu", r->cpu);
    if (r->set & SM_RES_MEMORY)
        cJSON_AddNumberToObject(o, "memory_mib", (double)r->memory_mib);
    if (r->set & SM_RES_DISK)
        cJSON_AddNumberToObject(o, "disk_gib", (double)r->disk_gib);
    if (r->set & SM_RES_GPU)
        cJSON_AddNumberToObject(o, "gpu", (double)r->gpu);
    if (r->set & SM_RES_GPU_TYPE)
        cJSON_AddStringToObject(o, "gpu_type", r->gpu_type);
    return o;
}

void sm_resources_describe(const sm_resources *r, char *buf, size_t len)
{
    size_t used = 0;
    char mem[32];
    buf[0] = '\0';
    if (r->set & SM_RES_CPU)
        used += (size_t)snprintf(buf + used, len - used, "cpu %g", r->cpu);
    if ((r->set & SM_RES_MEMORY) && used < len) {
        sm_format_bytes((double)r->memory_mib * 1048576.0, mem, sizeof mem);
        used += (size_t)snprintf(buf + used, len - used, "%smemory %s", used ? ", " : "", mem);
    }
    if ((r->set & SM_RES_DISK) && used < len)
        used += (size_t)snprintf(buf + used, len - used, "%sdisk %ldGiB", used ? ", " : "",
                                 r->disk_gib);
    if ((r->set & SM_RES_GPU) && used < len)
        used += (size_t)snprintf(buf + used, len - used, "%sgpu %ld%s%s", used ? ", " : "", r->gpu,
                                 r->gpu_type ? " " : "", r->gpu_type ? r->gpu_type : "");
    if (!used)
        snprintf(buf, len, "-");
}

static const char *const spec_keys[] = {
    "image",    "ttl_s",     "ready_timeout_s", "workdir",          "env",   "files",
    "metadata", "resources", "entrypoint",      "provider_options", "ports", NULL};

static int map_field(const cJSON *obj, const char *key, sm_map *m, sm_error *err)
{
    char buf[200];
    if (sm_map_from_json(cJSON_GetObjectItemCaseSensitive(obj, key), m, buf, sizeof buf) < 0)
        return sm_error_set(err, SM_ERR_INVALID, SM_FAIL_INVALID_REQUEST, "%s: %s", key, buf);
    return SM_OK;
}

int sm_spec_from_json(const cJSON *obj, sm_spec *s, sm_error *err)
{
    sm_spec_init(s);
    if (!cJSON_IsObject(obj))
        return sm_error_set(err, SM_ERR_INVALID, SM_FAIL_INVALID_REQUEST,
                            "sandbox spec must be a mapping");
    if (sm_json_check_keys(obj, spec_keys, "sandbox spec", err) ||
        sm_json_get_string(obj, "image", &s->image, "spec", err) ||
        sm_json_get_number(obj, "ttl_s", &s->ttl_s, "spec", err) ||
        sm_json_get_number(obj, "ready_timeout_s", &s->ready_timeout_s, "spec", err) ||
        sm_json_get_string(obj, "workdir", &s->workdir, "spec", err) ||
        map_field(obj, "env", &s->env, err) || map_field(obj, "files", &s->files, err) ||
        map_field(obj, "metadata", &s->metadata, err) ||
        sm_resources_from_json(cJSON_GetObjectItemCaseSensitive(obj, "resources"), &s->resources,
                               err))
        goto fail;
    /* Negative numbers mean "unset" inside; a value the user wrote must be positive. */
    static const char *const positive[] = {"ttl_s", "ready_timeout_s"};
    for (size_t i = 0; i < 2; i++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, positive[i]);
        double d = 0;
        if (v && !cJSON_IsNull(v) && sm_json_get_number(obj, positive[i], &d, "spec", NULL) == 0 &&
            !(d > 0)) {
            sm_error_set(err, SM_ERR_INVALID, SM_FAIL_INVALID_REQUEST,
                         "%s must be a positive number of seconds, not %g", positive[i], d);
            goto fail;
        }
    }
    const cJSON *ep = cJSON_GetObjectItemCaseSensitive(obj, "entrypoint");
    if (ep && !cJSON_IsNull(ep)) {
        if (!cJSON_IsArray(ep)) {
            sm_error_set(err, SM_ERR_INVALID, SM_FAIL_INVALID_REQUEST,
                         "entrypoint must be a list of strings");
            goto fail;
        }
        int n = cJSON_GetArraySize(ep);
        s->entrypoint = xcalloc((size_t)n + 1, sizeof(char *));
        for (int i = 0; i < n; i++) {
            const cJSON *a = cJSON_GetArrayItem(ep, i);
            if (!cJSON_IsString(a)) {
                sm_error_set(err, SM_ERR_INVALID, SM_FAIL_INVALID_REQUEST,
                             "entrypoint[%d] must be a string", i);
                goto fail;
            }
            s->entrypoint[i] = xstrdup(a->valuestring);
        }
    }
    const cJSON *po = cJSON_GetObjectItemCaseSensitive(obj, "provider_options");
    if (po && !cJSON_IsNull(po)) {
        if (!cJSON_IsObject(po)) {
            sm_error_set(err, SM_ERR_INVALID, SM_FAIL_INVALID_REQUEST,
                         "provider_options must be a mapping");
            goto fail;
        }
        s->provider_options = cJSON_Duplicate(po, 1);
    }
    const cJSON *ports = cJSON_GetObjectItemCaseSensitive(obj, "ports");
    if (ports && !cJSON_IsNull(ports)) {
        if (!cJSON_IsArray(ports)) {
            sm_error_set(err, SM_ERR_INVALID, SM_FAIL_INVALID_REQUEST,
                         "ports must be a list of port numbers");
            goto fail;
        }
        const cJSON *p;
        cJSON_ArrayForEach(p, ports)
        {
            if (cJSON_IsNumber(p)) {
                if (p->valuedouble < 1 || p->valuedouble > 65535) {
                    sm_error_set(err, SM_ERR_INVALID, SM_FAIL_INVALID_REQUEST,
                                 "port %g is out of range (allowed: 1..65535)", p->valuedouble);
                    goto fail;
                }
                if (p->valuedouble != floor(p->valuedouble)) {
                    sm_error_set(err, SM_ERR_INVALID, SM_FAIL_INVALID_REQUEST,
                                 "port %g is not an integer (allowed: 1..65535)", p->valuedouble);
                    goto fail;
                }
                if (add_port_value(s, (long)p->valuedouble, err))
                    goto fail;
            } else if (cJSON_IsString(p)) {
                if (sm_spec_add_port(s, p->valuestring, err))
                    goto fail;
            } else {
                sm_error_set(err, SM_ERR_INVALID, SM_FAIL_INVALID_REQUEST,
                             "ports must hold integers or numeric strings, not %s",
                             cJSON_IsBool(p) ? "booleans" : "this value");
                goto fail;
            }
        }
    }
    if (sm_spec_validate(s, err))
        goto fail;
    return SM_OK;
fail:
    sm_spec_free(s);
    return err ? (err->code ? err->code : SM_ERR_INVALID) : SM_ERR_INVALID;
}

cJSON *sm_spec_to_json(const sm_spec *s, bool include_env_values)
{
    cJSON *o = cJSON_CreateObject();
    if (s->image)
        cJSON_AddStringToObject(o, "image", s->image);
    if (s->ttl_s >= 0)
        cJSON_AddNumberToObject(o, "ttl_s", s->ttl_s);
    if (s->ready_timeout_s >= 0)
        cJSON_AddNumberToObject(o, "ready_timeout_s", s->ready_timeout_s);
    if (s->workdir)
        cJSON_AddStringToObject(o, "workdir", s->workdir);
    if (include_env_values) {
        cJSON_AddItemToObject(o, "env", sm_map_to_json(&s->env));
    } else {
        cJSON *names = cJSON_AddArrayToObject(o, "env_names");
        for (size_t i = 0; i < s->env.n; i++)
            cJSON_AddItemToArray(names, cJSON_CreateString(s->env.items[i].key));
    }
    cJSON_AddItemToObject(o, "metadata", sm_map_to_json(&s->metadata));
    cJSON_AddItemToObject(o, "resources", sm_resources_to_json(&s->resources));
    if (s->entrypoint) {
        cJSON *a = cJSON_AddArrayToObject(o, "entrypoint");
        for (size_t i = 0; s->entrypoint[i]; i++)
            cJSON_AddItemToArray(a, cJSON_CreateString(s->entrypoint[i]));
    }
    cJSON *ports = cJSON_AddArrayToObject(o, "ports");
    for (size_t i = 0; i < s->nports; i++)
        cJSON_AddItemToArray(ports, cJSON_CreateNumber(s->ports[i]));
    return o;
}

void sm_pty_spec_init(sm_pty_spec *p)
{
    memset(p, 0, sizeof *p);
    p->rows = 24;
    p->cols = 80;
    p->pty = true;
}

int sm_pty_spec_validate(const sm_pty_spec *p, sm_error *err)
{
    if (p->pty && (p->rows < 1 || p->rows > 10000 || p->cols < 1 || p->cols > 10000))
        return sm_error_set(err, SM_ERR_INVALID, SM_FAIL_INVALID_REQUEST,
                            "pty size %dx%d is out of range (rows and cols: 1..10000)", p->rows,
                            p->cols);
    if (p->cwd && p->cwd[0] != '/')
        return sm_error_set(err, SM_ERR_INVALID, SM_FAIL_INVALID_REQUEST,
                            "pty cwd '%s' must be an absolute path", p->cwd);
    return SM_OK;
}

int sm_endpoint_set(sm_endpoint *e, const char *url, sm_error *err)
{
    memset(e, 0, sizeof *e);
    if (!url)
        return sm_error_set(err, SM_ERR_INVALID, SM_FAIL_INVALID_REQUEST,
                            "endpoint URL is missing");
    while (isspace((unsigned char)*url))
        url++;
    size_t n = strlen(url);
    while (n > 0 && isspace((unsigned char)url[n - 1]))
        n--;
    char *u = xstrndup(url, n);
    const char *sep = strstr(u, "://");
    bool scheme_ok = sep && sep > u;
    for (const char *c = u; scheme_ok && c < sep; c++)
        if (!isalnum((unsigned char)*c) && *c != '+' && *c != '-' && *c != '.')
            scheme_ok = false;
    if (!scheme_ok || !isalpha((unsigned char)u[0]) || !sep[3] || sep[3] == '/' || sep[3] == ':') {
        sm_error_set(err, SM_ERR_INVALID, SM_FAIL_INVALID_REQUEST,
                     "endpoint '%s' is not an absolute URL (need scheme://host)", u);
        free(u);
        return SM_ERR_INVALID;
    }
    e->url = u;
    return SM_OK;
}

void sm_endpoint_free(sm_endpoint *e)
{
    free(e->url);
    sm_map_free(&e->headers);
    e->url = NULL;
}

void sm_exec_request_init(sm_exec_request *r)
{
    memset(r, 0, sizeof *r);
    r->stdout_fd = -1;
    r->stderr_fd = -1;
    r->stdin_fd = -1;
}

int sm_exec_timeout_validate(double timeout_s, sm_error *err)
{
    if (timeout_s != timeout_s || timeout_s > SM_MAX_EXEC_TIMEOUT_S)
        return sm_error_set(err, SM_ERR_INVALID, SM_FAIL_INVALID_REQUEST,
                            "exec timeout %g s is out of range (allowed: up to %.0f seconds, "
                            "1 week; 0 or less for the default)",
                            timeout_s, SM_MAX_EXEC_TIMEOUT_S);
    return SM_OK;
}

void sm_exec_result_init(sm_exec_result *r)
{
    memset(r, 0, sizeof *r);
    sm_failure_init(&r->failure);
}

void sm_exec_result_free(sm_exec_result *r)
{
    free(r->out);
    free(r->err);
    sm_exec_result_init(r);
}

void sm_exec_result_runtime(sm_exec_result *r, const char *error_type, const sm_failure *f)
{
    r->return_code = SM_RUNTIME_RETURN_CODE;
    r->error_type = error_type;
    if (f)
        r->failure = *f;
}

void sm_exec_result_timed_out(sm_exec_result *r, double timeout_s)
{
    sm_failure *f = &r->failure;
    f->kind = SM_FAIL_EXEC_TIMEOUT;
    f->timeout_s = timeout_s;
    snprintf(f->reason, sizeof f->reason, "command timed out after %gs and was killed", timeout_s);
    sm_exec_result_runtime(r, "timeout", NULL);
    char *msg = xasprintf("%s%s%s\n", r->err ? r->err : "",
                          (r->err_len && r->err[r->err_len - 1] != '\n') ? "\n" : "", f->reason);
    free(r->err);
    r->err = msg;
    r->err_len = strlen(msg);
}

static void add_text(cJSON *o, const char *key, const char *data, size_t len)
{
    if (!data) {
        cJSON_AddNullToObject(o, key);
        return;
    }
    /* Output is bytes; JSON wants valid UTF-8, so broken sequences and NULs become U+FFFD. */
    char *copy = sm_utf8_clean(data, len);
    cJSON_AddStringToObject(o, key, copy);
    free(copy);
}

cJSON *sm_exec_result_to_json(const sm_exec_result *r)
{
    cJSON *o = cJSON_CreateObject();
    add_text(o, "stdout", r->out, r->out_len);
    add_text(o, "stderr", r->err, r->err_len);
    cJSON_AddNumberToObject(o, "return_code", r->return_code);
    if (r->error_type)
        cJSON_AddStringToObject(o, "error_type", r->error_type);
    else
        cJSON_AddNullToObject(o, "error_type");
    cJSON_AddNumberToObject(o, "duration_s", r->duration_s);
    if (sm_failure_kind_is_failure(r->failure.kind))
        cJSON_AddItemToObject(o, "failure", sm_failure_to_json(&r->failure));
    return o;
}
