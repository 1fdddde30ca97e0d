/* The slurm provider's entry point for the registry (providers/builtin.c). */
#ifndef SM_SLURM_PROVIDER_H
#define SM_SLURM_PROVIDER_H
#include "core/provider_impl.h"
extern const sm_provider_ops sm_slurm_provider_ops;
#endif
