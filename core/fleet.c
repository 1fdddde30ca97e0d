/* The fleet: scans folded into per-sandbox state, and the text of every shared column. */
#include "core/fleet.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/attribution.h"
#include "core/diagnose.h"
#include "core/journal.h"
#include "core/json.h"
#include "core/util.h"

struct sm_fleet_snapshot {
    int rc;
    sm_error err;
    sm_sandbox_info *list;
    size_t n;
    sm_sample *samples;
    bool *ok;
};

static void free_sbx(void *v, void *ud)
{
    sm_fleet_sbx *s = v;
    cJSON_Delete(s->recent);
    free(s);
}

sm_fleet *sm_fleet_new(const char *provider)
{
    sm_fleet *f = xcalloc(1, sizeof *f);
    sm_strtab_init(&f->state, free_sbx, NULL);
    f->events = cJSON_CreateArray();
    sm_fleet_reset(f, provider);
    return f;
}

void sm_fleet_reset(sm_fleet *f, const char *provider)
{
    sm_sandbox_info_list_free(f->infos, f->n);
    f->infos = NULL;
    f->n = 0;
    free(f->rows);
    f->rows = NULL;
    sm_strtab_clear(&f->state);
    cJSON *ev;
    while ((ev = cJSON_DetachItemFromArray(f->events, 0)) != NULL)
        cJSON_Delete(ev);
    memset(f->counts, 0, sizeof f->counts);
    sm_error_clear(&f->err);
    f->error[0] = f->error_label[0] = '\0';
    f->loaded = false;
    snprintf(f->provider, sizeof f->provider, "%s", provider ? provider : "");
}

void sm_fleet_free(sm_fleet *f)
{
    if (!f)
        return;
    sm_fleet_reset(f, NULL);
    cJSON_Delete(f->events);
    free(f);
}

/* ---- scans: worker side ------------------------------------------------------------------ */

sm_fleet_snapshot *sm_fleet_snapshot_new(sm_sandbox_info *list, size_t n, sm_sample *samples,
                                         bool *ok)
{
    sm_fleet_snapshot *s = xcalloc(1, sizeof *s);
    s->rc = SM_OK;
    s->list = list;
    s->n = n;
    s->samples = samples;
    s->ok = ok;
    return s;
}

sm_fleet_snapshot *sm_fleet_snapshot_failed(const sm_error *err)
{
    sm_fleet_snapshot *s = xcalloc(1, sizeof *s);
    s->err = *err;
    s->rc = err->code != SM_OK ? err->code : SM_ERR_RUNTIME;
    return s;
}

void sm_fleet_snapshot_free(sm_fleet_snapshot *s)
{
    if (!s)
        return;
    sm_sandbox_info_list_free(s->list, s->n);
    free(s->samples);
    free(s->ok);
    free(s);
}

sm_fleet_snapshot *sm_fleet_scan(sm_provider *p, sm_sampler *sampler, const sm_list_filter *filter)
{
    sm_error err;
    sm_error_clear(&err);
    sm_sandbox_info *list = NULL;
    size_t n = 0;
    if (sm_provider_list(p, filter, &list, &n, &err) != SM_OK)
        return sm_fleet_snapshot_failed(&err);
    sm_sample *samples = xcalloc(n ? n : 1, sizeof *samples);
    bool *ok = xcalloc(n ? n : 1, sizeof *ok);
    if (sampler)
        sm_sampler_collect(sampler, list, n, samples, ok);
    return sm_fleet_snapshot_new(list, n, samples, ok);
}

/* ---- apply: the owner's side ------------------------------------------------------------- */

/* One event of a sandbox into its state: its failure and its recent events. */
static void fold_event(sm_fleet_sbx *st, const cJSON *ev)
{
    const cJSON *fj = cJSON_GetObjectItemCaseSensitive(ev, "failure");
    if (fj) {
        sm_failure fl;
        sm_failure_from_json(fj, &fl);
        sm_failure_note(&st->last_failure, &st->last_failure_at, &fl,
                        sm_parse_time(sm_json_str(ev, "ts")));
    }
    cJSON_AddItemToArray(st->recent, cJSON_Duplicate(ev, 1));
    while (cJSON_GetArraySize(st->recent) > SM_FLEET_RECENT_EVENTS)
        cJSON_Delete(cJSON_DetachItemFromArray(st->recent, 0));
}

/* The state of id, created from the events that came before the sandbox did (oldest first). */
static sm_fleet_sbx *state_of(sm_fleet *f, const char *id)
{
    sm_fleet_sbx *s = sm_strtab_get(&f->state, id);
    if (s)
        return s;
    s = xcalloc(1, sizeof *s);
    sm_failure_init(&s->last_failure);
    s->recent = cJSON_CreateArray();
    sm_strtab_put(&f->state, id, s);
    const cJSON *last = f->events->child;
    while (last && last->next)
        last = last->next;
    for (const cJSON *ev = last; ev; ev = ev == f->events->child ? NULL : ev->prev) {
        const char *sid = sm_json_str(ev, "sandbox_id");
        if (sid && !strcmp(sid, id))
            fold_event(s, ev);
    }
    return s;
}

static void apply_scan(sm_fleet *f, sm_fleet_snapshot *snap)
{
    if (snap->rc != SM_OK) { /* the rows of the last good scan stay, stale */
        f->err = snap->err;
        f->error_label[0] = '\0';
        if (f->err.failure.kind != SM_FAIL_NONE)
            sm_failure_label(&f->err.failure, f->error_label, sizeof f->error_label);
        snprintf(f->error, sizeof f->error, "%s%s%s", f->error_label, f->error_label[0] ? ": " : "",
                 f->err.msg);
        return;
    }
    const char **ids = xcalloc(snap->n ? snap->n : 1, sizeof *ids);
    memset(f->counts, 0, sizeof f->counts);
    for (size_t i = 0; i < snap->n; i++) {
        const sm_sandbox_info *info = &snap->list[i];
        ids[i] = info->id;
        if (info->status <= SM_STATUS_UNKNOWN)
            f->counts[info->status]++;
        sm_fleet_sbx *st = state_of(f, info->id);
        if (snap->ok && snap->ok[i])
            sm_failure_observe_sample(&st->history, &snap->samples[i], info, f->provider,
                                      &st->last_failure, &st->last_failure_at);
    }
    sm_strtab_retain(&f->state, ids, snap->n);
    free(ids);
    sm_sandbox_info_list_free(f->infos, f->n);
    f->infos = snap->list;
    f->n = snap->n;
    snap->list = NULL;
    snap->n = 0;
    free(f->rows);
    f->rows = xcalloc(f->n ? f->n : 1, sizeof *f->rows);
    sm_error_clear(&f->err);
    f->error[0] = f->error_label[0] = '\0';
    f->loaded = true;
}

static double event_time(const cJSON *ev)
{
    return sm_parse_time(sm_json_str(ev, "ts"));
}

/* Inserts ev into a newest-first list before the first event not newer than it: at the head
 * for what just happened, further down for a journal read late (a sandbox's first poll). */
void sm_fleet_event_insert(cJSON *list, cJSON *ev)
{
    double t = event_time(ev);
    int idx = 0;
    for (const cJSON *it = list->child; it && event_time(it) > t; it = it->next)
        idx++;
    cJSON_InsertItemInArray(list, idx, ev);
}

/* Drops everything after the first max items of a list, in one walk (counting and detaching
 * one by one walks the list once per item). cJSON chains items by next/prev and keeps the last
 * one in the first one's prev. */
void sm_fleet_events_keep(cJSON *list, int max)
{
    cJSON *last = list->child;
    for (int i = 1; last && i < max; i++)
        last = last->next;
    if (!last || !last->next)
        return;
    cJSON *rest = last->next;
    last->next = NULL;
    list->child->prev = last;
    rest->prev = NULL;
    cJSON_Delete(rest); /* rest and every item after it */
}

static void apply_events(sm_fleet *f, cJSON *events)
{
    cJSON *ev;
    while ((ev = cJSON_DetachItemFromArray(events, 0)) != NULL) {
        const char *p = sm_json_str(ev, "provider");
        if (f->provider[0] && p && strcmp(p, f->provider)) {
            cJSON_Delete(ev);
            continue;
        }
        const char *id = sm_json_str(ev, "sandbox_id");
        sm_fleet_sbx *st = id ? sm_strtab_get(&f->state, id) : NULL;
        if (st)
            fold_event(st, ev);
        sm_fleet_event_insert(f->events, ev);
    }
    sm_fleet_events_keep(f->events, SM_FLEET_MAX_EVENTS);
}

/* Each row's rates and failure, once per change. */
static void derive_rows(sm_fleet *f)
{
    for (size_t i = 0; i < f->n; i++) {
        sm_fleet_row *r = &f->rows[i];
        r->info = &f->infos[i];
        r->st = state_of(f, r->info->id);
        sm_history_rates(&r->st->history, &r->rates);
        r->has_why =
            sm_diagnose(r->info, &r->st->last_failure, &r->rates, &r->why, &r->why_warning);
    }
}

void sm_fleet_read_failures(sm_fleet *f)
{
    double now = sm_now_wall();
    for (size_t i = 0; i < f->n; i++) {
        sm_fleet_sbx *st = state_of(f, f->infos[i].id);
        sm_failure last;
        if (sm_journal_last_failure(f->infos[i].provider, f->infos[i].id, &last))
            sm_failure_note(&st->last_failure, &st->last_failure_at, &last, now);
    }
    derive_rows(f);
}

int sm_fleet_apply(sm_fleet *f, sm_fleet_snapshot *snap, cJSON *events)
{
    int rc = SM_OK;
    if (snap) {
        rc = snap->rc;
        apply_scan(f, snap);
        sm_fleet_snapshot_free(snap);
    }
    if (events) {
        apply_events(f, events);
        cJSON_Delete(events);
    }
    derive_rows(f);
    return rc;
}

/* ---- cells ------------------------------------------------------------------------------- */

static const char *const titles[SM_COL__COUNT] = {
    [SM_COL_ID] = "ID",
    [SM_COL_PROVIDER] = "PROVIDER",
    [SM_COL_STATUS] = "STATUS",
    [SM_COL_RUN] = "RUN",
    [SM_COL_IMAGE] = "IMAGE",
    [SM_COL_AGE] = "AGE",
    [SM_COL_TTL] = "TTL",
    [SM_COL_CPU] = "CPU%",
    [SM_COL_MEM] = "MEM/LIMIT",
    [SM_COL_PIDS] = "PIDS",
    [SM_COL_PIDS_LIMIT] = "PIDS/LIMIT",
    [SM_COL_IO] = "IO R/W per s",
    [SM_COL_FAILURE] = "FAILURE",
};

const char *sm_fleet_col_title(sm_fleet_col col)
{
    return col < SM_COL__COUNT ? titles[col] : "";
}

static bool running(const sm_sandbox_info *i)
{
    return i->status == SM_STATUS_RUNNING || i->status == SM_STATUS_STARTING;
}

bool sm_fleet_row_live(const sm_fleet *f, const sm_fleet_row *r)
{
    return running(r->info) && !f->error[0];
}

void sm_fleet_ttl_text(const sm_sandbox_info *i, double now, char *buf, size_t len)
{
    double left = sm_sandbox_info_ttl_left(i, now);
    if (left < 0)
        snprintf(buf, len, "-");
    else if (!running(i))
        snprintf(buf, len, "ended");
    else
        sm_format_duration(left, buf, len);
}

/* "a/b" of two byte figures; an unknown or unlimited b is "-". */
static void bytes_pair(double a, double b, char *buf, size_t len)
{
    char x[24], y[24] = "-";
    sm_format_bytes(a, x, sizeof x);
    if (b > 0)
        sm_format_bytes(b, y, sizeof y);
    snprintf(buf, len, "%s/%s", x, y);
}

void sm_fleet_cell(const sm_fleet *f, const sm_fleet_row *r, sm_fleet_col col, double now,
                   char *buf, size_t len)
{
    const sm_sandbox_info *i = r->info;
    const sm_sample *s = sm_history_at(&r->st->history, 0);
    bool live = sm_fleet_row_live(f, r);
    snprintf(buf, len, "-");
    switch (col) {
    case SM_COL_ID: snprintf(buf, len, "%s", i->id); break;
    case SM_COL_PROVIDER: snprintf(buf, len, "%s", i->provider); break;
    case SM_COL_STATUS: snprintf(buf, len, "%s", sm_status_name(i->status)); break;
    case SM_COL_RUN: {
        const char *run = sm_map_get(&i->labels, SM_LABEL_RUN);
        if (run && *run)
            snprintf(buf, len, "%s", run);
        break;
    }
    case SM_COL_IMAGE: snprintf(buf, len, "%s", i->image ? i->image : "-"); break;
    case SM_COL_AGE:
        if (i->created_at > 0)
            sm_format_duration(now - i->created_at, buf, len);
        break;
    case SM_COL_TTL: sm_fleet_ttl_text(i, now, buf, len); break;
    case SM_COL_CPU:
        if (live && r->rates.cpu_pct >= 0)
            snprintf(buf, len, "%.1f", r->rates.cpu_pct);
        break;
    case SM_COL_MEM:
        if (live && s && s->mem_working_set >= 0)
            bytes_pair((double)s->mem_working_set, (double)s->mem_limit, buf, len);
        break;
    case SM_COL_PIDS:
        if (live && s && s->pids >= 0)
            snprintf(buf, len, "%lld", s->pids);
        break;
    case SM_COL_PIDS_LIMIT:
        if (live && s && s->pids >= 0 && s->pids_limit > 0)
            snprintf(buf, len, "%lld/%lld", s->pids, s->pids_limit);
        else if (live && s && s->pids >= 0)
            snprintf(buf, len, "%lld/-", s->pids);
        break;
    case SM_COL_IO:
        if (live && r->rates.io_read_bps >= 0 && r->rates.io_write_bps >= 0) {
            char a[24], b[24];
            sm_format_bytes(r->rates.io_read_bps, a, sizeof a);
            sm_format_bytes(r->rates.io_write_bps, b, sizeof b);
            snprintf(buf, len, "%s/%s", a, b);
        }
        break;
    case SM_COL_FAILURE:
        /* a stale row says why its figures are old, unless it has a failure of its own */
        if (r->has_why)
            sm_failure_label(&r->why, buf, len);
        else if (f->error[0])
            snprintf(buf, len, "%s", f->error_label[0] ? f->error_label : "refresh failed");
        else
            buf[0] = '\0';
        break;
    default: buf[0] = '\0'; break;
    }
}
