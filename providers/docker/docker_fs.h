/* The docker provider's file transfer through the engine's archive endpoints. */
#ifndef SM_DOCKER_FS_H
#define SM_DOCKER_FS_H

#include "core/provider_impl.h"
#include "providers/docker/docker_engine.h"

int docker_upload(sm_provider *p, sm_handle *h, const char *local, const char *remote,
                  sm_error *err);
int docker_download(sm_provider *p, sm_handle *h, const char *remote, const char *local,
                    sm_error *err);
/* Tar streams (core/transfer.c) through the engine's archive endpoints. */
int docker_path_kind(sm_provider *p, sm_handle *h, const char *remote, sm_remote_kind *kind,
                     sm_error *err);
int docker_tar_get(sm_provider *p, sm_handle *h, const char *remote, sm_write_fn out, void *ud,
                   sm_error *err);
int docker_tar_put(sm_provider *p, sm_handle *h, const char *remote_dir, sm_read_fn in, void *ud,
                   sm_error *err);
/* Before the container starts: a workdir the image lacks is made sticky and world-writable
 * (like /tmp), so that whoever the agent runs as (exec -u) can use it; the engine would make it
 * root's, 0755. One the image has keeps its mode. */
int docker_make_workdir(docker_provider *dp, const char *cid, const char *workdir, sm_error *err);

#endif
