/* The local provider's private network (network: private): the sandbox's own network
 * namespace (made by the supervisor as for network: none) gets a user-mode link from
 * slirp4netns, which may not reach the host's loopback, and each declared port is forwarded
 * from an ephemeral port on the host's 127.0.0.1. What was set up is kept in <sandbox dir>/net:
 *   slirp_pid, slirp_start   the slirp4netns process (pid and start time, against pid reuse)
 *   fwd=PORT HOSTPORT        one per declared port */
#ifndef SM_LOCAL_NET_H
#define SM_LOCAL_NET_H

#include <stddef.h>

#include "core/error.h"

/* After the sandbox is ready: starts slirp4netns for the init's namespace (placed in a "net"
 * cgroup under the sandbox's own, so the sandbox's end takes it along) and forwards ports. On
 * failure everything it started is stopped and err says why. */
int local_net_start(const char *dir, const int *ports, size_t nports, sm_error *err);
/* Ends the link of the sandbox in dir, if it has one and it still runs (idempotent). */
void local_net_stop(const char *dir);
/* "http://127.0.0.1:HOSTPORT" for a forwarded port into url. SM_ERR_NOT_FOUND when the port
 * has no forward. */
int local_net_endpoint(const char *dir, const char *id, int port, char *url, size_t len,
                       sm_error *err);

#endif
