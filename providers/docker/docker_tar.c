/* Tar streams of the docker provider for core/transfer.c: a path's kind, and whole tar streams
 * read from or written into the container through the engine's archive endpoints. */
#include "providers/docker/docker_tar.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "providers/docker/docker_fs.h"

int docker_path_kind(sm_provider *p, sm_handle *h, const char *remote, sm_remote_kind *kind,
                     sm_error *err)
{
    docker_provider *dp = p->impl;
    char *path = docker_remote_path(dp, h, remote, NULL, err);
    if (!path)
        return err ? err->code : SM_ERR_RUNTIME;
    int k = docker_remote_kind(dp, h->id, path, err);
    free(path);
    if (k == -2)
        return err ? err->code : SM_ERR_RUNTIME;
    *kind = k == 1 ? SM_KIND_DIR : k == 0 ? SM_KIND_FILE : SM_KIND_ABSENT;
    return SM_OK;
}

typedef struct get_sink {
    sm_write_fn out;
    void *ud;
    int werrno;
} get_sink;

static bool get_write(const char *data, size_t len, void *ud)
{
    get_sink *g = ud;
    if (g->out(g->ud, data, len) < 0) {
        g->werrno = errno ? errno : EIO;
        return false;
    }
    return true;
}

int docker_tar_get(sm_provider *p, sm_handle *h, const char *remote, sm_write_fn out, void *ud,
                   sm_error *err)
{
    docker_provider *dp = p->impl;
    char *src = docker_remote_path(dp, h, remote, NULL, err);
    if (!src)
        return err ? err->code : SM_ERR_RUNTIME;
    char *esc = sm_http_escape(src);
    char *path = docker_path(dp, err, "/containers/%s/archive?path=%s", h->id, esc);
    free(esc);
    if (!path) {
        free(src);
        return err ? err->code : SM_ERR_RUNTIME;
    }
    get_sink g = {.out = out, .ud = ud};
    /* not idempotent: a retry after some bytes went out would repeat them in the stream */
    sm_http_req r = {.method = "GET",
                     .path = path,
                     .write_cb = get_write,
                     .write_ud = &g,
                     .timeout_s = DOCKER_XFER_TIMEOUT,
                     .body_size = -1};
    sm_http_resp resp;
    int rc = sm_http_do(dp->http, &r, &resp, err);
    if (g.werrno)
        rc = sm_error_set(err, SM_ERR_IO, SM_FAIL_TRANSFER_FAILED, "receiving %s: %s", src,
                          strerror(g.werrno));
    else if (rc == SM_OK && resp.status == 404) {
        char reason[256];
        sm_http_body_reason(resp.body.data, reason, sizeof reason);
        rc = strcasestr(reason, "no such container")
                 ? docker_gone_error(err, h->id)
                 : sm_error_set(err, SM_ERR_NOT_FOUND, SM_FAIL_TRANSFER_FAILED,
                                "no %s in sandbox %.12s", src, h->id);
    } else if (rc == SM_OK && resp.status != 200) {
        rc = docker_http_error(err, resp.status, resp.body.data, NULL, SM_FAIL_TRANSFER_FAILED,
                               "reading %s from sandbox %.12s", src, h->id);
    }
    if (rc != SM_OK && err)
        snprintf(err->failure.operation, sizeof err->failure.operation, "download");
    sm_http_resp_free(&resp);
    free(path);
    free(src);
    return rc;
}

typedef struct put_src {
    sm_read_fn in;
    void *ud;
    int rerrno;
} put_src;

static size_t put_read(char *buf, size_t len, void *ud)
{
    put_src *s = ud;
    ssize_t n = s->in(s->ud, buf, len);
    if (n < 0) {
        s->rerrno = errno ? errno : EIO;
        return (size_t)-1;
    }
    return (size_t)n;
}

int docker_tar_put(sm_provider *p, sm_handle *h, const char *remote_dir, sm_read_fn in, void *ud,
                   sm_error *err)
{
    docker_provider *dp = p->impl;
    char *dir = docker_remote_path(dp, h, remote_dir, NULL, err);
    if (!dir)
        return err ? err->code : SM_ERR_RUNTIME;
    int rc = docker_make_dir(dp, h->id, dir, 0755, err);
    if (rc != SM_OK && err)
        err->failure.kind = SM_FAIL_TRANSFER_FAILED;
    char *path = NULL;
    if (rc == SM_OK) {
        char *esc = sm_http_escape(dir);
        path = docker_path(dp, err, "/containers/%s/archive?path=%s", h->id, esc);
        free(esc);
        if (!path)
            rc = err ? err->code : SM_ERR_RUNTIME;
    }
    if (rc == SM_OK) {
        put_src src = {.in = in, .ud = ud};
        sm_http_req r = {.method = "PUT",
                         .path = path,
                         .content_type = "application/x-tar",
                         .read_cb = put_read,
                         .read_ud = &src,
                         .body_size = -1,
                         .timeout_s = DOCKER_XFER_TIMEOUT};
        sm_http_resp resp;
        rc = sm_http_do(dp->http, &r, &resp, err);
        if (src.rerrno)
            rc = sm_error_set(err, SM_ERR_IO, SM_FAIL_TRANSFER_FAILED,
                              "the stream for %s ended early: %s", dir, strerror(src.rerrno));
        else if (rc == SM_OK && resp.status != 200)
            rc = docker_http_error(err, resp.status, resp.body.data, NULL, SM_FAIL_TRANSFER_FAILED,
                                   "writing into %s in sandbox %.12s", dir, h->id);
        sm_http_resp_free(&resp);
    }
    if (rc != SM_OK && err)
        snprintf(err->failure.operation, sizeof err->failure.operation, "upload");
    free(path);
    free(dir);
    return rc;
}
