/* The frame: the header (context, counts, load, tabs, refresh state), the body (the view and
 * the panes), the footer (prompt, status or the key hints of the mode, from the key tables) and
 * the overlays, among them the help drawn from the same tables. Frames are asked for only here:
 * handlers set dirty flags, and before the loop sleeps one hook starts the render timer. */
#include "tui/frame.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

#include "core/util.h"
#include "tui/input.h"
#include "tui/keys.h"
#include "tui/panes/panes.h"
#include "tui/term/term_render.h"
#include "tui/views/views.h"
#include "tui/widgets/draw.h"

#define RENDER_DELAY_MS 12   /* handlers in a burst share one frame */
#define FLOOD_FRAME_S   0.1  /* a streaming terminal is drawn at 10 frames a second */
#define FLOOD_BYTES     4096 /* more output than this since the last frame is a stream */

/* ---- asking for a frame ------------------------------------------------------------------ */

static void on_render(uv_timer_t *t)
{
    tui_frame_render(t->data);
}

/* Runs before every sleep of the loop, after whatever handlers ran in this pass. A changed
 * dashboard is drawn after a short delay that gathers a burst of changes; terminal output is
 * drawn at once when the last frame is old enough (an echo should not wait a timer), else when
 * it is: at most ~80 frames a second for a trickle of output, 10 while a visible terminal
 * streams (parsing goes on at full speed; only drawing waits). */
static void before_sleep(uv_prepare_t *h)
{
    tui_app *app = h->data;
    if ((!app->full && !app->full_redraw && !app->rows_dirty) ||
        uv_is_active((uv_handle_t *)&app->render))
        return;
    uint64_t delay = RENDER_DELAY_MS;
    if (!app->full && !app->full_redraw) {
        double gap = app->term_bytes > FLOOD_BYTES ? FLOOD_FRAME_S : RENDER_DELAY_MS / 1000.0;
        double wait = app->last_frame + gap - sm_now_mono();
        delay = wait > 0 ? (uint64_t)(wait * 1000) + 1 : 0;
    }
    uv_timer_start(&app->render, on_render, delay, 0);
}

void tui_frame_start(tui_app *app)
{
    uv_timer_init(app->loop, &app->render);
    app->render.data = app;
    uv_prepare_init(app->loop, &app->before_sleep);
    app->before_sleep.data = app;
    uv_prepare_start(&app->before_sleep, before_sleep);
}

void tui_frame_stop(tui_app *app)
{
    uv_timer_stop(&app->render);
    uv_prepare_stop(&app->before_sleep);
    uv_close((uv_handle_t *)&app->render, NULL);
    uv_close((uv_handle_t *)&app->before_sleep, NULL);
}

/* ---- header ------------------------------------------------------------------------------ */

static void draw_header(tui_app *app)
{
    tui_model *m = &app->model;
    attr_t h = tui_attr(TH_HEADER);
    tui_fill(0, 0, app->cols, h);
    char left[512], load[64] = "";
    snprintf(left, sizeof left, " sandman  ctx %s (%s)", app->context ? app->context : "-",
             app->provider ? sm_provider_name(app->provider) : "-");
    int x = tui_put(0, 0, app->cols, left, h | A_BOLD, false) + 2;
    static const tui_role roles[] = {TH_STATUS_STARTING, TH_STATUS_RUNNING, TH_STATUS_STOPPED,
                                     TH_STATUS_ERROR, TH_STATUS_UNKNOWN};
    for (int s = 0; s <= SM_STATUS_UNKNOWN; s++) {
        if (!m->counts[s] && s != SM_STATUS_RUNNING)
            continue;
        char c[48];
        snprintf(c, sizeof c, "%d %s", m->counts[s], sm_status_name((sm_status)s));
        attr_t a = (h & ~A_COLOR) | (tui_attr(roles[s]) & ~A_COLOR);
        if (app->tier != TUI_TIER_MONO)
            a = h | A_BOLD;
        x += tui_put(0, x, app->cols - x, c, a, false) + 2;
    }
    FILE *f = fopen("/proc/loadavg", "re");
    if (f) {
        double l1, l5, l15;
        if (fscanf(f, "%lf %lf %lf", &l1, &l5, &l15) == 3)
            snprintf(load, sizeof load, "load %.2f %.2f %.2f ", l1, l5, l15);
        fclose(f);
    }
    if (x + (int)strlen(load) < app->cols)
        tui_put_right(0, x, app->cols - x, load, h);

    /* second line: view tabs, then refresh state and filter/sort on the right */
    tui_fill(1, 0, app->cols, tui_attr(TH_NORMAL));
    char tab[128];
    snprintf(tab, sizeof tab, " 1 Sandboxes (%zu) ", m->nrows);
    x = tui_put(1, 0, app->cols, tab,
                tui_attr(app->view != VIEW_EVENTS && app->focus < 0 ? TH_TAB_ACTIVE : TH_TAB),
                false);
    snprintf(tab, sizeof tab, " 2 Events (%d) ", cJSON_GetArraySize(m->events));
    x += 1 + tui_put(1, x + 1, app->cols - x - 1, tab,
                     tui_attr(app->view == VIEW_EVENTS && app->focus < 0 ? TH_TAB_ACTIVE : TH_TAB),
                     false);
    for (int i = 0; i < app->npanes && x + 4 < app->cols; i++) {
        char label[96];
        tui_pane_tab(app->panes[i], label, sizeof label);
        snprintf(tab, sizeof tab, " %d %s ", i + 3, label);
        x += 1 + tui_put(1, x + 1, app->cols - x - 1, tab,
                         tui_attr(app->focus == i ? TH_TAB_ACTIVE : TH_TAB), false);
    }
    char right[300] = "";
    size_t r = 0;
    if (m->error[0]) {
        r += (size_t)snprintf(right + r, sizeof right - r, "%s  ", m->error);
    } else if (app->refreshing && sm_now_mono() - app->refresh_started > TUI_SLOW_REFRESH_S) {
        static const char *spin_u[] = {"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"};
        static const char *spin_a[] = {"|", "/", "-", "\\"};
        r += (size_t)snprintf(right + r, sizeof right - r, "%s waiting for %s  ",
                              tui_unicode ? spin_u[app->spinner % 10] : spin_a[app->spinner % 4],
                              app->provider ? sm_provider_name(app->provider) : "provider");
    }
    if (m->filter[0])
        r += (size_t)snprintf(right + r, sizeof right - r, "filter: %s  ", m->filter);
    if (app->view == VIEW_LIST)
        snprintf(right + r, sizeof right - r, "%ssort: %s%s ", m->group_run ? "by run  " : "",
                 tui_sort_name(m->sort), m->sort_reverse ? " (reversed)" : "");
    if (x + 2 < app->cols)
        tui_put_right(1, x + 2, app->cols - x - 2, right,
                      tui_attr(m->error[0] ? TH_FAILURE : TH_DIM));
}

/* ---- footer and help, from the key tables ---------------------------------------------- */

/* The scroll banner's keys: "j/k PgUp/PgDn g/G  / search  n/N next ...". */
static const char *scroll_hints(void)
{
    static char s[256];
    if (!s[0])
        tui_keys_hints(&tui_keys_scroll, s, sizeof s);
    return s;
}

static void draw_footer(tui_app *app)
{
    int y = app->rows - 1;
    const tui_binding *b[32];
    if (app->overlay == OV_FILTER || app->overlay == OV_PALETTE || app->overlay == OV_SEARCH) {
        tui_prompt_draw(app);
        return;
    }
    if (app->prefix) { /* the commands Ctrl-b waits for */
        char hints[448], line[512];
        tui_keys_hints(&tui_keys_prefix, hints, sizeof hints);
        snprintf(line, sizeof line, "Ctrl-b: %s", hints);
        tui_put(y, 0, app->cols, line, tui_attr(TH_KEY), true);
        return;
    }
    if (app->status[0]) {
        tui_put(y, 0, app->cols, app->status, tui_attr(app->status_error ? TH_FAILURE : TH_OK),
                true);
        return;
    }
    /* a terminal hints at the Ctrl-b commands, the dashboard at its own keys */
    bool term = app->focus >= 0;
    size_t n = term ? tui_keys_footer(&tui_keys_prefix, true, b, 32)
                    : tui_keys_footer_in(&tui_keys_dashboard, 1u << app->view, b, 32);
    if (!n)
        return;
    char keys[32][32];
    for (size_t i = 0; i < n; i++)
        snprintf(keys[i], sizeof keys[i], "%s%s", term ? "Ctrl-b " : "", b[i]->key_name);
    int total = 0; /* with two spaces between hints; one when that does not fit (80 columns) */
    for (size_t i = 0; i < n; i++)
        total += (int)(strlen(keys[i]) + 1 + strlen(b[i]->hint)) + (i ? 2 : 0);
    int gap = total <= app->cols ? 2 : 1;
    tui_fill(y, 0, app->cols, tui_attr(TH_NORMAL));
    int x = 0, last = (int)(strlen(keys[n - 1]) + 1 + strlen(b[n - 1]->hint));
    for (size_t i = 0; i < n; i++) {
        int w = (int)(strlen(keys[i]) + 1 + strlen(b[i]->hint));
        if (x + w > app->cols - (i + 1 < n ? last + gap : 0))
            continue; /* whole hints only, and room kept for the last one (quit, help) */
        x += tui_put(y, x, app->cols - x, keys[i], tui_attr(TH_KEY), false);
        x += 1 + tui_put(y, x + 1, app->cols - x - 1, b[i]->hint, tui_attr(TH_DIM), false);
        x += gap;
    }
}

/* The help lines of a table in its order; a row standing for another mode brings that mode's. */
static int help_lines(const tui_keymap *m, const tui_binding **out, int n, int max)
{
    for (size_t i = 0; i < m->n && n < max; i++) {
        if (m->rows[i].sub)
            n = help_lines(m->rows[i].sub, out, n, max);
        else if (m->rows[i].help && m->rows[i].help_keys)
            out[n++] = &m->rows[i];
    }
    return n;
}

static void draw_help(tui_app *app)
{
    const tui_binding *lines[64];
    int n = help_lines(&tui_keys_dashboard, lines, 0, 64);
    int y, x, h, w;
    /* A blank line and the closing hint under the keys when the screen is tall enough; else
     * (80x24) the hint goes into the bottom border so that every key still shows; on a
     * shorter screen the last line says how many did not fit. */
    bool roomy = n + 4 <= app->rows - 2;
    tui_centered(app->rows, app->cols, roomy ? n + 4 : n + 2, 76, &y, &x, &h, &w);
    tui_box(y, x, h, w, tui_attr(TH_BORDER), tui_attr(TH_NORMAL), "keys");
    int fit = roomy ? n : h - 2;
    for (int i = 0; i < n && i < fit; i++) {
        if (i == fit - 1 && fit < n) {
            char more[80];
            snprintf(more, sizeof more, "... %d more: a taller terminal shows them", n - i);
            tui_put(y + 1 + i, x + 2, w - 4, more, tui_attr(TH_DIM), false);
            break;
        }
        const char *k = lines[i]->help_keys;
        if (!tui_unicode && !strcmp(k, "j k ↑ ↓"))
            k = "j k Up Down";
        tui_put(y + 1 + i, x + 2, 16, k, tui_attr(TH_KEY), false);
        tui_put(y + 1 + i, x + 19, w - 21, lines[i]->help, tui_attr(TH_NORMAL), false);
    }
    if (roomy)
        tui_put(y + h - 2, x + 2, w - 4, "any key closes this", tui_attr(TH_DIM), false);
    else
        tui_put(y + h - 1, x + 2, w - 4, " any key closes this ", tui_attr(TH_DIM), false);
}

/* ---- the frame ----------------------------------------------------------------------------- */

void tui_frame_render(tui_app *app)
{
    tui_input_mousemask(app);
    app->last_frame = sm_now_mono();
    app->term_bytes = 0;
    getmaxyx(stdscr, app->rows, app->cols);
    if (app->rows < 5 || app->cols < 20) {
        erase();
        tui_put(0, 0, app->cols, "terminal too small", tui_attr(TH_FAILURE), false);
        refresh();
        app->full = app->rows_dirty = false; /* a resize asks again */
        return;
    }
    tui_rect dash;
    tui_panes_layout(app, &dash);
    if (!app->full && !app->full_redraw && app->overlay == OV_NONE) {
        /* only terminal output changed: redraw the dirty rows of the visible panes */
        app->rows_dirty = false;
        tui_panes_draw(app, true, scroll_hints());
        refresh();
        return;
    }
    app->full = app->rows_dirty = false;
    if (app->full_redraw) {
        clearok(curscr, TRUE);
        app->full_redraw = false;
    }
    erase();
    draw_header(app);
    if (dash.h > 0) {
        int cols = app->cols;
        app->cols = dash.w; /* views lay themselves out in the width they get */
        switch (app->view) {
        case VIEW_LIST: tui_list_draw(app, dash.y, dash.h); break;
        case VIEW_DETAIL: tui_detail_draw(app, dash.y, dash.h); break;
        case VIEW_EVENTS: tui_events_draw(app, dash.y, dash.h); break;
        case VIEW_LOGS: tui_logs_draw(app, dash.y, dash.h); break;
        }
        app->cols = cols;
    }
    for (int i = 0; i < app->npanes; i++)
        tui_term_mark_all_dirty(app->panes[i]->term);
    tui_panes_draw(app, false, scroll_hints());
    draw_footer(app);
    switch (app->overlay) {
    case OV_HELP: draw_help(app); break;
    case OV_CONFIRM: tui_confirm_draw(app); break;
    case OV_SESSIONS: tui_sessions_draw(app); break;
    case OV_FORM: tui_form_draw(app); break;
    case OV_OUTPUT: tui_output_draw(app); break;
    default: break;
    }
    tui_panes_place_cursor(app); /* the footer and overlays moved curses' cursor */
    refresh();
}
