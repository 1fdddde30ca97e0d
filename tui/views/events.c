/* The events view: the journal of every sandbox, newest first, filtered by the "/" text.
 * Failure lines show their kind and evidence ("OOM killed - memory.oom_kill 1, limit 64MiB"). */
#include <cjson/cJSON.h>
#include <string.h>
#include <time.h>

#include "core/journal.h"
#include "core/json.h"
#include "core/util.h"
#include "tui/views/views.h"
#include "tui/widgets/draw.h"

/* Visible events (filtered), as indexes into model->events. */
static size_t visible(tui_app *app, int *idx, size_t max)
{
    size_t n = 0;
    const cJSON *ev;
    int k = 0;
    cJSON_ArrayForEach(ev, app->model.events)
    {
        if (n < max && tui_event_matches(ev, app->model.filter))
            idx[n++] = k;
        k++;
    }
    return n;
}

void tui_events_draw(tui_app *app, int top, int height)
{
    static int idx[TUI_MAX_EVENTS];
    size_t n = visible(app, idx, TUI_MAX_EVENTS);
    attr_t head = tui_attr(TH_TITLE);
    tui_fill(top, 0, app->cols, head);
    tui_put(top, 0, app->cols, "TIME      SANDBOX       TYPE       EVENT", head, false);
    if (n == 0) {
        tui_put(top + 2, 2, app->cols - 4,
                app->model.filter[0] ? "no event matches the filter" : "no events yet",
                tui_attr(TH_DIM), false);
        return;
    }
    int body = height - 1;
    if (app->ev_selected >= n)
        app->ev_selected = n - 1;
    if (app->ev_selected < app->ev_scroll)
        app->ev_scroll = app->ev_selected;
    if (app->ev_selected >= app->ev_scroll + (size_t)body)
        app->ev_scroll = app->ev_selected - (size_t)body + 1;
    for (int k = 0; k < body && app->ev_scroll + (size_t)k < n; k++) {
        size_t i = app->ev_scroll + (size_t)k;
        const cJSON *ev = cJSON_GetArrayItem(app->model.events, idx[i]);
        const char *ts = sm_json_str(ev, "ts"), *id = sm_json_str(ev, "sandbox_id");
        const char *type = sm_json_str(ev, "type");
        char line[768], summary[600], when[16] = "";
        sm_journal_event_summary(ev, summary, sizeof summary);
        double t = ts ? sm_parse_time(ts) : 0;
        if (t > 0) { /* the journal is in UTC; people read their own clock */
            time_t secs = (time_t)t;
            struct tm tm;
            if (localtime_r(&secs, &tm))
                strftime(when, sizeof when, "%H:%M:%S", &tm);
        }
        snprintf(line, sizeof line, "%-8.8s  %-12.12s  %-9.9s  %s", when, id ? id : "",
                 type ? type : "", summary);
        bool failed = false;
        const cJSON *fj = cJSON_GetObjectItemCaseSensitive(ev, "failure");
        if (fj) {
            sm_failure f;
            sm_failure_from_json(fj, &f);
            failed = sm_failure_kind_is_failure(f.kind) && f.kind != SM_FAIL_EXIT_NONZERO;
        }
        attr_t a = i == app->ev_selected ? tui_attr(TH_SELECTED)
                                         : tui_attr(failed ? TH_FAILURE : TH_NORMAL);
        tui_put(top + 1 + k, 0, app->cols, line, a, true);
    }
}

void tui_events_click(tui_app *app, int y, int top)
{
    if (y - top - 1 >= 0)
        app->ev_selected = app->ev_scroll + (size_t)(y - top - 1);
}

void tui_events_move(tui_app *app, int delta)
{
    if (delta > 0)
        app->ev_selected += (size_t)delta;
    else if (app->ev_selected > 0)
        app->ev_selected--;
}

void tui_events_page(tui_app *app, int dir)
{
    size_t step = (size_t)(app->rows > 6 ? app->rows - 5 : 1);
    if (dir > 0)
        app->ev_selected += step;
    else
        app->ev_selected = app->ev_selected > step ? app->ev_selected - step : 0;
}

void tui_events_top(tui_app *app)
{
    app->ev_selected = 0;
}

void tui_events_open(tui_app *app)
{
    static int idx[TUI_MAX_EVENTS];
    size_t n = visible(app, idx, TUI_MAX_EVENTS);
    if (app->ev_selected >= n)
        return;
    const char *id =
        sm_json_str(cJSON_GetArrayItem(app->model.events, idx[app->ev_selected]), "sandbox_id");
    for (size_t i = 0; id && i < app->model.nrows; i++) {
        if (!strcmp(app->model.rows[i].info->id, id)) {
            tui_model_select(&app->model, i);
            app->view = VIEW_DETAIL;
            return;
        }
    }
    tui_status(app, true, "sandbox %s is gone", id ? id : "?");
}
