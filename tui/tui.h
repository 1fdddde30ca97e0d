/* The dashboard's entry point for the CLI (`sandman`, `sandman tui`). */
#ifndef TUI_TUI_H
#define TUI_TUI_H

#include "cli/cli.h"

/* Runs the dashboard in the terminal until the user quits; returns an exit status. */
int tui_run(sm_cli *cli);

#endif
