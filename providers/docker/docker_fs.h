/* The docker provider's file transfer through the engine's archive endpoints. */
#ifndef SM_DOCKER_FS_H
#define SM_DOCKER_FS_H

#include "core/provider_impl.h"
#include "providers/docker/docker_engine.h"

int docker_upload(sm_provider *p, sm_handle *h, const char *local, const char *remote,
                  sm_error *err);
int docker_download(sm_provider *p, sm_handle *h, const char *remote, const char *local,
                    sm_error *err);
/* Before the container starts: a workdir the image lacks is made sticky and world-writable
 * (like /tmp), so that whoever the agent runs as (exec -u) can use it; the engine would make it
 * root's, 0755. One the image has keeps its mode. */
int docker_make_workdir(docker_provider *dp, const char *cid, const char *workdir, sm_error *err);

/* Shared with docker_tar.c. */
#define DOCKER_XFER_TIMEOUT 3600.0
/* Absolute remote path (relative ones are under the container's working directory); local, if
 * given, names the file kept under a trailing slash. NULL with err set. Caller frees. */
char *docker_remote_path(docker_provider *dp, sm_handle *h, const char *remote, const char *local,
                         sm_error *err);
/* 1 = a directory, 0 = exists but not a directory, -1 = absent, -2 = error (err set). */
int docker_remote_kind(docker_provider *dp, const char *cid, const char *path, sm_error *err);
/* "sandbox ... does not exist". */
int docker_gone_error(sm_error *err, const char *cid);
/* Creates the directory (and the parents the engine adds for it) with mode unless it exists. */
int docker_make_dir(docker_provider *dp, const char *cid, const char *workdir, unsigned mode,
                    sm_error *err);

#endif
