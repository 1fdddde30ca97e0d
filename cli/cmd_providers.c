/* `sandman providers`: every registered provider, its capabilities and runtime notes; with
 * -c FILE, that file checked: each top-level block with its kind, its provider and whether a
 * verb selecting it would work (the provider is built from it), the default marked. */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "core/util.h"

typedef struct row {
    const char *name, *kind, *provider;
    int line;
    char status[600];
    bool ok, is_default;
} row;

static int by_line(const void *a, const void *b)
{
    return ((const row *)a)->line - ((const row *)b)->line;
}

/* Builds the provider of one block, as a verb selecting it would. */
static bool try_open(const sm_config *cfg, const char *name, char *status, size_t len)
{
    sm_provider *p = NULL;
    sm_error err;
    sm_error_clear(&err);
    if (sm_provider_open(cfg, name, &p, &err) != SM_OK) {
        snprintf(status, len, "%s", err.msg);
        return false;
    }
    char *note = sm_provider_describe(p); /* where it runs, and what the block asks in vain */
    snprintf(status, len, "ok%s%s%s", note ? " (" : "", note ? note : "", note ? ")" : "");
    free(note);
    sm_provider_free(p);
    return true;
}

static int check_config(sm_cli *cli)
{
    sm_config cfg;
    sm_error err;
    sm_error_clear(&err);
    if (sm_config_load(cli->config_path, &cfg, &err) != SM_OK)
        return cli_fail(cli, &err);
    const char *dflt = sm_config_default_name(&cfg);
    size_t n = cfg.ncontexts + cfg.nothers, k = 0, bad = 0;
    row *rows = xcalloc(n ? n : 1, sizeof *rows);
    bool default_listed = false;
    for (size_t i = 0; i < cfg.ncontexts; i++) {
        const sm_context *c = &cfg.contexts[i];
        row *r = &rows[k++];
        *r = (row){.name = c->name,
                   .kind = c->nested ? "inline" : "sandbox",
                   .provider = c->provider ? c->provider : "-",
                   .line = c->line,
                   .is_default = !strcmp(c->name, dflt)};
        r->ok = try_open(&cfg, c->name, r->status, sizeof r->status);
        bad += !r->ok;
        default_listed = default_listed || r->is_default;
    }
    for (size_t i = 0; i < cfg.nothers; i++) {
        const sm_config_other *o = &cfg.others[i];
        row *r = &rows[k++];
        *r = (row){.name = o->name, .kind = o->kind, .provider = "-", .line = o->line, .ok = true};
        if (o->uses)
            snprintf(r->status, sizeof r->status, "ignored (%s; uses sandbox '%s')", o->detail,
                     o->uses);
        else
            snprintf(r->status, sizeof r->status, "ignored (%s)", o->detail);
    }
    qsort(rows, k, sizeof *rows, by_line);
    /* a default that is no block of the file: a bare provider, or a name nothing defines */
    char dstatus[600] = "";
    bool dok = true;
    if (!default_listed) {
        dok = try_open(&cfg, NULL, dstatus, sizeof dstatus);
        bad += !dok;
    }
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddStringToObject(doc, "config", cfg.path ? cfg.path : "");
    cJSON_AddStringToObject(doc, "default", dflt);
    cJSON_AddBoolToObject(doc, "valid", bad == 0);
    cJSON *arr = cJSON_AddArrayToObject(doc, "blocks");
    if (!cli->json)
        cli_printf(cli->out, "%-24s  %-8s  %-12s  %5s  %s\n", "BLOCK", "KIND", "PROVIDER", "LINE",
                   "STATUS");
    for (size_t i = 0; i < k; i++) {
        const row *r = &rows[i];
        if (cli->json) {
            cJSON *o = cJSON_CreateObject();
            cJSON_AddStringToObject(o, "name", r->name);
            cJSON_AddStringToObject(o, "kind", r->kind);
            if (strcmp(r->provider, "-"))
                cJSON_AddStringToObject(o, "provider", r->provider);
            cJSON_AddNumberToObject(o, "line", r->line);
            cJSON_AddBoolToObject(o, "ok", r->ok);
            cJSON_AddBoolToObject(o, "default", r->is_default);
            cJSON_AddStringToObject(o, r->ok ? "status" : "error", r->status);
            cJSON_AddItemToArray(arr, o);
        } else {
            cli_printf(cli->out, "%-24s  %-8s  %-12s  %5d  %s%s\n", r->name, r->kind, r->provider,
                       r->line, r->is_default ? "(default) " : "", r->status);
        }
        if (!r->ok)
            cli_printf(cli->err, "sandman: %s\n", r->status);
    }
    if (!default_listed) {
        if (cli->json) {
            cJSON_AddStringToObject(doc, dok ? "default_status" : "default_error", dstatus);
        } else {
            cli_printf(cli->out, "default: %s (%s)\n", dflt,
                       dok ? "a provider with its defaults" : dstatus);
        }
        if (!dok)
            cli_printf(cli->err, "sandman: %s\n", dstatus);
    }
    if (cli->json)
        cli_print_json(cli, doc);
    else
        cJSON_Delete(doc);
    free(rows);
    sm_config_free(&cfg);
    return bad ? CLI_USAGE : CLI_OK;
}

static int cmd_providers(sm_cli *cli, cli_call *c)
{
    if (cli->config_path)
        return check_config(cli);
    const char *names[32];
    size_t n = sm_provider_names(names, 32);
    cJSON *arr = cJSON_CreateArray();
    if (!cli->json)
        fprintf(cli->out, "%-12s  %-44s  %s\n", "PROVIDER", "CAPABILITIES", "NOTES");
    for (size_t i = 0; i < n; i++) {
        const char *summary = "";
        unsigned bits = 0;
        sm_provider_about(names[i], &summary, &bits);
        char caps[256];
        sm_caps_names(bits, caps, sizeof caps);
        char *note = sm_provider_describe_default(names[i]);
        if (cli->json) {
            cJSON *o = cJSON_CreateObject();
            cJSON_AddStringToObject(o, "name", names[i]);
            cJSON_AddStringToObject(o, "summary", summary);
            cJSON *ca = cJSON_AddArrayToObject(o, "capabilities");
            char *save = NULL;
            for (char *w = strtok_r(caps, ",", &save); w; w = strtok_r(NULL, ",", &save))
                cJSON_AddItemToArray(ca, cJSON_CreateString(w));
            if (note)
                cJSON_AddStringToObject(o, "notes", note);
            cJSON_AddItemToArray(arr, o);
        } else {
            cli_printf(cli->out, "%-12s  %-44s  %s%s%s\n", names[i], caps, summary,
                       note ? "; " : "", note ? note : "");
        }
        free(note);
    }
    if (cli->json)
        cli_print_json(cli, arr);
    else
        cJSON_Delete(arr);
    return CLI_OK;
}

const sm_cmd sm_cmd_providers = {
    .name = "providers",
    .usage = "[-c FILE]",
    .summary = "list providers and their capabilities (with -c: check a config file)",
    .run = cmd_providers,
};
