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

/* -o json: the error as one object on stdout, for scripts that read only stdout. */
static void json_error(sm_cli *cli, int status, const char *kind, const char *failure,
                       const char *msg)
{
    if (!cli->json || status == CLI_OK || cli->error_printed)
        return;
    cli->error_printed = true;
    cJSON *doc = cJSON_CreateObject();
    cJSON *e = cJSON_AddObjectToObject(doc, "error");
    cJSON_AddStringToObject(e, "kind", kind);
    cJSON_AddStringToObject(e, "message", msg);
    if (failure)
        cJSON_AddStringToObject(e, "failure", failure);
    if (cli->verb)
        cJSON_AddStringToObject(e, "command", cli->verb);
    cJSON_AddNumberToObject(e, "exit_code", status);
    cli_print_json(cli, doc);
}

static int report(sm_cli *cli, int status, const char *kind, const char *failure, const char *fmt,
                  va_list ap)
{
    char *msg = xvasprintf(fmt, ap);
    /* errors quote paths and names from inside sandboxes: escaped whole, newlines too */
    char *safe = sm_text_escape(msg, 0);
    cli_printf(cli->err, "sandman: %s\n", safe);
    json_error(cli, status, kind, failure, msg);
    free(safe);
    free(msg);
    return status;
}

int cli_error(sm_cli *cli, int status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    report(cli, status, "error", NULL, fmt, ap);
    va_end(ap);
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
    json_error(cli, CLI_USAGE, "usage", NULL, msg);
    free(safe);
    free(msg);
    return CLI_USAGE;
}

static int fail_as(sm_cli *cli, int status, const sm_error *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    const char *failure =
        err->failure.kind != SM_FAIL_NONE ? sm_failure_kind_name(err->failure.kind) : NULL;
    report(cli, status, sm_error_code_name(err->code), failure, fmt, ap);
    va_end(ap);
    return status;
}

/* DESIGN.md §6: 2 for what is wrong with the command line itself (bad values, a local file
 * that is not there); a sandbox id that matches none or several is an answer about the
 * sandboxes that exist, like any other error: 1. */
int cli_fail(sm_cli *cli, const sm_error *err)
{
    int status = CLI_FAIL;
    switch (err->code) {
    case SM_ERR_INVALID:
    case SM_ERR_CONFIG: status = CLI_USAGE; break;
    default: break;
    }
    return fail_as(cli, status, err, "%s", err->msg[0] ? err->msg : sm_error_code_name(err->code));
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

static sm_sandbox *open_sandbox(sm_cli *cli, const char *id, bool gone_ok, int *status)
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
        if (gone_ok && err.code == SM_ERR_NOT_FOUND)
            cli_printf(cli->err, "sandman: %s: already gone\n", err.msg);
        else
            *status = cli_fail(cli, &err);
        sm_sandbox_free(s);
        return NULL;
    }
    return s;
}

sm_sandbox *cli_open_sandbox(sm_cli *cli, const char *id, int *status)
{
    return open_sandbox(cli, id, false, status);
}

sm_sandbox *cli_open_sandbox_or_gone(sm_cli *cli, const char *id, int *status)
{
    return open_sandbox(cli, id, true, status);
}

/* JSON keeps every string exact: cJSON escapes C0 controls, the rest (DEL, C1, bidi) are
 * written as \u escapes too, so the document is the same and a terminal shows it inert. */
static void print_json_text(sm_cli *cli, const char *json, bool forms)
{
    /* bytes that are not UTF-8 (a label, a path from inside) are decoded lossily to U+FFFD:
     * the document stays valid JSON */
    char *clean = sm_utf8_clean(json, strlen(json));
    char *red = forms ? sm_redact_dup(clean) : sm_redact_registered_dup(clean);
    char *safe = sm_text_json_safe(red);
    free(clean);
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
