/* sm_error: what a failing core or provider call tells its caller. Every function that touches
 * I/O or a provider returns an int status (SM_OK or an SM_ERR_* code) and fills an sm_error
 * owned by the caller. The embedded failure event carries the kind and evidence. */
#ifndef SM_ERROR_H
#define SM_ERROR_H

#include "core/failure.h"

enum {
    SM_OK = 0,
    SM_ERR_INVALID = 1,     /* bad input: validation failed, unknown key, bad flag */
    SM_ERR_CONFIG = 2,      /* configuration file could not be read or resolved */
    SM_ERR_NOT_FOUND = 3,   /* no such sandbox / session / file */
    SM_ERR_AMBIGUOUS = 4,   /* an id prefix matched several sandboxes */
    SM_ERR_UNSUPPORTED = 5, /* the provider lacks the capability */
    SM_ERR_RUNTIME = 6,     /* the runtime failed (maps to exec 125 + "sandbox") */
    SM_ERR_TIMEOUT = 7,
    SM_ERR_IO = 8,
    SM_ERR_CLOSED = 9, /* the sandbox facade was already stopped */
    SM_ERR_EXISTS = 10,
    SM_ERR_STATE = 11, /* wrong state for the call (e.g. start twice) */
};

typedef struct sm_error {
    int code;
    char msg[512]; /* one line, no trailing newline, secrets redacted */
    sm_failure failure;
} sm_error;

void sm_error_clear(sm_error *e);
/* Sets code, kind and message; returns code so callers can `return sm_error_set(...)`.
 * A NULL e is allowed (the error is dropped). */
int sm_error_set(sm_error *e, int code, sm_failure_kind kind, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Prefixes an existing message: "upload /x: <old message>". */
void sm_error_prefix(sm_error *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
const char *sm_error_code_name(int code);

#endif
