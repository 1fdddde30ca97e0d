/* The dashboard's views (list, detail, events) and the overlays over them (confirm, sessions,
 * create form, command output, the bottom-line prompt). Views draw into the rows they are given
 * and change the state; they set dirty flags and never draw on their own. Which key runs which
 * of these is in the key tables: tui/keys.c, and each dialog's beside it in overlays.c. */
#ifndef TUI_VIEWS_H
#define TUI_VIEWS_H

#include <stdbool.h>
#include <wchar.h>

#include "tui/keymap.h"
#include "tui/state.h"

/* ---- list.c: the sandbox list; list_move/jump/page move the selection in detail too ---- */
void tui_list_draw(tui_app *app, int top, int height);
void tui_list_click(tui_app *app, int y, int top);
void tui_list_move(tui_app *app, int delta);
void tui_list_page(tui_app *app, int dir);
/* To the first row (end false) or the last. */
void tui_list_jump(tui_app *app, bool end);
/* The selected sandbox's details. */
void tui_list_open(tui_app *app);
/* The next sort column, or the same column reversed. */
void tui_list_sort(tui_app *app, bool reverse);
void tui_list_mark(tui_app *app);
/* Marks every visible row, or clears the marks when all are marked. */
void tui_list_mark_all(tui_app *app);
/* R: rows grouped by run under a header with its counts / one list again. */
void tui_list_group(tui_app *app);

/* ---- detail.c ---- */
void tui_detail_draw(tui_app *app, int top, int height);

/* ---- events.c ---- */
void tui_events_draw(tui_app *app, int top, int height);
/* Frees the view's cache of formatted events (at the dashboard's end). */
void tui_events_free(tui_app *app);
void tui_events_click(tui_app *app, int y, int top);
void tui_events_move(tui_app *app, int delta);
void tui_events_page(tui_app *app, int dir);
void tui_events_top(tui_app *app);
/* s: holds the feed as it is (new events are still collected) / shows it live again. */
void tui_events_pause(tui_app *app);
/* The selected event's sandbox, in the detail view. */
void tui_events_open(tui_app *app);

/* l on an exec event: that command's output in the logs view (else the sandbox's logs). */
void tui_events_logs(tui_app *app);

/* ---- logs.c: one sandbox's kept output ---- */
/* Opens the logs of a sandbox; exec > 0 shows that exec's output first (not following). */
void tui_logs_open(tui_app *app, const char *provider, const char *id, int exec);
void tui_logs_close(tui_app *app);
/* A read was appended to app->logs.buf (tui/jobs.c). */
void tui_logs_arrived(tui_app *app);
void tui_logs_draw(tui_app *app, int top, int height);
/* Lines down (> 0) or up; up leaves follow mode. */
void tui_logs_scroll(tui_app *app, long delta);
/* To the first line (end false, leaving follow mode) or the end, following. */
void tui_logs_jump(tui_app *app, bool end);
void tui_logs_toggle_follow(tui_app *app);
void tui_logs_toggle_wrap(tui_app *app);
/* "/" in the logs view: the first match from where the view is. */
void tui_logs_search(tui_app *app, const char *pattern);
/* n (dir 1) / N (-1): the next / previous match. */
void tui_logs_next(tui_app *app, int dir);

/* ---- overlays.c: each dialog with its key table (hints drawn from it) ---- */
extern const tui_keymap tui_keys_confirm, tui_keys_sessions, tui_keys_form, tui_keys_output;
void tui_confirm_open(tui_app *app);
void tui_confirm_close(tui_app *app);
void tui_confirm_draw(tui_app *app);
void tui_sessions_draw(tui_app *app);
void tui_form_open(tui_app *app);
void tui_form_draw(tui_app *app);
/* A key no row of the form's table binds: typed into the focused field. */
void tui_form_type(tui_app *app, wint_t ch, bool is_key);
void tui_output_draw(tui_app *app);
/* Bottom-line input for "/" (filter, or search in a terminal) and ":". */
void tui_prompt_open(tui_app *app, tui_overlay which);
void tui_prompt_draw(tui_app *app);
bool tui_prompt_key(tui_app *app, wint_t ch, bool is_key);

#endif
