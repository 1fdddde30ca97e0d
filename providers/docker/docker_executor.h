/* The docker provider's exec helper: one long-lived exec per handle that runs a handle's
 * commands as plain execs would, in a few milliseconds (docker_executor.c says how). Stands on
 * the one-exec primitives and the handle cache; docker_exec.c is its only caller. */
#ifndef SM_DOCKER_EXECUTOR_H
#define SM_DOCKER_EXECUTOR_H

#include "providers/docker/docker_cache.h"
#include "providers/docker/docker_run.h"

/* Runs `<keep-alive shell> -c cmd` with r's cwd, env and timeout (r->argv and r->user unused:
 * commands with a user are declined) as an exec would. DOCKER_EXECUTOR_DECLINED: nothing ran,
 * use docker_exec_run. SM_OK: r holds the result (r->timed_out: killed at the deadline).
 * Another error: the command ran but its exit status was lost. */
#define DOCKER_EXECUTOR_DECLINED 1000
int docker_executor_run(docker_provider *dp, sm_handle *h, const char *cmd, docker_run *r,
                        sm_error *err);
/* Ends the helper (it exits when its session closes). */
void docker_executor_free(docker_executor *x);

#endif
