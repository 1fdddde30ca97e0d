/* Work the dashboard does off the UI thread, on libuv's work queue: refreshes (provider list +
 * samples), journal reads and CLI commands. Each job reports back on the loop, folds its result
 * into the state and sets a dirty flag; the UI thread never waits on a provider. */
#ifndef TUI_JOBS_H
#define TUI_JOBS_H

#include "tui/state.h"

/* Starts a refresh of the current context (and a journal read beside it). One asked for while
 * one runs follows it, so what a key shows is never older than the key press. */
void tui_jobs_refresh(tui_app *app);
/* Runs a CLI command (argv[0] is the verb) in the current context; its output goes to the
 * status line (one line) or the output popup. */
void tui_jobs_command(tui_app *app, int argc, char **argv, const char *title);

/* Reads what the logs view's sandbox kept since the last read (all of it after an open) and
 * appends it to the view; one asked for while one runs follows it. */
void tui_jobs_logs(tui_app *app);

#endif
