/* CLI context: configuration and provider selection, error reporting and exit statuses,
 * JSON output. */
#include "cli/cli.h"

#include <cjson/cJSON.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/json.h"
#include "core/redact.h"
#include "core/text.h"
#include "core/util.h"

void cli_init(sm_cli *cli)
{
    memset(cli, 0, sizeof *cli);
    cli->out = stdout;
    cli->err = stderr;
}

void cli_free(sm_cli *cli)
{
    sm_provider_free(cli->provider);
    if (cli->config_loaded)
        sm_config_free(&cli->config);
    free(cli->config_path);
    free(cli->context_name);
    free(cli->theme);
    memset(cli, 0, sizeof *cli);
}

/* Redacts, then escapes what a terminal would act on; the one way text leaves the CLI. */
static void put_safe(FILE *f, const char *text)
{
    char *red = sm_redact_dup(text);
    char *safe = sm_text_escape(red, SM_TEXT_KEEP_NEWLINES);
    fputs(safe, f);
    free(safe);
    free(red);
}

void cli_printf(FILE *f, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = xvasprintf(fmt, ap);
    va_end(ap);
    put_safe(f, msg);
    free(msg);
}

const char *cli_field(const char *s, char *buf, size_t len)
{
    sm_text_escape_into(s, buf, len, 0);
    return buf;
}

void cli_print_id(sm_cli *cli, const char *id)
{
    char buf[256];
    fprintf(cli->out, "%s\n", cli_field(id, buf, sizeof buf));
}

int cli_error(sm_cli *cli, int status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = xvasprintf(fmt, ap);
    va_end(ap);
    /* errors quote paths and names from inside sandboxes: escaped whole, newlines too */
    char *safe = sm_text_escape(msg, 0);
    cli_printf(cli->err, "sandman: %s\n", safe);
    free(safe);
    free(msg);
    return status;
}

int cli_usage(sm_cli *cli, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = xvasprintf(fmt, ap);
    va_end(ap);
    char *safe = sm_text_escape(msg, 0);
    if (cli->verb)
        cli_printf(cli->err, "sandman %s: %s (see 'sandman %s --help')\n", cli->verb, safe,
                   cli->verb);
    else
        cli_printf(cli->err, "sandman: %s (see 'sandman --help')\n", safe);
    free(safe);
    free(msg);
    return CLI_USAGE;
}

int cli_fail(sm_cli *cli, const sm_error *err)
{
    int status = CLI_FAIL;
    switch (err->code) {
    case SM_ERR_INVALID:
    case SM_ERR_CONFIG:
    case SM_ERR_AMBIGUOUS: status = CLI_USAGE; break;
    default: break;
    }
    return cli_error(cli, status, "%s", err->msg[0] ? err->msg : sm_error_code_name(err->code));
}

sm_provider *cli_provider(sm_cli *cli, int *status)
{
    if (cli->provider)
        return cli->provider;
    sm_error err;
    sm_error_clear(&err);
    if (!cli->config_loaded) {
        if (sm_config_load(cli->config_path, &cli->config, &err) != SM_OK) {
            *status = cli_fail(cli, &err);
            return NULL;
        }
        cli->config_loaded = true;
    }
    if (sm_provider_open(&cli->config, cli->context_name, &cli->provider, &err) != SM_OK) {
        *status = cli_fail(cli, &err);
        return NULL;
    }
    return cli->provider;
}

/* A full id binds with one connect; the listing (which reads every sandbox's record) is only
 * for a prefix. connect may also accept what is not an exact id (an engine resolves names and
 * prefixes itself): only an answer naming the very id given counts, else the list decides, so
 * a prefix is ambiguous or unique by the same rule everywhere. */
static sm_sandbox *connect_exact(sm_provider *p, const char *id)
{
    if (!(sm_provider_caps(p) & SM_CAP_CONNECT))
        return NULL;
    sm_sandbox *s = sm_sandbox_new(p, false);
    cJSON *desc = cJSON_CreateObject();
    cJSON_AddStringToObject(desc, "sandbox_id", id);
    sm_error err;
    sm_error_clear(&err);
    int rc = sm_sandbox_connect(s, desc, &err);
    cJSON_Delete(desc);
    if (rc == SM_OK && !strcmp(sm_sandbox_id(s), id))
        return s;
    sm_sandbox_free(s);
    return NULL;
}

sm_sandbox *cli_open_sandbox(sm_cli *cli, const char *id, int *status)
{
    sm_provider *p = cli_provider(cli, status);
    if (!p)
        return NULL;
    sm_sandbox *s = *id ? connect_exact(p, id) : NULL;
    if (s)
        return s;
    s = sm_sandbox_new(p, false);
    sm_error err;
    sm_error_clear(&err);
    if (sm_sandbox_open(s, id, &err) != SM_OK) {
        *status = cli_fail(cli, &err);
        sm_sandbox_free(s);
        return NULL;
    }
    return s;
}

/* JSON keeps every string exact: cJSON escapes C0 controls, the rest (DEL, C1, bidi) are
 * written as \u escapes too, so the document is the same and a terminal shows it inert. */
static void print_json_text(sm_cli *cli, const char *json, bool forms)
{
    char *red = forms ? sm_redact_dup(json) : sm_redact_registered_dup(json);
    char *safe = sm_text_json_safe(red);
    fprintf(cli->out, "%s\n", safe);
    free(safe);
    free(red);
}

void cli_print_json(sm_cli *cli, cJSON *doc)
{
    char *s = cJSON_Print(doc);
    print_json_text(cli, s, true);
    free(s);
    cJSON_Delete(doc);
}

void cli_print_json_line(sm_cli *cli, cJSON *doc)
{
    char *s = sm_json_print(doc);
    print_json_text(cli, s, true);
    fflush(cli->out);
    free(s);
    cJSON_Delete(doc);
}

void cli_print_json_output(sm_cli *cli, cJSON *doc)
{
    char *s = cJSON_Print(doc);
    print_json_text(cli, s, false);
    free(s);
    cJSON_Delete(doc);
}
