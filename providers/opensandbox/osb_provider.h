/* The opensandbox provider's vtable, for providers/builtin.c. */
#ifndef SM_OSB_PROVIDER_H
#define SM_OSB_PROVIDER_H

#include "core/provider_impl.h"

extern const sm_provider_ops sm_opensandbox_provider_ops;

#endif
