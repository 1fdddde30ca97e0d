/* Input on the UI thread: stdin is read whole on each wakeup; each key goes to the open
 * overlay, the Ctrl-b prefix, the focused terminal (its scroll mode, or its program) or the
 * dashboard, the last three through the key tables. The mouse selects rows, tabs and terminals. */
#include "tui/input.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "core/util.h"
#include "tui/keys.h"
#include "tui/panes/panes.h"
#include "tui/views/views.h"

#define KEY_PASTE_START (KEY_MAX + 1)
#define KEY_PASTE_END   (KEY_MAX + 2)

void tui_input_resize(tui_app *app)
{
    struct winsize ws;
    if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 && ws.ws_col > 0)
        resize_term(ws.ws_row, ws.ws_col);
    app->full_redraw = true;
    tui_dirty(app);
}

/* The mouse events asked of the outer terminal: every button and the wheel, and motion too
 * while the focused terminal's program tracks drags or moves (its mouse mode 2 or 3). */
void tui_input_mousemask(tui_app *app)
{
    mmask_t want = ALL_MOUSE_EVENTS;
    tui_pane *f = tui_focused(app);
    if (f && !f->exited && tui_term_mouse_mode(f->term) >= 2)
        want |= REPORT_MOUSE_POSITION;
    if (want != app->mousemask) {
        mousemask(want, NULL);
        app->mousemask = want;
    }
}

static void handle_mouse(tui_app *app)
{
    MEVENT ev;
    if (getmouse(&ev) != OK || app->overlay != OV_NONE)
        return;
    for (int i = 0; i < app->npanes; i++) { /* a terminal gets what happens over it */
        tui_rect r = app->panes[i]->rect;
        if (r.h > 0 && ev.y >= r.y && ev.y < r.y + r.h && ev.x >= r.x && ev.x < r.x + r.w) {
            tui_panes_mouse(app, ev.y, ev.x, ev.bstate);
            return;
        }
    }
    bool wheel_up = ev.bstate & BUTTON4_PRESSED, wheel_down = ev.bstate & BUTTON5_PRESSED;
    if (wheel_up || wheel_down) {
        if (app->view == VIEW_EVENTS)
            tui_events_move(app, wheel_up ? -1 : 1);
        else
            tui_list_move(app, wheel_up ? -1 : 1);
        return;
    }
    if (!(ev.bstate & BUTTON1_PRESSED))
        return;
    /* ncurses resolves no clicks (mouseinterval 0, so presses reach terminals at once): a second
     * press on the same line within 0.4 s is a double click */
    double now = sm_now_mono();
    bool dbl = now - app->click_at < 0.4 && ev.y == app->click_y;
    app->click_at = dbl ? 0 : now;
    app->click_y = ev.y;
    if (ev.y == 1) { /* the tab line: find the tab under the pointer */
        char tab[128];
        snprintf(tab, sizeof tab, " 1 Sandboxes (%zu) ", app->model.nrows);
        int x = (int)strlen(tab) + 1;
        int hit = ev.x < x ? 0 : -1;
        snprintf(tab, sizeof tab, " 2 Events (%d) ", cJSON_GetArraySize(app->model.events));
        x += (int)strlen(tab) + 1;
        if (hit < 0 && ev.x < x)
            hit = 1;
        for (int i = 0; hit < 0 && i < app->npanes; i++) {
            char label[96];
            tui_pane_tab(app->panes[i], label, sizeof label);
            snprintf(tab, sizeof tab, " %d %s ", i + 3, label);
            x += (int)strlen(tab) + 1;
            if (ev.x < x)
                hit = i + 2;
        }
        if (hit == 0 || hit == 1) {
            app->focus = -1;
            app->view = hit == 0 ? VIEW_LIST : VIEW_EVENTS;
            if (!app->split)
                app->shown = -1;
        } else if (hit >= 2) {
            app->focus = app->shown = hit - 2;
        }
    } else if (ev.y >= TUI_HEADER_LINES && ev.y < app->rows - 1) {
        app->focus = -1; /* a click on the dashboard side takes the keyboard there */
        if (app->view == VIEW_LIST) {
            tui_list_click(app, ev.y, TUI_HEADER_LINES);
            if (dbl)
                app->view = VIEW_DETAIL;
        } else if (app->view == VIEW_EVENTS) {
            tui_events_click(app, ev.y, TUI_HEADER_LINES);
        }
    }
}

static void handle_key(tui_app *app, wint_t ch, bool is_key)
{
    int key = is_key ? (int)ch : (ch < 0x80 ? (int)ch : -1);
    if (is_key && ch == KEY_RESIZE) {
        tui_input_resize(app);
        return;
    }
    if (is_key && ch == KEY_MOUSE) {
        handle_mouse(app);
        return;
    }
    if (is_key && ch == KEY_PASTE_START) {
        app->pasting = true;
        app->paste_len = 0;
        return;
    }
    if (is_key && ch == KEY_PASTE_END) {
        app->pasting = false;
        if (app->focus >= 0 && app->focus < app->npanes && !app->panes[app->focus]->exited)
            tui_term_paste(app->panes[app->focus]->term, app->paste ? app->paste : "",
                           app->paste_len);
        else if (app->overlay == OV_FILTER || app->overlay == OV_PALETTE)
            for (size_t i = 0; i < app->paste_len; i++)
                if ((unsigned char)app->paste[i] >= 32)
                    tui_prompt_key(app, (unsigned char)app->paste[i], false);
        return;
    }
    if (app->pasting) {
        char mb[8];
        int n = is_key ? 0 : wctomb(mb, (wchar_t)ch);
        if (n > 0) {
            app->paste = xrealloc(app->paste, app->paste_len + (size_t)n + 1);
            memcpy(app->paste + app->paste_len, mb, (size_t)n);
            app->paste_len += (size_t)n;
        }
        return;
    }
    if (app->quit_asked) {
        tui_keys_answer_quit(app, ch, is_key);
        return;
    }
    switch (app->overlay) {
    case OV_FILTER:
    case OV_SEARCH:
    case OV_PALETTE: tui_prompt_key(app, ch, is_key); return;
    case OV_FORM:
        if (!tui_keys_run(&tui_keys_form, app, key))
            tui_form_type(app, ch, is_key);
        return;
    case OV_CONFIRM: tui_keys_run(&tui_keys_confirm, app, key); return;
    case OV_SESSIONS: tui_keys_run(&tui_keys_sessions, app, key); return;
    case OV_OUTPUT: tui_keys_run(&tui_keys_output, app, key); return;
    case OV_HELP:
        app->overlay = OV_NONE; /* any key closes help */
        return;
    default: break;
    }
    if (app->prefix) {
        app->prefix = false;
        if (!tui_keys_run(&tui_keys_prefix, app, key))
            tui_status(app, true, "Ctrl-b %s: no such command (Ctrl-b ? for help)",
                       is_key ? keyname((int)ch) : (char[]){(char)(ch < 128 ? ch : '?'), 0});
        return;
    }
    if (!is_key && ch == TUI_PREFIX_KEY) { /* the prefix in every mode */
        app->prefix = true;
        return;
    }
    tui_pane *p = tui_focused(app);
    if (!p) {
        tui_keys_run(&tui_keys_dashboard, app, key);
    } else if (p->scroll) {
        tui_keys_run(&tui_keys_scroll, app, key);
    } else if (p->exited) {
        return;
    } else if (is_key && ch == KEY_PPAGE && !tui_term_altscreen(p->term)) {
        /* PgUp at a shell prompt reads the scrollback, as in most terminals */
        tui_scroll_enter(p);
        tui_keys_run(&tui_keys_scroll, app, KEY_PPAGE);
    } else {
        tui_panes_input(p, ch, is_key);
    }
}

static void on_input(uv_poll_t *h, int status, int events)
{
    tui_app *app = h->data;
    wint_t ch;
    int r;
    bool dashboard = false;
    while ((r = get_wch(&ch)) != ERR) {
        /* Keys typed into a terminal need no repaint of their own: the program's echo arrives
         * as output and is drawn as soon as it does. Everything else repaints the frame. */
        dashboard |= app->quit_asked || !(app->focus >= 0 && app->focus < app->npanes &&
                                          !app->prefix && app->overlay == OV_NONE && !app->pasting);
        handle_key(app, ch, r == KEY_CODE_YES);
        if (app->quit)
            break;
    }
    if (app->quit)
        uv_stop(app->loop);
    if (dashboard)
        tui_dirty(app);
}

void tui_input_start(tui_app *app)
{
    uv_poll_init(app->loop, &app->stdin_poll, STDIN_FILENO);
    app->stdin_poll.data = app;
    uv_poll_start(&app->stdin_poll, UV_READABLE, on_input);
}

void tui_input_stop(tui_app *app)
{
    uv_poll_stop(&app->stdin_poll);
    uv_close((uv_handle_t *)&app->stdin_poll, NULL);
}

void tui_input_define_keys(void)
{
    define_key("\033[200~", KEY_PASTE_START);
    define_key("\033[201~", KEY_PASTE_END);
}
