/* docker CLI flags as Engine API fields: NeMo Gym's docker provider passes extra_run_args,
 * provider_options.run_args and extra_exec_args to the docker CLI; this provider speaks the
 * API, so the flags it can express are translated and the others are named in a warning.
 * A leaf: docker_config.c checks the flags of a config with it, create and exec apply them. */
#ifndef SM_DOCKER_ARGS_H
#define SM_DOCKER_ARGS_H

#include "core/error.h"
#include "core/strbuf.h"

typedef struct cJSON cJSON;

/* Applies `docker run` flags to a container create body (its HostConfig created when needed).
 * Flags with no API field are skipped and named in *ignored ("--foo, --bar"); a flag whose value
 * is malformed is SM_ERR_INVALID naming what (the config key) and the flag. */
int docker_args_run(char *const *args, const char *what, cJSON *body, sm_strbuf *ignored,
                    sm_error *err);
/* Same for `docker exec` flags on an exec create body (-e/--env, -u/--user, -w/--workdir,
 * --privileged). */
int docker_args_exec(char *const *args, const char *what, cJSON *body, sm_strbuf *ignored,
                     sm_error *err);
/* A list of strings (or one string, split on blanks as a shell would without quotes) from a
 * JSON value: provider_options.run_args. NULL-terminated, caller frees each and the array. NULL
 * with err for another type. */
char **docker_args_from_json(const cJSON *v, const char *what, sm_error *err);
void docker_args_free(char **v);

#endif
