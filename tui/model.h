/* The dashboard's view of the fleet (core/fleet.h): which rows show, in what order, and which
 * is selected, plus the journal of every provider, which outlives a context switch. The
 * figures and the cells' text are the fleet's, shared with `top` and `ls`. Lives on the UI
 * thread only; knows nothing about curses. */
#ifndef TUI_MODEL_H
#define TUI_MODEL_H

#include <stdbool.h>
#include <stddef.h>

#include "core/fleet.h"

typedef struct cJSON cJSON;

#define TUI_MAX_EVENTS SM_FLEET_MAX_EVENTS

/* One visible row: a fleet row, with its sandbox and state at hand. */
typedef struct tui_row {
    sm_sandbox_info *info;
    sm_fleet_sbx *st;
    const sm_fleet_row *f;
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
    sm_fleet *fleet; /* the context's sandboxes, their figures and events */
    tui_row *rows;   /* filtered and sorted view of the fleet's rows */
    size_t nrows;
    /* Views of the fleet, for the header and the events view (they live as long as it does):
     * its events (this provider's, newest first), per-status counts, the last refresh's
     * error ("provider unreachable: <message>", "" when it went well). */
    cJSON *events;
    const int *counts;
    const char *error;
    cJSON *journal; /* every event seen, of any provider, newest first; survives a context
                       switch so the new context's events are there at once */
    char filter[128];
    tui_sort sort;
    bool sort_reverse;
    bool group_run;       /* rows grouped by run (the fleet's RUN cell), in order of first row */
    char selected_id[72]; /* selection follows the sandbox, not the row number */
    size_t selected;      /* row index */
    size_t scroll;        /* first visible row */
} tui_model;

void tui_model_init(tui_model *m);
void tui_model_free(tui_model *m);
/* Folds a refresh (may be NULL) and new journal events (array, may be NULL) into the fleet,
 * consuming both, then rebuilds the rows once. */
void tui_model_apply(tui_model *m, sm_fleet_snapshot *snap, cJSON *events);
/* Shows the sandboxes and events of another provider: forgets the sandboxes and their state
 * (rebuilt by the next refresh) but keeps the journal, from which the events list and every
 * sandbox's recent events and failure are derived again. */
void tui_model_set_provider(tui_model *m, const char *provider);
/* Recomputes rows after a filter/sort/mark change; keeps the selection on the same sandbox. */
void tui_model_rebuild(tui_model *m);
void tui_model_select(tui_model *m, size_t row);
tui_row *tui_model_selected(tui_model *m);
/* Marked ids (or the selected one when nothing is marked); returns the count. Caller frees
 * the array (not the strings, which live in the fleet until the next refresh). */
size_t tui_model_targets(tui_model *m, const char ***ids);
size_t tui_model_marked(const tui_model *m);
const char *tui_sort_name(tui_sort s);
/* The run row r belongs to, as the fleet's RUN cell says it ("-" for none). */
void tui_model_run(const tui_model *m, const tui_row *r, char *buf, size_t len);

#endif
