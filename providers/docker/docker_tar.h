/* Tar streams (core/transfer.c) of the docker provider through the engine's archive endpoints. */
#ifndef SM_DOCKER_TAR_H
#define SM_DOCKER_TAR_H

#include "core/provider_impl.h"

int docker_path_kind(sm_provider *p, sm_handle *h, const char *remote, sm_remote_kind *kind,
                     sm_error *err);
int docker_tar_get(sm_provider *p, sm_handle *h, const char *remote, sm_write_fn out, void *ud,
                   sm_error *err);
int docker_tar_put(sm_provider *p, sm_handle *h, const char *remote_dir, sm_read_fn in, void *ud,
                   sm_error *err);

#endif
