/* sm_error helpers; messages pass through secret redaction before they are stored. */
#include "core/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/redact.h"

void sm_error_clear(sm_error *e)
{
    if (!e)
        return;
    e->code = SM_OK;
    e->msg[0] = '\0';
    sm_failure_init(&e->failure);
}

int sm_error_set(sm_error *e, int code, sm_failure_kind kind, const char *fmt, ...)
{
    if (!e)
        return code;
    char tmp[sizeof e->msg];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    sm_redact_into(tmp, e->msg, sizeof e->msg);
    e->code = code;
    e->failure.kind = kind;
    snprintf(e->failure.reason, sizeof e->failure.reason, "%s", e->msg);
    return code;
}

void sm_error_prefix(sm_error *e, const char *fmt, ...)
{
    if (!e)
        return;
    char pre[256], tmp[sizeof e->msg];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(pre, sizeof pre, fmt, ap);
    va_end(ap);
    snprintf(tmp, sizeof tmp, "%s: %s", pre, e->msg);
    sm_redact_into(tmp, e->msg, sizeof e->msg);
    snprintf(e->failure.reason, sizeof e->failure.reason, "%s", e->msg);
}

const char *sm_error_code_name(int code)
{
    static const char *names[] = {"ok",        "invalid",     "config",  "not_found",
                                  "ambiguous", "unsupported", "runtime", "timeout",
                                  "io",        "closed",      "exists",  "state"};
    if (code < 0 || code >= (int)(sizeof names / sizeof names[0]))
        return "error";
    return names[code];
}
