/* What the docker provider reads about containers without running anything in them: status,
 * list, stats and endpoints, mapped from the engine's inspect, list and stats replies. */
#ifndef SM_DOCKER_INFO_H
#define SM_DOCKER_INFO_H

#include "core/provider_impl.h"

int docker_status(sm_provider *p, sm_handle *h, sm_sandbox_info *info, sm_error *err);
int docker_list(sm_provider *p, const sm_list_filter *f, sm_sandbox_info **out, size_t *n,
                sm_error *err);
int docker_stats(sm_provider *p, sm_handle *h, sm_sample *s, sm_error *err);
int docker_endpoint(sm_provider *p, sm_handle *h, int port, sm_endpoint *out, sm_error *err);

#endif
