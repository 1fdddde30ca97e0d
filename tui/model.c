/* The dashboard's model: refresh results folded into per-sandbox state, filter and sort. */
#include "tui/model.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/diagnose.h"
#include "core/json.h"
#include "core/util.h"

static void free_sbx(void *v, void *ud)
{
    tui_sbx *s = v;
    cJSON_Delete(s->recent);
    free(s);
}

void tui_model_init(tui_model *m)
{
    memset(m, 0, sizeof *m);
    sm_strtab_init(&m->state, free_sbx, NULL);
    m->events = cJSON_CreateArray();
    m->journal = cJSON_CreateArray();
}

void tui_model_free(tui_model *m)
{
    sm_sandbox_info_list_free(m->infos, m->ninfos);
    sm_strtab_clear(&m->state);
    free(m->rows);
    cJSON_Delete(m->events);
    cJSON_Delete(m->journal);
    memset(m, 0, sizeof *m);
}

static double event_time(const cJSON *ev)
{
    return sm_parse_time(sm_json_str(ev, "ts"));
}

static void note_failure(tui_sbx *st, const sm_failure *f, double at)
{
    sm_failure_note(&st->last_failure, &st->last_failure_at, f, at);
}

/* One event of a sandbox into its state: its failure and its recent events. */
static void fold_event(tui_sbx *st, const cJSON *ev)
{
    const cJSON *fj = cJSON_GetObjectItemCaseSensitive(ev, "failure");
    if (fj) {
        sm_failure f;
        sm_failure_from_json(fj, &f);
        note_failure(st, &f, event_time(ev));
    }
    cJSON_AddItemToArray(st->recent, cJSON_Duplicate(ev, 1));
    while (cJSON_GetArraySize(st->recent) > TUI_RECENT_EVENTS)
        cJSON_Delete(cJSON_DetachItemFromArray(st->recent, 0));
}

static bool event_shown(const tui_model *m, const cJSON *ev)
{
    const char *p = sm_json_str(ev, "provider");
    return !m->provider[0] || !p || !strcmp(p, m->provider);
}

tui_sbx *tui_model_state(tui_model *m, const char *id)
{
    tui_sbx *s = sm_strtab_get(&m->state, id);
    if (!s) {
        s = xcalloc(1, sizeof *s);
        sm_failure_init(&s->last_failure);
        s->recent = cJSON_CreateArray();
        sm_strtab_put(&m->state, id, s);
        /* events that came before the sandbox did: fold them in, oldest first */
        const cJSON *last = m->events ? m->events->child : NULL;
        while (last && last->next)
            last = last->next;
        for (const cJSON *ev = last; ev; ev = ev == m->events->child ? NULL : ev->prev) {
            const char *sid = sm_json_str(ev, "sandbox_id");
            if (sid && !strcmp(sid, id))
                fold_event(s, ev);
        }
    }
    return s;
}

void tui_model_set_provider(tui_model *m, const char *provider)
{
    sm_sandbox_info_list_free(m->infos, m->ninfos);
    m->infos = NULL;
    m->ninfos = 0;
    sm_strtab_clear(&m->state);
    free(m->rows);
    m->rows = NULL;
    m->nrows = m->selected = m->scroll = 0;
    m->selected_id[0] = '\0';
    memset(m->counts, 0, sizeof m->counts);
    m->error[0] = m->error_label[0] = '\0';
    m->loaded = false;
    snprintf(m->provider, sizeof m->provider, "%s", provider ? provider : "");
    cJSON_Delete(m->events);
    m->events = cJSON_CreateArray();
    const cJSON *ev;
    cJSON_ArrayForEach(ev, m->journal)
    {
        if (event_shown(m, ev))
            cJSON_AddItemToArray(m->events, cJSON_Duplicate(ev, 1));
    }
}

void tui_model_update(tui_model *m, sm_sandbox_info *infos, size_t n, const sm_sample *samples,
                      const bool *ok, const char *provider)
{
    const char **ids = xcalloc(n ? n : 1, sizeof *ids);
    memset(m->counts, 0, sizeof m->counts);
    for (size_t i = 0; i < n; i++) {
        ids[i] = infos[i].id;
        if (infos[i].status <= SM_STATUS_UNKNOWN)
            m->counts[infos[i].status]++;
        tui_sbx *st = tui_model_state(m, infos[i].id);
        if (!ok || !ok[i])
            continue;
        sm_failure_observe_sample(&st->history, &samples[i], &infos[i], provider, &st->last_failure,
                                  &st->last_failure_at);
    }
    sm_strtab_retain(&m->state, ids, n);
    free(ids);
    sm_sandbox_info_list_free(m->infos, m->ninfos);
    m->infos = infos;
    m->ninfos = n;
    m->loaded = true;
    tui_model_rebuild(m);
}

/* Inserts ev into a newest-first list before the first event not newer than it: at the head
 * for what just happened, further down for a journal read late (a sandbox's first poll). */
static void insert_newest_first(cJSON *list, cJSON *ev)
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
static void keep_newest(cJSON *list, int max)
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

void tui_model_add_events(tui_model *m, cJSON *events)
{
    if (!events)
        return;
    cJSON *ev;
    while ((ev = cJSON_DetachItemFromArray(events, 0)) != NULL) {
        if (event_shown(m, ev)) {
            const char *id = sm_json_str(ev, "sandbox_id");
            tui_sbx *st = id ? sm_strtab_get(&m->state, id) : NULL;
            if (st)
                fold_event(st, ev);
            insert_newest_first(m->events, cJSON_Duplicate(ev, 1));
        }
        insert_newest_first(m->journal, ev);
    }
    cJSON_Delete(events);
    keep_newest(m->events, TUI_MAX_EVENTS);
    keep_newest(m->journal, TUI_MAX_EVENTS);
}

static bool contains(const char *hay, const char *needle)
{
    return hay && strcasestr(hay, needle) != NULL;
}

/* Filter: every space-separated word must match the id, status, image, provider, a label
 * (k=v or a value), or the failure kind or label. */
static bool row_matches(const tui_row *r, const char *filter)
{
    char buf[128];
    snprintf(buf, sizeof buf, "%s", filter);
    char *save = NULL;
    for (char *w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
        const sm_sandbox_info *i = r->info;
        bool hit = contains(i->id, w) || contains(sm_status_name(i->status), w) ||
                   contains(i->image, w) || contains(i->provider, w);
        for (size_t k = 0; !hit && k < i->labels.n; k++) {
            char kv[512];
            snprintf(kv, sizeof kv, "%s=%s", i->labels.items[k].key, i->labels.items[k].value);
            hit = contains(kv, w);
        }
        if (!hit && r->has_why) {
            char label[128];
            sm_failure_label(&r->why, label, sizeof label);
            hit = contains(label, w) || contains(sm_failure_kind_name(r->why.kind), w);
        }
        if (!hit)
            return false;
    }
    return true;
}

static tui_sort g_sort;
static bool g_reverse;

static int cmp_num(double a, double b)
{
    return (a > b) - (a < b);
}

static int cmp_rows(const void *pa, const void *pb)
{
    const tui_row *a = pa, *b = pb;
    const sm_sample *sa = sm_history_at(&a->st->history, 0);
    const sm_sample *sb = sm_history_at(&b->st->history, 0);
    int c = 0;
    switch (g_sort) {
    case SORT_ID: c = strcmp(a->info->id, b->info->id); break;
    case SORT_STATUS: c = (int)a->info->status - (int)b->info->status; break;
    case SORT_CPU: c = cmp_num(b->rates.cpu_pct, a->rates.cpu_pct); break; /* busiest first */
    case SORT_MEM:
        c = cmp_num(sb ? (double)sb->mem_working_set : -1, sa ? (double)sa->mem_working_set : -1);
        break;
    case SORT_PIDS: c = cmp_num(sb ? (double)sb->pids : -1, sa ? (double)sa->pids : -1); break;
    case SORT_TTL: {
        double now = sm_now_wall();
        double ta = sm_sandbox_info_ttl_left(a->info, now),
               tb = sm_sandbox_info_ttl_left(b->info, now);
        c = cmp_num(ta < 0 ? 1e18 : ta, tb < 0 ? 1e18 : tb); /* soonest to expire first */
        break;
    }
    case SORT_FAILURE: c = (int)b->has_why - (int)a->has_why; break;
    default: break;
    }
    if (c == 0)
        c = cmp_num(a->info->created_at, b->info->created_at);
    if (c == 0)
        c = strcmp(a->info->id, b->info->id);
    return g_reverse ? -c : c;
}

void tui_model_rebuild(tui_model *m)
{
    free(m->rows);
    m->rows = xcalloc(m->ninfos ? m->ninfos : 1, sizeof *m->rows);
    m->nrows = 0;
    for (size_t i = 0; i < m->ninfos; i++) {
        tui_row r = {.info = &m->infos[i]};
        r.st = tui_model_state(m, m->infos[i].id);
        sm_history_rates(&r.st->history, &r.rates);
        r.has_why = sm_diagnose(r.info, &r.st->last_failure, &r.rates, &r.why, &r.why_warning);
        if (m->filter[0] && !row_matches(&r, m->filter))
            continue;
        m->rows[m->nrows++] = r;
    }
    g_sort = m->sort;
    g_reverse = m->sort_reverse;
    qsort(m->rows, m->nrows, sizeof *m->rows, cmp_rows);
    /* keep the selection on the same sandbox */
    size_t sel = 0;
    bool found = false;
    for (size_t i = 0; i < m->nrows && m->selected_id[0]; i++) {
        if (!strcmp(m->rows[i].info->id, m->selected_id)) {
            sel = i;
            found = true;
            break;
        }
    }
    if (!found)
        sel = m->selected < m->nrows ? m->selected : (m->nrows ? m->nrows - 1 : 0);
    tui_model_select(m, sel);
}

void tui_model_select(tui_model *m, size_t row)
{
    if (m->nrows == 0) {
        m->selected = 0;
        return;
    }
    if (row >= m->nrows)
        row = m->nrows - 1;
    m->selected = row;
    snprintf(m->selected_id, sizeof m->selected_id, "%s", m->rows[row].info->id);
}

tui_row *tui_model_selected(tui_model *m)
{
    return m->nrows ? &m->rows[m->selected] : NULL;
}

size_t tui_model_marked(const tui_model *m)
{
    size_t n = 0;
    for (size_t i = 0; i < m->nrows; i++)
        n += m->rows[i].st->marked;
    return n;
}

size_t tui_model_targets(tui_model *m, const char ***ids)
{
    size_t n = tui_model_marked(m), k = 0;
    *ids = xcalloc(n ? n : 1, sizeof **ids);
    if (n) {
        for (size_t i = 0; i < m->nrows; i++)
            if (m->rows[i].st->marked)
                (*ids)[k++] = m->rows[i].info->id;
        return k;
    }
    tui_row *sel = tui_model_selected(m);
    if (sel)
        (*ids)[k++] = sel->info->id;
    return k;
}

const char *tui_sort_name(tui_sort s)
{
    static const char *names[SORT__COUNT] = {"created", "id",   "status", "cpu",
                                             "memory",  "pids", "ttl",    "failure"};
    return s < SORT__COUNT ? names[s] : "created";
}
