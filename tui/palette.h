/* The ":" command palette: a typed line becomes a dashboard command (:q, :ctx, :help) or a CLI
 * verb run as a job; :ctx switches the provider context. */
#ifndef TUI_PALETTE_H
#define TUI_PALETTE_H

#include "tui/state.h"

/* Parses and runs a palette line (":create --memory-mib 64", ":ctx NAME", ":q"). */
void tui_palette_run(tui_app *app, const char *line);
/* Switches the provider context; the next refresh shows its sandboxes. */
void tui_palette_context(tui_app *app, const char *name);

#endif
