/* The one place that knows every built-in provider and registers them. */
#include "providers/builtin.h"

#include <pthread.h>

#include "core/provider_impl.h"
#include "providers/docker/docker_provider.h"
#include "providers/local/local_provider.h"
#include "providers/opensandbox/osb_provider.h"
#include "providers/slurm/slurm_provider.h"

static void register_all(void)
{
    sm_provider_register(&sm_local_provider_ops, NULL);
    sm_provider_register(&sm_docker_provider_ops, NULL);
    sm_provider_register(&sm_opensandbox_provider_ops, NULL);
    sm_provider_register(&sm_slurm_provider_ops, NULL);
}

void sm_builtin_register_all(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, register_all);
}
