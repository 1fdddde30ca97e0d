/* Garbage collection of sandboxes (the seed's cleanup tool, grown): which sandboxes of one
 * provider context a selection matches and why (attribution labels, age, an expired TTL, a
 * dead owner or supervisor, an end), and sweeps that remove them in parallel, bounded, until
 * nothing matching is left (at most SM_GC_MAX_SWEEPS, as the seed's tool). Provider-neutral:
 * it reads what list returns (sm_sandbox_info) and removes through the facade; it never names
 * a provider. Removing nothing by accident is the caller's check (sm_gc_filter_empty). */
#ifndef SM_GC_H
#define SM_GC_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "core/error.h"
#include "core/kv.h"
#include "core/provider.h"

#define SM_GC_MAX_SWEEPS   3
#define SM_GC_DEFAULT_JOBS 8
#define SM_GC_MAX_JOBS     64

/* The owner claim: a process that owns its sandboxes' lifetime (a rollout using the library,
 * `shell --new`) labels them with its "<boot id>:<pid>:<start time in clock ticks>"; once that
 * process is gone the sandbox is orphaned. `sandman create` claims nothing: its sandboxes are
 * meant to outlive it. */
#define SM_LABEL_OWNER "sandman.owner"
/* The seed's marker of a NeMo Gym sandbox (docker run --label nemo-gym.sandbox=1). */
#define SM_LABEL_NEMO_GYM_SANDBOX "nemo-gym.sandbox"

typedef struct sm_gc_filter {
    const sm_map *labels; /* every label must match (--run, --user, -l); NULL = any */
    double older_than_s;  /* > 0: created longer ago than this */
    /* Conditions: when any is set, a sandbox must meet at least one of those set. */
    bool expired;  /* its TTL ran out (ended by it, or still there past it) */
    bool orphaned; /* its supervisor died, or the owner process that claimed it is gone */
    bool ended;    /* it ended (stopped or failed) and its record is still there */
    bool all;      /* explicitly every sandbox the other selectors leave */
} sm_gc_filter;

/* Whether the filter selects nothing at all (then a caller must refuse, not remove all). */
bool sm_gc_filter_empty(const sm_gc_filter *f);

/* Whether info is selected at wall time now. Never a container that neither sandman nor NeMo
 * Gym made (a provider marks those "foreign" in info->extra). why (may be NULL) gets the
 * reasons, "expired (ttl 5s ran out 3m ago); orphaned (the supervisor died)". */
bool sm_gc_match(const sm_gc_filter *f, const sm_sandbox_info *i, double now, char *why,
                 size_t len);

/* The owner claim of process pid (0: the caller) into buf. Returns 0, or -1 when pid does not
 * exist. */
int sm_gc_owner_token(pid_t pid, char *buf, size_t len);
/* Sets SM_LABEL_OWNER to the caller's token in labels. */
void sm_gc_claim(sm_map *labels);
/* 1: the owner named by the token is gone; 0: it runs; -1: cannot tell (another boot or
 * host, a malformed token). */
int sm_gc_owner_gone(const char *token);

typedef struct sm_gc_item {
    char *id;
    char *why;        /* the reasons it matched */
    sm_status status; /* when it was first matched */
    double created_at;
    bool removed;
    sm_error err; /* why it could not be removed (when !removed and not a dry run) */
} sm_gc_item;

typedef struct sm_gc_result {
    sm_gc_item *items; /* in the order they were first matched */
    size_t n;
    int sweeps; /* removal sweeps made */
} sm_gc_result;

/* Lists the context (ended sandboxes too), matches, and unless dry_run removes what matched
 * with up to jobs removals at once, sweeping again while something still matches. A failure
 * to list is an error (nothing removed after it); one sandbox that cannot be removed is an
 * item with its error. out is filled in both cases (sm_gc_result_free). */
int sm_gc_run(sm_provider *p, const sm_gc_filter *f, bool dry_run, int jobs, sm_gc_result *out,
              sm_error *err);
void sm_gc_result_free(sm_gc_result *r);

#endif
