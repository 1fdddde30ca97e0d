/* Garbage collection of sandboxes (gc.h): matching a selection against what the provider
 * lists, owner claims, and removal sweeps on a bounded pool of threads. Must not name a
 * provider: everything it knows comes from sm_sandbox_info and the facade. */
#include <cjson/cJSON.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/gc.h"
#include "core/json.h"
#include "core/sandbox.h"
#include "core/strbuf.h"
#include "core/util.h"

bool sm_gc_filter_empty(const sm_gc_filter *f)
{
    return !f->all && !f->expired && !f->orphaned && !f->ended && !(f->older_than_s > 0) &&
           !(f->labels && f->labels->n);
}

/* ---------------------------------------------------------------- owner claims */

static int boot_id(char *buf, size_t len)
{
    return sm_read_small("/proc/sys/kernel/random/boot_id", buf, len);
}

int sm_gc_owner_token(pid_t pid, char *buf, size_t len)
{
    char boot[64];
    if (pid <= 0)
        pid = getpid();
    unsigned long long start = sm_proc_start(pid, NULL);
    if (!start || boot_id(boot, sizeof boot) < 0)
        return -1;
    snprintf(buf, len, "%s:%d:%llu", boot, (int)pid, start);
    return 0;
}

void sm_gc_claim(sm_map *labels)
{
    char tok[128];
    if (sm_gc_owner_token(0, tok, sizeof tok) == 0)
        sm_map_set(labels, SM_LABEL_OWNER, tok);
}

int sm_gc_owner_gone(const char *token)
{
    char boot[64], mine[64];
    int pid = 0;
    unsigned long long start = 0;
    if (!token || sscanf(token, "%63[0-9a-f-]:%d:%llu", boot, &pid, &start) != 3 || pid <= 0 ||
        !start)
        return -1;
    if (boot_id(mine, sizeof mine) < 0 || strcmp(boot, mine))
        return -1; /* another boot of this host or another host: cannot tell */
    char state = 0;
    unsigned long long now = sm_proc_start((pid_t)pid, &state);
    /* gone, its pid reused by another process, or a zombie whose parent has not reaped it */
    return now != start || state == 'Z' || state == 'X';
}

/* ---------------------------------------------------------------- matching */

static bool ended(const sm_sandbox_info *i)
{
    return i->status == SM_STATUS_STOPPED || i->status == SM_STATUS_ERROR;
}

/* Made by sandman or by NeMo Gym: a provider that lists every container of an engine marks the
 * others foreign; a NeMo Gym one carries the seed's marker label. */
static bool collectable(const sm_sandbox_info *i)
{
    const cJSON *foreign = cJSON_GetObjectItemCaseSensitive(i->extra, "foreign");
    if (!cJSON_IsTrue(foreign))
        return true;
    const char *gym = sm_map_get(&i->labels, SM_LABEL_NEMO_GYM_SANDBOX);
    return gym && !strcmp(gym, "1");
}

static void add_why(sm_strbuf *b, const char *fmt, const char *arg)
    __attribute__((format(printf, 2, 0)));
static void add_why(sm_strbuf *b, const char *fmt, const char *arg)
{
    if (b->len)
        sm_strbuf_puts(b, "; ");
    sm_strbuf_printf(b, fmt, arg);
}

bool sm_gc_match(const sm_gc_filter *f, const sm_sandbox_info *i, double now, char *why, size_t len)
{
    if (why && len)
        why[0] = '\0';
    if (!i->id || !collectable(i))
        return false;
    for (size_t k = 0; f->labels && k < f->labels->n; k++) {
        const char *v = sm_map_get(&i->labels, f->labels->items[k].key);
        if (!v || strcmp(v, f->labels->items[k].value))
            return false;
    }
    double age = i->created_at > 0 ? now - i->created_at : -1;
    if (f->older_than_s > 0 && !(age > f->older_than_s))
        return false;

    sm_strbuf b = {0};
    char d[32];
    bool cond = f->expired || f->orphaned || f->ended, met = !cond;
    if (f->expired) {
        double over = i->ttl_s > 0 && i->created_at > 0 ? now - (i->created_at + i->ttl_s) : -1;
        bool by_ttl = i->failure.kind == SM_FAIL_TTL_EXPIRED;
        if (by_ttl || (over >= 0 && !ended(i))) {
            char t[96];
            sm_format_duration(over > 0 ? over : 0, d, sizeof d);
            if (i->ttl_s > 0)
                snprintf(t, sizeof t, "ttl %gs ran out %s ago", i->ttl_s, d);
            else
                snprintf(t, sizeof t, "ended by its ttl");
            add_why(&b, "expired (%s)", t);
            met = true;
        }
    }
    if (f->orphaned) {
        const char *owner = sm_map_get(&i->labels, SM_LABEL_OWNER);
        if (i->failure.kind == SM_FAIL_SUPERVISOR_LOST) {
            add_why(&b, "orphaned (%s)", "its supervisor died");
            met = true;
        } else if (owner && sm_gc_owner_gone(owner) == 1) {
            int pid = 0;
            const char *c = strchr(owner, ':');
            char t[64];
            if (c)
                pid = atoi(c + 1);
            snprintf(t, sizeof t, "the process %d that created it is gone", pid);
            add_why(&b, "orphaned (%s)", t);
            met = true;
        }
    }
    if (f->ended && ended(i)) {
        char label[128] = "";
        sm_failure_label(&i->failure, label, sizeof label);
        add_why(&b, "ended (%s)", label[0] ? label : sm_status_name(i->status));
        met = true;
    }
    if (!met) {
        sm_strbuf_free(&b);
        return false;
    }
    if (f->older_than_s > 0) {
        sm_format_duration(age, d, sizeof d);
        add_why(&b, "age %s", d);
    }
    if (f->labels && f->labels->n && !b.len)
        add_why(&b, "%s", "labels match");
    if (!b.len)
        add_why(&b, "%s", "selected (--all)");
    if (why && len)
        snprintf(why, len, "%s", b.data);
    sm_strbuf_free(&b);
    return true;
}

/* ---------------------------------------------------------------- sweeps */

typedef struct gc_pool {
    sm_provider *p;
    sm_gc_item **todo;
    size_t n;
    size_t next;
    pthread_mutex_t mu;
} gc_pool;

static void remove_one(sm_provider *p, sm_gc_item *it)
{
    sm_sandbox *s = sm_sandbox_new(p, false);
    sm_error e;
    sm_error_clear(&e);
    int rc;
    if (sm_provider_caps(p) & SM_CAP_CONNECT) {
        /* the full id from the list: no second list to resolve it */
        cJSON *desc = cJSON_CreateObject();
        cJSON_AddStringToObject(desc, "sandbox_id", it->id);
        rc = sm_sandbox_connect(s, desc, &e);
        cJSON_Delete(desc);
    } else {
        rc = sm_sandbox_open(s, it->id, &e);
    }
    if (rc == SM_ERR_NOT_FOUND)
        rc = SM_OK; /* gone already: what was asked */
    else if (rc == SM_OK)
        rc = sm_sandbox_stop(s, &e);
    sm_sandbox_free(s);
    it->removed = rc == SM_OK;
    if (rc == SM_OK)
        sm_error_clear(&it->err);
    else
        it->err = e;
}

static void *pool_worker(void *arg)
{
    gc_pool *pool = arg;
    for (;;) {
        pthread_mutex_lock(&pool->mu);
        size_t k = pool->next < pool->n ? pool->next++ : pool->n;
        pthread_mutex_unlock(&pool->mu);
        if (k >= pool->n)
            return NULL;
        remove_one(pool->p, pool->todo[k]);
    }
}

static void remove_all(sm_provider *p, sm_gc_item **todo, size_t n, int jobs)
{
    gc_pool pool = {.p = p, .todo = todo, .n = n};
    pthread_mutex_init(&pool.mu, NULL);
    size_t nt = (size_t)(jobs < 1 ? 1 : jobs);
    if (nt > n)
        nt = n;
    pthread_t *t = xcalloc(nt ? nt : 1, sizeof *t);
    size_t started = 0;
    for (size_t k = 1; k < nt; k++)
        if (pthread_create(&t[started], NULL, pool_worker, &pool) == 0)
            started++;
    pool_worker(&pool); /* this thread works too, so a refused thread never stalls it */
    for (size_t k = 0; k < started; k++)
        pthread_join(t[k], NULL);
    free(t);
    pthread_mutex_destroy(&pool.mu);
}

static sm_gc_item *find_item(sm_gc_result *r, const char *id)
{
    for (size_t k = 0; k < r->n; k++)
        if (!strcmp(r->items[k].id, id))
            return &r->items[k];
    return NULL;
}

/* Lists and matches; every matching sandbox becomes (or stays) an item. *todo (malloc'd)
 * holds the matching items, as pointers into r (valid until the next call grows it). */
static int sweep_list(sm_provider *p, const sm_gc_filter *f, sm_gc_result *r, size_t *count,
                      sm_error *err)
{
    sm_list_filter lf = {.labels = f->labels, .all = true};
    sm_sandbox_info *list = NULL;
    size_t n = 0;
    int rc = sm_provider_list(p, &lf, &list, &n, err);
    if (rc != SM_OK)
        return rc;
    double now = sm_now_wall();
    *count = 0;
    for (size_t k = 0; k < n; k++) {
        char why[512];
        if (!sm_gc_match(f, &list[k], now, why, sizeof why))
            continue;
        sm_gc_item *it = find_item(r, list[k].id);
        if (!it) {
            r->items = xrealloc(r->items, (r->n + 1) * sizeof *r->items);
            it = &r->items[r->n++];
            memset(it, 0, sizeof *it);
            it->id = xstrdup(list[k].id);
            it->why = xstrdup(why);
            it->status = list[k].status;
            it->created_at = list[k].created_at;
            sm_error_clear(&it->err);
        }
        it->removed = false; /* still there */
        (*count)++;
    }
    sm_sandbox_info_list_free(list, n);
    return SM_OK;
}

int sm_gc_run(sm_provider *p, const sm_gc_filter *f, bool dry_run, int jobs, sm_gc_result *out,
              sm_error *err)
{
    memset(out, 0, sizeof *out);
    size_t count = 0;
    int rc = sweep_list(p, f, out, &count, err);
    if (rc != SM_OK || dry_run)
        return rc;
    while (count > 0 && out->sweeps < SM_GC_MAX_SWEEPS) {
        /* Items still there: the ones the last list matched (removed == false). */
        sm_gc_item **todo = xcalloc(out->n, sizeof *todo);
        size_t nt = 0;
        for (size_t k = 0; k < out->n; k++)
            if (!out->items[k].removed)
                todo[nt++] = &out->items[k];
        remove_all(p, todo, nt, jobs);
        free(todo);
        out->sweeps++;
        /* What removal says is checked against what is left: a sandbox that is listed and
         * matches after its removal was not removed. */
        bool *was = xcalloc(out->n ? out->n : 1, sizeof *was);
        for (size_t k = 0; k < out->n; k++) {
            was[k] = out->items[k].removed;
            out->items[k].removed = true;
        }
        size_t before = out->n;
        rc = sweep_list(p, f, out, &count, err);
        for (size_t k = 0; k < before; k++) {
            sm_gc_item *it = &out->items[k];
            if (!it->removed && was[k])
                sm_error_set(&it->err, SM_ERR_RUNTIME, SM_FAIL_SANDBOX_ERROR,
                             "it is still there after its removal");
            else if (it->removed && !was[k])
                sm_error_clear(&it->err); /* gone after all (an engine that removes slowly) */
        }
        free(was);
        if (rc != SM_OK)
            return rc;
    }
    for (size_t k = 0; k < out->n; k++)
        if (!out->items[k].removed && !out->items[k].err.code)
            sm_error_set(&out->items[k].err, SM_ERR_RUNTIME, SM_FAIL_SANDBOX_ERROR,
                         "it still matched after %d sweeps", out->sweeps);
    return SM_OK;
}

void sm_gc_result_free(sm_gc_result *r)
{
    for (size_t k = 0; k < r->n; k++) {
        free(r->items[k].id);
        free(r->items[k].why);
    }
    free(r->items);
    memset(r, 0, sizeof *r);
}
