/* The headless CLI: its context, output helpers and the command framework. Each verb is a
 * declared entry (sm_cmd: options with metavar and help, whether it needs a provider and a
 * target sandbox, whether it takes trailing words); one runner (runner.c) parses, prints the
 * generated --help, builds the provider, opens the target and then calls the verb, which
 * writes to cli->out / cli->err and returns an exit status. The table of verbs belongs to
 * the program (main/) and is handed over with cli_set_commands. Must not name providers. */
#ifndef SM_CLI_H
#define SM_CLI_H

#include <stdbool.h>
#include <stddef.h>
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
    bool error_printed;    /* -o json: the one error object is out */
} sm_cli;

/* ---- declared commands ------------------------------------------------------------------ */

typedef struct cli_opt {
    const char *lng;     /* "memory-mib" */
    char shrt;           /* 'm', or 0 */
    const char *metavar; /* the value's name in --help ("N"); NULL for a flag */
    const char *help;    /* one line, "\n" continues it; NULL: accepted but not shown */
    int id;              /* handed to the verb's opt callback */
} cli_opt;

enum {
    CLI_PROVIDER = 1u << 0,        /* build the context's provider before run */
    CLI_TARGET = 1u << 1,          /* the first positional is a sandbox id (required), opened */
    CLI_TARGET_OPTIONAL = 1u << 2, /* as CLI_TARGET, when a first positional is given */
    CLI_WORDS = 1u << 3,           /* trailing words: after "--" or the last positional */
    CLI_WORDS_REQUIRED = 1u << 4,  /* ... at least one */
};

/* What the runner hands a verb. */
typedef struct cli_call {
    void *args; /* the verb's option struct (args_size bytes, set up by init) */
    char **pos; /* positionals, the target's id first */
    int npos;
    char **words; /* trailing words */
    int nwords;
    sm_provider *provider; /* with CLI_PROVIDER / CLI_TARGET*; owned by the sm_cli */
    sm_sandbox *target;    /* with CLI_TARGET*; freed by the runner */
} cli_call;

typedef struct sm_cmd {
    const char *name;
    const char *usage;   /* what follows the verb in "usage: sandman VERB ..." */
    const char *summary; /* one line */
    unsigned flags;
    int max_pos;              /* positionals accepted, the target's id included; -1: any */
    const cli_opt *opts;      /* NULL-terminated; may be NULL */
    const cli_opt *more_opts; /* a second table (create's, for shell --new) */
    const char *more_title;   /* its heading in --help */
    size_t args_size;         /* the verb's option struct, zeroed, then init */
    void (*init)(void *args); /* defaults; may be NULL */
    int (*opt)(sm_cli *cli, void *args, int id, const char *arg); /* 0 or a usage status */
    int (*check)(sm_cli *cli, cli_call *c); /* after parsing, before the provider; may be NULL */
    int (*run)(sm_cli *cli, cli_call *c);
    void (*done)(void *args); /* frees what opt stored; may be NULL */
    /* the option id with which the verb streams until it is stopped (events -f, logs -f); 0:
     * it always ends. Front ends that run verbs on a worker (the palette) refuse those. */
    int stream_opt;
} sm_cmd;

/* The program's table of verbs (NULL-terminated, static storage), for lookup and usage. */
void cli_set_commands(const sm_cmd *const *table);
const sm_cmd *cli_find_command(const char *name);
/* Parses argv (argv[0] is the verb) by cmd's declaration, then runs it. Options go anywhere
 * before "--" (or before the first trailing word). */
int cli_run_command(sm_cli *cli, const sm_cmd *cmd, int argc, char **argv);
/* Would argv (argv[0] is the verb) stream until stopped: does it give cmd's stream_opt, as an
 * option (before "--"; -f alone or among grouped flags, --follow)? Parses nothing else. */
bool cli_command_streams(const sm_cmd *cmd, int argc, char **argv);
void cli_print_usage(FILE *f);
/* Options given before the verb (sandman -c FILE -p NAME -o json VERB ...). Returns the index
 * of the verb in argv, or -1 after a usage error (reported). */
int cli_parse_global(sm_cli *cli, int argc, char **argv);

/* ---- context and output ----------------------------------------------------------------- */

void cli_init(sm_cli *cli);
void cli_free(sm_cli *cli);

/* Prints "sandman: <msg>" on cli->err and returns status. With -o json, a failing status also
 * prints one {"error": {"kind", "message", "exit_code"}} object on cli->out (the first error
 * only, so the output stays one document); cli_usage's kind is "usage", cli_fail's the
 * sm_error code's name (with the failure kind as "failure"), others "error". */
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
/* Opens a facade bound to an existing sandbox by id or unique prefix: a full id goes straight
 * to connect, only a prefix lists. Caller frees (not the provider). NULL on error (reported;
 * *status set). */
sm_sandbox *cli_open_sandbox(sm_cli *cli, const char *id, int *status);

/* cli_open_sandbox for verbs that end sandboxes (rm): one that matches nothing is already
 * gone, which is what was asked; a note says so and *status is left alone. */
sm_sandbox *cli_open_sandbox_or_gone(sm_cli *cli, const char *id, int *status);

/* Prints a cJSON document (consumed) on cli->out, pretty unless it is a stream line. */
void cli_print_json(sm_cli *cli, cJSON *doc);
void cli_print_json_line(sm_cli *cli, cJSON *doc);
/* cli_print_json for a document holding a command's own output (exec -o json): that output is
 * data, kept as the command wrote it; only sandman's registered credentials are redacted. */
void cli_print_json_output(sm_cli *cli, cJSON *doc);

/* The options of `create` (ids 1..99), shared with `shell --new`; args is an sm_spec. */
extern const cli_opt cli_create_opts[];
int cli_create_opt(sm_cli *cli, void *args, int id, const char *arg);

#endif
