/* Where the panes go and how they are drawn: the body split between the dashboard's view and
 * the shown pane, the terminal inside following its pane's size, tabs, the cursor of the focused
 * program, focus and the split, and the mouse over a terminal. */
#include "tui/panes/panes.h"

#include <curses.h>
#include <stdio.h>
#include <unistd.h>

#include "tui/term/term_render.h"
#include "tui/widgets/draw.h"

/* ---- layout and drawing ------------------------------------------------------------------ */

/* What has the keyboard is shown, and only that or the other side of the split: without a
 * split the focused pane (or the dashboard's view) fills the body; in a split the focused
 * pane is one of its two sides, and the dashboard with the keyboard is the left one. */
static void sync_focus(tui_app *app)
{
    if (app->focus >= app->npanes)
        app->focus = -1;
    if (!app->split) {
        app->shown = app->focus;
    } else if (app->focus < 0) {
        app->other = -1;
    } else if (app->focus != app->shown && app->focus != app->other) {
        app->other = app->shown;
        app->shown = app->focus;
    }
}

void tui_panes_layout(tui_app *app, tui_rect *dash)
{
    sync_focus(app);
    int top = TUI_HEADER_LINES, h = app->rows - TUI_HEADER_LINES - 1;
    *dash = (tui_rect){top, 0, h, app->cols};
    for (int i = 0; i < app->npanes; i++)
        app->panes[i]->rect = (tui_rect){0, 0, 0, 0};
    if (app->shown < 0 || app->shown >= app->npanes) {
        app->shown = -1;
        return;
    }
    tui_rect right = {top, 0, h, app->cols};
    if (app->split) {
        int lw = app->cols * 2 / 5;
        right = (tui_rect){top, lw + 1, h, app->cols - lw - 1};
        tui_rect left = {top, 0, h, lw};
        if (app->other >= 0 && app->other < app->npanes && app->other != app->shown) {
            app->panes[app->other]->rect = left;
            *dash = (tui_rect){top, 0, 0, 0};
        } else {
            *dash = left;
        }
    } else {
        *dash = (tui_rect){top, 0, 0, 0};
    }
    app->panes[app->shown]->rect = right;
    /* the terminal inside follows its pane's size (the program sees it via TIOCSWINSZ) */
    for (int i = 0; i < app->npanes; i++) {
        tui_pane *p = app->panes[i];
        int rows, cols;
        if (p->rect.h <= 0)
            continue;
        tui_term_size(p->term, &rows, &cols);
        if (rows != p->rect.h || cols != p->rect.w) {
            tui_term_resize(p->term, p->rect.h, p->rect.w);
            if (!p->exited)
                sm_pty_resize(p->pty, p->rect.h, p->rect.w, NULL);
            sm_cast_resize(&p->cast, p->rect.w, p->rect.h);
        }
    }
}

void tui_pane_tab(const tui_pane *p, char *buf, size_t len)
{
    const char *title = tui_term_title(p->term);
    snprintf(buf, len, "%s%s%s%s%s", p->label, title[0] ? ":" : "", title[0] ? title : "",
             p->exited ? " (exited)" : "", sm_cast_is_open(&p->cast) ? " REC" : "");
}

static void draw_pane(tui_pane *p, bool only_dirty, const char *scroll_hints)
{
    tui_rect r = p->rect;
    if (r.h <= 0 || r.w <= 0)
        return;
    tui_term_view v = {.live = !p->scroll,
                       .top = p->top,
                       .needle = p->needle[0] ? p->needle : NULL,
                       .sel_from = -1,
                       .sel_to = -1,
                       .mark_line = p->scroll ? p->mark : -1};
    if (p->scroll && p->sel_from >= 0) {
        v.sel_from = p->sel_from < p->mark ? p->sel_from : p->mark;
        v.sel_to = p->sel_from < p->mark ? p->mark : p->sel_from;
    }
    if (only_dirty && p->scroll)
        return; /* a scrolled view does not move with the output */
    int h = r.h;
    bool banner = p->exited || p->scroll;
    if (banner)
        h--;
    tui_term_draw(p->term, r.y, r.x, h, r.w, &v, only_dirty);
    tui_term_clear_dirty(p->term);
    if (!banner)
        return;
    char msg[256];
    if (p->scroll)
        snprintf(msg, sizeof msg, " scroll: line %ld of %zu  %s ", p->mark + 1,
                 tui_term_lines(p->term), scroll_hints);
    else if (p->failure[0])
        snprintf(msg, sizeof msg, " session lost: %s  (Ctrl-b x closes) ", p->failure);
    else
        snprintf(msg, sizeof msg, " process exited with code %d  (Ctrl-b x closes) ", p->exit_code);
    tui_put(r.y + r.h - 1, r.x, r.w, msg,
            tui_attr(p->scroll ? TH_SELECTED : (p->exit_code ? TH_FAILURE : TH_OK)), true);
}

/* DECSCUSR to the outer terminal when the focused program asked for another cursor shape
 * (curses does not manage shapes): 0 = the terminal's default. */
static int cursor_shape_shown;

static void set_cursor_shape(int ps)
{
    if (ps == cursor_shape_shown)
        return;
    cursor_shape_shown = ps;
    char seq[16];
    int n = snprintf(seq, sizeof seq, "\033[%d q", ps);
    if (write(STDOUT_FILENO, seq, (size_t)n) < 0) {
    }
}

void tui_panes_draw(tui_app *app, bool only_dirty, const char *scroll_hints)
{
    for (int i = 0; i < app->npanes; i++)
        draw_pane(app->panes[i], only_dirty, scroll_hints);
    if (app->split && app->shown >= 0) {
        tui_rect r = app->panes[app->shown]->rect;
        attron(tui_attr(TH_BORDER));
        mvvline(r.y, r.x - 1, ACS_VLINE, r.h);
        attroff(tui_attr(TH_BORDER));
    }
    tui_panes_place_cursor(app);
}

/* The hardware cursor sits where the focused program's cursor is, in its shape; hidden when
 * the program hides it or the dashboard has the keyboard. Called last in a frame, after
 * anything else drawn moved curses' cursor. */
void tui_panes_place_cursor(tui_app *app)
{
    tui_pane *f = tui_focused(app);
    int row, col, shape = 0;
    bool visible;
    if (f && f->rect.h > 0 && !f->scroll && !f->exited && app->overlay == OV_NONE) {
        tui_term_cursor(f->term, &row, &col, &visible, &shape);
        set_cursor_shape(shape);
        if (visible && row < f->rect.h && col < f->rect.w) {
            curs_set(1);
            move(f->rect.y + row, f->rect.x + col);
            return;
        }
    } else {
        set_cursor_shape(0);
    }
    if (app->overlay != OV_FILTER && app->overlay != OV_PALETTE && app->overlay != OV_SEARCH)
        curs_set(0);
}

void tui_panes_focus(tui_app *app, int idx)
{
    app->focus = idx;
    if (idx >= 0) {
        if (app->split && app->shown >= 0 && app->shown != idx)
            app->other = app->shown == idx ? app->other : app->shown;
        if (!(app->split && app->other == idx))
            app->shown = idx;
    }
    tui_dirty(app);
}

void tui_panes_focus_view(tui_app *app, tui_view view)
{
    app->focus = -1;
    app->view = view;
    if (!app->split)
        app->shown = -1;
    tui_dirty(app);
}

/* Beside the list, or beside another terminal when the list is not in focus. */
void tui_panes_toggle_split(tui_app *app)
{
    if (app->npanes == 0)
        return;
    app->split = !app->split;
    if (!app->split)
        app->shown = app->focus; /* what has the keyboard fills the body */
    if (app->split) {
        if (app->shown < 0)
            app->shown = app->focus >= 0 ? app->focus : app->npanes - 1;
        app->other =
            app->focus >= 0 && app->npanes > 1 ? (app->shown == 0 ? 1 : app->shown - 1) : -1;
    }
    tui_dirty(app);
}

/* The keyboard to the other side of the split; without a split, between the dashboard and the
 * terminal last shown. */
void tui_panes_other_side(tui_app *app)
{
    if (!app->split) {
        if (app->npanes)
            tui_panes_focus(app, app->focus < 0 ? (app->shown >= 0 ? app->shown : 0) : -1);
        if (app->focus < 0)
            app->shown = -1;
    } else if (app->focus == app->shown) {
        app->focus = app->other; /* -1 = the dashboard side */
    } else {
        app->focus = app->shown;
    }
    tui_dirty(app);
}

void tui_panes_cursor_reset(void)
{
    set_cursor_shape(0);
}

/* A mouse event over a terminal: to its program when that asks for the mouse (buttons 1-3
 * pressed and released, the wheel, motion with the modifiers), else the wheel scrolls back. A
 * press focuses the pane. */
void tui_panes_mouse(tui_app *app, int y, int x, unsigned long bstate)
{
    static const struct {
        mmask_t press, release;
        int button;
    } buttons[] = {{BUTTON1_PRESSED, BUTTON1_RELEASED, 1},
                   {BUTTON2_PRESSED, BUTTON2_RELEASED, 2},
                   {BUTTON3_PRESSED, BUTTON3_RELEASED, 3}};
    for (int i = 0; i < app->npanes; i++) {
        tui_pane *p = app->panes[i];
        tui_rect r = p->rect;
        if (r.h <= 0 || y < r.y || y >= r.y + r.h || x < r.x || x >= r.x + r.w)
            continue;
        bool wheel_up = bstate & BUTTON4_PRESSED, wheel_down = bstate & BUTTON5_PRESSED;
        bool press = wheel_up || wheel_down ||
                     (bstate & (BUTTON1_PRESSED | BUTTON2_PRESSED | BUTTON3_PRESSED));
        if (press && app->focus != i) {
            app->focus = i;
            tui_dirty(app);
        }
        if (tui_term_mouse_mode(p->term) && !p->exited) {
            int row = y - r.y, col = x - r.x;
            VTermModifier mod = ((bstate & BUTTON_SHIFT) ? VTERM_MOD_SHIFT : 0) |
                                ((bstate & BUTTON_CTRL) ? VTERM_MOD_CTRL : 0) |
                                ((bstate & BUTTON_ALT) ? VTERM_MOD_ALT : 0);
            bool sent = false;
            if (wheel_up || wheel_down) {
                tui_term_mouse(p->term, row, col, wheel_up ? 4 : 5, true, mod);
                sent = true;
            }
            for (size_t b = 0; b < sizeof buttons / sizeof buttons[0]; b++) {
                if (bstate & buttons[b].press) {
                    tui_term_mouse(p->term, row, col, buttons[b].button, true, mod);
                    sent = true;
                }
                if (bstate & buttons[b].release) {
                    tui_term_mouse(p->term, row, col, buttons[b].button, false, mod);
                    sent = true;
                }
            }
            if (!sent) /* motion */
                tui_term_mouse(p->term, row, col, 0, false, mod);
        } else if (wheel_up || (wheel_down && p->scroll)) {
            if (!p->scroll)
                tui_scroll_enter(p);
            tui_scroll_by(p, wheel_up ? -3 : 3);
            tui_dirty(app);
        }
        return;
    }
}
