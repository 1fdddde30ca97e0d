/* Option parsing for CLI commands: long (--name, --name=value) and short (-x value) options,
 * the common options every command takes, "--" and a command's trailing words. */
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
    {"config", 'c', true, COMMON_CONFIG}, {"context", 'p', true, COMMON_CONTEXT},
    {"output", 'o', true, COMMON_OUTPUT}, {"help", 'h', false, COMMON_HELP},
    {"theme", 0, true, COMMON_THEME},     {NULL, 0, false, 0},
};

static const cli_opt *match(const cli_opt *opts, const char *lng, char shrt)
{
    for (int pass = 0; pass < 2; pass++) {
        const cli_opt *o = pass ? common : opts;
        for (; o && o->lng; o++) {
            if (lng && !strcmp(o->lng, lng))
                return o;
            if (!lng && shrt && o->shrt == shrt)
                return o;
        }
    }
    return NULL;
}

static int apply_common(sm_cli *cli, const sm_cmd *cmd, int id, const char *arg)
{
    switch (id) {
    case COMMON_CONFIG:
        free(cli->config_path);
        cli->config_path = xstrdup(arg);
        return 0;
    case COMMON_CONTEXT:
        free(cli->context_name);
        cli->context_name = xstrdup(arg);
        return 0;
    case COMMON_THEME:
        free(cli->theme);
        cli->theme = xstrdup(arg);
        return 0;
    case COMMON_OUTPUT:
        if (!strcmp(arg, "json")) {
            cli->json = true;
        } else if (!strcmp(arg, "text") || !strcmp(arg, "table")) {
            cli->json = false;
        } else {
            return cli_usage(cli, "unknown output format '%s' (allowed: json, text)", arg);
        }
        return 0;
    case COMMON_HELP:
        fprintf(cli->out, "usage: sandman %s %s\n  %s\n%s", cmd->name, cmd->args, cmd->summary,
                cmd->help ? cmd->help : "");
        fprintf(cli->out, "common options:\n"
                          "  -c, --config FILE    config file (default $SANDMAN_CONFIG, then\n"
                          "                       $XDG_CONFIG_HOME/sandman/config.yaml)\n"
                          "  -p, --context NAME   provider context: a config block or a provider\n"
                          "  -o, --output FORMAT  text (default) or json\n");
        return -1;
    }
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
            arg = a[1] && a[2] ? a + 2 : NULL;
        }
        if (!o || !o->has_arg) {
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
        if (apply_common(cli, NULL, o->id, arg) != 0)
            return -1;
        i++;
    }
    return i;
}

int cli_parse(sm_cli *cli, const sm_cmd *cmd, const cli_opt *opts, cli_opt_fn fn, void *ud,
              int argc, char **argv, char **pos, int maxpos, int *npos, int stop_after,
              char ***rest, int *nrest)
{
    *npos = 0;
    if (rest) {
        *rest = NULL;
        *nrest = 0;
    }
    for (int i = 1; i < argc; i++) {
        char *a = argv[i];
        bool stop = !strcmp(a, "--") || (stop_after > 0 && *npos >= stop_after);
        if (stop) {
            int from = !strcmp(a, "--") ? i + 1 : i;
            if (!rest)
                return cli_usage(cli, "unexpected argument '%s'", argv[from < argc ? from : i]);
            *rest = argv + from;
            *nrest = argc - from;
            return 0;
        }
        if (a[0] != '-' || a[1] == '\0') {
            if (*npos >= maxpos)
                return cli_usage(cli, "unexpected argument '%s'", a);
            pos[(*npos)++] = a;
            continue;
        }
        const cli_opt *o;
        const char *arg = NULL;
        char name[64];
        if (a[1] == '-') {
            const char *eq = strchr(a + 2, '=');
            snprintf(name, sizeof name, "%.*s", eq ? (int)(eq - a - 2) : (int)strlen(a + 2), a + 2);
            o = match(opts, name, 0);
            if (eq)
                arg = eq + 1;
            if (!o)
                return cli_usage(cli, "unknown option --%s", name);
        } else {
            snprintf(name, sizeof name, "%c", a[1]);
            o = match(opts, NULL, a[1]);
            if (!o)
                return cli_usage(cli, "unknown option -%c", a[1]);
            if (a[2] && !o->has_arg) {
                /* grouped flags: -aq */
                for (const char *c = a + 1; *c; c++) {
                    const cli_opt *g = match(opts, NULL, *c);
                    if (!g || g->has_arg)
                        return cli_usage(cli, "unknown option -%c in %s", *c, a);
                    int rc = g->id < 0 ? apply_common(cli, cmd, g->id, NULL)
                                       : (fn ? fn(cli, ud, g->id, NULL) : 0);
                    if (rc != 0)
                        return rc;
                }
                continue;
            }
            if (a[2])
                arg = a + 2;
        }
        if (o->has_arg && !arg) {
            if (i + 1 >= argc)
                return cli_usage(cli, "option %s%s needs a value", a[1] == '-' ? "--" : "-", name);
            arg = argv[++i];
        } else if (!o->has_arg && arg) {
            return cli_usage(cli, "option %s takes no value", a);
        }
        int rc =
            o->id < 0 ? apply_common(cli, cmd, o->id, arg) : (fn ? fn(cli, ud, o->id, arg) : 0);
        if (rc != 0)
            return rc;
    }
    return 0;
}
