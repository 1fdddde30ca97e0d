/* The dashboard application: state shared by the event loop (app.c), the views and the
 * overlays. The UI thread never calls a provider: refreshes and actions run on libuv's work
 * queue and report back on the loop. */
#ifndef TUI_APP_H
#define TUI_APP_H

#include <stdbool.h>
#include <uv.h>

#include "cli/cli.h"
#include "core/journal.h"
#include "core/sampler.h"
#include "tui/model.h"
#include "tui/panes.h"
#include "tui/theme.h"

typedef enum tui_view { VIEW_LIST, VIEW_DETAIL, VIEW_EVENTS } tui_view;

typedef enum tui_overlay {
    OV_NONE,
    OV_HELP,
    OV_FILTER,   /* "/" input on the bottom line */
    OV_PALETTE,  /* ":" input on the bottom line */
    OV_CONFIRM,  /* delete confirmation */
    OV_FORM,     /* create form */
    OV_OUTPUT,   /* output of a palette command */
    OV_SEARCH,   /* "/" search in a terminal's scrollback */
    OV_SESSIONS, /* which detached session t attaches to */
} tui_overlay;

#define TUI_FORM_FIELDS 7

typedef struct tui_form {
    char values[TUI_FORM_FIELDS][128];
    int field; /* focused field; TUI_FORM_FIELDS = the Create button */
} tui_form;

typedef struct tui_app {
    uv_loop_t *loop;
    uv_timer_t tick, render, spin;
    uv_poll_t stdin_poll;
    uv_signal_t winch, term;
    sm_cli *cli;
    char *context;         /* current provider context */
    sm_provider *provider; /* used by refresh jobs only */
    sm_sampler *sampler;
    sm_journal_follower *follower;
    /* providers retired by :ctx: a refresh, a terminal being opened or a terminal may still
     * use one, so they live until the dashboard ends */
    sm_provider **retired;
    sm_sampler **retired_samplers;
    size_t nretired;
    tui_model model;
    tui_theme theme;
    tui_color_tier tier;
    tui_view view;
    tui_overlay overlay;
    double interval;      /* seconds between refreshes */
    int jobs;             /* action jobs in flight */
    int reads;            /* refresh and journal jobs in flight, of any context */
    bool refreshing;      /* a refresh of the current context runs */
    bool refresh_again;   /* a refresh was asked for while one ran */
    bool journal_reading; /* the journal is being read (independently of any provider) */
    bool journal_again;
    mmask_t mousemask; /* what the outer terminal reports (0 until set) */
    double click_at;   /* the last press on the dashboard side, for double clicks */
    int click_y;
    double refresh_started;
    int spinner;
    bool quit;
    bool full_redraw;
    /* bottom-line input (filter, palette) */
    char input[256];
    size_t input_len;
    char filter_before[128];
    char history[16][256];
    int nhistory, history_pos;
    /* status line */
    char status[256];
    bool status_error;
    double status_until;
    /* confirm dialog: copies of the ids (a refresh frees the model's) */
    char **confirm_ids;
    size_t confirm_n;
    sm_pty_session_info *pick; /* OV_SESSIONS: the detached sessions to choose from */
    size_t npick, pick_sel;
    char pick_sandbox[72];
    tui_form form;
    /* output popup */
    char *output;
    char output_title[128];
    int output_scroll;
    /* events view */
    size_t ev_selected, ev_scroll;
    int rows, cols;
    /* embedded terminals */
    tui_pane *panes[TUI_MAX_PANES];
    int npanes;
    int focus;    /* pane index with the keyboard, -1 = the dashboard view */
    int shown;    /* pane shown in the terminal area, -1 = none */
    bool split;   /* the dashboard (or pane `other`) beside the shown pane */
    int other;    /* left side of the split: -1 = the dashboard view, else a pane */
    bool prefix;  /* Ctrl-b was pressed */
    bool pasting; /* inside a bracketed paste from the outer terminal */
    char *paste;
    size_t paste_len;
    bool full;         /* the next frame must be drawn whole */
    size_t term_bytes; /* terminal output drawn by the next frame (a stream when large) */
    double last_frame; /* monotonic time of the last frame */
    tui_color_tier term_tier;
} tui_app;

#define TUI_PREFIX_KEY 2 /* Ctrl-b */

/* Layout: header lines at the top, one footer line at the bottom. */
#define TUI_HEADER_LINES 2

void tui_app_dirty(tui_app *app);
/* Only terminal rows changed: a cheap frame that redraws dirty rows of visible panes. */
void tui_app_term_dirty(tui_app *app);
/* Draws a frame now (the render timer calls this; benchmarks too): the whole screen when
 * app->full or app->full_redraw is set, else only the dirty rows of the visible terminals. */
void tui_app_render(tui_app *app);
void tui_app_status(tui_app *app, bool error, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Runs a CLI command (argv[0] is the verb) on the work queue in the current context; its
 * output goes to the status line (one line) or the output popup. */
void tui_app_run_command(tui_app *app, int argc, char **argv, const char *title);
/* Parses and runs a palette line (":create --memory-mib 64", ":ctx NAME", ":q"). */
void tui_app_palette(tui_app *app, const char *line);
/* Switches the provider context; the next refresh shows its sandboxes. */
void tui_app_switch_context(tui_app *app, const char *name);

/* Views: draw into rows [top, top + height); key handlers return true when they used the key. */
void tui_list_draw(tui_app *app, int top, int height);
bool tui_list_key(tui_app *app, int key);
void tui_list_click(tui_app *app, int y, int top);
void tui_detail_draw(tui_app *app, int top, int height);
bool tui_detail_key(tui_app *app, int key);
void tui_events_draw(tui_app *app, int top, int height);
bool tui_events_key(tui_app *app, int key);
void tui_events_click(tui_app *app, int y, int top);

/* Overlays. */
void tui_help_draw(tui_app *app);
void tui_confirm_open(tui_app *app);
void tui_confirm_close(tui_app *app);
void tui_confirm_draw(tui_app *app);
bool tui_confirm_key(tui_app *app, int key);
void tui_sessions_draw(tui_app *app);
bool tui_sessions_key(tui_app *app, int key);
void tui_form_open(tui_app *app);
void tui_form_draw(tui_app *app);
bool tui_form_key(tui_app *app, wint_t ch, bool is_key);
void tui_output_draw(tui_app *app);
bool tui_output_key(tui_app *app, int key);
/* Bottom-line input for "/" and ":". */
void tui_prompt_open(tui_app *app, tui_overlay which);
void tui_prompt_draw(tui_app *app);
bool tui_prompt_key(tui_app *app, wint_t ch, bool is_key);

#endif
