/* ui_bench's report (ui_report.c). */
#ifndef SANDMAN_BENCH_UI_REPORT_H
#define SANDMAN_BENCH_UI_REPORT_H

#include <stdbool.h>
#include <stddef.h>

typedef struct cJSON cJSON;

/* One line of the results table. Ratios are sandman / baseline; targets are on the value. */
typedef struct ub_row {
    char metric[96];
    const char *unit; /* "ms" or "%" */
    double med, p90;  /* -1 = none */
    double base;
    const char *base_name;
    double limit; /* < limit passes; < 0 = informational */
    const char *target;
    bool pass;
} ub_row;

/* Appends a row to rows (room for it is the caller's) and returns it. */
ub_row *ub_add_row(ub_row *rows, size_t *n, const char *metric, const char *unit, double med,
                   double p90, double base, const char *base_name, double limit,
                   const char *target);
/* Sets pass: the median is under the limit (informational rows always pass). */
void ub_row_judge(ub_row *r);
/* The table as Markdown on stdout; a row as JSON (caller deletes). */
void ub_print_table(const ub_row *rows, size_t n);
cJSON *ub_row_json(const ub_row *r);
/* Prints the machine and tool versions and adds them to j. */
void ub_machine_facts(cJSON *j);

#endif
