/* The frame: header, body (views and panes), footer and overlays, drawn when something set a
 * dirty flag. One before-sleep hook asks for the frame, so however many handlers ran in a pass
 * of the loop, one frame follows, coalesced and rate-capped. */
#ifndef TUI_FRAME_H
#define TUI_FRAME_H

#include "tui/state.h"

/* Starts the render timer and the before-sleep hook on app->loop; stop closes both. */
void tui_frame_start(tui_app *app);
void tui_frame_stop(tui_app *app);
/* Draws a frame now (the render timer calls this; benchmarks too): the whole screen when
 * app->full or app->full_redraw is set or an overlay is open, else only the dirty rows of the
 * visible terminals. */
void tui_frame_render(tui_app *app);

#endif
