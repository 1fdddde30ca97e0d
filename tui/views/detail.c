/* The detail view of one sandbox: larger CPU, memory, IO and network graphs (braille, ASCII
 * fallback), the spec (image, resources, env names without values, labels, ports), lifecycle
 * timers, why it failed with the evidence, and its last events and commands. */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "core/journal.h"
#include "core/json.h"
#include "core/util.h"
#include "tui/views/views.h"
#include "tui/widgets/draw.h"

static void graph(tui_app *app, const tui_row *r, int y, int x, int w, int h, const char *title,
                  sm_metric m, double fixed_max, tui_role role, const char *now)
{
    if (w < 10 || h < 3)
        return;
    if (app->model.error[0]) { /* the last refresh failed: these figures are old */
        role = TH_DIM;
        now = "stale";
    }
    tui_box(y, x, h, w, tui_attr(TH_BORDER), tui_attr(TH_NORMAL), title);
    tui_put_right(y, x + w - 2 - (int)strlen(now) - 2, (int)strlen(now) + 2, now,
                  tui_attr(TH_TITLE));
    double v[SM_HISTORY_LEN];
    size_t n = sm_history_series(&r->st->history, m, v, SM_HISTORY_LEN);
    double max = fixed_max;
    if (max <= 0) {
        for (size_t i = 0; i < n; i++)
            if (v[i] > max)
                max = v[i];
        if (max <= 0)
            max = 1;
    }
    int gw = w - 2, gh = h - 2; /* the whole inside of the box, however wide the terminal */
    wchar_t *buf = xmalloc((size_t)gh * (size_t)(gw + 1) * sizeof *buf);
    tui_graph(v, n, max, gw, gh, buf);
    for (int k = 0; k < gh; k++)
        tui_put_wide(y + 1 + k, x + 1, gw, buf + (size_t)k * (size_t)(gw + 1), tui_attr(role));
    free(buf);
}

static int kv(int y, int x, int w, const char *k, const char *v, attr_t va)
{
    tui_put(y, x, 11, k, tui_attr(TH_DIM), false);
    tui_put(y, x + 11, w - 11, v, va, false);
    return y + 1;
}

/* What the spec asked for beside what the provider enforces (its last sample), one line per
 * resource where the provider reports a limit: "cpu  0.5 / 0.5 cores". Without samples, the
 * spec's resources on one line, as before. */
static int requests_limits(tui_app *app, const sm_sandbox_info *i, const sm_sample *s, int y, int w)
{
    char buf[256], a[32], b[32];
    const sm_resources *r = &i->resources;
    if (!s || (s->cpu_limit <= 0 && s->mem_limit <= 0 && s->pids_limit <= 0)) {
        sm_resources_describe(r, buf, sizeof buf);
        return kv(y, 0, w, "resources", buf, tui_attr(TH_NORMAL));
    }
    y = kv(y, 0, w, "", "requested / limit", tui_attr(TH_DIM));
    snprintf(a, sizeof a, "-");
    if (r->set & SM_RES_CPU)
        snprintf(a, sizeof a, "%g", r->cpu);
    snprintf(b, sizeof b, "none");
    if (s->cpu_limit > 0)
        snprintf(b, sizeof b, "%g", s->cpu_limit);
    snprintf(buf, sizeof buf, "%s / %s cores", a, b);
    y = kv(y, 0, w, "cpu", buf, tui_attr(TH_NORMAL));
    snprintf(a, sizeof a, "-");
    if (r->set & SM_RES_MEMORY)
        sm_format_bytes((double)r->memory_mib * 1048576.0, a, sizeof a);
    snprintf(b, sizeof b, "none");
    if (s->mem_limit > 0)
        sm_format_bytes((double)s->mem_limit, b, sizeof b);
    snprintf(buf, sizeof buf, "%s / %s", a, b);
    y = kv(y, 0, w, "memory", buf, tui_attr(TH_NORMAL));
    if (s->pids_limit > 0) {
        snprintf(buf, sizeof buf, "- / %lld", s->pids_limit);
        y = kv(y, 0, w, "pids", buf, tui_attr(TH_NORMAL));
    }
    (void)app;
    return y;
}

void tui_detail_draw(tui_app *app, int top, int height)
{
    tui_row *r = tui_model_selected(&app->model);
    if (!r) {
        app->view = VIEW_LIST;
        tui_list_draw(app, top, height);
        return;
    }
    const sm_sandbox_info *i = r->info;
    const sm_sample *s = sm_history_at(&r->st->history, 0);
    double now = sm_now_wall();
    char buf[512], a[32], b[32];
    /* left column: facts; right column: graphs */
    int left_w = app->cols >= 100 ? 46 : app->cols >= 80 ? 38 : app->cols;
    int gx = left_w + 1, gw = app->cols - gx;
    bool graphs = gw >= 30;
    if (!graphs)
        left_w = app->cols;
    int y = top;
    snprintf(buf, sizeof buf, "%s  %s", i->id, sm_status_name(i->status));
    tui_put(y++, 0, left_w, buf, tui_attr(TH_TITLE) | A_BOLD, true);
    y = kv(y, 0, left_w, "provider", i->provider, tui_attr(TH_NORMAL));
    y = kv(y, 0, left_w, "image", i->image ? i->image : "-", tui_attr(TH_NORMAL));
    y = requests_limits(app, i, s, y, left_w);
    y = kv(y, 0, left_w, "workdir", i->workdir ? i->workdir : "-", tui_attr(TH_NORMAL));
    buf[0] = '\0';
    for (size_t k = 0; k < i->env_names.n; k++)
        snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%s", k ? " " : "",
                 i->env_names.items[k].key);
    y = kv(y, 0, left_w, "env", buf[0] ? buf : "-", tui_attr(TH_NORMAL));
    buf[0] = '\0';
    for (size_t k = 0; k < i->nports; k++)
        snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%d", k ? " " : "", i->ports[k]);
    y = kv(y, 0, left_w, "ports", buf[0] ? buf : "-", tui_attr(TH_NORMAL));
    for (size_t k = 0; k < i->labels.n && y < top + height - 8; k++) {
        snprintf(buf, sizeof buf, "%s=%s", i->labels.items[k].key, i->labels.items[k].value);
        y = kv(y, 0, left_w, k ? "" : "labels", buf, tui_attr(TH_NORMAL));
    }
    if (!i->labels.n)
        y = kv(y, 0, left_w, "labels", "-", tui_attr(TH_NORMAL));
    /* lifecycle timers */
    if (i->created_at > 0) {
        sm_format_duration(now - i->created_at, a, sizeof a);
        snprintf(buf, sizeof buf, "%s ago", a);
        y = kv(y, 0, left_w, "created", buf, tui_attr(TH_NORMAL));
    }
    if (i->ready_at > 0 && i->created_at > 0) {
        sm_format_duration(i->ready_at - i->created_at, a, sizeof a);
        y = kv(y, 0, left_w, "ready in", a, tui_attr(TH_NORMAL));
    }
    double left = sm_sandbox_info_ttl_left(i, now);
    if (left >= 0) {
        sm_format_duration(i->ttl_s, a, sizeof a);
        sm_format_duration(left, b, sizeof b);
        snprintf(buf, sizeof buf, "%s, %s left", a, i->ended_at > 0 ? "none" : b);
        y = kv(y, 0, left_w, "ttl", buf, tui_attr(left < 60 ? TH_WARNING : TH_NORMAL));
    }
    if (i->ended_at > 0) {
        sm_format_duration(now - i->ended_at, a, sizeof a);
        snprintf(buf, sizeof buf, "%s ago", a);
        y = kv(y, 0, left_w, "ended", buf, tui_attr(TH_NORMAL));
    }
    if (r->f->has_why) {
        char label[128], ev[512];
        sm_failure_label(&r->f->why, label, sizeof label);
        sm_failure_evidence(&r->f->why, ev, sizeof ev);
        y = kv(y, 0, left_w, r->f->why_warning ? "warning" : "failure", label,
               tui_attr(r->f->why_warning ? TH_WARNING : TH_FAILURE) | A_BOLD);
        if (ev[0])
            y = kv(y, 0, left_w, "evidence", ev, tui_attr(TH_NORMAL));
        if (r->f->why.reason[0])
            y = kv(y, 0, left_w, "", r->f->why.reason, tui_attr(TH_DIM));
    }
    if (i->detail)
        y = kv(y, 0, left_w, "note", i->detail, tui_attr(TH_WARNING));

    if (graphs) {
        int gh = height / 4 < 3 ? 3 : height / 4;
        bool live = i->status == SM_STATUS_RUNNING || i->status == SM_STATUS_STARTING;
        double cpu_max = s && s->cpu_limit > 0 ? s->cpu_limit * 100 : 100;
        if (live && r->f->rates.cpu_pct >= 0)
            snprintf(buf, sizeof buf, "%.1f%%", r->f->rates.cpu_pct);
        else
            snprintf(buf, sizeof buf, "-");
        graph(app, r, top, gx, gw, gh, "CPU %", SM_METRIC_CPU_PCT, cpu_max, TH_GRAPH_CPU, buf);
        if (live && s && s->mem_working_set >= 0) {
            sm_format_bytes((double)s->mem_working_set, a, sizeof a);
            if (s->mem_limit > 0)
                sm_format_bytes((double)s->mem_limit, b, sizeof b);
            snprintf(buf, sizeof buf, "%s / %s", a, s->mem_limit > 0 ? b : "no limit");
        } else {
            snprintf(buf, sizeof buf, "-");
        }
        graph(app, r, top + gh, gx, gw, gh, "memory (working set)", SM_METRIC_MEM,
              s && s->mem_limit > 0 ? (double)s->mem_limit : 0, TH_GRAPH_MEM, buf);
        /* IO and network: both directions, two graphs side by side, each scaled on its own */
        int lw = gw / 2, rw = gw - lw;
        sm_format_bytes(r->f->rates.io_read_bps > 0 ? r->f->rates.io_read_bps : 0, a, sizeof a);
        snprintf(buf, sizeof buf, "%s/s", a);
        graph(app, r, top + 2 * gh, gx, lw, gh, "block IO read", SM_METRIC_IO_READ, 0, TH_GRAPH_IO,
              buf);
        sm_format_bytes(r->f->rates.io_write_bps > 0 ? r->f->rates.io_write_bps : 0, b, sizeof b);
        snprintf(buf, sizeof buf, "%s/s", b);
        graph(app, r, top + 2 * gh, gx + lw, rw, gh, "block IO write", SM_METRIC_IO_WRITE, 0,
              TH_GRAPH_IO, buf);
        sm_format_bytes(r->f->rates.net_rx_bps > 0 ? r->f->rates.net_rx_bps : 0, a, sizeof a);
        snprintf(buf, sizeof buf, "%s/s", a);
        graph(app, r, top + 3 * gh, gx, lw, gh, "network rx", SM_METRIC_NET_RX, 0, TH_GRAPH_NET,
              buf);
        sm_format_bytes(r->f->rates.net_tx_bps > 0 ? r->f->rates.net_tx_bps : 0, b, sizeof b);
        snprintf(buf, sizeof buf, "%s/s", b);
        graph(app, r, top + 3 * gh, gx + lw, rw, gh, "network tx", SM_METRIC_NET_TX, 0,
              TH_GRAPH_NET, buf);
    }

    /* the last events and commands, newest first, under the facts */
    y++;
    if (y < top + height - 1)
        tui_put(y++, 0, left_w, "recent events", tui_attr(TH_TITLE), true);
    int n = cJSON_GetArraySize(r->st->recent);
    for (int k = n - 1; k >= 0 && y < top + height; k--) {
        const cJSON *ev = cJSON_GetArrayItem(r->st->recent, k);
        char line[512], when[24];
        sm_journal_event_summary(ev, line, sizeof line);
        double t = sm_parse_time(sm_json_str(ev, "ts"));
        sm_format_duration(t > 0 ? now - t : 0, when, sizeof when);
        snprintf(buf, sizeof buf, "%6s %s", when, line);
        bool failed = cJSON_GetObjectItemCaseSensitive(ev, "failure") != NULL;
        tui_put(y++, 0, left_w, buf, tui_attr(failed ? TH_FAILURE : TH_NORMAL), false);
    }
}
