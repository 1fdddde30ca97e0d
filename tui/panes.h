/* Embedded terminals in the dashboard: each pane is a PTY session of a sandbox drawn through a
 * terminal model. Panes are tabs (Ctrl-b then a number), can sit in a split beside the list or
 * each other, keep their state when hidden, and keep being drained while hidden. Scroll mode
 * (Ctrl-b [) pages through the scrollback, searches it (/) and copies lines (v, y) to a file and
 * the outer clipboard (OSC 52). Ctrl-b R records the pane to an asciicast file. */
#ifndef TUI_PANES_H
#define TUI_PANES_H

#include <stdbool.h>
#include <uv.h>
#include <wchar.h>

#include "core/cast.h"
#include "core/sandbox.h"
#include "tui/term/term.h"

typedef struct tui_app tui_app;

#define TUI_MAX_PANES 7 /* Ctrl-b 3..9 reaches each (1 and 2 are the list and the events) */

typedef struct tui_rect {
    int y, x, h, w;
} tui_rect;

typedef struct tui_pane {
    tui_app *app;
    tui_term *term;
    sm_sandbox *sbx;
    sm_pty *pty;
    uv_poll_t poll;
    bool polling;
    char sandbox_id[72];
    char label[64];
    bool exited;
    int exit_code;
    char failure[160];
    tui_rect rect; /* where it was drawn last */
    /* scroll mode */
    bool scroll;
    size_t top;
    long mark;     /* cursor line in scroll mode */
    long sel_from; /* selection anchor, -1 = none */
    char needle[128];
    sm_cast cast;
    char cast_path[512];
} tui_pane;

/* Opens a terminal into a sandbox (on the work queue): attaches to its newest detached session
 * when it has one and force_new is false, else starts the sandbox's shell. */
void tui_panes_open(tui_app *app, const char *sandbox_id, bool force_new);
/* Attaches to the given session of the sandbox ("" = as tui_panes_open; NULL = a new shell). */
void tui_panes_attach(tui_app *app, const char *sandbox_id, const char *session);
/* Lays out and draws the visible panes. */
void tui_panes_draw(tui_app *app, bool only_dirty);
/* Input while a pane has the focus (after the prefix handling). */
bool tui_panes_key(tui_app *app, wint_t ch, bool is_key);
/* Prefix commands (the key after Ctrl-b); returns false for keys it does not know. */
bool tui_panes_prefix(tui_app *app, wint_t ch, bool is_key);
void tui_panes_mouse(tui_app *app, int y, int x, unsigned long bstate);
void tui_panes_close(tui_app *app, int idx, bool detach);
/* Detaches every pane (sessions survive the dashboard). */
void tui_panes_shutdown(tui_app *app);
/* Runs a search from the prompt in the focused pane. */
void tui_panes_search(tui_app *app, const char *needle);
/* The body regions: where the dashboard view goes (h = 0 when hidden) and each pane. */
void tui_panes_layout(tui_app *app, tui_rect *dash);
/* A tab label for the header. */
void tui_pane_tab(const tui_pane *p, char *buf, size_t len);

#endif
