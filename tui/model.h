/* The dashboard's model: what the last refresh brought (sandboxes, samples, new journal
 * events) folded into per-sandbox state (history, last failure, recent events), plus the view
 * state that survives refreshes (selection, marks, filter, sort). Lives on the UI thread only;
 * knows nothing about curses. */
#ifndef TUI_MODEL_H
#define TUI_MODEL_H

#include <stdbool.h>
#include <stddef.h>

#include "core/provider.h"
#include "core/strtab.h"
#include "core/telemetry.h"

typedef struct cJSON cJSON;

#define TUI_RECENT_EVENTS 24
#define TUI_MAX_EVENTS    5000

/* Per-sandbox state kept across refreshes. */
typedef struct tui_sbx {
    sm_history history;
    sm_failure last_failure; /* latest failure of its commands or counters */
    double last_failure_at;  /* epoch s */
    cJSON *recent;           /* array of its latest events, oldest first */
    bool marked;
} tui_sbx;

/* One visible row: a sandbox and what the dashboard shows for it. */
typedef struct tui_row {
    sm_sandbox_info *info; /* points into model->infos */
    tui_sbx *st;
    sm_rates rates;
    sm_failure why; /* the failure column */
    bool why_warning;
    bool has_why;
} tui_row;

typedef enum tui_sort {
    SORT_CREATED,
    SORT_ID,
    SORT_STATUS,
    SORT_CPU,
    SORT_MEM,
    SORT_PIDS,
    SORT_TTL,
    SORT_FAILURE,
    SORT__COUNT
} tui_sort;

typedef struct tui_model {
    sm_sandbox_info *infos;
    size_t ninfos;
    sm_strtab state; /* id -> tui_sbx */
    tui_row *rows;   /* filtered and sorted view of infos */
    size_t nrows;
    cJSON *events;     /* the events of this provider's sandboxes, newest first (the view) */
    cJSON *journal;    /* every event seen, of any provider, newest first; survives a context
                          switch so the new context's events are there at once */
    char provider[32]; /* events of this provider only ("" = every provider) */
    char filter[128];
    tui_sort sort;
    bool sort_reverse;
    char selected_id[72]; /* selection follows the sandbox, not the row number */
    size_t selected;      /* row index */
    size_t scroll;        /* first visible row */
    int counts[SM_STATUS_UNKNOWN + 1];
    char error[256];      /* the last refresh's error: "provider unreachable: <message>" */
    char error_label[64]; /* its failure kind ("provider unreachable"), may be empty */
    double refreshed_at;
    bool loaded;
} tui_model;

void tui_model_init(tui_model *m);
void tui_model_free(tui_model *m);
/* Takes ownership of infos (the previous list is freed), pushes the samples of the sandboxes
 * with ok[i], turns counter jumps into failures, and rebuilds the rows. */
void tui_model_update(tui_model *m, sm_sandbox_info *infos, size_t n, const sm_sample *samples,
                      const bool *ok, const char *provider);
/* Shows the sandboxes and events of another provider: forgets the sandboxes and their state
 * (rebuilt by the next update) but keeps the journal, from which the events list and every
 * sandbox's recent events and failure are derived again. */
void tui_model_set_provider(tui_model *m, const char *provider);
/* Folds new journal events (array, consumed) into the per-sandbox and global lists. Events of
 * a sandbox not (yet) in the model are kept too: its state is derived from them when it
 * appears. */
void tui_model_add_events(tui_model *m, cJSON *events);
/* Recomputes rows after a filter/sort/mark change; keeps the selection on the same sandbox. */
void tui_model_rebuild(tui_model *m);
void tui_model_select(tui_model *m, size_t row);
tui_row *tui_model_selected(tui_model *m);
tui_sbx *tui_model_state(tui_model *m, const char *id);
/* Marked ids (or the selected one when nothing is marked); returns the count. Caller frees
 * the array (not the strings, which live in the model until the next update). */
size_t tui_model_targets(tui_model *m, const char ***ids);
size_t tui_model_marked(const tui_model *m);
const char *tui_sort_name(tui_sort s);

#endif
