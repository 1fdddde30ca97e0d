/* The local provider's vtable, for providers/builtin.c. */
#ifndef SM_LOCAL_PROVIDER_H
#define SM_LOCAL_PROVIDER_H

#include "core/provider_impl.h"

extern const sm_provider_ops sm_local_provider_ops;

#endif
