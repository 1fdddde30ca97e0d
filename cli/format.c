/* Text output of the CLI: a sandbox's detail (tables of many are cli/table.c). */
#include "cli/format.h"

#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "core/fleet.h"
#include "core/journal.h"
#include "core/strbuf.h"
#include "core/text.h"
#include "core/util.h"

/* One "name:  value" line of the detail; the value is escaped whole, newlines included, since
 * most of it is chosen by whoever created the sandbox or by the sandbox itself. */
static void line(FILE *out, const char *name, const char *value)
{
    char *v = sm_text_escape(value, 0);
    cli_printf(out, "%-12s%s\n", name, v);
    free(v);
}

void cli_print_info_detail(FILE *out, const sm_sandbox_info *i)
{
    sm_failure last;
    double now = sm_now_wall();
    char buf[512], t[40], dur[24], text[640];
    line(out, "id:", i->id);
    line(out, "provider:", i->provider);
    line(out, "status:", sm_status_name(i->status));
    line(out, "image:", i->image ? i->image : "-");
    if (i->created_at > 0) {
        sm_format_time(i->created_at, t, sizeof t);
        sm_format_duration(now - i->created_at, dur, sizeof dur);
        snprintf(text, sizeof text, "%s (%s ago)", t, dur);
        line(out, "created:", text);
    }
    if (i->ready_at > 0 && i->created_at > 0) {
        sm_format_duration(i->ready_at - i->created_at, dur, sizeof dur);
        line(out, "ready in:", dur);
    }
    if (i->ended_at > 0) {
        sm_format_time(i->ended_at, t, sizeof t);
        line(out, "ended:", t);
    }
    if (i->ttl_s >= 0) {
        sm_format_duration(i->ttl_s, dur, sizeof dur);
        sm_fleet_ttl_text(i, now, t, sizeof t);
        snprintf(text, sizeof text, "%s (%s%s)", dur, t, strcmp(t, "ended") ? " left" : "");
        line(out, "ttl:", text);
    }
    line(out, "workdir:", i->workdir ? i->workdir : "-");
    sm_resources_describe(&i->resources, buf, sizeof buf);
    line(out, "resources:", buf);
    sm_strbuf b = {0};
    for (size_t k = 0; k < i->labels.n; k++)
        sm_strbuf_printf(&b, "%s%s=%s", k ? ", " : "", i->labels.items[k].key,
                         i->labels.items[k].value);
    line(out, "labels:", b.len ? b.data : "-");
    sm_strbuf_reset(&b);
    for (size_t k = 0; k < i->env_names.n; k++)
        sm_strbuf_printf(&b, "%s%s", k ? ", " : "", i->env_names.items[k].key);
    line(out, "env:", b.len ? b.data : "-");
    sm_strbuf_reset(&b);
    if (i->nports) {
        for (size_t k = 0; k < i->nports; k++)
            sm_strbuf_printf(&b, "%s%d", k ? ", " : "", i->ports[k]);
        line(out, "ports:", b.data);
        sm_strbuf_reset(&b);
    }
    if (i->failure.kind != SM_FAIL_NONE) {
        char label[128], ev[512];
        sm_failure_label(&i->failure, label, sizeof label);
        sm_failure_evidence(&i->failure, ev, sizeof ev);
        sm_strbuf_printf(&b, "%s%s%s", label, ev[0] ? ": " : "", ev);
        line(out, "why:", b.data);
        if (i->failure.reason[0])
            line(out, "", i->failure.reason);
    } else if (sm_journal_last_failure(i->provider, i->id, &last)) { /* as ls says it */
        char label[128], ev[512];
        sm_failure_label(&last, label, sizeof label);
        sm_failure_evidence(&last, ev, sizeof ev);
        sm_strbuf_printf(&b, "%s%s%s", label, ev[0] ? ": " : "", ev);
        line(out, "failed:", b.data);
        if (last.reason[0])
            line(out, "", last.reason);
    }
    sm_strbuf_free(&b);
    if (i->detail)
        line(out, "note:", i->detail);
}
