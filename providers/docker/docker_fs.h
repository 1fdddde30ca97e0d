/* The docker provider's file transfer through the engine's archive endpoints. */
#ifndef SM_DOCKER_FS_H
#define SM_DOCKER_FS_H

#include "core/provider_impl.h"

int docker_upload(sm_provider *p, sm_handle *h, const char *local, const char *remote,
                  sm_error *err);
int docker_download(sm_provider *p, sm_handle *h, const char *remote, const char *local,
                    sm_error *err);

#endif
