/* Failure attribution for a sandbox as a whole: one line per row. */
#include "core/diagnose.h"

#include <stdio.h>

bool sm_failure_from_counters(const sm_sample *prev, const sm_sample *cur, const char *id,
                              const char *provider, sm_failure *out)
{
    sm_rates r;
    sm_rates_between(prev, cur, &r);
    sm_failure_init(out);
    snprintf(out->operation, sizeof out->operation, "counters");
    snprintf(out->sandbox_id, sizeof out->sandbox_id, "%s", id);
    snprintf(out->provider, sizeof out->provider, "%s", provider);
    if (r.new_oom_kills > 0) {
        out->kind = SM_FAIL_OOM;
        out->oom_kills = cur->oom_kills;
        out->memory_limit = cur->mem_limit;
        snprintf(out->reason, sizeof out->reason,
                 "a process in the sandbox hit the memory limit and was OOM killed");
        return true;
    }
    if (r.new_pids_events > 0) {
        out->kind = SM_FAIL_PIDS_LIMIT;
        out->pids_events = cur->pids_events;
        out->pids_limit = cur->pids_limit;
        snprintf(out->reason, sizeof out->reason, "a fork was refused by the pids limit");
        return true;
    }
    return false;
}

void sm_failure_observe_sample(sm_history *h, const sm_sample *cur, const sm_sandbox_info *info,
                               const char *provider, sm_failure *latest, double *latest_at)
{
    const sm_sample *prev = sm_history_at(h, 0);
    sm_sample none;
    double at = cur->wall;
    if (!prev) {
        sm_sample_init(&none);
        none.oom_kills = none.pids_events = 0;
        prev = &none;
        at = info->created_at > 0 ? info->created_at : 0;
    }
    sm_failure f;
    if (sm_failure_from_counters(prev, cur, info->id, provider, &f))
        sm_failure_note(latest, latest_at, &f, at);
    sm_history_push(h, cur);
}

void sm_failure_note(sm_failure *latest, double *latest_at, const sm_failure *f, double at)
{
    bool weak = f->kind == SM_FAIL_EXIT_NONZERO;
    bool strong_now =
        sm_failure_kind_is_failure(latest->kind) && latest->kind != SM_FAIL_EXIT_NONZERO;
    if (at < *latest_at)
        return;
    if (weak && strong_now && at - *latest_at < 60)
        return;
    /* The supervisor's record of a kill a command's result already named (the same kind,
     * moments later, without the command's exit code) adds nothing. */
    if (f->kind == latest->kind && f->exit_code < 0 && latest->exit_code >= 0 &&
        at - *latest_at < 60)
        return;
    *latest = *f;
    *latest_at = at;
}

bool sm_diagnose(const sm_sandbox_info *info, const sm_failure *last, const sm_rates *rates,
                 sm_failure *out, bool *warning)
{
    *warning = false;
    sm_failure_init(out);
    bool ended = info->status == SM_STATUS_STOPPED || info->status == SM_STATUS_ERROR;
    if ((ended || info->failure.kind == SM_FAIL_SUPERVISOR_LOST) &&
        info->failure.kind != SM_FAIL_NONE) {
        *out = info->failure;
        return true;
    }
    if (last && sm_failure_kind_is_failure(last->kind)) {
        *out = *last;
        return true;
    }
    if (rates && rates->new_throttled > 0) {
        out->kind = SM_FAIL_CPU_THROTTLED;
        out->nr_throttled = rates->new_throttled;
        snprintf(out->reason, sizeof out->reason, "the CPU quota held the sandbox back");
        *warning = true;
        return true;
    }
    return false;
}
