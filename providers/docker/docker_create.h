/* The docker provider's create: one container per sandbox, ready before create returns, and
 * nothing half-made left behind when it fails. */
#ifndef SM_DOCKER_CREATE_H
#define SM_DOCKER_CREATE_H

#include "core/provider_impl.h"

int docker_create(sm_provider *p, const sm_spec *spec, sm_handle **out, sm_error *err);

#endif
