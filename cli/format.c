/* Text output of the CLI: sandbox table and detail. */
#include "cli/format.h"

#include <string.h>

#include "core/journal.h"
#include "core/util.h"

/* Why the sandbox ended or failed, else why its last failing command failed (its journal), as
 * the dashboard's failure column says it. */
static void failure_text(const sm_sandbox_info *i, char *buf, size_t len)
{
    sm_failure last;
    if (i->failure.kind != SM_FAIL_NONE)
        sm_failure_label(&i->failure, buf, len);
    else if (sm_journal_last_failure(i->provider, i->id, &last))
        sm_failure_label(&last, buf, len);
    else
        snprintf(buf, len, "-");
}

static void ttl_text(const sm_sandbox_info *i, double now, char *buf, size_t len)
{
    double left = sm_sandbox_info_ttl_left(i, now);
    if (left < 0)
        snprintf(buf, len, "-");
    else if (i->status == SM_STATUS_STOPPED || i->status == SM_STATUS_ERROR)
        snprintf(buf, len, "ended");
    else
        sm_format_duration(left, buf, len);
}

void cli_print_info_table(FILE *out, const sm_sandbox_info *list, size_t n)
{
    double now = sm_now_wall();
    fprintf(out, "%-12s  %-9s  %-8s  %-24s  %-7s  %-7s  %s\n", "ID", "PROVIDER", "STATUS", "IMAGE",
            "AGE", "TTL", "FAILURE");
    for (size_t k = 0; k < n; k++) {
        const sm_sandbox_info *i = &list[k];
        char age[24], ttl[24], fail[160], img[25];
        sm_format_duration(i->created_at > 0 ? now - i->created_at : 0, age, sizeof age);
        ttl_text(i, now, ttl, sizeof ttl);
        failure_text(i, fail, sizeof fail);
        snprintf(img, sizeof img, "%s", i->image ? i->image : "-");
        fprintf(out, "%-12.12s  %-9s  %-8s  %-24s  %-7s  %-7s  %s\n", i->id, i->provider,
                sm_status_name(i->status), img, age, ttl, fail);
    }
}

void cli_print_info_detail(FILE *out, const sm_sandbox_info *i)
{
    double now = sm_now_wall();
    char buf[512], t[40], dur[24];
    fprintf(out, "id:         %s\n", i->id);
    fprintf(out, "provider:   %s\n", i->provider);
    fprintf(out, "status:     %s\n", sm_status_name(i->status));
    fprintf(out, "image:      %s\n", i->image ? i->image : "-");
    if (i->created_at > 0) {
        sm_format_time(i->created_at, t, sizeof t);
        sm_format_duration(now - i->created_at, dur, sizeof dur);
        fprintf(out, "created:    %s (%s ago)\n", t, dur);
    }
    if (i->ready_at > 0 && i->created_at > 0) {
        sm_format_duration(i->ready_at - i->created_at, dur, sizeof dur);
        fprintf(out, "ready in:   %s\n", dur);
    }
    if (i->ended_at > 0) {
        sm_format_time(i->ended_at, t, sizeof t);
        fprintf(out, "ended:      %s\n", t);
    }
    if (i->ttl_s >= 0) {
        sm_format_duration(i->ttl_s, dur, sizeof dur);
        ttl_text(i, now, t, sizeof t);
        fprintf(out, "ttl:        %s (%s%s)\n", dur, t, strcmp(t, "ended") ? " left" : "");
    }
    fprintf(out, "workdir:    %s\n", i->workdir ? i->workdir : "-");
    sm_resources_describe(&i->resources, buf, sizeof buf);
    fprintf(out, "resources:  %s\n", buf);
    fprintf(out, "labels:     ");
    for (size_t k = 0; k < i->labels.n; k++)
        fprintf(out, "%s%s=%s", k ? ", " : "", i->labels.items[k].key, i->labels.items[k].value);
    fprintf(out, "%s\n", i->labels.n ? "" : "-");
    fprintf(out, "env:        ");
    for (size_t k = 0; k < i->env_names.n; k++)
        fprintf(out, "%s%s", k ? ", " : "", i->env_names.items[k].key);
    fprintf(out, "%s\n", i->env_names.n ? "" : "-");
    if (i->nports) {
        fprintf(out, "ports:      ");
        for (size_t k = 0; k < i->nports; k++)
            fprintf(out, "%s%d", k ? ", " : "", i->ports[k]);
        fprintf(out, "\n");
    }
    if (i->failure.kind != SM_FAIL_NONE) {
        char label[128], ev[512];
        sm_failure_label(&i->failure, label, sizeof label);
        sm_failure_evidence(&i->failure, ev, sizeof ev);
        fprintf(out, "why:        %s%s%s\n", label, ev[0] ? ": " : "", ev);
        if (i->failure.reason[0])
            fprintf(out, "            %s\n", i->failure.reason);
    }
    if (i->detail)
        fprintf(out, "note:       %s\n", i->detail);
}
