/* The sandbox list: one row per sandbox with status, age, TTL left, CPU % and its sparkline,
 * memory working set / limit, pids and the failure column. Columns drop from the right end of
 * the priority list when the terminal is narrow (80x24 keeps id, status, TTL, CPU, memory,
 * pids and failure). */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "tui/views/views.h"
#include "tui/widgets/draw.h"

enum col {
    C_MARK,
    C_ID,
    C_PROVIDER,
    C_STATUS,
    C_IMAGE,
    C_AGE,
    C_TTL,
    C_CPU,
    C_SPARK,
    C_MEM,
    C_PIDS,
    C_FAILURE,
    C__COUNT
};

/* Titles and text come from the fleet (core/fleet.h), so they say what `top` says; the mark
 * and the history sparkline are the dashboard's own. */
typedef struct column {
    int fleet;    /* sm_fleet_col, -1 for the dashboard's own */
    int width;    /* 0 = flexible (takes the rest) */
    int priority; /* lower survives longer */
} column;

static const column cols_def[C__COUNT] = {
    [C_MARK] = {-1, 1, 0},
    [C_ID] = {SM_COL_ID, 12, 0},
    [C_PROVIDER] = {SM_COL_PROVIDER, 9, 7},
    [C_STATUS] = {SM_COL_STATUS, 8, 1},
    [C_IMAGE] = {SM_COL_IMAGE, 16, 6},
    [C_AGE] = {SM_COL_AGE, 6, 5},
    [C_TTL] = {SM_COL_TTL, 6, 3},
    [C_CPU] = {SM_COL_CPU, 6, 1},
    [C_SPARK] = {-1, 10, 4},
    [C_MEM] = {SM_COL_MEM, 15, 2},
    [C_PIDS] = {SM_COL_PIDS, 5, 3},
    [C_FAILURE] = {SM_COL_FAILURE, 0, 0},
};

#define MIN_FAILURE 14

/* Decides which columns fit and their widths (spark grows on wide terminals). */
static void layout(int cols, bool show[C__COUNT], int width[C__COUNT])
{
    for (int c = 0; c < C__COUNT; c++) {
        show[c] = true;
        width[c] = cols_def[c].width;
    }
    for (int prio = 7; prio >= 1; prio--) {
        int used = 0;
        for (int c = 0; c < C__COUNT; c++)
            if (show[c])
                used += width[c] + 1;
        if (used + MIN_FAILURE <= cols)
            break;
        for (int c = 0; c < C__COUNT; c++)
            if (cols_def[c].priority == prio)
                show[c] = false;
    }
    int used = 0;
    for (int c = 0; c < C__COUNT; c++)
        if (show[c] && c != C_FAILURE)
            used += width[c] + 1;
    int rest = cols - used;
    if (rest > 60 && show[C_SPARK]) { /* very wide: longer history */
        int extra = (rest - 60) / 2;
        if (extra > 30)
            extra = 30;
        width[C_SPARK] += extra;
        rest -= extra;
    }
    width[C_FAILURE] = rest > 1 ? rest : 1;
}

static tui_role status_role(sm_status s)
{
    switch (s) {
    case SM_STATUS_RUNNING: return TH_STATUS_RUNNING;
    case SM_STATUS_STARTING: return TH_STATUS_STARTING;
    case SM_STATUS_STOPPED: return TH_STATUS_STOPPED;
    case SM_STATUS_ERROR: return TH_STATUS_ERROR;
    default: return TH_STATUS_UNKNOWN;
    }
}

/* A line of the list: a sandbox row, or (grouped by run) the header of the run whose first
 * row it names. */
typedef struct list_line {
    size_t row;
    bool header;
} list_line;

/* The list's lines; *sel_line gets the selected row's. Caller frees. */
static list_line *lines_of(const tui_model *m, size_t *n, size_t *sel_line)
{
    list_line *l = xcalloc(m->nrows * 2 + 1, sizeof *l);
    size_t k = 0;
    char run[128], prev[128] = "";
    for (size_t i = 0; i < m->nrows; i++) {
        if (m->group_run) {
            tui_model_run(m, &m->rows[i], run, sizeof run);
            if (!i || strcmp(run, prev))
                l[k++] = (list_line){i, true};
            memcpy(prev, run, sizeof prev);
        }
        if (i == m->selected)
            *sel_line = k;
        l[k++] = (list_line){i, false};
    }
    *n = k;
    return l;
}

/* "run 7f3a...  3 sandboxes: 2 running, 1 failed" for the run starting at row first. */
static void group_header(const tui_model *m, size_t first, char *buf, size_t len)
{
    char run[128], other[128];
    tui_model_run(m, &m->rows[first], run, sizeof run);
    size_t total = 0, running = 0, failed = 0;
    for (size_t i = first; i < m->nrows; i++) {
        tui_model_run(m, &m->rows[i], other, sizeof other);
        if (strcmp(run, other))
            break;
        const tui_row *r = &m->rows[i];
        total++;
        running += r->info->status == SM_STATUS_RUNNING || r->info->status == SM_STATUS_STARTING;
        failed += r->info->status == SM_STATUS_ERROR || (r->f->has_why && !r->f->why_warning);
    }
    snprintf(buf, len, "%s %s  %zu sandbox%s: %zu running, %zu failed",
             strcmp(run, "-") ? "run" : "no run", strcmp(run, "-") ? run : "label", total,
             total == 1 ? "" : "es", running, failed);
}

/* Keeps the selected row on screen (and, grouped, its run's header when it is the first). */
static void scroll_to_selection(tui_model *m, int height, const list_line *lines, size_t sel,
                                size_t n)
{
    if (height <= 0)
        return;
    if (sel > 0 && sel <= m->scroll && lines[sel - 1].header)
        sel--;
    if (sel < m->scroll)
        m->scroll = sel;
    if (sel >= m->scroll + (size_t)height)
        m->scroll = sel - (size_t)height + 1;
    if (m->scroll + (size_t)height > n)
        m->scroll = n > (size_t)height ? n - (size_t)height : 0;
}

void tui_list_draw(tui_app *app, int top, int height)
{
    tui_model *m = &app->model;
    bool show[C__COUNT];
    int width[C__COUNT];
    layout(app->cols, show, width);
    int x = 0;
    attr_t head = tui_attr(TH_TITLE);
    tui_fill(top, 0, app->cols, head);
    for (int c = 0; c < C__COUNT; c++) {
        if (!show[c])
            continue;
        const char *t = cols_def[c].fleet >= 0 ? sm_fleet_col_title(cols_def[c].fleet) : "";
        if (c == C_SPARK)
            t = "HISTORY";
        if (c == C_CPU || c == C_PIDS)
            tui_put_right(top, x, width[c], t, head);
        else
            tui_put(top, x, width[c], t, head, false);
        x += width[c] + 1;
    }
    int body = height - 1;
    const sm_fleet *f = m->fleet;
    if (!f->loaded) {
        if (m->error[0])
            tui_put(top + 2, 2, app->cols - 4, m->error, tui_attr(TH_FAILURE), false);
        else
            tui_put(top + 2, 2, app->cols - 4, "loading ...", tui_attr(TH_DIM), false);
        return;
    }
    bool stale = m->error[0] != '\0';
    if (m->nrows == 0) {
        tui_put(top + 2, 2, app->cols - 4,
                m->filter[0] ? "no sandbox matches the filter (Esc clears it)"
                             : "no sandboxes yet: n creates one, or run `sandman demo`",
                tui_attr(TH_DIM), false);
        return;
    }
    size_t nlines = 0, sel_line = 0;
    list_line *lines = lines_of(m, &nlines, &sel_line);
    scroll_to_selection(m, body, lines, sel_line, nlines);
    double now = sm_now_wall();
    for (int k = 0; k < body && m->scroll + (size_t)k < nlines; k++) {
        const list_line *ln = &lines[m->scroll + (size_t)k];
        size_t idx = ln->row;
        const tui_row *r = &m->rows[idx];
        int y = top + 1 + k;
        if (ln->header) {
            char h[256];
            group_header(m, idx, h, sizeof h);
            tui_fill(y, 0, app->cols, tui_attr(TH_NORMAL));
            tui_put(y, 0, app->cols, h, tui_attr(TH_TITLE) | A_BOLD, true);
            continue;
        }
        bool sel = idx == m->selected;
        attr_t base =
            sel ? tui_attr(TH_SELECTED)
                : (r->st->marked ? tui_attr(TH_MARKED) : tui_attr(stale ? TH_DIM : TH_NORMAL));
        tui_fill(y, 0, app->cols, base);
        x = 0;
        for (int c = 0; c < C__COUNT; c++) {
            if (!show[c])
                continue;
            char buf[256];
            attr_t a = base;
            if (!sel && c == C_STATUS)
                a = tui_attr(status_role(r->info->status));
            if (!sel && c == C_FAILURE)
                a = tui_attr(r->f->why_warning || (stale && !r->f->has_why) ? TH_WARNING
                                                                            : TH_FAILURE);
            if (c == C_SPARK && stale) {
                /* no history drawn for numbers that are not live */
            } else if (c == C_SPARK) {
                double v[SM_HISTORY_LEN];
                size_t n = sm_history_series(&r->st->history, SM_METRIC_CPU_PCT, v, SM_HISTORY_LEN);
                wchar_t line[128];
                int w = width[c] < 127 ? width[c] : 127;
                double lim = 100.0;
                const sm_sample *s = sm_history_at(&r->st->history, 0);
                if (s && s->cpu_limit > 0)
                    lim = s->cpu_limit * 100.0;
                tui_sparkline(v, n, lim, w, line);
                tui_put_wide(y, x, w, line, sel ? base : tui_attr(TH_GRAPH_CPU));
            } else {
                if (c == C_MARK)
                    snprintf(buf, sizeof buf, "%s",
                             r->st->marked ? (tui_unicode ? "●" : "*") : " ");
                else
                    sm_fleet_cell(f, r->f, cols_def[c].fleet, now, buf, sizeof buf);
                if (c == C_CPU || c == C_PIDS)
                    tui_put_right(y, x, width[c], buf, a);
                else
                    tui_put(y, x, width[c], buf, a, false);
            }
            x += width[c] + 1;
        }
    }
    free(lines);
    if (nlines > (size_t)body) { /* a scroll indicator on the title line */
        char pos[48];
        snprintf(pos, sizeof pos, " %zu-%zu of %zu ", m->scroll + 1,
                 m->scroll + (size_t)body < nlines ? m->scroll + (size_t)body : nlines, nlines);
        tui_put_right(top, app->cols - 20, 20, pos, head);
    }
}

void tui_list_click(tui_app *app, int y, int top)
{
    tui_model *m = &app->model;
    int row = y - top - 1;
    if (row < 0)
        return;
    size_t n = 0, sel = 0, idx = m->scroll + (size_t)row;
    list_line *lines = lines_of(m, &n, &sel);
    if (idx < n)
        tui_model_select(m, lines[idx].row); /* a run's header: its first sandbox */
    free(lines);
}

void tui_list_group(tui_app *app)
{
    tui_model *m = &app->model;
    m->group_run = !m->group_run;
    m->scroll = 0;
    tui_model_rebuild(m);
    tui_status(app, false, "%s", m->group_run ? "grouped by run (R again: one list)" : "one list");
}

void tui_list_move(tui_app *app, int delta)
{
    tui_model *m = &app->model;
    if (delta > 0)
        tui_model_select(m, m->selected + (size_t)delta);
    else if (m->selected > 0)
        tui_model_select(m, m->selected - 1);
}

void tui_list_page(tui_app *app, int dir)
{
    tui_model *m = &app->model;
    size_t step = app->rows > 6 ? (size_t)(app->rows - 5) : 1;
    if (dir < 0)
        tui_model_select(m, m->selected > step ? m->selected - step : 0);
    else
        tui_model_select(m, m->selected + step);
}

void tui_list_jump(tui_app *app, bool end)
{
    tui_model *m = &app->model;
    tui_model_select(m, end && m->nrows ? m->nrows - 1 : 0);
}

void tui_list_open(tui_app *app)
{
    if (app->model.nrows)
        app->view = VIEW_DETAIL;
}

void tui_list_sort(tui_app *app, bool reverse)
{
    tui_model *m = &app->model;
    if (reverse) {
        m->sort_reverse = !m->sort_reverse;
        tui_model_rebuild(m);
        return;
    }
    m->sort = (tui_sort)((m->sort + 1) % SORT__COUNT);
    tui_model_rebuild(m);
    tui_status(app, false, "sorted by %s", tui_sort_name(m->sort));
}

void tui_list_mark(tui_app *app)
{
    tui_row *r = tui_model_selected(&app->model);
    if (r) {
        r->st->marked = !r->st->marked;
        tui_model_select(&app->model, app->model.selected + 1);
    }
}

void tui_list_mark_all(tui_app *app)
{
    tui_model *m = &app->model;
    bool all = tui_model_marked(m) == m->nrows;
    for (size_t i = 0; i < m->nrows; i++)
        m->rows[i].st->marked = !all;
}
