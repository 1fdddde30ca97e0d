/* The docker provider: sandboxes are containers of a Docker Engine (or anything that speaks its
 * REST API, such as podman's service), driven directly over the API with core/http.c instead of
 * shelling out to the docker CLI. This file is the vtable and the small operations (close,
 * serialize/connect, pause); each floor below has a file of its own: docker_config (settings),
 * docker_engine (the API client), docker_cache (per-handle state), docker_run (one exec),
 * docker_executor (the exec helper), docker_exec, docker_pty, docker_fs, docker_tar (tar
 * streams), docker_create and docker_info (status, list, stats, endpoints). It must not know
 * any other provider. Sandbox ids are full container ids; the CLI resolves unique prefixes
 * (such as the 12-character short ids `docker ps` shows) through list(). */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/json.h"
#include "core/util.h"
#include "providers/docker/docker_cache.h"
#include "providers/docker/docker_create.h"
#include "providers/docker/docker_exec.h"
#include "providers/docker/docker_executor.h"
#include "providers/docker/docker_fs.h"
#include "providers/docker/docker_info.h"
#include "providers/docker/docker_provider.h"
#include "providers/docker/docker_pty.h"
#include "providers/docker/docker_tar.h"

static int docker_init(sm_provider *p, const cJSON *config, sm_error *err)
{
    docker_provider *dp = NULL;
    int rc = docker_engine_new(config, &dp, err);
    p->impl = dp;
    return rc;
}

static void docker_destroy(sm_provider *p)
{
    docker_engine_free(p->impl);
    p->impl = NULL;
}

static char *docker_describe(sm_provider *p)
{
    docker_provider *dp = p->impl;
    return xasprintf("engine at %s; API %s%s%s", sm_http_target(dp->http),
                     dp->api[0] ? dp->api : "negotiated on first use",
                     dp->cfg.warnings ? "; warning: " : "",
                     dp->cfg.warnings ? dp->cfg.warnings : "");
}

static void docker_handle_free(sm_provider *p, sm_handle *h)
{
    docker_cache *c = h->raw;
    if (c) {
        docker_executor_free(c->executor);
        free(c->workdir);
        free(c);
    }
    h->raw = NULL;
}

static int docker_close(sm_provider *p, sm_handle *h, sm_error *err)
{
    docker_provider *dp = p->impl;
    int rc = docker_remove(dp, h->id, err);
    if (rc == SM_OK)
        docker_oom_forget(h->id);
    if (rc != SM_OK && err) {
        snprintf(err->failure.operation, sizeof err->failure.operation, "close");
        sm_error_prefix(err, "removing sandbox %.12s", h->id);
    }
    return rc;
}

static cJSON *docker_serialize(sm_provider *p, sm_handle *h)
{
    cJSON *d = cJSON_CreateObject();
    cJSON_AddStringToObject(d, "sandbox_id", h->id);
    return d;
}

/* Rebuilds a handle from {"sandbox_id": id-or-unique-prefix}; the id becomes the full one. */
static int docker_connect(sm_provider *p, const cJSON *desc, sm_handle **out, sm_error *err)
{
    docker_provider *dp = p->impl;
    const char *id = sm_json_str(desc, "sandbox_id");
    if (!id || !*id)
        return sm_error_set(err, SM_ERR_INVALID, SM_FAIL_INVALID_REQUEST,
                            "descriptor has no sandbox_id");
    cJSON *insp = NULL;
    int rc = docker_inspect(dp, id, &insp, err);
    if (rc != SM_OK)
        return rc;
    const char *full = sm_json_str(insp, "Id");
    sm_handle *h = sm_handle_new(full ? full : id, "docker");
    docker_cache_fill(docker_cache_of(h), insp);
    cJSON_Delete(insp);
    *out = h;
    return SM_OK;
}

static int pause_resume(sm_provider *p, sm_handle *h, bool pause, sm_error *err)
{
    docker_provider *dp = p->impl;
    char *path = xasprintf("/containers/%s/%s", h->id, pause ? "pause" : "unpause");
    int status = 0;
    cJSON *reply = NULL;
    int rc =
        docker_call(dp, "POST", path, NULL, DOCKER_CONTROL_TIMEOUT_S, false, &status, &reply, err);
    free(path);
    if (rc == SM_OK && status != 204 && status != 200)
        rc = docker_http_error(err, status, NULL, reply, SM_FAIL_SANDBOX_ERROR, "%s %.12s",
                               pause ? "pausing" : "resuming", h->id);
    cJSON_Delete(reply);
    return rc;
}

static int docker_pause(sm_provider *p, sm_handle *h, sm_error *err)
{
    return pause_resume(p, h, true, err);
}

static int docker_resume(sm_provider *p, sm_handle *h, sm_error *err)
{
    return pause_resume(p, h, false, err);
}

/* Every operation holds one of the provider's exec.concurrency slots while it runs
 * (docker_slot_enter): the seed bounds all its engine calls so, not only execs. */
#define SLOTTED(name, params, args)                                                                \
    static int slotted_##name params                                                               \
    {                                                                                              \
        docker_provider *dp = p->impl;                                                             \
        docker_slot_enter(dp);                                                                     \
        int rc = docker_##name args;                                                               \
        docker_slot_leave(dp);                                                                     \
        return rc;                                                                                 \
    }
SLOTTED(create, (sm_provider * p, const sm_spec *spec, sm_handle **out, sm_error *err),
        (p, spec, out, err))
SLOTTED(exec,
        (sm_provider * p, sm_handle *h, const sm_exec_request *req, sm_exec_result *res,
         sm_error *err),
        (p, h, req, res, err))
SLOTTED(upload,
        (sm_provider * p, sm_handle *h, const char *local, const char *remote, sm_error *err),
        (p, h, local, remote, err))
SLOTTED(download,
        (sm_provider * p, sm_handle *h, const char *remote, const char *local, sm_error *err),
        (p, h, remote, local, err))
SLOTTED(path_kind,
        (sm_provider * p, sm_handle *h, const char *remote, sm_remote_kind *kind, sm_error *err),
        (p, h, remote, kind, err))
SLOTTED(tar_get,
        (sm_provider * p, sm_handle *h, const char *remote, sm_write_fn out, void *ud,
         sm_error *err),
        (p, h, remote, out, ud, err))
SLOTTED(tar_put,
        (sm_provider * p, sm_handle *h, const char *remote_dir, sm_read_fn in, void *ud,
         sm_error *err),
        (p, h, remote_dir, in, ud, err))
/* The engine keeps the container's main process output: `sandman logs` shows it. */
static int docker_entry_output(sm_provider *p, sm_handle *h, size_t max, char **out, size_t *len,
                               sm_error *err)
{
    sm_strbuf text = {0};
    int rc = docker_logs(p->impl, h->id, NULL, &text, err);
    size_t skip = text.len > max ? text.len - max : 0;
    *len = rc == SM_OK ? text.len - skip : 0;
    *out = rc == SM_OK ? xstrndup(text.data ? text.data + skip : "", *len) : NULL;
    sm_strbuf_free(&text);
    return rc;
}
SLOTTED(entry_output,
        (sm_provider * p, sm_handle *h, size_t max, char **out, size_t *len, sm_error *err),
        (p, h, max, out, len, err))
SLOTTED(status, (sm_provider * p, sm_handle *h, sm_sandbox_info *info, sm_error *err),
        (p, h, info, err))
SLOTTED(close, (sm_provider * p, sm_handle *h, sm_error *err), (p, h, err))
SLOTTED(pty_open,
        (sm_provider * p, sm_handle *h, const sm_pty_spec *spec, sm_pty **out, sm_error *err),
        (p, h, spec, out, err))
SLOTTED(endpoint, (sm_provider * p, sm_handle *h, int port, sm_endpoint *out, sm_error *err),
        (p, h, port, out, err))
SLOTTED(list,
        (sm_provider * p, const sm_list_filter *f, sm_sandbox_info **out, size_t *n, sm_error *err),
        (p, f, out, n, err))
SLOTTED(stats, (sm_provider * p, sm_handle *h, sm_sample *s, sm_error *err), (p, h, s, err))
SLOTTED(connect, (sm_provider * p, const cJSON *desc, sm_handle **out, sm_error *err),
        (p, desc, out, err))
SLOTTED(pause, (sm_provider * p, sm_handle *h, sm_error *err), (p, h, err))
SLOTTED(resume, (sm_provider * p, sm_handle *h, sm_error *err), (p, h, err))

const sm_provider_ops sm_docker_provider_ops = {
    .name = "docker",
    .summary = "containers of a Docker engine (or podman's service) over its REST API",
    .caps =
        SM_CAP_PTY | SM_CAP_ENDPOINT | SM_CAP_LIST | SM_CAP_STATS | SM_CAP_CONNECT | SM_CAP_PAUSE,
    .config_keys = docker_config_keys,
    .init = docker_init,
    .destroy = docker_destroy,
    .create = slotted_create,
    .exec = slotted_exec,
    .upload = slotted_upload,
    .download = slotted_download,
    .path_kind = slotted_path_kind,
    .tar_get = slotted_tar_get,
    .tar_put = slotted_tar_put,
    .status = slotted_status,
    .close = slotted_close,
    .handle_free = docker_handle_free,
    .pty_open = slotted_pty_open,
    .endpoint = slotted_endpoint,
    .list = slotted_list,
    .stats = slotted_stats,
    .serialize = docker_serialize,
    .connect = slotted_connect,
    .pause = slotted_pause,
    .resume = slotted_resume,
    .describe = docker_describe,
    .entry_output = slotted_entry_output,
};
