/* The dashboard's state: one struct shared by the loop, the jobs, the frame, the input, the
 * views and the panes. Everything here is read and written on the UI thread only. Code that
 * changes what the screen shows sets a dirty flag (tui_dirty, tui_dirty_rows) and never draws
 * or schedules a frame itself: the loop's before-sleep hook (frame.c) does that once. */
#ifndef TUI_STATE_H
#define TUI_STATE_H

#include <curses.h>
#include <stdbool.h>
#include <uv.h>

#include "core/journal.h"
#include "core/provider.h"
#include "core/sampler.h"
#include "tui/model.h"
#include "tui/theme.h"
#include "tui/views/logbuf.h"

typedef struct sm_cli sm_cli;
typedef struct tui_pane tui_pane;

typedef enum tui_view { VIEW_LIST, VIEW_DETAIL, VIEW_EVENTS, VIEW_LOGS } tui_view;

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
#define TUI_MAX_PANES   7 /* Ctrl-b 3..9 reaches each (1 and 2 are the list and the events) */
#define TUI_PREFIX_KEY  2 /* Ctrl-b */
/* Layout: header lines at the top, one footer line at the bottom. */
#define TUI_HEADER_LINES 2
/* A refresh slower than this shows a spinner in the header. */
#define TUI_SLOW_REFRESH_S 0.3

typedef struct tui_form {
    char values[TUI_FORM_FIELDS][128];
    int field; /* focused field; TUI_FORM_FIELDS = the Create button */
} tui_form;

/* The logs view (views/logs.c): one sandbox's kept output, read by jobs (tui/jobs.c). */
typedef struct tui_logs {
    char id[72], provider[32];
    tui_logbuf buf;
    tui_logcursor cur;
    unsigned gen; /* bumped at each open: a read begun for an earlier one is dropped */
    bool reading, again, loaded;
    bool follow; /* pinned to the end: new output shows as it is kept */
    bool wrap;
    size_t top;    /* the first line shown when not following */
    int jump_exec; /* once read: show this exec's section first (0: none) */
    tui_view back; /* where Esc goes */
    char search[128];
    long match; /* the line of the current match, -1: none */
} tui_logs;

typedef struct tui_app {
    uv_loop_t *loop;
    uv_timer_t tick, render, spin;
    uv_prepare_t before_sleep;
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
    bool quit_asked;  /* "quit? (y/n)" is on the status line: the next key answers */
    bool full_redraw; /* the next frame repaints the outer terminal from scratch (Ctrl-L) */
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
    char ev_key[320]; /* the selected event, held there while new events arrive */
    cJSON *ev_paused; /* the feed as it was when paused (s); NULL while live */
    /* the events view's text, formatted once per event as events arrive (views/events.c):
     * ev_gen moves whenever the feed may have changed (a journal read, :ctx, s) */
    unsigned ev_gen, ev_cache_gen, ev_vis_gen;
    const cJSON *ev_cache_feed;
    struct tui_evline *ev_lines;
    size_t ev_nlines;
    size_t *ev_vis, ev_nvis; /* the lines the filter lets through (indexes into ev_lines) */
    char ev_vis_filter[128];
    tui_logs logs;
    int rows, cols;
    /* embedded terminals (tui/panes/) */
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
    /* what the next frame must draw: the whole screen, or only the dirty rows of the visible
     * terminals (each terminal model knows which of its rows changed) */
    bool full;
    bool rows_dirty;
    size_t term_bytes; /* terminal output drawn by the next frame (a stream when large) */
    double last_frame; /* monotonic time of the last frame */
    tui_color_tier term_tier;
} tui_app;

/* The whole frame changed. */
static inline void tui_dirty(tui_app *app)
{
    app->full = true;
}

/* Only rows of visible terminals changed: the next frame may redraw just those. */
static inline void tui_dirty_rows(tui_app *app)
{
    app->rows_dirty = true;
}

/* The pane with the keyboard, or NULL when the dashboard has it. */
static inline tui_pane *tui_focused(const tui_app *app)
{
    return app->focus >= 0 && app->focus < app->npanes ? app->panes[app->focus] : NULL;
}

/* A one-line message in the footer for a few seconds (longer for an error). */
void tui_status(tui_app *app, bool error, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
