/* The events view: the journal of every sandbox, newest first, filtered by the "/" text.
 * Failure lines show their kind and evidence ("OOM killed - memory.oom_kill 1, limit 64MiB").
 * The selection stays on its event while new ones arrive (Enter opens the sandbox the
 * highlighted line names, not whatever slid under it), and `s` pauses the feed: the view keeps
 * the events it had until `s` again, while new ones are still collected. Each event is
 * formatted once, when it arrives (a cache beside the feed); frames draw the cached text. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
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

/* What identifies an event without formatting it: its time, name, sandbox and command. */
static void event_key(const cJSON *ev, char *buf, size_t len)
{
    const char *f[] = {sm_json_str(ev, "ts"), sm_json_str(ev, "event"),
                       sm_json_str(ev, "sandbox_id"), sm_json_str(ev, "cmd")};
    snprintf(buf, len, "%s|%s|%s|%.200s", f[0] ? f[0] : "", f[1] ? f[1] : "", f[2] ? f[2] : "",
             f[3] ? f[3] : "");
}

/* One event as the view shows and filters it, formatted once when it arrives. */
typedef struct tui_evline {
    const cJSON *ev;
    char *key;   /* event_key */
    char *line;  /* what the view shows */
    char *match; /* the line, the failure's kind and label: what the filter searches */
    bool failed;
} tui_evline;

static void evline_free(tui_evline *l)
{
    free(l->key);
    free(l->line);
    free(l->match);
}

/* The filter matches what the line shows and the failure's kind by name ("oom_killed",
 * "OOM killed"): not the raw JSON, where "oom" is in every failure's oom_kills field. */
static tui_evline format(const cJSON *ev)
{
    tui_evline l = {.ev = ev};
    char key[400], line[768], text[1024];
    event_key(ev, key, sizeof key);
    event_line(ev, line, sizeof line);
    snprintf(text, sizeof text, "%s", line);
    const cJSON *fj = cJSON_GetObjectItemCaseSensitive(ev, "failure");
    if (fj) {
        sm_failure f;
        char label[96];
        sm_failure_from_json(fj, &f);
        sm_failure_label(&f, label, sizeof label);
        size_t used = strlen(text);
        snprintf(text + used, sizeof text - used, "\n%s\n%s", sm_failure_kind_name(f.kind), label);
        l.failed = sm_failure_kind_is_failure(f.kind) && f.kind != SM_FAIL_EXIT_NONZERO;
    }
    l.key = xstrdup(key);
    l.line = xstrdup(line);
    l.match = xstrdup(text);
    return l;
}

void tui_events_free(tui_app *app)
{
    for (size_t i = 0; i < app->ev_nlines; i++)
        evline_free(&app->ev_lines[i]);
    free(app->ev_lines);
    free(app->ev_vis);
    app->ev_lines = NULL;
    app->ev_vis = NULL;
    app->ev_nlines = app->ev_nvis = 0;
}

/* Brings the cache up to the feed: events already formatted keep their text (new ones come in
 * at the head, old ones leave at the tail, in between the order holds), new ones are
 * formatted. Nothing is done when the feed has not changed since. */
static void sync_cache(tui_app *app)
{
    const cJSON *f = feed(app);
    if (app->ev_cache_gen == app->ev_gen && app->ev_cache_feed == f && app->ev_lines)
        return;
    bool same = app->ev_cache_feed == f;
    size_t n = (size_t)cJSON_GetArraySize(f), j = 0, k = 0;
    tui_evline *old = app->ev_lines, *nl = xcalloc(n ? n : 1, sizeof *nl);
    const cJSON *ev;
    cJSON_ArrayForEach(ev, f)
    {
        char key[400];
        if (same && j < app->ev_nlines && old[j].ev == ev) {
            event_key(ev, key, sizeof key); /* the same event, not a new one where it was */
            if (!strcmp(key, old[j].key)) {
                nl[k++] = old[j];
                old[j++].ev = NULL;
                continue;
            }
        }
        nl[k++] = format(ev);
    }
    for (size_t i = 0; i < app->ev_nlines; i++)
        if (old[i].ev)
            evline_free(&old[i]);
    free(old);
    app->ev_lines = nl;
    app->ev_nlines = k;
    app->ev_cache_feed = f;
    app->ev_cache_gen = app->ev_gen;
    app->ev_vis_gen = app->ev_gen - 1; /* the filtered list is built again */
}

/* Every word of the filter must match, case-insensitively. */
static bool event_matches(const tui_evline *l, const char *filter)
{
    if (!filter || !*filter)
        return true;
    char buf[128];
    snprintf(buf, sizeof buf, "%s", filter);
    char *save = NULL;
    for (char *w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save))
        if (!strcasestr(l->match, w))
            return false;
    return true;
}

/* Visible events (filtered), in the feed's order: built again only when the feed or the
 * filter changed. Returns their number; ev_line(app, i) is the i-th. */
static size_t visible(tui_app *app)
{
    sync_cache(app);
    if (app->ev_vis_gen == app->ev_gen && !strcmp(app->ev_vis_filter, app->model.filter))
        return app->ev_nvis;
    free(app->ev_vis);
    app->ev_vis = xcalloc(app->ev_nlines ? app->ev_nlines : 1, sizeof *app->ev_vis);
    app->ev_nvis = 0;
    for (size_t i = 0; i < app->ev_nlines; i++)
        if (event_matches(&app->ev_lines[i], app->model.filter))
            app->ev_vis[app->ev_nvis++] = i;
    snprintf(app->ev_vis_filter, sizeof app->ev_vis_filter, "%s", app->model.filter);
    app->ev_vis_gen = app->ev_gen;
    return app->ev_nvis;
}

static const tui_evline *ev_line(const tui_app *app, size_t i)
{
    return &app->ev_lines[app->ev_vis[i]];
}

/* The held event's identity: its key under the filter it was chosen with (a new filter
 * starts again at the top). */
static void held_key(const tui_app *app, size_t i, char *buf, size_t len)
{
    snprintf(buf, len, "%s|%s", app->model.filter, ev_line(app, i)->key);
}

/* Finds the selected event again (new events may have come in above it) and remembers the
 * one at the selection. Returns the number of visible events. */
static size_t hold(tui_app *app)
{
    size_t n = visible(app);
    char key[sizeof app->ev_key];
    if (app->ev_key[0]) {
        /* events arrive at the head: look from where it was, downwards first */
        for (size_t k = 0; k < n; k++) {
            size_t i = (app->ev_selected + k) % n;
            held_key(app, i, key, sizeof key);
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
        held_key(app, app->ev_selected, app->ev_key, sizeof app->ev_key);
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
    char want[400], key[400];
    event_key(head, want, sizeof want);
    int k = 0;
    const cJSON *ev;
    cJSON_ArrayForEach(ev, app->model.events)
    {
        event_key(ev, key, sizeof key);
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
    size_t n = hold(app);
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
        const tui_evline *l = ev_line(app, i);
        attr_t a = i == app->ev_selected ? tui_attr(TH_SELECTED)
                                         : tui_attr(l->failed ? TH_FAILURE : TH_NORMAL);
        tui_put(top + 1 + k, 0, app->cols, l->line, a, true);
    }
}

/* A move from the held event, then the event now selected is the one held. */
static void moved(tui_app *app, size_t to)
{
    app->ev_key[0] = '\0';
    app->ev_selected = to;
    hold(app);
}

static size_t held(tui_app *app)
{
    hold(app);
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
    app->ev_gen++;
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
    size_t n = hold(app);
    if (app->ev_selected >= n)
        return;
    const char *id = sm_json_str(ev_line(app, app->ev_selected)->ev, "sandbox_id");
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
    size_t n = hold(app);
    if (app->ev_selected >= n)
        return;
    const cJSON *e = ev_line(app, app->ev_selected)->ev;
    const char *id = sm_json_str(e, "sandbox_id"), *prov = sm_json_str(e, "provider");
    if (!id)
        return;
    if (!prov)
        prov = app->provider ? sm_provider_name(app->provider) : "local";
    const cJSON *out = cJSON_GetObjectItemCaseSensitive(e, "output");
    int exec = cJSON_IsNumber(out) && out->valuedouble >= 1 ? (int)out->valuedouble : 0;
    tui_logs_open(app, prov, id, exec);
}
