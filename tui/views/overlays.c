/* Overlays over the views: the delete confirmation, the session picker, the create form, the
 * output of a palette command (each with its key table, whose hints it draws), and the
 * bottom-line prompts for "/" (filter, search) and ":" (commands). */
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "tui/jobs.h"
#include "tui/keymap.h"
#include "tui/palette.h"
#include "tui/panes/panes.h"
#include "tui/views/views.h"
#include "tui/widgets/draw.h"

/* ---- delete confirmation ---------------------------------------------------------------- */

void tui_confirm_open(tui_app *app)
{
    tui_confirm_close(app);
    const char **ids;
    size_t n = tui_model_targets(&app->model, &ids);
    app->confirm_ids = xcalloc(n ? n : 1, sizeof *app->confirm_ids);
    for (size_t i = 0; i < n; i++)
        app->confirm_ids[i] = xstrdup(ids[i]);
    free(ids);
    app->confirm_n = n;
    if (n)
        app->overlay = OV_CONFIRM;
}

void tui_confirm_close(tui_app *app)
{
    for (size_t i = 0; i < app->confirm_n; i++)
        free(app->confirm_ids[i]);
    free(app->confirm_ids);
    app->confirm_ids = NULL;
    app->confirm_n = 0;
}

void tui_confirm_draw(tui_app *app)
{
    int y, x, h, w;
    tui_centered(app->rows, app->cols, 7, 64, &y, &x, &h, &w);
    tui_box(y, x, h, w, tui_attr(TH_FAILURE), tui_attr(TH_NORMAL), "delete");
    char buf[256];
    snprintf(buf, sizeof buf, "Delete %zu sandbox%s? They are ended and every trace removed.",
             app->confirm_n, app->confirm_n == 1 ? "" : "es");
    tui_put(y + 1, x + 2, w - 4, buf, tui_attr(TH_NORMAL) | A_BOLD, false);
    buf[0] = '\0';
    for (size_t i = 0; i < app->confirm_n && strlen(buf) + 16 < sizeof buf; i++)
        snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%.12s", i ? " " : "",
                 app->confirm_ids[i]);
    tui_put(y + 2, x + 2, w - 4, buf, tui_attr(TH_DIM), false);
    char hints[128];
    tui_keys_hints(&tui_keys_confirm, hints, sizeof hints);
    tui_put(y + 4, x + 2, w - 4, hints, tui_attr(TH_KEY), false);
}

static void confirm_keep(tui_app *app, int key)
{
    app->overlay = OV_NONE;
    tui_confirm_close(app);
}

static void confirm_delete(tui_app *app, int key)
{
    char **argv = xcalloc(app->confirm_n + 2, sizeof *argv);
    argv[0] = "rm";
    for (size_t i = 0; i < app->confirm_n; i++)
        argv[i + 1] = app->confirm_ids[i];
    char title[64];
    snprintf(title, sizeof title, "deleting %zu sandbox%s", app->confirm_n,
             app->confirm_n == 1 ? "" : "es");
    tui_jobs_command(app, (int)app->confirm_n + 1, argv, title);
    free(argv);
    for (size_t i = 0; i < app->model.nrows; i++)
        app->model.rows[i].st->marked = false;
    confirm_keep(app, key);
}

static const tui_binding confirm_rows[] = {
    {{'y', 'Y'}, 0, confirm_delete, "y", "delete", 1, 0, NULL, NULL, NULL},
    {{'n', 'N', 27, 'q'}, 0, confirm_keep, "n / Esc", "keep", 2, 0, NULL, NULL, NULL},
};
const tui_keymap tui_keys_confirm = TUI_KEYMAP("confirm", confirm_rows, "    ", ": ");

/* ---- which detached session t attaches to ---------------------------------------------- */

void tui_sessions_draw(tui_app *app)
{
    int y, x, h, w;
    int rows = (int)app->npick + 1;
    tui_centered(app->rows, app->cols, rows + 5, 72, &y, &x, &h, &w);
    char buf[160];
    snprintf(buf, sizeof buf, "sessions of %.12s", app->pick_sandbox);
    tui_box(y, x, h, w, tui_attr(TH_BORDER), tui_attr(TH_NORMAL), buf);
    tui_put(y + 1, x + 2, w - 4, "Several detached sessions: attach to which?",
            tui_attr(TH_NORMAL) | A_BOLD, false);
    for (int i = 0; i < rows && y + 2 + i < y + h - 2; i++) {
        char size[24];
        if (i < (int)app->npick) {
            const sm_pty_session_info *si = &app->pick[i];
            sm_format_bytes((double)si->bytes, size, sizeof size);
            snprintf(buf, sizeof buf, "%-14.14s %-8s output %s", si->id, si->command, size);
        } else {
            snprintf(buf, sizeof buf, "a new session");
        }
        bool sel = (size_t)i == app->pick_sel;
        tui_put(y + 2 + i, x + 2, w - 4, buf, tui_attr(sel ? TH_SELECTED : TH_NORMAL), true);
    }
    char hints[128];
    tui_keys_hints(&tui_keys_sessions, hints, sizeof hints);
    tui_put(y + h - 2, x + 2, w - 4, hints, tui_attr(TH_KEY), false);
}

static void sessions_down(tui_app *app, int key)
{
    if (app->pick_sel < app->npick)
        app->pick_sel++;
}

static void sessions_up(tui_app *app, int key)
{
    if (app->pick_sel > 0)
        app->pick_sel--;
}

static void sessions_cancel(tui_app *app, int key)
{
    app->overlay = OV_NONE;
    free(app->pick);
    app->pick = NULL;
    app->npick = 0;
}

/* The last line of the picker, or n, is a new session. */
static void sessions_attach(tui_app *app, int key)
{
    app->overlay = OV_NONE;
    tui_panes_attach(app, app->pick_sandbox,
                     key == 'n' || app->pick_sel >= app->npick ? NULL
                                                               : app->pick[app->pick_sel].id);
    sessions_cancel(app, key);
}

static const tui_binding sessions_rows[] = {
    {{'j', KEY_DOWN}, 0, sessions_down, "j/k", "choose", 1, 0, NULL, NULL, NULL},
    {{'k', KEY_UP}, 0, sessions_up, NULL, NULL, 0, 0, NULL, NULL, NULL},
    {{'\r', '\n', KEY_ENTER}, 0, sessions_attach, "Enter", "attach", 2, 0, NULL, NULL, NULL},
    {{'n'}, 0, sessions_attach, "n", "new", 3, 0, NULL, NULL, NULL},
    {{27, 'q'}, 0, sessions_cancel, "Esc", "cancel", 4, 0, NULL, NULL, NULL},
};
const tui_keymap tui_keys_sessions = TUI_KEYMAP("sessions", sessions_rows, "   ", " ");

/* ---- create form ------------------------------------------------------------------------- */

static const char *form_labels[TUI_FORM_FIELDS] = {
    "image", "cpu", "memory MiB", "ttl seconds", "workdir", "labels k=v,..", "env k=v,.."};
static const char *form_flags[TUI_FORM_FIELDS] = {"--image",   "--cpu",   "--memory-mib", "--ttl",
                                                  "--workdir", "--label", "--env"};

void tui_form_open(tui_app *app)
{
    memset(&app->form, 0, sizeof app->form);
    app->overlay = OV_FORM;
}

void tui_form_draw(tui_app *app)
{
    int y, x, h, w;
    tui_centered(app->rows, app->cols, TUI_FORM_FIELDS + 5, 60, &y, &x, &h, &w);
    tui_box(y, x, h, w, tui_attr(TH_BORDER), tui_attr(TH_NORMAL), "new sandbox");
    for (int i = 0; i < TUI_FORM_FIELDS && i < h - 4; i++) {
        bool focus = app->form.field == i;
        tui_put(y + 1 + i, x + 2, 15, form_labels[i], tui_attr(TH_DIM), false);
        char v[160];
        snprintf(v, sizeof v, "%s%s", app->form.values[i], focus ? "_" : "");
        tui_put(y + 1 + i, x + 18, w - 20, v, tui_attr(focus ? TH_INPUT : TH_NORMAL), true);
    }
    bool btn = app->form.field == TUI_FORM_FIELDS;
    tui_put(y + h - 3, x + 18, 10, "[ create ]", tui_attr(btn ? TH_SELECTED : TH_KEY), false);
    char hints[128];
    tui_keys_hints(&tui_keys_form, hints, sizeof hints);
    tui_put(y + h - 2, x + 2, w - 4, hints, tui_attr(TH_DIM), false);
}

static void form_submit(tui_app *app, int key)
{
    char *argv[64];
    int argc = 0;
    char *owned[64];
    int nowned = 0;
    argv[argc++] = "create";
    for (int i = 0; i < TUI_FORM_FIELDS && argc < 60; i++) {
        const char *v = app->form.values[i];
        if (!*v)
            continue;
        if (i >= 5) { /* comma-separated k=v lists */
            char *copy = xstrdup(v), *save = NULL;
            owned[nowned++] = copy;
            for (char *t = strtok_r(copy, ",", &save); t && argc < 60;
                 t = strtok_r(NULL, ",", &save)) {
                while (*t == ' ')
                    t++;
                argv[argc++] = (char *)form_flags[i];
                argv[argc++] = t;
            }
        } else {
            argv[argc++] = (char *)form_flags[i];
            argv[argc++] = (char *)v;
        }
    }
    tui_jobs_command(app, argc, argv, "create");
    for (int i = 0; i < nowned; i++)
        free(owned[i]);
    app->overlay = OV_NONE;
}

static void form_cancel(tui_app *app, int key)
{
    app->overlay = OV_NONE;
}

static void form_next(tui_app *app, int key)
{
    app->form.field = (app->form.field + 1) % (TUI_FORM_FIELDS + 1);
}

static void form_prev(tui_app *app, int key)
{
    app->form.field = (app->form.field + TUI_FORM_FIELDS) % (TUI_FORM_FIELDS + 1);
}

static const tui_binding form_rows[] = {
    {{'\t', KEY_DOWN}, 0, form_next, "Tab/arrows", "move", 1, 0, NULL, NULL, NULL},
    {{KEY_UP, KEY_BTAB}, 0, form_prev, NULL, NULL, 0, 0, NULL, NULL, NULL},
    {{'\r', '\n', KEY_ENTER}, 0, form_submit, "Enter", "creates", 2, 0, NULL, NULL, NULL},
    {{27}, 0, form_cancel, "Esc", "cancels", 3, 0, NULL, NULL, NULL},
};
const tui_keymap tui_keys_form = TUI_KEYMAP("form", form_rows, "  ", " ");

void tui_form_type(tui_app *app, wint_t ch, bool is_key)
{
    tui_form *f = &app->form;
    if (f->field == TUI_FORM_FIELDS)
        return;
    char *v = f->values[f->field];
    size_t len = strlen(v);
    if ((is_key && ch == KEY_BACKSPACE) || (!is_key && (ch == 127 || ch == 8))) {
        if (len)
            v[len - 1] = '\0';
    } else if (!is_key && ch >= 32 && ch < 127 && len + 1 < sizeof f->values[0]) {
        v[len] = (char)ch;
        v[len + 1] = '\0';
    }
}

/* ---- output popup ---------------------------------------------------------------------- */

void tui_output_draw(tui_app *app)
{
    int y, x, h, w;
    tui_centered(app->rows, app->cols, app->rows - 4, app->cols - 6, &y, &x, &h, &w);
    tui_box(y, x, h, w, tui_attr(TH_BORDER), tui_attr(TH_NORMAL), app->output_title);
    const char *p = app->output ? app->output : "";
    for (int skip = app->output_scroll; skip > 0 && *p; skip--) {
        const char *nl = strchr(p, '\n');
        p = nl ? nl + 1 : p + strlen(p);
    }
    for (int r = 0; r < h - 3 && *p; r++) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        char line[1024];
        snprintf(line, sizeof line, "%.*s", (int)(n < sizeof line - 1 ? n : sizeof line - 1), p);
        tui_put(y + 1 + r, x + 2, w - 4, line, tui_attr(TH_NORMAL), false);
        p = nl ? nl + 1 : p + n;
    }
    char hints[128];
    tui_keys_hints(&tui_keys_output, hints, sizeof hints);
    tui_put(y + h - 2, x + 2, w - 4, hints, tui_attr(TH_DIM), false);
}

static void output_down(tui_app *app, int key)
{
    app->output_scroll++;
}

static void output_up(tui_app *app, int key)
{
    if (app->output_scroll > 0)
        app->output_scroll--;
}

static void output_close(tui_app *app, int key)
{
    app->overlay = OV_NONE;
}

static const tui_binding output_rows[] = {
    {{'j', KEY_DOWN}, 0, output_down, "j/k", "scroll", 1, 0, NULL, NULL, NULL},
    {{'k', KEY_UP}, 0, output_up, NULL, NULL, 0, 0, NULL, NULL, NULL},
    {{27, 'q', '\r', '\n', KEY_ENTER},
     0,
     output_close,
     "Esc/q/Enter",
     "close",
     2,
     0,
     NULL,
     NULL,
     NULL},
};
const tui_keymap tui_keys_output = TUI_KEYMAP("output", output_rows, "  ", " ");

/* ---- bottom-line prompt ------------------------------------------------------------------ */

void tui_prompt_open(tui_app *app, tui_overlay which)
{
    app->overlay = which;
    app->input[0] = '\0';
    app->input_len = 0;
    app->history_pos = app->nhistory;
    if (which == OV_FILTER) {
        snprintf(app->filter_before, sizeof app->filter_before, "%s", app->model.filter);
        snprintf(app->input, sizeof app->input, "%s", app->model.filter);
        app->input_len = strlen(app->input);
    }
    curs_set(1);
}

void tui_prompt_draw(tui_app *app)
{
    int y = app->rows - 1;
    const char *lead = app->overlay == OV_PALETTE ? ":" : "/";
    tui_fill(y, 0, app->cols, tui_attr(TH_INPUT));
    tui_put(y, 0, 1, lead, tui_attr(TH_KEY), false);
    int used = tui_put(y, 1, app->cols - 2, app->input, tui_attr(TH_INPUT), false);
    move(y, 1 + used);
}

static void prompt_close(tui_app *app)
{
    app->overlay = OV_NONE;
    curs_set(0);
}

static void apply_filter(tui_app *app)
{
    snprintf(app->model.filter, sizeof app->model.filter, "%s", app->input);
    tui_model_rebuild(&app->model);
    app->ev_selected = app->ev_scroll = 0;
}

bool tui_prompt_key(tui_app *app, wint_t ch, bool is_key)
{
    bool filter = app->overlay == OV_FILTER;
    if (!is_key && ch == 27) {
        if (filter) { /* Esc restores what was there */
            snprintf(app->input, sizeof app->input, "%s", app->filter_before);
            apply_filter(app);
        }
        prompt_close(app);
        return true;
    }
    if ((!is_key && (ch == '\r' || ch == '\n')) || (is_key && ch == KEY_ENTER)) {
        bool search = app->overlay == OV_SEARCH;
        prompt_close(app);
        if (search && app->focus < 0 && app->view == VIEW_LOGS) {
            tui_logs_search(app, app->input);
        } else if (search) {
            tui_panes_search(app, app->input);
        } else if (filter) {
            apply_filter(app);
        } else if (app->input_len) {
            if (app->nhistory < 16) {
                snprintf(app->history[app->nhistory++], sizeof app->history[0], "%s", app->input);
            } else {
                memmove(app->history[0], app->history[1], sizeof app->history[0] * 15);
                snprintf(app->history[15], sizeof app->history[0], "%s", app->input);
            }
            tui_palette_run(app, app->input);
        }
        return true;
    }
    if (is_key && (ch == KEY_UP || ch == KEY_DOWN) && !filter && app->nhistory) {
        if (ch == KEY_UP && app->history_pos > 0)
            app->history_pos--;
        else if (ch == KEY_DOWN && app->history_pos < app->nhistory)
            app->history_pos++;
        snprintf(app->input, sizeof app->input, "%s",
                 app->history_pos < app->nhistory ? app->history[app->history_pos] : "");
        app->input_len = strlen(app->input);
        return true;
    }
    if ((is_key && ch == KEY_BACKSPACE) || (!is_key && (ch == 127 || ch == 8))) {
        if (app->input_len) {
            /* drop one UTF-8 character */
            do {
                app->input_len--;
            } while (app->input_len && (app->input[app->input_len] & 0xC0) == 0x80);
            app->input[app->input_len] = '\0';
        } else {
            prompt_close(app);
        }
    } else if (!is_key && ch == 21) { /* ctrl-u */
        app->input_len = 0;
        app->input[0] = '\0';
    } else if (!is_key && ch >= 32) {
        char mb[8];
        int n = wctomb(mb, (wchar_t)ch);
        if (n > 0 && app->input_len + (size_t)n + 1 < sizeof app->input) {
            memcpy(app->input + app->input_len, mb, (size_t)n);
            app->input_len += (size_t)n;
            app->input[app->input_len] = '\0';
        }
    }
    if (filter)
        apply_filter(app); /* live filtering as you type */
    return true;
}
