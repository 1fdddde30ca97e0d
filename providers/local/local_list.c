/* Status and listing of local sandboxes, read from their records in the state directory. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "providers/local/local.h"

int local_status(sm_provider *p, sm_handle *h, sm_sandbox_info *info, sm_error *err)
{
    local_record r;
    int rc = local_record_load(h->id, &r, err);
    if (rc != SM_OK) {
        sm_sandbox_info_init(info);
        info->id = xstrdup(h->id);
        info->provider = xstrdup("local");
        info->status = SM_STATUS_STOPPED;
        info->failure.kind = SM_FAIL_NOT_FOUND;
        snprintf(info->failure.reason, sizeof info->failure.reason, "the sandbox is gone");
        return SM_OK;
    }
    local_record_info(&r, info);
    local_record_free(&r);
    return SM_OK;
}

static bool labels_match(const sm_map *want, const sm_map *have)
{
    for (size_t i = 0; want && i < want->n; i++) {
        const char *v = sm_map_get(have, want->items[i].key);
        if (!v || strcmp(v, want->items[i].value))
            return false;
    }
    return true;
}

int local_list(sm_provider *p, const sm_list_filter *f, sm_sandbox_info **out, size_t *n,
               sm_error *err)
{
    *out = NULL;
    *n = 0;
    DIR *d = opendir(local_root());
    if (!d)
        return SM_OK;
    size_t cap = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.')
            continue;
        local_record r;
        if (local_record_load(de->d_name, &r, NULL) != SM_OK)
            continue;
        sm_sandbox_info info;
        local_record_info(&r, &info);
        /* A damaged record whose processes still run is listed: it is not gone. */
        bool alive = info.status == SM_STATUS_RUNNING || info.status == SM_STATUS_STARTING ||
                     (r.damaged && local_record_alive(&r));
        local_record_free(&r);
        if ((!f || !f->all) && !alive) {
            sm_sandbox_info_free(&info);
            continue;
        }
        if (f && !labels_match(f->labels, &info.labels)) {
            sm_sandbox_info_free(&info);
            continue;
        }
        if (*n == cap) {
            cap = cap ? cap * 2 : 16;
            *out = xrealloc(*out, cap * sizeof **out);
        }
        (*out)[(*n)++] = info;
    }
    closedir(d);
    sm_sandbox_info_sort(*out, *n);
    return SM_OK;
}
