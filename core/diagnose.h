/* "Why did this die": turns what we know about a sandbox (its end record, its last failure
 * events, its counters) into one failure per row, the dashboard's failure column and `top`'s.
 * Pure logic; no I/O. */
#ifndef SM_DIAGNOSE_H
#define SM_DIAGNOSE_H

#include <stdbool.h>

#include "core/provider.h"
#include "core/telemetry.h"

/* A failure the sampler saw in the counters between two samples: OOM kills or pids-limit
 * refusals that no command reported (e.g. a background process was killed). Returns false
 * when nothing happened. */
bool sm_failure_from_counters(const sm_sample *prev, const sm_sample *cur, const char *id,
                              const char *provider, sm_failure *out);

/* Folds a newly seen failure (at epoch time at) into the latest one kept for a sandbox: newer
 * wins, except that a plain non-zero exit does not hide a resource death (OOM, pids limit,
 * timeout, signal) seen in the last minute, the more useful answer to "why did it fail". */
void sm_failure_note(sm_failure *latest, double *latest_at, const sm_failure *f, double at);

/* A new sample of a sandbox: a counter jump since the previous sample in history is noted as
 * its latest failure (see sm_failure_note), then the sample joins the history. The first
 * sample counts counters already above zero too (kills that happened while nobody watched),
 * dated at the sandbox's creation so that a command's own report of the same kill, with more
 * evidence, wins. Shared by the dashboard and `sandman top`. */
void sm_failure_observe_sample(sm_history *h, const sm_sample *cur, const sm_sandbox_info *info,
                               const char *provider, sm_failure *latest, double *latest_at);

/* The one failure to show for a sandbox:
 *  - an ended sandbox: why it ended (TTL expired, OOM killed, supervisor lost, exit N, ...);
 *  - otherwise the most recent failure seen (last is the latest failure event of its commands
 *    or counters, may be NULL);
 *  - otherwise CPU throttling in the last interval, as a warning (*warning = true).
 * Returns false when there is nothing to say. */
bool sm_diagnose(const sm_sandbox_info *info, const sm_failure *last, const sm_rates *rates,
                 sm_failure *out, bool *warning);

#endif
