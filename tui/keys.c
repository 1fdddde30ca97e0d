/* The dashboard's key tables and what each key does. The actions are small: they call the views,
 * the panes and the jobs, which own the behaviour; the rows say which keys reach them, and with
 * which words the footer and the help overlay show them. */
#include "tui/keys.h"

#include <curses.h>

#include "core/util.h"
#include "tui/jobs.h"
#include "tui/panes/panes.h"
#include "tui/views/views.h"

/* ---- the dashboard's views ------------------------------------------------------------- */

static void act_down(tui_app *app, int key)
{
    if (app->view == VIEW_LOGS) {
        tui_logs_scroll(app, 1);
        return;
    }
    if (app->view == VIEW_EVENTS)
        tui_events_move(app, 1);
    else
        tui_list_move(app, 1);
}

static void act_up(tui_app *app, int key)
{
    if (app->view == VIEW_LOGS) {
        tui_logs_scroll(app, -1);
        return;
    }
    if (app->view == VIEW_EVENTS)
        tui_events_move(app, -1);
    else
        tui_list_move(app, -1);
}

static void act_page_down(tui_app *app, int key)
{
    if (app->view == VIEW_LOGS) {
        tui_logs_scroll(app, app->rows > 6 ? app->rows - 5 : 1);
        return;
    }
    if (app->view == VIEW_EVENTS)
        tui_events_page(app, 1);
    else
        tui_list_page(app, 1);
}

static void act_page_up(tui_app *app, int key)
{
    if (app->view == VIEW_LOGS) {
        tui_logs_scroll(app, -(app->rows > 6 ? app->rows - 5 : 1));
        return;
    }
    if (app->view == VIEW_EVENTS)
        tui_events_page(app, -1);
    else
        tui_list_page(app, -1);
}

static void act_top(tui_app *app, int key)
{
    if (app->view == VIEW_LOGS) {
        tui_logs_jump(app, false);
        return;
    }
    if (app->view == VIEW_EVENTS)
        tui_events_top(app);
    else
        tui_list_jump(app, false);
}

static void act_bottom(tui_app *app, int key)
{
    if (app->view == VIEW_LOGS)
        tui_logs_jump(app, true);
    else
        tui_list_jump(app, true);
}

static void act_open(tui_app *app, int key)
{
    if (app->view == VIEW_EVENTS)
        tui_events_open(app);
    else
        tui_list_open(app);
}

/* Back to the list; on the list (or the events), Esc first clears the filter. */
static void act_back(tui_app *app, int key)
{
    if (app->view == VIEW_LOGS)
        tui_logs_close(app);
    else if (app->view != VIEW_DETAIL && app->model.filter[0]) {
        app->model.filter[0] = '\0';
        tui_model_rebuild(&app->model);
    } else {
        app->view = VIEW_LIST;
    }
}

static void act_filter(tui_app *app, int key)
{
    tui_prompt_open(app, OV_FILTER);
}

static void act_sort(tui_app *app, int key)
{
    tui_list_sort(app, false);
}

static void act_sort_reverse(tui_app *app, int key)
{
    tui_list_sort(app, true);
}

static void act_group(tui_app *app, int key)
{
    tui_list_group(app);
}

static void act_mark(tui_app *app, int key)
{
    tui_list_mark(app);
}

static void act_mark_all(tui_app *app, int key)
{
    tui_list_mark_all(app);
}

static void act_delete(tui_app *app, int key)
{
    tui_confirm_open(app);
}

static void act_new(tui_app *app, int key)
{
    tui_form_open(app);
}

static void act_events(tui_app *app, int key)
{
    app->view = app->view == VIEW_EVENTS && key == 'e' ? VIEW_LIST : VIEW_EVENTS;
    tui_jobs_refresh(app);
}

static void act_events_pause(tui_app *app, int key)
{
    tui_events_pause(app);
}

/* l: the selected sandbox's kept output; on an exec event, that command's; in the logs, back. */
static void act_logs(tui_app *app, int key)
{
    if (app->view == VIEW_LOGS) {
        tui_logs_close(app);
        return;
    }
    if (app->view == VIEW_EVENTS) {
        tui_events_logs(app);
        return;
    }
    tui_row *r = tui_model_selected(&app->model);
    if (r)
        tui_logs_open(app, r->info->provider, r->info->id, 0);
}

static void act_logs_follow(tui_app *app, int key)
{
    tui_logs_toggle_follow(app);
}

static void act_logs_wrap(tui_app *app, int key)
{
    tui_logs_toggle_wrap(app);
}

static void act_logs_search(tui_app *app, int key)
{
    tui_prompt_open(app, OV_SEARCH);
}

static void act_logs_next(tui_app *app, int key)
{
    tui_logs_next(app, key == 'N' ? -1 : 1);
}

static void act_list(tui_app *app, int key)
{
    app->view = VIEW_LIST;
}

static void act_palette(tui_app *app, int key)
{
    tui_prompt_open(app, OV_PALETTE);
}

static void act_refresh(tui_app *app, int key)
{
    tui_jobs_refresh(app);
}

static void act_redraw(tui_app *app, int key)
{
    app->full_redraw = true;
}

/* T always starts a new session; t attaches to a detached one when there is one. */
static void act_terminal(tui_app *app, int key)
{
    tui_row *r = tui_model_selected(&app->model);
    bool pty = sm_provider_caps(app->provider) & SM_CAP_PTY;
    if (r && r->info->status == SM_STATUS_RUNNING && pty)
        tui_panes_open(app, r->info->id, key == 'T');
    else if (r)
        tui_status(app, true, "%s",
                   !pty ? "this provider has no terminals" : "the sandbox is not running");
}

static void act_help(tui_app *app, int key)
{
    app->overlay = OV_HELP;
}

/* With terminals open the dashboard asks first, on the status line, as tmux's kill-server
 * confirmation does: their sessions are detached, not ended, but the screens go. */
static void act_quit(tui_app *app, int key)
{
    int open = 0;
    for (int i = 0; i < app->npanes; i++)
        open += !app->panes[i]->exited;
    if (!open) {
        app->quit = true;
        return;
    }
    tui_status(app, false, "quit? %d terminal%s open (the sessions stay: t attaches again) (y/n)",
               open, open == 1 ? " is" : "s are");
    app->status_until = 0; /* until answered */
    app->quit_asked = true;
}

void tui_keys_answer_quit(tui_app *app, wint_t ch, bool is_key)
{
    app->quit_asked = false;
    app->status[0] = '\0';
    if (!is_key && (ch == 'y' || ch == 'Y'))
        app->quit = true;
    tui_dirty(app);
}

#define LE   (TUI_IN_LIST | TUI_IN_EVENTS)
#define LD   (TUI_IN_LIST | TUI_IN_DETAIL)
#define LEG  (TUI_IN_LIST | TUI_IN_EVENTS | TUI_IN_LOGS)
#define NOTL (TUI_IN_LIST | TUI_IN_DETAIL | TUI_IN_EVENTS)

/* In the order of the help overlay. */
static const tui_binding dashboard_rows[] = {
    {{'?'}, 0, act_help, "?", "help", 1, 0, NULL, NULL, NULL},
    {{'j', KEY_DOWN}, 0, act_down, NULL, NULL, 0, 0, "j k ↑ ↓", "move", NULL},
    {{'k', KEY_UP}, 0, act_up, NULL, NULL, 0, 0, NULL, NULL, NULL},
    {{KEY_NPAGE}, LEG, act_page_down, NULL, NULL, 0, 0, "PgUp PgDn g G", "page, top, bottom", NULL},
    {{6 /* Ctrl-F */}, TUI_IN_LIST, act_page_down, NULL, NULL, 0, 0, NULL, NULL, NULL},
    {{KEY_PPAGE}, LEG, act_page_up, NULL, NULL, 0, 0, NULL, NULL, NULL},
    {{'g', KEY_HOME}, LEG, act_top, NULL, NULL, 0, 0, NULL, NULL, NULL},
    {{'G', KEY_END}, TUI_IN_LIST | TUI_IN_LOGS, act_bottom, NULL, NULL, 0, 0, NULL, NULL, NULL},
    {{'\r', '\n', KEY_ENTER},
     LE,
     act_open,
     NULL,
     NULL,
     0,
     0,
     "Enter  l",
     "details / logs: f follow, w wrap, / n N search",
     NULL},
    {{27}, 0, act_back, NULL, NULL, 0, 0, "Esc", "back / clear the filter", NULL},
    {{'h', KEY_LEFT, KEY_BACKSPACE},
     TUI_IN_DETAIL | TUI_IN_LOGS,
     act_back,
     NULL,
     NULL,
     0,
     0,
     NULL,
     NULL,
     NULL},
    {{'/'}, TUI_IN_LOGS, act_logs_search, "/", "search", 2, 0, NULL, NULL, NULL},
    {{'/'},
     NOTL,
     act_filter,
     "/",
     "filter",
     2,
     0,
     "/",
     "filter: id, k=v, run=ID, user=U, status, failure kind",
     NULL},
    {{'s'},
     TUI_IN_LIST,
     act_sort,
     "s",
     "sort",
     3,
     0,
     "s  S  R",
     "sort / reverse / group by run; in events s pauses",
     NULL},
    {{'S'}, TUI_IN_LIST, act_sort_reverse, NULL, NULL, 0, 0, NULL, NULL, NULL},
    {{'R'}, TUI_IN_LIST, act_group, NULL, NULL, 0, 0, NULL, NULL, NULL}, /* on the sort row's line
                                                                          */
    /* k9s's key for stopping a live feed; the events view sorts by time only */
    {{'s'},
     TUI_IN_EVENTS,
     act_events_pause,
     NULL,
     NULL,
     0,
     0,
     NULL,
     NULL, /* on the sort row's help line: the help fits 80x24 */
     NULL},
    {{' '}, TUI_IN_LIST, act_mark, "space", "mark", 4, 0, "space  a", "mark / mark all", NULL},
    {{'a'}, TUI_IN_LIST, act_mark_all, NULL, NULL, 0, 0, NULL, NULL, NULL},
    {{'d'},
     LD,
     act_delete,
     "d",
     "delete",
     5,
     0,
     "d",
     "delete marked (or the selected) sandboxes",
     NULL},
    {{KEY_DC}, TUI_IN_LIST, act_delete, NULL, NULL, 0, 0, NULL, NULL, NULL},
    {{'n', 'N'}, TUI_IN_LOGS, act_logs_next, "n/N", "next", 3, 0, NULL, NULL, NULL},
    {{'f'}, TUI_IN_LOGS, act_logs_follow, "f", "follow", 4, 0, NULL, NULL, NULL},
    {{'w'}, TUI_IN_LOGS, act_logs_wrap, "w", "wrap", 5, 0, NULL, NULL, NULL},
    {{'l'}, 0, act_logs, "l", "logs", 7, 0, NULL, NULL, NULL}, /* on the Enter row's help line */
    {{'n'}, NOTL, act_new, "n", "new", 6, 0, "n", "create a sandbox", NULL},
    {{'e', '2'},
     0,
     act_events,
     "e",
     "events",
     8,
     0,
     "e  1  2",
     "events view / sandboxes / events",
     NULL},
    {{'1'}, 0, act_list, NULL, NULL, 0, 0, NULL, NULL, NULL},
    {{':'},
     0,
     act_palette,
     ":",
     "command",
     9,
     0,
     ":",
     "command: any CLI verb, e.g. :create --memory-mib 64",
     NULL},
    {{0}, 0, NULL, NULL, NULL, 0, 0, ":ctx NAME", "switch provider context", NULL},
    {{'r'}, 0, act_refresh, NULL, NULL, 0, 0, "r  Ctrl-L", "refresh now / redraw", NULL},
    {{12 /* Ctrl-L */}, 0, act_redraw, NULL, NULL, 0, 0, NULL, NULL, NULL},
    {{0},
     0,
     NULL,
     NULL,
     NULL,
     0,
     0,
     "mouse",
     "click selects, double-click opens, wheel scrolls",
     NULL},
    {{'t', 'T'},
     LD,
     act_terminal,
     "t",
     "terminal",
     7,
     0,
     "t  T",
     "terminal into the sandbox (re-attaches a detached one) / a new one",
     NULL},
    {{0}, 0, NULL, NULL, NULL, 0, 0, NULL, NULL, &tui_keys_prefix},
    /* Ctrl-C: in raw mode it arrives as a key, not a SIGINT */
    {{'q', 3}, 0, act_quit, "q", "quit", 10, 0, "q", "quit", NULL},
};

/* ---- Ctrl-b then a key: terminals, tabs, the split ----------------------------------------- */

static void pfx_list(tui_app *app, int key)
{
    tui_panes_focus_view(app, VIEW_LIST);
}

static void pfx_events(tui_app *app, int key)
{
    tui_panes_focus_view(app, VIEW_EVENTS);
}

static void pfx_tab(tui_app *app, int key)
{
    if (key - '3' < app->npanes)
        tui_panes_focus(app, key - '3');
}

static void pfx_next(tui_app *app, int key)
{
    if (app->npanes)
        tui_panes_focus(app, app->focus < 0 ? 0 : (app->focus + 1) % app->npanes);
}

static void pfx_prev(tui_app *app, int key)
{
    if (app->npanes)
        tui_panes_focus(app, app->focus <= 0 ? app->npanes - 1 : app->focus - 1);
}

/* The keyboard to the dashboard's view, whichever it is. */
static void pfx_dashboard(tui_app *app, int key)
{
    app->focus = -1;
    if (!app->split)
        app->shown = -1;
}

static void pfx_split(tui_app *app, int key)
{
    tui_panes_toggle_split(app);
}

static void pfx_other(tui_app *app, int key)
{
    tui_panes_other_side(app);
}

static void pfx_scroll(tui_app *app, int key)
{
    tui_pane *p = tui_focused(app);
    if (p)
        tui_scroll_enter(p);
}

static void pfx_search(tui_app *app, int key)
{
    tui_pane *p = tui_focused(app);
    if (!p)
        return;
    if (!p->scroll)
        tui_scroll_enter(p);
    tui_prompt_open(app, OV_SEARCH);
}

static void pfx_record(tui_app *app, int key)
{
    tui_pane *p = tui_focused(app);
    if (p)
        tui_panes_record(app, p);
}

static void pfx_new(tui_app *app, int key)
{
    tui_pane *p = tui_focused(app);
    if (p)
        tui_panes_open(app, p->sandbox_id, true);
}

static void pfx_detach(tui_app *app, int key)
{
    tui_pane *p = tui_focused(app);
    if (!p)
        return;
    tui_status(app, false, "detached from session %s (t attaches again)", p->pty->session_id);
    tui_panes_close(app, app->focus, !p->exited);
}

static void pfx_close(tui_app *app, int key)
{
    if (tui_focused(app))
        tui_panes_close(app, app->focus, false);
}

/* Ctrl-b Ctrl-b sends one to the program. */
static void pfx_send_prefix(tui_app *app, int key)
{
    tui_pane *p = tui_focused(app);
    if (p && !p->exited)
        tui_panes_send(p, "\x02", 1);
}

static const tui_binding prefix_rows[] = {
    {{'1'},
     0,
     pfx_list,
     "1",
     "list",
     1,
     1,
     "Ctrl-b 1 2 3-9",
     "list / events / terminal tabs;  n p  next / previous",
     NULL},
    {{'2'}, 0, pfx_events, "2", "events", 2, 0, NULL, NULL, NULL},
    {{'3', '4', '5', '6', '7', '8', '9'}, 0, pfx_tab, "3-9", "terminals", 3, 0, NULL, NULL, NULL},
    {{'n'}, 0, pfx_next, "n/p", "next/prev", 4, 0, NULL, NULL, NULL},
    {{'p'}, 0, pfx_prev, NULL, NULL, 0, 0, NULL, NULL, NULL},
    {{'l', '0'}, 0, pfx_dashboard, NULL, NULL, 0, 0, NULL, NULL, NULL},
    {{'%', '"'},
     0,
     pfx_split,
     "%",
     "split",
     5,
     4,
     "Ctrl-b % o",
     "split beside the list (or a terminal) / other side",
     NULL},
    {{'o'}, 0, pfx_other, "o", "other side", 6, 0, NULL, NULL, NULL},
    {{'['},
     0,
     pfx_scroll,
     "[",
     "scroll",
     7,
     2,
     "Ctrl-b [ /",
     "scroll back / search it (n N next, v select, y copy)",
     NULL},
    {{'/'}, 0, pfx_search, "/", "search", 8, 3, NULL, NULL, NULL},
    {{'R'},
     0,
     pfx_record,
     "R",
     "record",
     9,
     7,
     "Ctrl-b R d x",
     "record to .cast / detach (keeps running) / close",
     NULL},
    {{'c'}, 0, pfx_new, "c", "new", 10, 0, NULL, NULL, NULL},
    {{'d'}, 0, pfx_detach, "d", "detach", 11, 5, NULL, NULL, NULL},
    {{'x'}, 0, pfx_close, "x", "close", 12, 6, NULL, NULL, NULL},
    {{TUI_PREFIX_KEY}, 0, pfx_send_prefix, NULL, NULL, 0, 0, NULL, NULL, NULL},
    {{'?'}, 0, act_help, "?", "help", 0, 8, NULL, NULL, NULL},
    {{':'}, 0, act_palette, NULL, NULL, 0, 0, NULL, NULL, NULL},
    {{'q'}, 0, act_quit, NULL, NULL, 0, 0, NULL, NULL, NULL},
};

/* ---- a terminal in scroll mode ----------------------------------------------------------------
 */

static void scr_up(tui_app *app, int key)
{
    tui_scroll_by(tui_focused(app), -1);
}

static void scr_down(tui_app *app, int key)
{
    tui_scroll_by(tui_focused(app), 1);
}

static void scr_page_up(tui_app *app, int key)
{
    tui_scroll_page(tui_focused(app), -1);
}

static void scr_page_down(tui_app *app, int key)
{
    tui_scroll_page(tui_focused(app), 1);
}

static void scr_top(tui_app *app, int key)
{
    tui_scroll_to(tui_focused(app), 0);
}

static void scr_bottom(tui_app *app, int key)
{
    tui_pane *p = tui_focused(app);
    tui_scroll_to(p, (long)tui_term_lines(p->term) - 1);
}

static void scr_search(tui_app *app, int key)
{
    tui_prompt_open(app, OV_SEARCH);
}

static void scr_next(tui_app *app, int key)
{
    tui_scroll_next(tui_focused(app), -1);
}

static void scr_prev(tui_app *app, int key)
{
    tui_scroll_next(tui_focused(app), 1);
}

static void scr_select(tui_app *app, int key)
{
    tui_scroll_select(tui_focused(app));
}

static void scr_copy(tui_app *app, int key)
{
    tui_scroll_copy(app, tui_focused(app));
}

static void scr_quit(tui_app *app, int key)
{
    tui_scroll_leave(tui_focused(app));
}

/* The scroll banner names the keys in this order; a name without a word is followed by one
 * space, a hint by two. */
static const tui_binding scroll_rows[] = {
    {{'k', KEY_UP}, 0, scr_up, "j/k", NULL, 1, 0, NULL, NULL, NULL},
    {{'j', KEY_DOWN}, 0, scr_down, NULL, NULL, 0, 0, NULL, NULL, NULL},
    {{KEY_PPAGE, 2}, 0, scr_page_up, "PgUp/PgDn", NULL, 2, 0, NULL, NULL, NULL},
    {{KEY_NPAGE, 6}, 0, scr_page_down, NULL, NULL, 0, 0, NULL, NULL, NULL},
    {{'g', KEY_HOME}, 0, scr_top, "g/G", NULL, 3, 0, NULL, NULL, NULL},
    {{'G', KEY_END}, 0, scr_bottom, NULL, NULL, 0, 0, NULL, NULL, NULL},
    {{'/'}, 0, scr_search, "/", "search", 4, 0, NULL, NULL, NULL},
    {{'n'}, 0, scr_next, "n/N", "next", 5, 0, NULL, NULL, NULL},
    {{'N'}, 0, scr_prev, NULL, NULL, 0, 0, NULL, NULL, NULL},
    {{'v', ' '}, 0, scr_select, "v", "select", 6, 0, NULL, NULL, NULL},
    {{'y', '\r', '\n'}, 0, scr_copy, "y", "copy", 7, 0, NULL, NULL, NULL},
    {{'q', 27}, 0, scr_quit, "q", "quit", 8, 0, NULL, NULL, NULL},
};

const tui_keymap tui_keys_dashboard = TUI_KEYMAP("dashboard", dashboard_rows, "  ", " ");
const tui_keymap tui_keys_prefix = TUI_KEYMAP("prefix", prefix_rows, "  ", " ");
const tui_keymap tui_keys_scroll = TUI_KEYMAP("scroll", scroll_rows, "  ", " ");
