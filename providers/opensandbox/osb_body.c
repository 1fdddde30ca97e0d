/* What the opensandbox provider asks a server to create: the create request's body built from
 * a spec (image, resources, entrypoint, env, labels, extensions, provider_options passed
 * through), and the workdir label's encoding both ways. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/attribution.h"
#include "core/json.h"
#include "core/util.h"
#include "providers/opensandbox/osb.h"

/* A path as a label value (Kubernetes: alphanumeric at both ends, [-A-Za-z0-9_.] between):
 * "w" + path with '/' as '_' and any other byte outside [A-Za-z0-9] as -HH + "w". NULL when
 * it would not fit in 63 characters. */
char *osb_workdir_label(const char *path)
{
    sm_strbuf b = {0};
    sm_strbuf_puts(&b, "w");
    for (const unsigned char *c = (const unsigned char *)path; *c; c++) {
        if (*c == '/')
            sm_strbuf_puts(&b, "_");
        else if ((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9'))
            sm_strbuf_append(&b, (const char *)c, 1);
        else
            sm_strbuf_printf(&b, "-%02x", *c);
    }
    sm_strbuf_puts(&b, "w");
    if (b.len > 63) {
        sm_strbuf_free(&b);
        return NULL;
    }
    return sm_strbuf_take(&b);
}

char *osb_workdir_unlabel(const char *v)
{
    size_t n = strlen(v);
    if (n < 2 || v[0] != 'w' || v[n - 1] != 'w')
        return NULL;
    sm_strbuf b = {0};
    for (size_t i = 1; i + 1 < n; i++) {
        if (v[i] == '_') {
            sm_strbuf_puts(&b, "/");
        } else if (v[i] == '-' && i + 3 < n) {
            unsigned x = 0;
            sscanf(v + i + 1, "%2x", &x);
            char ch = (char)x;
            sm_strbuf_append(&b, &ch, 1);
            i += 2;
        } else {
            sm_strbuf_append(&b, v + i, 1);
        }
    }
    return b.data ? sm_strbuf_take(&b) : NULL;
}

cJSON *osb_create_body(osb *o, sm_provider *p, const sm_spec *spec, const char *attempt,
                       sm_error *err)
{
    const cJSON *po = spec->provider_options;
    static const char *const po_keys[] = {"image_auth",        "network_policy",    "platform",
                                          "snapshot_id",       "volumes",           "extensions",
                                          "skip_health_check", "resource_requests", NULL};
    if (po && sm_json_check_keys(po, po_keys, "opensandbox provider_options", err) != SM_OK)
        return NULL;
    if (!spec->image || !*spec->image) {
        sm_error_set(err, SM_ERR_INVALID, SM_FAIL_INVALID_REQUEST,
                     "opensandbox needs an image (--image or spec.image)");
        return NULL;
    }
    cJSON *b = cJSON_CreateObject();
    cJSON *im = cJSON_AddObjectToObject(b, "image");
    cJSON_AddStringToObject(im, "uri", spec->image);
    const cJSON *auth = cJSON_GetObjectItemCaseSensitive(po, "image_auth");
    if (auth)
        cJSON_AddItemToObject(im, "auth", cJSON_Duplicate(auth, 1));
    if (spec->ttl_s > 0)
        cJSON_AddNumberToObject(b, "timeout", ceil(spec->ttl_s));
    cJSON *res = cJSON_AddObjectToObject(b, "resourceLimits");
    const sm_resources *r = &spec->resources;
    char v[64];
    if (r->set & SM_RES_CPU) {
        snprintf(v, sizeof v, "%ldm", (long)ceil(r->cpu * 1000));
        cJSON_AddStringToObject(res, "cpu", v);
    }
    if (r->set & SM_RES_MEMORY) {
        snprintf(v, sizeof v, "%ldMi", r->memory_mib);
        cJSON_AddStringToObject(res, "memory", v);
    }
    if (r->set & SM_RES_DISK) {
        snprintf(v, sizeof v, "%ldGi", r->disk_gib);
        cJSON_AddStringToObject(res, "ephemeral-storage", v);
    }
    if (r->set & SM_RES_GPU) {
        snprintf(v, sizeof v, "%ld", r->gpu);
        cJSON_AddStringToObject(res, "gpu", v);
    }
    if ((r->set & SM_RES_GPU_TYPE) && r->gpu_type)
        cJSON_AddStringToObject(res, "gpu_type", r->gpu_type);
    cJSON *ep = cJSON_AddArrayToObject(b, "entrypoint");
    if (spec->entrypoint && spec->entrypoint[0]) {
        for (char **a = spec->entrypoint; *a; a++)
            cJSON_AddItemToArray(ep, cJSON_CreateString(*a));
    } else {
        cJSON_AddItemToArray(ep, cJSON_CreateString("tail"));
        cJSON_AddItemToArray(ep, cJSON_CreateString("-f"));
        cJSON_AddItemToArray(ep, cJSON_CreateString("/dev/null"));
    }
    if (spec->env.n)
        cJSON_AddItemToObject(b, "env", sm_map_to_json(&spec->env));
    /* labels: spec metadata over the context's defaults over attribution, values sanitised */
    sm_map md = {0};
    sm_map_copy(&md, &spec->metadata);
    sm_map_merge_under(&md, &p->default_metadata);
    if (o->cfg.attribution_enabled) {
        sm_attribution ex = {o->cfg.team, o->cfg.user, o->cfg.workload, o->cfg.run}, a;
        sm_attribution_resolve(&ex, &a);
        sm_attribution_to_labels(&a, o->cfg.key_prefix, &md);
        sm_attribution_free(&a);
    }
    char *k = xasprintf("%s" OSB_ATTEMPT_KEY, o->cfg.key_prefix);
    sm_map_set(&md, k, attempt);
    free(k);
    if (spec->nports) {
        sm_strbuf pb = {0};
        for (size_t i = 0; i < spec->nports; i++)
            sm_strbuf_printf(&pb, "%s%d", i ? "." : "", spec->ports[i]);
        k = xasprintf("%s" OSB_PORTS_KEY, o->cfg.key_prefix);
        sm_map_set(&md, k, pb.data);
        free(k);
        sm_strbuf_free(&pb);
    }
    cJSON *mj = cJSON_AddObjectToObject(b, "metadata");
    for (size_t i = 0; i < md.n; i++) {
        char *s = sm_label_sanitize(md.items[i].value);
        cJSON_AddStringToObject(mj, md.items[i].key, s);
        free(s);
    }
    char *wl = spec->workdir ? osb_workdir_label(spec->workdir) : NULL;
    if (wl) {
        k = xasprintf("%s" OSB_WORKDIR_KEY, o->cfg.key_prefix);
        cJSON_AddStringToObject(mj, k, wl);
        free(k);
        free(wl);
    }
    sm_map_free(&md);
    cJSON *ext = cJSON_AddObjectToObject(b, "extensions");
    cJSON_AddStringToObject(ext, "imagePullPolicy", o->cfg.image_pull_policy);
    cJSON_AddStringToObject(ext, "opensandbox.extensions.image-pull-policy",
                            o->cfg.image_pull_policy);
    const cJSON *it;
    cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(po, "extensions"))
    {
        cJSON_DeleteItemFromObjectCaseSensitive(ext, it->string);
        cJSON_AddItemToObject(ext, it->string, cJSON_Duplicate(it, 1));
    }
    const char *pass[][2] = {{"network_policy", "networkPolicy"},
                             {"platform", "platform"},
                             {"snapshot_id", "snapshotId"},
                             {"volumes", "volumes"}};
    for (size_t i = 0; i < SM_ARRAY_LEN(pass); i++)
        if ((it = cJSON_GetObjectItemCaseSensitive(po, pass[i][0])))
            cJSON_AddItemToObject(b, pass[i][1], cJSON_Duplicate(it, 1));
    return b;
}
