/* The docker provider's vtable, for providers/builtin.c. */
#ifndef SM_DOCKER_PROVIDER_H
#define SM_DOCKER_PROVIDER_H

#include "core/provider_impl.h"

extern const sm_provider_ops sm_docker_provider_ops;

#endif
