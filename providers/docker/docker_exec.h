/* The docker provider's exec operation: a request goes to the handle's exec helper when it can
 * run it the same way, else to a plain exec; the result gets its exit code, timeout and OOM
 * attribution. */
#ifndef SM_DOCKER_EXEC_H
#define SM_DOCKER_EXEC_H

#include "core/provider_impl.h"
#include "providers/docker/docker_engine.h"

int docker_exec(sm_provider *p, sm_handle *h, const sm_exec_request *req, sm_exec_result *res,
                sm_error *err);
/* The OOM kills sandman has attributed in the container (this handle's count, else the one
 * recorded by an earlier sandman process); -1 when none is known. */
long long docker_oom_known(docker_provider *dp, sm_handle *h);
/* Forgets the recorded OOM-kill count of a removed container. */
void docker_oom_forget(const char *cid);

#endif
