/* The command framework: parses a verb's arguments by its declaration (long --name,
 * --name=value, short -x value, -xVALUE, grouped flags -aq, "--"), the common options every
 * verb takes, the generated --help, then builds the provider, opens the target sandbox and
 * calls the verb. Verbs never parse argv themselves. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "core/util.h"

enum {
    COMMON_CONFIG = -1,
    COMMON_CONTEXT = -2,
    COMMON_OUTPUT = -3,
    COMMON_HELP = -4,
    COMMON_THEME = -5
};

static const cli_opt common[] = {
    {"config", 'c', "FILE",
     "config file (default $SANDMAN_CONFIG, then\n$XDG_CONFIG_HOME/sandman/config.yaml)",
     COMMON_CONFIG},
    {"context", 'p', "NAME", "provider context: a config block or a provider", COMMON_CONTEXT},
    {"output", 'o', "FORMAT", "text (default) or json", COMMON_OUTPUT},
    {"help", 'h', NULL, "this help", COMMON_HELP},
    {"theme", 0, "NAME", NULL, COMMON_THEME}, /* the dashboard's; shown in its own help */
    {NULL, 0, NULL, NULL, 0},
};

static const sm_cmd *const *commands;

void cli_set_commands(const sm_cmd *const *table)
{
    commands = table;
}

const sm_cmd *cli_find_command(const char *name)
{
    for (size_t i = 0; name && commands && commands[i]; i++)
        if (!strcmp(commands[i]->name, name))
            return commands[i];
    return NULL;
}

void cli_print_usage(FILE *f)
{
    fprintf(f, "usage: sandman [COMMAND] [options]\n\n"
               "With no command, sandman opens the dashboard.\n\ncommands:\n");
    for (size_t i = 0; commands && commands[i]; i++)
        fprintf(f, "  %-10s %s\n", commands[i]->name, commands[i]->summary);
    fprintf(f, "\nEvery command takes -c FILE (config), -p NAME (provider context) and -o json.\n"
               "Run 'sandman COMMAND --help' for its options.\n");
}

/* ---- generated help ------------------------------------------------------------------------ */

enum { HELP_COL_MAX = 26 };

static int opt_left(const cli_opt *o, char *buf, size_t len)
{
    char shrt[8] = "    ";
    if (o->shrt)
        snprintf(shrt, sizeof shrt, "-%c, ", o->shrt);
    return snprintf(buf, len, "  %s--%s%s%s", shrt, o->lng, o->metavar ? " " : "",
                    o->metavar ? o->metavar : "");
}

static int table_width(const cli_opt *opts, int width)
{
    char left[128];
    for (const cli_opt *o = opts; o && o->lng; o++) {
        int n = opt_left(o, left, sizeof left);
        if (o->help && n + 2 > width && n + 2 <= HELP_COL_MAX)
            width = n + 2;
    }
    return width;
}

static bool declared(const cli_opt *opts, const char *lng)
{
    for (const cli_opt *o = opts; o && o->lng; o++)
        if (!strcmp(o->lng, lng))
            return true;
    return false;
}

/* Options of a shared table that the verb declares itself (shadow) are the verb's: their
 * shared line is not shown. */
static void print_table(FILE *f, const cli_opt *opts, const cli_opt *shadow, int width)
{
    char left[128];
    for (const cli_opt *o = opts; o && o->lng; o++) {
        if (!o->help || declared(shadow, o->lng))
            continue;
        int n = opt_left(o, left, sizeof left);
        fputs(left, f);
        /* a name too long for the column gets its help on the same line after two spaces */
        fprintf(f, "%*s", n + 2 <= width ? width - n : 2, "");
        for (const char *h = o->help; *h; h++) {
            fputc(*h, f);
            if (*h == '\n')
                fprintf(f, "%*s", width, "");
        }
        fputc('\n', f);
    }
}

static void print_help(sm_cli *cli, const sm_cmd *cmd)
{
    FILE *f = cli->out;
    int width = table_width(common, table_width(cmd->more_opts, table_width(cmd->opts, 0)));
    fprintf(f, "usage: sandman %s%s%s\n  %s\n", cmd->name, cmd->usage[0] ? " " : "", cmd->usage,
            cmd->summary);
    print_table(f, cmd->opts, NULL, width);
    if (cmd->more_opts) {
        fprintf(f, "%s:\n", cmd->more_title ? cmd->more_title : "more options");
        print_table(f, cmd->more_opts, cmd->opts, width);
    }
    fprintf(f, "common options:\n");
    print_table(f, common, NULL, width);
}

/* ---- parsing ------------------------------------------------------------------------------- */

static const cli_opt *match(const sm_cmd *cmd, const char *lng, char shrt)
{
    const cli_opt *tables[3] = {cmd ? cmd->opts : NULL, cmd ? cmd->more_opts : NULL, common};
    for (int t = 0; t < 3; t++) {
        for (const cli_opt *o = tables[t]; o && o->lng; o++) {
            if (lng && !strcmp(o->lng, lng))
                return o;
            if (!lng && shrt && o->shrt == shrt)
                return o;
        }
    }
    return NULL;
}

/* Applies one option: a common one here, the verb's through its callback. Returns 0, a
 * usage status (reported), or -1 once help is printed. */
static int apply(sm_cli *cli, const sm_cmd *cmd, void *args, const cli_opt *o, const char *arg)
{
    char **slot = NULL;
    switch (o->id) {
    case COMMON_CONFIG: slot = &cli->config_path; break;
    case COMMON_CONTEXT: slot = &cli->context_name; break;
    case COMMON_THEME: slot = &cli->theme; break;
    case COMMON_OUTPUT:
        if (!strcmp(arg, "json"))
            cli->json = true;
        else if (!strcmp(arg, "text") || !strcmp(arg, "table"))
            cli->json = false;
        else
            return cli_usage(cli, "unknown output format '%s' (allowed: json, text)", arg);
        return 0;
    case COMMON_HELP: print_help(cli, cmd); return -1;
    default: return cmd->opt ? cmd->opt(cli, args, o->id, arg) : 0;
    }
    free(*slot);
    *slot = xstrdup(arg);
    return 0;
}

int cli_parse_global(sm_cli *cli, int argc, char **argv)
{
    int i = 1;
    while (i < argc && argv[i][0] == '-' && strcmp(argv[i], "-h") && strcmp(argv[i], "--help") &&
           strcmp(argv[i], "--version")) {
        const char *a = argv[i], *arg = NULL;
        const cli_opt *o = NULL;
        if (a[1] == '-') {
            const char *eq = strchr(a + 2, '=');
            char name[64];
            snprintf(name, sizeof name, "%.*s", eq ? (int)(eq - a - 2) : (int)strlen(a + 2), a + 2);
            o = match(NULL, name, 0);
            arg = eq ? eq + 1 : NULL;
        } else {
            o = match(NULL, NULL, a[1]);
            arg = a[1] && a[2] ? a + 2 + (a[2] == '=') : NULL; /* -oVALUE, -o=VALUE */
        }
        if (!o || !o->metavar) {
            cli_usage(cli, "unknown option %s before the command", a);
            return -1;
        }
        if (!arg) {
            if (i + 1 >= argc) {
                cli_usage(cli, "option %s needs a value", a);
                return -1;
            }
            arg = argv[++i];
        }
        if (apply(cli, NULL, NULL, o, arg) != 0)
            return -1;
        i++;
    }
    return i;
}

/* One word starting with '-' (not "-" or "--") at argv[*i]; may consume the next word as its
 * value. */
static int parse_option(sm_cli *cli, const sm_cmd *cmd, void *args, int argc, char **argv, int *i)
{
    const char *a = argv[*i], *arg = NULL;
    const cli_opt *o;
    char name[64];
    if (a[1] == '-') {
        const char *eq = strchr(a + 2, '=');
        snprintf(name, sizeof name, "%.*s", eq ? (int)(eq - a - 2) : (int)strlen(a + 2), a + 2);
        if (!(o = match(cmd, name, 0)))
            return cli_usage(cli, "unknown option --%s", name);
        if (eq)
            arg = eq + 1;
    } else {
        snprintf(name, sizeof name, "%c", a[1]);
        if (!(o = match(cmd, NULL, a[1])))
            return cli_usage(cli, "unknown option -%c", a[1]);
        if (a[2] && !o->metavar) { /* grouped flags: -aq */
            for (const char *c = a + 1; *c; c++) {
                const cli_opt *g = match(cmd, NULL, *c);
                if (!g || g->metavar)
                    return cli_usage(cli, "unknown option -%c in %s", *c, a);
                int rc = apply(cli, cmd, args, g, NULL);
                if (rc != 0)
                    return rc;
            }
            return 0;
        }
        if (a[2])
            arg = a + 2 + (a[2] == '='); /* -o=json, as docker's option parser takes it */
    }
    if (o->metavar && !arg) {
        if (*i + 1 >= argc)
            return cli_usage(cli, "option %s%s needs a value", a[1] == '-' ? "--" : "-", name);
        arg = argv[++*i];
    } else if (!o->metavar && arg) {
        return cli_usage(cli, "option %s takes no value", a);
    }
    return apply(cli, cmd, args, o, arg);
}

/* Options anywhere; positionals up to max_pos; with CLI_WORDS, the words after "--" or after
 * the last positional are the verb's trailing words (its command, which has options of its
 * own). Without CLI_WORDS, "--" ends the options and what follows are positionals. */
static int parse(sm_cli *cli, const sm_cmd *cmd, int argc, char **argv, cli_call *c)
{
    bool options = true;
    for (int i = 1; i < argc; i++) {
        char *a = argv[i];
        bool full = cmd->max_pos >= 0 && c->npos >= cmd->max_pos;
        if (options && !strcmp(a, "--")) {
            if (cmd->flags & CLI_WORDS) {
                c->words = argv + i + 1;
                c->nwords = argc - i - 1;
                return 0;
            }
            options = false;
            continue;
        }
        if (options && a[0] == '-' && a[1]) {
            int rc = parse_option(cli, cmd, c->args, argc, argv, &i);
            if (rc != 0)
                return rc;
            continue;
        }
        if (full && (cmd->flags & CLI_WORDS)) {
            c->words = argv + i;
            c->nwords = argc - i;
            return 0;
        }
        if (full)
            return cli_usage(cli, "unexpected argument '%s'", a);
        c->pos[c->npos++] = a;
    }
    return 0;
}

bool cli_command_streams(const sm_cmd *cmd, int argc, char **argv)
{
    if (!cmd || !cmd->stream_opt)
        return false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--"))
            return false;
        if (a[0] != '-' || !a[1])
            continue;
        const cli_opt *o;
        if (a[1] == '-') {
            const char *eq = strchr(a + 2, '=');
            char name[64];
            snprintf(name, sizeof name, "%.*s", eq ? (int)(eq - a - 2) : (int)strlen(a + 2), a + 2);
            o = match(cmd, name, 0);
            if (o && o->id == cmd->stream_opt)
                return true;
            if (o && o->metavar && !eq)
                i++; /* its value */
            continue;
        }
        for (const char *c = a + 1; *c; c++) { /* -f, -af, -l K=V */
            o = match(cmd, NULL, *c);
            if (o && o->id == cmd->stream_opt)
                return true;
            if (!o || o->metavar) {
                if (o && !c[1])
                    i++; /* its value is the next word */
                break;
            }
        }
    }
    return false;
}

/* ---- the runner ---------------------------------------------------------------------------- */

int cli_run_command(sm_cli *cli, const sm_cmd *cmd, int argc, char **argv)
{
    cli->verb = cmd->name;
    cli_call c;
    memset(&c, 0, sizeof c);
    c.args = xcalloc(1, cmd->args_size ? cmd->args_size : 1);
    c.pos = xcalloc((size_t)argc + 1, sizeof *c.pos);
    if (cmd->init)
        cmd->init(c.args);
    bool target = (cmd->flags & (CLI_TARGET | CLI_TARGET_OPTIONAL)) != 0;
    int status = parse(cli, cmd, argc, argv, &c);
    if (status == 0 && (cmd->flags & CLI_TARGET) && c.npos == 0)
        status = cli_usage(cli, "missing sandbox id");
    if (status == 0 && (cmd->flags & CLI_WORDS_REQUIRED) && c.nwords == 0)
        status = cli_usage(cli, "missing command (sandman %s %s)", cmd->name, cmd->usage);
    if (status == 0 && cmd->check)
        status = cmd->check(cli, &c);
    if (status == 0 && (target || (cmd->flags & CLI_PROVIDER)))
        c.provider = cli_provider(cli, &status);
    if (status == 0 && target && c.npos > 0)
        c.target = cli_open_sandbox(cli, c.pos[0], &status);
    if (status == 0)
        status = cmd->run(cli, &c);
    else if (status < 0) /* help was printed */
        status = CLI_OK;
    sm_sandbox_free(c.target);
    if (cmd->done)
        cmd->done(c.args);
    free(c.args);
    free(c.pos);
    fflush(cli->out);
    return status;
}
