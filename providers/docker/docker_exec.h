/* The docker provider's exec operation: a request goes to the handle's exec helper when it can
 * run it the same way, else to a plain exec; the result gets its exit code, timeout and OOM
 * attribution. */
#ifndef SM_DOCKER_EXEC_H
#define SM_DOCKER_EXEC_H

#include "core/provider_impl.h"

int docker_exec(sm_provider *p, sm_handle *h, const sm_exec_request *req, sm_exec_result *res,
                sm_error *err);
/* Forgets the recorded OOM-kill count of a removed container. */
void docker_oom_forget(const char *cid);

#endif
