/* The docker provider's PTY sessions: TTY (or pipe-mode) execs over an upgraded connection
 * whose socket is the session's pollable descriptor. */
#ifndef SM_DOCKER_PTY_H
#define SM_DOCKER_PTY_H

#include "core/provider_impl.h"

int docker_pty_open(sm_provider *p, sm_handle *h, const sm_pty_spec *spec, sm_pty **out,
                    sm_error *err);

#endif
