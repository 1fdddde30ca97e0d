/* Environment variables given on the command line or in env files (the CLI's -e and
 * --env-file, for create, exec and shell). Values can come from sandman's own environment or
 * a file so that a secret never has to be on a command line, which `ps` shows every user.
 * Values of credential-named variables (sm_redact_key_is_secret) are registered for
 * redaction as they are read. */
#ifndef SM_ENV_H
#define SM_ENV_H

#include "core/error.h"
#include "core/kv.h"

/* One -e argument into env: KEY=VALUE as given, or KEY alone for the value of KEY in this
 * process's environment (as docker run -e does; refused when KEY is not set, so a typo does
 * not silently start a sandbox without its credential). */
int sm_env_parse_arg(sm_map *env, const char *arg, sm_error *err);
/* An env file into env, in docker's --env-file format: one KEY=VALUE per line with the value
 * taken verbatim (no quote or escape processing; a trailing CR is dropped), KEY alone for the
 * value from the environment, blank lines and lines starting with # skipped, leading
 * whitespace ignored. Pipes work (--env-file <(...)); at most 1 MiB is read. Errors name
 * FILE:LINE and never quote a value. */
int sm_env_read_file(sm_map *env, const char *path, sm_error *err);

#endif
