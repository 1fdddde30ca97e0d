/* The command palette: words of a ":" line, the verbs the dashboard answers itself, and the
 * context switch (a new provider; the old one is retired, never freed under a job). */
#include "tui/palette.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "core/util.h"
#include "tui/jobs.h"

/* Splits a command line into words (single/double quotes, backslash escapes). */
static int split_words(const char *line, char ***out)
{
    int n = 0, cap = 8;
    char **v = xcalloc((size_t)cap, sizeof *v);
    const char *p = line;
    while (*p) {
        while (*p == ' ' || *p == '\t')
            p++;
        if (!*p)
            break;
        char word[1024];
        size_t w = 0;
        char quote = 0;
        for (; *p && (quote || (*p != ' ' && *p != '\t')); p++) {
            if (quote && *p == quote) {
                quote = 0;
            } else if (!quote && (*p == '\'' || *p == '"')) {
                quote = *p;
            } else if (*p == '\\' && p[1] && quote != '\'') {
                if (w + 1 < sizeof word)
                    word[w++] = *++p;
            } else if (w + 1 < sizeof word) {
                word[w++] = *p;
            }
        }
        word[w] = '\0';
        if (n + 1 >= cap) {
            cap *= 2;
            v = xrealloc(v, (size_t)cap * sizeof *v);
        }
        v[n++] = xstrdup(word);
    }
    v[n] = NULL;
    *out = v;
    return n;
}

/* Verbs that want the terminal or never end: on a worker thread they would fight the
 * dashboard for the screen (shell) or run forever with their own signal handling (top). What
 * the dashboard offers instead, or NULL for a verb the palette runs. */
static const char *interactive_verb(const char *verb)
{
    static const char *refused[][2] = {
        {"shell", "shell: press t for a terminal into the sandbox (T for a new session)"},
        {"top", "top: the dashboard is top (e shows the events)"},
        {"tui", "tui: the dashboard is already open"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++)
        if (!strcmp(verb, refused[i][0]))
            return refused[i][1];
    return NULL;
}

/* A verb that streams until stopped (its stream_opt given: events -f, logs -f) would hold a
 * worker forever and show nothing: the palette refuses it with what shows the same live. */
static const char *streaming_hint(const char *verb)
{
    if (!strcmp(verb, "logs"))
        return "l on a sandbox opens its logs, which follow (f)";
    if (!strcmp(verb, "events"))
        return "the events view (e) is live";
    return "run it in a terminal (t)";
}

void tui_palette_run(tui_app *app, const char *line)
{
    char **argv;
    int argc = split_words(line, &argv);
    if (argc == 0) {
        free(argv);
        return;
    }
    if (!strcmp(argv[0], "q") || !strcmp(argv[0], "quit")) {
        app->quit = true;
    } else if (!strcmp(argv[0], "ctx") || !strcmp(argv[0], "context")) {
        if (argc != 2)
            tui_status(app, true,
                       ":ctx wants one context name (a config block or a "
                       "provider)");
        else
            tui_palette_context(app, argv[1]);
    } else if (!strcmp(argv[0], "help")) {
        app->overlay = OV_HELP;
    } else if (interactive_verb(argv[0])) {
        tui_status(app, true, "%s", interactive_verb(argv[0]));
    } else if (!cli_find_command(argv[0])) {
        tui_status(app, true, "unknown command '%s' (try :help)", argv[0]);
    } else if (cli_command_streams(cli_find_command(argv[0]), argc, argv)) {
        tui_status(app, true,
                   ":%s with --follow streams until stopped, which the palette cannot: %s", argv[0],
                   streaming_hint(argv[0]));
    } else {
        tui_jobs_command(app, argc, argv, line);
    }
    for (int i = 0; i < argc; i++)
        free(argv[i]);
    free(argv);
}

void tui_palette_context(tui_app *app, const char *name)
{
    sm_provider *p = NULL;
    sm_error err;
    sm_error_clear(&err);
    if (sm_provider_open(&app->cli->config, name, &p, &err) != SM_OK) {
        tui_status(app, true, "sandman: %s", err.msg[0] ? err.msg : "cannot switch context");
        return;
    }
    /* The old provider may still be in a refresh (a hung engine holds one until it times
     * out): that result is dropped when it ends, and the new context's refresh starts now. */
    app->retired = xrealloc(app->retired, (app->nretired + 1) * sizeof *app->retired);
    app->retired_samplers =
        xrealloc(app->retired_samplers, (app->nretired + 1) * sizeof *app->retired_samplers);
    app->retired[app->nretired] = app->provider;
    app->retired_samplers[app->nretired++] = app->sampler;
    app->refreshing = false;
    app->refresh_again = false;
    app->provider = p;
    app->sampler = sm_sampler_new(p);
    free(app->context);
    app->context = xstrdup(name);
    tui_model_set_provider(&app->model, sm_provider_name(p));
    app->ev_gen++;
    app->ev_cache_feed = NULL; /* every event is another one now */
    tui_status(app, false, "context %s (%s)", name, sm_provider_name(p));
    tui_jobs_refresh(app);
}
