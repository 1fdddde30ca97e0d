/* Input: keys (through the key tables of tui/keys.h, or to the focused terminal's program),
 * bracketed pastes, the mouse and resizes. Handlers change the state and set dirty flags. */
#ifndef TUI_INPUT_H
#define TUI_INPUT_H

#include "tui/state.h"

/* Watches stdin on app->loop; stop closes the watcher. */
void tui_input_start(tui_app *app);
void tui_input_stop(tui_app *app);
/* The outer terminal changed size. */
void tui_input_resize(tui_app *app);
/* Asks the outer terminal for the mouse events the focused program needs (motion only while it
 * tracks it). */
void tui_input_mousemask(tui_app *app);
/* Defines the escape sequences of bracketed paste as keys (after initscr). */
void tui_input_define_keys(void);

#endif
