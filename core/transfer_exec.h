/* The provider's tar streams for core/transfer.c: its own (path_kind, tar_get, tar_put) when it
 * has them, else made of exec and single-file upload/download (transfer_exec.c). */
#ifndef SM_TRANSFER_EXEC_H
#define SM_TRANSFER_EXEC_H

#include <stdbool.h>

#include "core/archive.h"
#include "core/provider_impl.h"

/* True when the provider can move directories one way or the other. */
bool sm_tar_available(const sm_provider *p);
int sm_tar_path_kind(sm_provider *p, sm_handle *h, const char *remote, sm_remote_kind *kind,
                     sm_error *err);
int sm_tar_get(sm_provider *p, sm_handle *h, const char *remote, sm_write_fn out, void *ud,
               sm_error *err);
int sm_tar_put(sm_provider *p, sm_handle *h, const char *remote_dir, sm_read_fn in, void *ud,
               sm_error *err);

#endif
