/* The fleet: one context's sandboxes as every front end shows them. It holds the last good
 * list, each sandbox's sample history, latest failure and recent events, and one row per
 * sandbox with what is derived from them (rates, the failure to show); sm_fleet_cell renders a
 * cell's text, so the dashboard, `top` and `ls` print the same thing under the same title.
 *
 * Two steps, so that a front end never waits on a provider: sm_fleet_scan asks the provider
 * (list + samples) and touches nothing shared, for a worker thread; sm_fleet_apply folds a
 * scan and journal events into the fleet, on the thread that owns it. */
#ifndef SM_FLEET_H
#define SM_FLEET_H

#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"
#include "core/provider.h"
#include "core/sampler.h"
#include "core/strtab.h"
#include "core/telemetry.h"

typedef struct cJSON cJSON;

#define SM_FLEET_RECENT_EVENTS 24   /* kept per sandbox */
#define SM_FLEET_MAX_EVENTS    5000 /* kept for the whole fleet */

/* What is kept of a sandbox across scans; goes when the sandbox leaves the list. */
typedef struct sm_fleet_sbx {
    sm_history history;
    sm_failure last_failure; /* latest failure of its commands or counters */
    double last_failure_at;  /* epoch s */
    cJSON *recent;           /* array of its latest events, oldest first */
    bool marked;             /* a front end's mark (the dashboard's), which follows the sandbox */
} sm_fleet_sbx;

/* One sandbox and what is derived from it, recomputed once per apply. */
typedef struct sm_fleet_row {
    sm_sandbox_info *info;
    sm_fleet_sbx *st;
    sm_rates rates;
    sm_failure why; /* the failure column */
    bool why_warning;
    bool has_why;
} sm_fleet_row;

/* The columns the front ends share; each shows the ones that fit it. */
typedef enum sm_fleet_col {
    SM_COL_ID,
    SM_COL_PROVIDER,
    SM_COL_STATUS,
    SM_COL_RUN, /* the run it belongs to (its attribution label) */
    SM_COL_IMAGE,
    SM_COL_AGE,
    SM_COL_TTL,
    SM_COL_CPU,        /* % of one core, "-" when not running or stale */
    SM_COL_MEM,        /* working set / limit */
    SM_COL_PIDS,       /* count */
    SM_COL_PIDS_LIMIT, /* count / limit */
    SM_COL_IO,         /* block IO read / write per second */
    SM_COL_FAILURE,    /* "" when nothing is wrong */
    SM_COL__COUNT
} sm_fleet_col;

/* Read the fields; change them only through the functions below. */
typedef struct sm_fleet {
    char provider[32];      /* whose events it keeps ("" = any provider's) */
    sm_sandbox_info *infos; /* the last good list */
    size_t n;
    sm_fleet_row *rows; /* one per info, in the provider's order */
    sm_strtab state;    /* id -> sm_fleet_sbx */
    cJSON *events;      /* this provider's events, newest first; the same array for the fleet's
                           whole life, so a front end may keep a pointer to it */
    int counts[SM_STATUS_UNKNOWN + 1];
    sm_error err;         /* the last scan's, code SM_OK when it went well */
    char error[256];      /* "" or "<kind>: <message>" of the last scan; rows are then stale */
    char error_label[64]; /* its failure kind ("provider unreachable"), may be empty */
    bool loaded;          /* a scan has succeeded */
} sm_fleet;

/* What one scan brought: a list with its samples, or the error that stopped it. */
typedef struct sm_fleet_snapshot sm_fleet_snapshot;

sm_fleet *sm_fleet_new(const char *provider);
void sm_fleet_free(sm_fleet *f);
/* Forgets every sandbox, event and error, to show another provider's. */
void sm_fleet_reset(sm_fleet *f, const char *provider);

/* Lists the provider's sandboxes and samples the running ones (none without a sampler). Safe
 * on a worker thread: it touches only p and the sampler (one caller at a time, as
 * sm_sampler_collect wants). */
sm_fleet_snapshot *sm_fleet_scan(sm_provider *p, sm_sampler *s, const sm_list_filter *filter);
/* A snapshot of a list and samples got otherwise (tests, benchmarks): takes ownership of all
 * three; samples and ok may be NULL (nothing sampled). */
sm_fleet_snapshot *sm_fleet_snapshot_new(sm_sandbox_info *list, size_t n, sm_sample *samples,
                                         bool *ok);
/* A snapshot of a failed scan. */
sm_fleet_snapshot *sm_fleet_snapshot_failed(const sm_error *err);
void sm_fleet_snapshot_free(sm_fleet_snapshot *snap);

/* Folds a scan (may be NULL) and new journal events (an array, may be NULL) into the fleet;
 * consumes both. A scan's samples join the histories and counter jumps become failures;
 * events of the fleet's provider join the events list and their sandbox's state, also for a
 * sandbox not listed yet (its state is derived from them when it appears). A failed scan
 * keeps the rows of the last good one and sets err/error. Returns the scan's code (SM_OK
 * without one). Rows are recomputed once, at the end. */
int sm_fleet_apply(sm_fleet *f, sm_fleet_snapshot *snap, cJSON *events);

/* For a front end that shows a single scan (`ls`): each listed sandbox's latest failure from
 * its own journal, picked as following the journal would pick it, then the rows again. */
void sm_fleet_read_failures(sm_fleet *f);

/* The text of one cell of a row at epoch time now, unpadded. */
void sm_fleet_cell(const sm_fleet *f, const sm_fleet_row *r, sm_fleet_col col, double now,
                   char *buf, size_t len);
const char *sm_fleet_col_title(sm_fleet_col col);
/* The TTL cell of a sandbox ("-" without a TTL, "ended" once it is not running, else the time
 * left), also for views that show one sandbox (`status`). */
void sm_fleet_ttl_text(const sm_sandbox_info *i, double now, char *buf, size_t len);
/* Are the row's figures current (running and the last scan went well)? */
bool sm_fleet_row_live(const sm_fleet *f, const sm_fleet_row *r);

/* Event lists kept newest first (the fleet's, the dashboard's journal of every provider):
 * inserts ev (owned by the list after) before the first event not newer than it; keeps only
 * the first max items, in one walk. */
void sm_fleet_event_insert(cJSON *list, cJSON *ev);
void sm_fleet_events_keep(cJSON *list, int max);

#endif
