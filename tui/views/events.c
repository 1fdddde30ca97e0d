/* The events view: the journal of every sandbox, newest first, filtered by the "/" text.
 * Failure lines show their kind and evidence ("OOM killed - memory.oom_kill 1, limit 64MiB").
 * The selection stays on its event while new ones arrive (Enter opens the sandbox the
 * highlighted line names, not whatever slid under it), and `s` pauses the feed: the view keeps
 * the events it had until `s` again, while new ones are still collected. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "core/journal.h"
#include "core/json.h"
#include "core/util.h"
#include "tui/views/views.h"
#include "tui/widgets/draw.h"

/* The events the view reads: the live list, or what it held when paused. */
static const cJSON *feed(const tui_app *app)
{
    return app->ev_paused ? app->ev_paused : app->model.events;
}

/* The line as the view shows it: local time, sandbox, type, summary. */
static void event_line(const cJSON *ev, char *line, size_t len)
{
    const char *ts = sm_json_str(ev, "ts"), *id = sm_json_str(ev, "sandbox_id");
    const char *type = sm_json_str(ev, "type");
    char summary[600], when[16] = "";
    sm_journal_event_summary(ev, summary, sizeof summary);
    double t = ts ? sm_parse_time(ts) : 0;
    if (t > 0) { /* the journal is in UTC; people read their own clock */
        time_t secs = (time_t)t;
        struct tm tm;
        if (localtime_r(&secs, &tm))
            strftime(when, sizeof when, "%H:%M:%S", &tm);
    }
    snprintf(line, len, "%-8.8s  %-12.12s  %-9.9s  %s", when, id ? id : "", type ? type : "",
             summary);
}

/* The filter matches what the line shows and the failure's kind by name ("oom_killed",
 * "OOM killed"): not the raw JSON, where "oom" is in every failure's oom_kills field. Every
 * word must match, case-insensitively. */
static bool event_matches(const cJSON *ev, const char *filter)
{
    if (!filter || !*filter)
        return true;
    char text[1024];
    event_line(ev, text, sizeof text);
    const cJSON *fj = cJSON_GetObjectItemCaseSensitive(ev, "failure");
    if (fj) {
        sm_failure f;
        char label[96];
        sm_failure_from_json(fj, &f);
        sm_failure_label(&f, label, sizeof label);
        size_t used = strlen(text);
        snprintf(text + used, sizeof text - used, "\n%s\n%s", sm_failure_kind_name(f.kind), label);
    }
    char buf[128];
    snprintf(buf, sizeof buf, "%s", filter);
    char *save = NULL;
    for (char *w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save))
        if (!strcasestr(text, w))
            return false;
    return true;
}

/* Visible events (filtered), in the feed's order. */
static size_t visible(tui_app *app, const cJSON **out, size_t max)
{
    size_t n = 0;
    const cJSON *ev;
    cJSON_ArrayForEach(ev, feed(app))
    {
        if (n < max && event_matches(ev, app->model.filter))
            out[n++] = ev;
    }
    return n;
}

/* What identifies an event: its time, sandbox, type, line, and the filter it was chosen
 * under (a new filter starts again at the top). */
static void event_key(const tui_app *app, const cJSON *ev, char *buf, size_t len)
{
    char line[256];
    event_line(ev, line, sizeof line);
    snprintf(buf, len, "%s|%s|%s|%s", sm_json_str(ev, "ts") ? sm_json_str(ev, "ts") : "",
             sm_json_str(ev, "event") ? sm_json_str(ev, "event") : "", app->model.filter, line);
}

/* Finds the selected event again (new events may have come in above it) and remembers the
 * one at the selection. Returns the number of visible events. */
static size_t hold(tui_app *app, const cJSON **ev, size_t max)
{
    size_t n = visible(app, ev, max);
    char key[sizeof app->ev_key];
    if (app->ev_key[0]) {
        /* events arrive at the head: look from where it was, downwards first */
        for (size_t k = 0; k < n; k++) {
            size_t i = (app->ev_selected + k) % n;
            event_key(app, ev[i], key, sizeof key);
            if (!strcmp(key, app->ev_key)) {
                /* a scrolled view keeps still; one at the top shows what comes in */
                if (app->ev_scroll > 0 && i > app->ev_selected)
                    app->ev_scroll += i - app->ev_selected;
                app->ev_selected = i;
                break;
            }
        }
    }
    if (n && app->ev_selected >= n)
        app->ev_selected = n - 1;
    if (n)
        event_key(app, ev[app->ev_selected], app->ev_key, sizeof app->ev_key);
    else
        app->ev_key[0] = '\0';
    return n;
}

/* How many events came in since the pause (the live list above the paused one's head). */
static int new_since_pause(const tui_app *app)
{
    const cJSON *head = app->ev_paused->child;
    if (!head)
        return cJSON_GetArraySize(app->model.events);
    char want[sizeof app->ev_key], key[sizeof app->ev_key];
    event_key(app, head, want, sizeof want);
    int k = 0;
    const cJSON *ev;
    cJSON_ArrayForEach(ev, app->model.events)
    {
        event_key(app, ev, key, sizeof key);
        if (!strcmp(key, want))
            return k;
        k++;
    }
    return k;
}

static void draw_header(tui_app *app, int top)
{
    attr_t head = tui_attr(TH_TITLE);
    tui_fill(top, 0, app->cols, head);
    tui_put(top, 0, app->cols, "TIME      SANDBOX       TYPE       EVENT", head, false);
    char note[96];
    attr_t a = head;
    if (app->ev_paused) {
        snprintf(note, sizeof note, "PAUSED, %d new  s resumes ", new_since_pause(app));
        a = tui_attr(TH_WARNING) | A_BOLD;
    } else {
        snprintf(note, sizeof note, "s pause ");
    }
    int w = (int)strlen(note), x = app->cols - w;
    if (x > 42) /* after the column titles */
        tui_put(top, x, w, note, a, false);
}

void tui_events_draw(tui_app *app, int top, int height)
{
    static const cJSON *ev[TUI_MAX_EVENTS];
    size_t n = hold(app, ev, TUI_MAX_EVENTS);
    draw_header(app, top);
    if (n == 0) {
        tui_put(top + 2, 2, app->cols - 4,
                app->model.filter[0] ? "no event matches the filter" : "no events yet",
                tui_attr(TH_DIM), false);
        return;
    }
    int body = height - 1;
    if (app->ev_selected < app->ev_scroll)
        app->ev_scroll = app->ev_selected;
    if (app->ev_selected >= app->ev_scroll + (size_t)body)
        app->ev_scroll = app->ev_selected - (size_t)body + 1;
    for (int k = 0; k < body && app->ev_scroll + (size_t)k < n; k++) {
        size_t i = app->ev_scroll + (size_t)k;
        char line[768];
        event_line(ev[i], line, sizeof line);
        bool failed = false;
        const cJSON *fj = cJSON_GetObjectItemCaseSensitive(ev[i], "failure");
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

/* A move from the held event, then the event now selected is the one held. */
static void moved(tui_app *app, size_t to)
{
    static const cJSON *ev[TUI_MAX_EVENTS];
    app->ev_key[0] = '\0';
    app->ev_selected = to;
    hold(app, ev, TUI_MAX_EVENTS);
}

static size_t held(tui_app *app)
{
    static const cJSON *ev[TUI_MAX_EVENTS];
    hold(app, ev, TUI_MAX_EVENTS);
    return app->ev_selected;
}

void tui_events_click(tui_app *app, int y, int top)
{
    if (y - top - 1 >= 0)
        moved(app, app->ev_scroll + (size_t)(y - top - 1));
}

void tui_events_move(tui_app *app, int delta)
{
    size_t at = held(app);
    if (delta > 0)
        moved(app, at + (size_t)delta);
    else if (at > 0)
        moved(app, at - 1);
}

void tui_events_page(tui_app *app, int dir)
{
    size_t step = (size_t)(app->rows > 6 ? app->rows - 5 : 1), at = held(app);
    moved(app, dir > 0 ? at + step : at > step ? at - step : 0);
}

void tui_events_top(tui_app *app)
{
    moved(app, 0);
}

void tui_events_pause(tui_app *app)
{
    if (app->ev_paused) {
        cJSON_Delete(app->ev_paused);
        app->ev_paused = NULL;
        tui_status(app, false, "events: live");
    } else {
        app->ev_paused = cJSON_Duplicate(app->model.events, 1);
        tui_status(app, false, "events: paused (s resumes)");
    }
}

void tui_events_open(tui_app *app)
{
    static const cJSON *ev[TUI_MAX_EVENTS];
    size_t n = hold(app, ev, TUI_MAX_EVENTS);
    if (app->ev_selected >= n)
        return;
    const char *id = sm_json_str(ev[app->ev_selected], "sandbox_id");
    for (size_t i = 0; id && i < app->model.nrows; i++) {
        if (!strcmp(app->model.rows[i].info->id, id)) {
            tui_model_select(&app->model, i);
            app->view = VIEW_DETAIL;
            return;
        }
    }
    tui_status(app, true, "sandbox %s is gone", id ? id : "?");
}

void tui_events_logs(tui_app *app)
{
    static const cJSON *ev[TUI_MAX_EVENTS];
    size_t n = hold(app, ev, TUI_MAX_EVENTS);
    if (app->ev_selected >= n)
        return;
    const cJSON *e = ev[app->ev_selected];
    const char *id = sm_json_str(e, "sandbox_id"), *prov = sm_json_str(e, "provider");
    if (!id)
        return;
    if (!prov)
        prov = app->provider ? sm_provider_name(app->provider) : "local";
    const cJSON *out = cJSON_GetObjectItemCaseSensitive(e, "output");
    int exec = cJSON_IsNumber(out) && out->valuedouble >= 1 ? (int)out->valuedouble : 0;
    tui_logs_open(app, prov, id, exec);
}
