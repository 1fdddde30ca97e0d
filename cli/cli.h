/* The headless CLI's shared context and helpers. One command table (commands.c) serves the
 * CLI and the dashboard's `:` palette; each command parses its own arguments with cli_parse,
 * writes to cli->out / cli->err and returns an exit status. Must not name providers. */
#ifndef SM_CLI_H
#define SM_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "core/config.h"
#include "core/sandbox.h"

typedef struct cJSON cJSON;

/* Exit statuses (DESIGN.md §6). */
enum { CLI_OK = 0, CLI_FAIL = 1, CLI_USAGE = 2, CLI_RUNTIME = 125 };

typedef struct sm_cli {
    FILE *out;
    FILE *err;
    bool json;          /* -o json */
    char *config_path;  /* -c */
    char *context_name; /* -p */
    const char *verb;   /* the command being run */
    sm_config config;
    bool config_loaded;
    sm_provider *provider; /* built on first use */
    char *theme;           /* --theme (dashboard) */
} sm_cli;

typedef struct sm_cmd {
    const char *name;
    const char *args;    /* usage after the verb */
    const char *summary; /* one line */
    const char *help;    /* option lines */
    int (*run)(sm_cli *cli, int argc, char **argv);
} sm_cmd;

/* The command table (NULL-name terminated) and lookup. */
extern const sm_cmd *const sm_command_table[];
const sm_cmd *cli_find_command(const char *name);
int cli_run_command(sm_cli *cli, const sm_cmd *cmd, int argc, char **argv);
void cli_print_usage(FILE *f);

void cli_init(sm_cli *cli);
void cli_free(sm_cli *cli);

/* Prints "sandman: <msg>" on cli->err and returns status. */
int cli_error(sm_cli *cli, int status, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Usage error: "sandman <verb>: <msg> (see sandman <verb> --help)", returns 2. */
int cli_usage(sm_cli *cli, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Prints on f with secrets redacted and control characters escaped (newlines and tabs kept):
 * every line of text the CLI prints about sandboxes goes through here (or cli_error). */
void cli_printf(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* s with every control character escaped, newlines too, in buf: for one field of a line whose
 * text a sandbox or its creator chose. Returns buf. */
const char *cli_field(const char *s, char *buf, size_t len);
/* One sandbox id on its own line (create, rm, ls -q): escaped but never redacted, since
 * scripts read it back (a registered secret could be a substring of an id). */
void cli_print_id(sm_cli *cli, const char *id);
/* Reports an sm_error and maps its code to an exit status. */
int cli_fail(sm_cli *cli, const sm_error *err);

/* The provider of the selected context (config file + -p), built once. NULL on error (already
 * reported; *status set). */
sm_provider *cli_provider(sm_cli *cli, int *status);
/* Opens a facade bound to an existing sandbox by id or unique prefix. Caller frees (not the
 * provider). NULL on error (reported; *status set). */
sm_sandbox *cli_open_sandbox(sm_cli *cli, const char *id, int *status);

/* For commands taking exactly one sandbox id: parses argv (no options of its own) and opens
 * the sandbox. NULL with *status set when there is nothing to do (help printed: CLI_OK) or on
 * error (reported). */
sm_sandbox *cli_parse_one_sandbox(sm_cli *cli, int argc, char **argv, int *status);

/* Prints a cJSON document (consumed) on cli->out, pretty unless it is a stream line. */
void cli_print_json(sm_cli *cli, cJSON *doc);
void cli_print_json_line(sm_cli *cli, cJSON *doc);
/* cli_print_json for a document holding a command's own output (exec -o json): that output is
 * data, kept as the command wrote it; only sandman's registered credentials are redacted. */
void cli_print_json_output(sm_cli *cli, cJSON *doc);

/* ---- option parsing ------------------------------------------------------------------- */

typedef struct cli_opt {
    const char *lng; /* "memory-mib" */
    char shrt;       /* 'e', or 0 */
    bool has_arg;
    int id;
} cli_opt;

/* Called for each option; return 0 or a usage status (already reported). */
typedef int (*cli_opt_fn)(sm_cli *cli, void *ud, int id, const char *arg);

/* Parses argv (argv[0] is the verb). Every command also accepts -c FILE, -p NAME, -o FORMAT,
 * --theme NAME and -h/--help. Positionals are collected in pos (at most maxpos). Words after
 * "--", or after stop_after positionals (when > 0), are collected in *rest / *nrest.
 * Returns 0, CLI_USAGE on error (reported), or -1 when help was printed. */
int cli_parse(sm_cli *cli, const sm_cmd *cmd, const cli_opt *opts, cli_opt_fn fn, void *ud,
              int argc, char **argv, char **pos, int maxpos, int *npos, int stop_after,
              char ***rest, int *nrest);

/* The options of `create` (ids 1..99), shared with `shell --new`; ud is an sm_spec. */
extern const cli_opt cli_create_opts[];
int cli_create_opt(sm_cli *cli, void *ud, int id, const char *arg);

/* Options given before the verb (sandman -c FILE -p NAME -o json VERB ...). Returns the index
 * of the verb in argv, or -1 after a usage error (reported). */
int cli_parse_global(sm_cli *cli, int argc, char **argv);

#endif
