/* Embedded terminals in the dashboard: each pane is a PTY session of a sandbox drawn through a
 * terminal model. Panes are tabs (Ctrl-b then a number), can sit in a split beside the list or
 * each other, keep their state when hidden, and keep being drained while hidden. Three rooms:
 * sessions.c (opening, draining, recording, closing), layout.c (where panes go, drawing, tabs,
 * focus, the split, the mouse) and scroll.c (scroll mode: paging, search, copy). Which key does
 * what is in tui/keys.c; these functions are what the keys do. */
#ifndef TUI_PANES_H
#define TUI_PANES_H

#include <stdbool.h>
#include <uv.h>
#include <wchar.h>

#include "core/cast.h"
#include "core/sandbox.h"
#include "tui/state.h"
#include "tui/term/term.h"

typedef struct tui_rect {
    int y, x, h, w;
} tui_rect;

struct tui_pane {
    tui_app *app;
    tui_term *term;
    sm_sandbox *sbx;
    sm_pty *pty;
    uv_poll_t poll;
    bool polling;
    uv_timer_t pause; /* a background pane rests while the user types elsewhere */
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
};

/* ---- sessions.c ---- */

/* Opens a terminal into a sandbox (on the work queue): attaches to its newest detached session
 * when it has one and force_new is false, else starts the sandbox's shell. */
void tui_panes_open(tui_app *app, const char *sandbox_id, bool force_new);
/* Attaches to the given session of the sandbox ("" = as tui_panes_open; NULL = a new shell). */
void tui_panes_attach(tui_app *app, const char *sandbox_id, const char *session);
/* A key (or character) typed into the pane's program. */
void tui_panes_input(tui_pane *p, wint_t ch, bool is_key);
/* Bytes to the pane's program as they are. */
void tui_panes_send(tui_pane *p, const char *data, size_t len);
/* Starts recording the pane to an asciicast file, or stops and saves it. */
void tui_panes_record(tui_app *app, tui_pane *p);
void tui_panes_close(tui_app *app, int idx, bool detach);
/* Detaches every pane (sessions survive the dashboard). */
void tui_panes_shutdown(tui_app *app);

/* ---- layout.c ---- */

/* The body regions: where the dashboard view goes (h = 0 when hidden) and each pane. */
void tui_panes_layout(tui_app *app, tui_rect *dash);
/* Draws the visible panes (only their dirty rows when only_dirty); a pane in scroll mode names
 * scroll_hints (its keys) in its banner. */
void tui_panes_draw(tui_app *app, bool only_dirty, const char *scroll_hints);
/* The hardware cursor to the focused program's cursor (or hidden): last in every frame. */
void tui_panes_place_cursor(tui_app *app);
/* A tab label for the header. */
void tui_pane_tab(const tui_pane *p, char *buf, size_t len);
/* Gives the keyboard to pane idx (showing it), or to the dashboard's view (idx -1; the panes
 * stay shown only in a split). */
void tui_panes_focus(tui_app *app, int idx);
void tui_panes_focus_view(tui_app *app, tui_view view);
void tui_panes_toggle_split(tui_app *app);
void tui_panes_other_side(tui_app *app);
void tui_panes_mouse(tui_app *app, int y, int x, unsigned long bstate);
/* The outer terminal's own cursor shape again. */
void tui_panes_cursor_reset(void);

/* ---- scroll.c ---- */

void tui_scroll_enter(tui_pane *p);
void tui_scroll_leave(tui_pane *p);
/* Moves the scroll-mode cursor to a line, or by lines (clamped; the view follows). */
void tui_scroll_to(tui_pane *p, long line);
void tui_scroll_by(tui_pane *p, long lines);
/* One page (the pane's height less the banner) up (dir < 0) or down. */
void tui_scroll_page(tui_pane *p, int dir);
/* The next match of the last search, up (dir < 0, older) or down. */
void tui_scroll_next(tui_pane *p, int dir);
/* Starts or drops the selection at the cursor line. */
void tui_scroll_select(tui_pane *p);
/* Copies the selected lines (or the cursor line) to a file and the outer clipboard. */
void tui_scroll_copy(tui_app *app, tui_pane *p);
/* Runs a search from the prompt in the focused pane. */
void tui_panes_search(tui_app *app, const char *needle);

#endif
