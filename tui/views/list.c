/* The sandbox list: one row per sandbox with status, age, TTL left, CPU % and its sparkline,
 * memory working set / limit, pids and the failure column. Columns drop from the right end of
 * the priority list when the terminal is narrow (80x24 keeps id, status, TTL, CPU, memory,
 * pids and failure). */
#include <cjson/cJSON.h>
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

typedef struct column {
    const char *title;
    int width;    /* 0 = flexible (takes the rest) */
    int priority; /* lower survives longer */
} column;

static const column cols_def[C__COUNT] = {
    [C_MARK] = {"", 1, 0},          [C_ID] = {"ID", 12, 0},       [C_PROVIDER] = {"PROVIDER", 9, 7},
    [C_STATUS] = {"STATUS", 8, 1},  [C_IMAGE] = {"IMAGE", 16, 6}, [C_AGE] = {"AGE", 6, 5},
    [C_TTL] = {"TTL", 6, 3},        [C_CPU] = {"CPU%", 6, 1},     [C_SPARK] = {"", 10, 4},
    [C_MEM] = {"MEM/LIMIT", 15, 2}, [C_PIDS] = {"PIDS", 5, 3},    [C_FAILURE] = {"FAILURE", 0, 0},
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

/* stale: the last refresh failed, so the row's numbers are old and are not shown as live */
static void cell(const tui_row *r, int c, int width, char *buf, size_t len, double now, bool stale)
{
    const sm_sandbox_info *i = r->info;
    const sm_sample *s = sm_history_at(&r->st->history, 0);
    bool running = i->status == SM_STATUS_RUNNING || i->status == SM_STATUS_STARTING;
    bool live = running && !stale;
    char a[24], b[24];
    buf[0] = '\0';
    switch (c) {
    case C_MARK: snprintf(buf, len, "%s", r->st->marked ? (tui_unicode ? "●" : "*") : " "); break;
    case C_ID: snprintf(buf, len, "%.12s", i->id); break;
    case C_PROVIDER: snprintf(buf, len, "%s", i->provider); break;
    case C_STATUS: snprintf(buf, len, "%s", sm_status_name(i->status)); break;
    case C_IMAGE: snprintf(buf, len, "%s", i->image ? i->image : "-"); break;
    case C_AGE: sm_format_duration(i->created_at > 0 ? now - i->created_at : 0, buf, len); break;
    case C_TTL: {
        double left = sm_sandbox_info_ttl_left(i, now);
        if (left < 0)
            snprintf(buf, len, "-");
        else if (!running)
            snprintf(buf, len, "ended");
        else
            sm_format_duration(left, buf, len);
        break;
    }
    case C_CPU:
        if (live && r->rates.cpu_pct >= 0)
            snprintf(buf, len, "%5.1f", r->rates.cpu_pct);
        else
            snprintf(buf, len, "    -");
        break;
    case C_MEM:
        if (live && s && s->mem_working_set >= 0) {
            sm_format_bytes((double)s->mem_working_set, a, sizeof a);
            if (s->mem_limit > 0)
                sm_format_bytes((double)s->mem_limit, b, sizeof b);
            else
                snprintf(b, sizeof b, "-");
            snprintf(buf, len, "%s/%s", a, b);
        } else {
            snprintf(buf, len, "-");
        }
        break;
    case C_PIDS:
        if (live && s && s->pids >= 0)
            snprintf(buf, len, "%lld", s->pids);
        else
            snprintf(buf, len, "-");
        break;
    case C_FAILURE:
        if (r->has_why)
            sm_failure_label(&r->why, buf, len);
        break;
    default: break;
    }
    (void)width;
}

/* What the failure column says of a row whose numbers are stale: its own failure, else why the
 * refresh failed. */
static void stale_failure(const tui_model *m, const tui_row *r, char *buf, size_t len)
{
    if (r->has_why)
        sm_failure_label(&r->why, buf, len);
    else
        snprintf(buf, len, "%s", m->error_label[0] ? m->error_label : "refresh failed");
}

/* Keeps the selected row on screen. */
static void scroll_to_selection(tui_model *m, int height)
{
    if (height <= 0)
        return;
    if (m->selected < m->scroll)
        m->scroll = m->selected;
    if (m->selected >= m->scroll + (size_t)height)
        m->scroll = m->selected - (size_t)height + 1;
    if (m->scroll + (size_t)height > m->nrows)
        m->scroll = m->nrows > (size_t)height ? m->nrows - (size_t)height : 0;
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
        const char *t = cols_def[c].title;
        if (c == C_SPARK)
            t = "HISTORY";
        if (c == C_CPU || c == C_PIDS)
            tui_put_right(top, x, width[c], t, head);
        else
            tui_put(top, x, width[c], t, head, false);
        x += width[c] + 1;
    }
    int body = height - 1;
    if (!m->loaded) {
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
    scroll_to_selection(m, body);
    double now = sm_now_wall();
    for (int k = 0; k < body && m->scroll + (size_t)k < m->nrows; k++) {
        size_t idx = m->scroll + (size_t)k;
        const tui_row *r = &m->rows[idx];
        int y = top + 1 + k;
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
                a = tui_attr(r->why_warning || (stale && !r->has_why) ? TH_WARNING : TH_FAILURE);
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
                cell(r, c, width[c], buf, sizeof buf, now, stale);
                if (c == C_FAILURE && stale)
                    stale_failure(m, r, buf, sizeof buf);
                if (c == C_CPU || c == C_PIDS)
                    tui_put_right(y, x, width[c], buf, a);
                else
                    tui_put(y, x, width[c], buf, a, false);
            }
            x += width[c] + 1;
        }
    }
    if (m->nrows > (size_t)body) { /* a scroll indicator on the title line */
        char pos[48];
        snprintf(pos, sizeof pos, " %zu-%zu of %zu ", m->scroll + 1,
                 m->scroll + (size_t)body < m->nrows ? m->scroll + (size_t)body : m->nrows,
                 m->nrows);
        tui_put_right(top, app->cols - 20, 20, pos, head);
    }
}

void tui_list_click(tui_app *app, int y, int top)
{
    tui_model *m = &app->model;
    int row = y - top - 1;
    if (row < 0)
        return;
    size_t idx = m->scroll + (size_t)row;
    if (idx < m->nrows)
        tui_model_select(m, idx);
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
