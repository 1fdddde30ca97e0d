/* ui_bench's report: the rows of the results table (value, baseline, ratio, target, verdict)
 * printed as Markdown and as JSON, and the facts of the machine and tools measured on. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bench/bench_util.h"
#include "bench/ui_panes.h"
#include "bench/ui_report.h"

ub_row *ub_add_row(ub_row *rows, size_t *n, const char *metric, const char *unit, double med,
                   double p90, double base, const char *base_name, double limit, const char *target)
{
    ub_row *r = &rows[(*n)++];
    memset(r, 0, sizeof *r);
    snprintf(r->metric, sizeof r->metric, "%s", metric);
    r->unit = unit;
    r->med = med;
    r->p90 = p90;
    r->base = base;
    r->base_name = base_name;
    r->limit = limit;
    r->target = target;
    return r;
}

void ub_row_judge(ub_row *r)
{
    r->pass = r->limit < 0 || (r->med >= 0 && r->med < r->limit);
}

static const char *row_result(const ub_row *r)
{
    return r->limit < 0 ? "info" : r->pass ? "PASS" : "FAIL";
}

void ub_print_table(const ub_row *rows, size_t n)
{
    printf("\n| metric | sandman median | sandman p90 | baseline | baseline | ratio | target | "
           "result |\n");
    printf("|---|---:|---:|---|---:|---:|---|---|\n");
    for (size_t i = 0; i < n; i++) {
        const ub_row *r = &rows[i];
        char med[32], p90[32], b[32], rt[32];
        bench_fmt_num(med, sizeof med, r->med);
        bench_fmt_num(p90, sizeof p90, r->p90);
        bench_fmt_num(b, sizeof b, r->base);
        bench_fmt_ratio(rt, sizeof rt, bench_ratio(r->med, r->base));
        printf("| %s | %s %s | %s | %s | %s %s | %s | %s | %s |\n", r->metric, med, r->unit, p90,
               r->base_name ? r->base_name : "-", b, r->base >= 0 ? r->unit : "", rt, r->target,
               row_result(r));
    }
}

cJSON *ub_row_json(const ub_row *r)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "metric", r->metric);
    cJSON_AddStringToObject(o, "unit", r->unit);
    cJSON_AddNumberToObject(o, "median", r->med);
    if (r->p90 >= 0)
        cJSON_AddNumberToObject(o, "p90", r->p90);
    if (r->base_name) {
        cJSON_AddStringToObject(o, "baseline", r->base_name);
        cJSON_AddNumberToObject(o, "baseline_value", r->base);
        cJSON_AddNumberToObject(o, "ratio", bench_ratio(r->med, r->base));
    }
    cJSON_AddStringToObject(o, "target", r->target);
    cJSON_AddStringToObject(o, "result", row_result(r));
    return o;
}

static void first_line(char *const argv[], char *buf, size_t len)
{
    if (ub_run(argv, buf, len) < 0 || !buf[0])
        snprintf(buf, len, "%s: ?", argv[0]);
    buf[strcspn(buf, "\n")] = '\0';
}

void ub_machine_facts(cJSON *j)
{
    bench_machine m;
    bench_machine_read(&m);
    char htop_v[128], tmux_v[128];
    first_line((char *const[]){"htop", "--version", NULL}, htop_v, sizeof htop_v);
    first_line((char *const[]){"tmux", "-V", NULL}, tmux_v, sizeof tmux_v);
    printf("machine: %ld CPUs (%s), %.1f GiB RAM, %s %s %s, CLK_TCK %ld, load average %.2f\n",
           m.ncpu, m.model, (double)m.mem_kib / (1024.0 * 1024.0), m.u.sysname, m.u.release,
           m.u.machine, sysconf(_SC_CLK_TCK), bench_loadavg());
    printf("tools: %s, %s\n", htop_v, tmux_v);
    cJSON_AddNumberToObject(j, "nproc", (double)m.ncpu);
    cJSON_AddStringToObject(j, "cpu", m.model);
    cJSON_AddNumberToObject(j, "mem_kib", (double)m.mem_kib);
    cJSON_AddStringToObject(j, "kernel", m.u.release);
    cJSON_AddStringToObject(j, "htop", htop_v);
    cJSON_AddStringToObject(j, "tmux", tmux_v);
    cJSON_AddNumberToObject(j, "loadavg_before", bench_loadavg());
}
