/* The few state changes shared by every room of the dashboard. */
#include "tui/state.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/util.h"

void tui_status(tui_app *app, bool error, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(app->status, sizeof app->status, fmt, ap);
    va_end(ap);
    char *nl = strchr(app->status, '\n');
    if (nl)
        *nl = '\0';
    app->status_error = error;
    app->status_until = sm_now_mono() + (error ? 8 : 4);
    tui_dirty(app);
}
