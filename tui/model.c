/* The dashboard's view of the fleet: filter, sort, selection and the journal of every
 * provider. */
#include "tui/model.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/attribution.h"
#include "core/json.h"
#include "core/util.h"

static void point_at_fleet(tui_model *m)
{
    m->events = m->fleet->events;
    m->counts = m->fleet->counts;
    m->error = m->fleet->error;
}

void tui_model_init(tui_model *m)
{
    memset(m, 0, sizeof *m);
    m->fleet = sm_fleet_new(NULL);
    m->journal = cJSON_CreateArray();
    point_at_fleet(m);
}

void tui_model_free(tui_model *m)
{
    sm_fleet_free(m->fleet);
    free(m->rows);
    cJSON_Delete(m->journal);
    memset(m, 0, sizeof *m);
}

void tui_model_apply(tui_model *m, sm_fleet_snapshot *snap, cJSON *events)
{
    if (events) { /* the journal keeps every provider's; the fleet takes its own */
        const cJSON *ev;
        cJSON_ArrayForEach(ev, events)
        {
            sm_fleet_event_insert(m->journal, cJSON_Duplicate(ev, 1));
        }
        sm_fleet_events_keep(m->journal, TUI_MAX_EVENTS);
    }
    sm_fleet_apply(m->fleet, snap, events);
    tui_model_rebuild(m);
}

void tui_model_set_provider(tui_model *m, const char *provider)
{
    sm_fleet_reset(m->fleet, provider);
    free(m->rows);
    m->rows = NULL;
    m->nrows = m->selected = m->scroll = 0;
    m->selected_id[0] = '\0';
    /* oldest first, so that each lands at the head of the fleet's newest-first list */
    cJSON *copy = cJSON_CreateArray();
    const cJSON *last = m->journal->child;
    while (last && last->next)
        last = last->next;
    for (const cJSON *ev = last; ev; ev = ev == m->journal->child ? NULL : ev->prev)
        cJSON_AddItemToArray(copy, cJSON_Duplicate(ev, 1));
    sm_fleet_apply(m->fleet, NULL, copy);
}

static bool contains(const char *hay, const char *needle)
{
    return hay && strcasestr(hay, needle) != NULL;
}

/* run=ID and user=NAME: that attribution label (or a plain label of that name) exactly, as ls
 * --run and --user select; 1 match, 0 no match, -1 not such a word. */
static int attribution_word(const sm_sandbox_info *i, const char *w)
{
    static const char *const fields[] = {"run", "user"};
    const char *eq = strchr(w, '=');
    for (size_t k = 0; eq && k < SM_ARRAY_LEN(fields); k++) {
        if (strlen(fields[k]) != (size_t)(eq - w) || strncmp(w, fields[k], (size_t)(eq - w)))
            continue;
        char key[64];
        snprintf(key, sizeof key, "%s%s", SM_ATTRIBUTION_PREFIX, fields[k]);
        const char *v = sm_map_get(&i->labels, key), *plain = sm_map_get(&i->labels, fields[k]);
        return (v && !strcmp(v, eq + 1)) || (plain && !strcmp(plain, eq + 1));
    }
    return -1;
}

/* Filter: every space-separated word must match the id, status, image, provider, a label
 * (k=v or a value), or the failure kind or label; run=ID and user=NAME match those labels
 * exactly. */
static bool row_matches(const tui_row *r, const char *filter)
{
    char buf[128];
    snprintf(buf, sizeof buf, "%s", filter);
    char *save = NULL;
    for (char *w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
        const sm_sandbox_info *i = r->info;
        int attr = attribution_word(i, w);
        if (attr >= 0) {
            if (!attr)
                return false;
            continue;
        }
        bool hit = contains(i->id, w) || contains(sm_status_name(i->status), w) ||
                   contains(i->image, w) || contains(i->provider, w);
        for (size_t k = 0; !hit && k < i->labels.n; k++) {
            char kv[512];
            snprintf(kv, sizeof kv, "%s=%s", i->labels.items[k].key, i->labels.items[k].value);
            hit = contains(kv, w);
        }
        if (!hit && r->f->has_why) {
            char label[128];
            sm_failure_label(&r->f->why, label, sizeof label);
            hit = contains(label, w) || contains(sm_failure_kind_name(r->f->why.kind), w);
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
    case SORT_CPU: c = cmp_num(b->f->rates.cpu_pct, a->f->rates.cpu_pct); break; /* busiest first */
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
    case SORT_FAILURE: c = (int)b->f->has_why - (int)a->f->has_why; break;
    default: break;
    }
    if (c == 0)
        c = cmp_num(a->info->created_at, b->info->created_at);
    if (c == 0)
        c = strcmp(a->info->id, b->info->id);
    return g_reverse ? -c : c;
}

void tui_model_run(const tui_model *m, const tui_row *r, char *buf, size_t len)
{
    sm_fleet_cell(m->fleet, r->f, SM_COL_RUN, 0, buf, len);
}

/* Each run's rows together, runs in the order of their first row, rows without a run last;
 * within a run the sort order stays. */
static void group_by_run(tui_model *m)
{
    size_t n = m->nrows ? m->nrows : 1;
    tui_row *out = xcalloc(n, sizeof *out);
    bool *done = xcalloc(n, sizeof *done);
    char(*run)[128] = xcalloc(n, sizeof *run);
    for (size_t i = 0; i < m->nrows; i++)
        tui_model_run(m, &m->rows[i], run[i], sizeof run[i]);
    size_t k = 0;
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < m->nrows; i++) {
            if (done[i] || (pass == 0) == !strcmp(run[i], "-"))
                continue;
            for (size_t j = i; j < m->nrows; j++)
                if (!done[j] && !strcmp(run[i], run[j])) {
                    out[k++] = m->rows[j];
                    done[j] = true;
                }
        }
    free(m->rows);
    free(done);
    free(run);
    m->rows = out;
}

void tui_model_rebuild(tui_model *m)
{
    free(m->rows);
    const sm_fleet *f = m->fleet;
    m->rows = xcalloc(f->n ? f->n : 1, sizeof *m->rows);
    m->nrows = 0;
    for (size_t i = 0; i < f->n; i++) {
        tui_row r = {.info = f->rows[i].info, .st = f->rows[i].st, .f = &f->rows[i]};
        if (m->filter[0] && !row_matches(&r, m->filter))
            continue;
        m->rows[m->nrows++] = r;
    }
    g_sort = m->sort;
    g_reverse = m->sort_reverse;
    qsort(m->rows, m->nrows, sizeof *m->rows, cmp_rows);
    if (m->group_run)
        group_by_run(m);
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
