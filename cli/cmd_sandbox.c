/* Lifecycle commands: create, ls, status, rm. */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/format.h"
#include "core/env.h"
#include "core/journal.h"
#include "core/util.h"

/* ---- create ------------------------------------------------------------------------------ */

enum {
    C_IMAGE = 1,
    C_CPU,
    C_MEM,
    C_TTL,
    C_WORKDIR,
    C_ENV,
    C_FILE,
    C_LABEL,
    C_PORT,
    C_READY,
    C_ENTRY,
    C_ENV_FILE,
    C_DISK
};

const cli_opt cli_create_opts[] = {
    {"image", 'i', true, C_IMAGE},     {"cpu", 0, true, C_CPU},
    {"memory-mib", 'm', true, C_MEM},  {"ttl", 0, true, C_TTL},
    {"workdir", 'w', true, C_WORKDIR}, {"env", 'e', true, C_ENV},
    {"file", 'f', true, C_FILE},       {"label", 'l', true, C_LABEL},
    {"port", 0, true, C_PORT},         {"ready-timeout", 0, true, C_READY},
    {"entrypoint", 0, true, C_ENTRY},  {"env-file", 0, true, C_ENV_FILE},
    {"disk-gib", 0, true, C_DISK},     {NULL, 0, false, 0},
};

/* Reads a local file for --file REMOTE=LOCAL (spec.files holds text). */
static int add_file(sm_cli *cli, sm_spec *s, const char *arg)
{
    const char *eq = strchr(arg, '=');
    if (!eq || eq == arg || !eq[1])
        return cli_usage(cli, "--file wants REMOTE=LOCAL, not '%s'", arg);
    char *remote = xstrndup(arg, (size_t)(eq - arg)), *text = NULL;
    size_t len = 0;
    if (sm_read_file(eq + 1, &text, &len) < 0) {
        free(remote);
        return cli_error(cli, CLI_USAGE, "--file %s: cannot read %s", arg, eq + 1);
    }
    /* The map holds C strings: a NUL would silently cut the file short. */
    if (memchr(text, '\0', len)) {
        int rc = cli_usage(cli,
                           "--file %s: %s holds NUL bytes; spec files are text (copy binary files "
                           "with 'sandman cp %s ID:%s' after create)",
                           arg, eq + 1, eq + 1, remote);
        free(remote);
        free(text);
        return rc;
    }
    sm_map_set(&s->files, remote, text);
    free(remote);
    free(text);
    return 0;
}

int cli_create_opt(sm_cli *cli, void *ud, int id, const char *arg)
{
    sm_spec *s = ud;
    sm_error err;
    double d;
    long l;
    switch (id) {
    case C_IMAGE:
        free(s->image);
        s->image = xstrdup(arg);
        return 0;
    case C_CPU:
        if (sm_parse_double(arg, &d) || d <= 0)
            return cli_usage(cli, "--cpu wants a positive number of vCPUs, not '%s'", arg);
        s->resources.cpu = d;
        s->resources.set |= SM_RES_CPU;
        return 0;
    case C_MEM:
        if (sm_parse_long(arg, &l) || l <= 0)
            return cli_usage(cli, "--memory-mib wants a positive integer, not '%s'", arg);
        s->resources.memory_mib = l;
        s->resources.set |= SM_RES_MEMORY;
        return 0;
    case C_DISK:
        if (sm_parse_long(arg, &l) || l <= 0)
            return cli_usage(cli, "--disk-gib wants a positive integer, not '%s'", arg);
        s->resources.disk_gib = l;
        s->resources.set |= SM_RES_DISK;
        return 0;
    case C_TTL:
    case C_READY:
        if (sm_parse_double(arg, &d) || d <= 0)
            return cli_usage(cli, "--%s wants a positive number of seconds, not '%s'",
                             id == C_TTL ? "ttl" : "ready-timeout", arg);
        *(id == C_TTL ? &s->ttl_s : &s->ready_timeout_s) = d;
        return 0;
    case C_WORKDIR:
        if (arg[0] != '/')
            return cli_usage(cli, "--workdir wants an absolute path, not '%s'", arg);
        free(s->workdir);
        s->workdir = xstrdup(arg);
        return 0;
    case C_ENV:
    case C_ENV_FILE:
        sm_error_clear(&err);
        if ((id == C_ENV ? sm_env_parse_arg : sm_env_read_file)(&s->env, arg, &err) != SM_OK)
            return cli_fail(cli, &err);
        return 0;
    case C_LABEL:
        if (sm_map_set_kv(&s->metadata, arg) < 0)
            return cli_usage(cli, "--label wants KEY=VALUE, not '%s'", arg);
        return 0;
    case C_FILE: return add_file(cli, s, arg);
    case C_PORT:
        sm_error_clear(&err);
        if (sm_spec_add_port(s, arg, &err) != SM_OK)
            return cli_usage(cli, "--port: %s", err.msg);
        return 0;
    case C_ENTRY: {
        size_t n = 0;
        while (s->entrypoint && s->entrypoint[n])
            n++;
        s->entrypoint = xrealloc(s->entrypoint, (n + 2) * sizeof(char *));
        s->entrypoint[n] = xstrdup(arg);
        s->entrypoint[n + 1] = NULL;
        return 0;
    }
    }
    return 0;
}

static int cmd_create(sm_cli *cli, int argc, char **argv)
{
    sm_spec spec;
    sm_spec_init(&spec);
    char *pos[1];
    int npos, status = CLI_OK;
    int rc = cli_parse(cli, cli_find_command("create"), cli_create_opts, cli_create_opt, &spec,
                       argc, argv, pos, 0, &npos, 0, NULL, NULL);
    if (rc != 0) {
        sm_spec_free(&spec);
        return rc < 0 ? CLI_OK : rc;
    }
    sm_provider *p = cli_provider(cli, &status);
    if (!p) {
        sm_spec_free(&spec);
        return status;
    }
    sm_sandbox *s = sm_sandbox_new(p, false);
    sm_error err;
    sm_error_clear(&err);
    int started = sm_sandbox_start(s, &spec, &err);
    if (started == SM_OK && sm_sandbox_warning(s))
        fprintf(cli->err, "sandman: warning: %s\n", sm_sandbox_warning(s));
    if (started != SM_OK) {
        status = cli_fail(cli, &err);
    } else if (cli->json) {
        sm_sandbox_info info;
        sm_sandbox_status(s, &info, NULL);
        cJSON *doc = sm_sandbox_info_to_json(&info);
        cJSON_ReplaceItemInObject(doc, "id", cJSON_CreateString(sm_sandbox_id(s)));
        cli_print_json(cli, doc);
        sm_sandbox_info_free(&info);
    } else {
        cli_print_id(cli, sm_sandbox_id(s));
    }
    sm_sandbox_free(s);
    sm_spec_free(&spec);
    return status;
}

/* ---- ls ----------------------------------------------------------------------------------- */

typedef struct ls_args {
    sm_map labels;
    bool all;
    bool quiet;
} ls_args;

enum { L_LABEL = 1, L_ALL, L_QUIET };
static const cli_opt ls_opts[] = {{"label", 'l', true, L_LABEL},
                                  {"all", 'a', false, L_ALL},
                                  {"quiet", 'q', false, L_QUIET},
                                  {NULL, 0, false, 0}};

static int ls_opt(sm_cli *cli, void *ud, int id, const char *arg)
{
    ls_args *a = ud;
    if (id == L_ALL)
        a->all = true;
    else if (id == L_QUIET)
        a->quiet = true;
    else if (sm_map_set_kv(&a->labels, arg) < 0)
        return cli_usage(cli, "--label wants KEY=VALUE, not '%s'", arg);
    return 0;
}

static int cmd_ls(sm_cli *cli, int argc, char **argv)
{
    ls_args a = {0};
    char *pos[1];
    int npos, status = CLI_OK;
    int rc = cli_parse(cli, cli_find_command("ls"), ls_opts, ls_opt, &a, argc, argv, pos, 0, &npos,
                       0, NULL, NULL);
    if (rc != 0) {
        sm_map_free(&a.labels);
        return rc < 0 ? CLI_OK : rc;
    }
    sm_provider *p = cli_provider(cli, &status);
    if (!p) {
        sm_map_free(&a.labels);
        return status;
    }
    if (!(p->ops->caps & SM_CAP_LIST) || !p->ops->list) {
        sm_map_free(&a.labels);
        return cli_error(cli, CLI_FAIL, "provider '%s' cannot list its sandboxes", p->ops->name);
    }
    sm_list_filter f = {.labels = &a.labels, .all = a.all};
    sm_sandbox_info *list = NULL;
    size_t n = 0;
    sm_error err;
    sm_error_clear(&err);
    if (p->ops->list(p, &f, &list, &n, &err) != SM_OK) {
        sm_map_free(&a.labels);
        return cli_fail(cli, &err);
    }
    if (cli->json) {
        cJSON *arr = cJSON_CreateArray();
        for (size_t i = 0; i < n; i++) {
            cJSON *o = sm_sandbox_info_to_json(&list[i]);
            sm_failure last; /* the last failing command's, beside the sandbox's own */
            if (sm_journal_last_failure(list[i].provider, list[i].id, &last))
                cJSON_AddItemToObject(o, "last_failure", sm_failure_to_json(&last));
            else
                cJSON_AddNullToObject(o, "last_failure");
            cJSON_AddItemToArray(arr, o);
        }
        cli_print_json(cli, arr);
    } else if (a.quiet) {
        for (size_t i = 0; i < n; i++)
            cli_print_id(cli, list[i].id);
    } else {
        cli_print_info_table(cli->out, list, n);
    }
    sm_sandbox_info_list_free(list, n);
    sm_map_free(&a.labels);
    return CLI_OK;
}

/* ---- status ------------------------------------------------------------------------------- */

static int cmd_status(sm_cli *cli, int argc, char **argv)
{
    int status = CLI_OK;
    sm_sandbox *s = cli_parse_one_sandbox(cli, argc, argv, &status);
    if (!s)
        return status;
    sm_sandbox_info info;
    sm_error err;
    sm_error_clear(&err);
    sm_sandbox_status(s, &info, &err);
    if (cli->json)
        cli_print_json(cli, sm_sandbox_info_to_json(&info));
    else
        cli_print_info_detail(cli->out, &info);
    sm_sandbox_info_free(&info);
    sm_sandbox_free(s);
    return CLI_OK;
}

/* ---- rm ----------------------------------------------------------------------------------- */

static int cmd_rm(sm_cli *cli, int argc, char **argv)
{
    char *pos[256];
    int npos, status = CLI_OK;
    int rc = cli_parse(cli, cli_find_command("rm"), NULL, NULL, NULL, argc, argv, pos, 256, &npos,
                       0, NULL, NULL);
    if (rc != 0)
        return rc < 0 ? CLI_OK : rc;
    if (npos == 0)
        return cli_usage(cli, "missing sandbox id");
    if (!cli_provider(cli, &status))
        return status;
    cJSON *removed = cJSON_CreateArray();
    for (int i = 0; i < npos; i++) {
        int one = CLI_OK;
        sm_sandbox *s = cli_open_sandbox(cli, pos[i], &one);
        if (!s) {
            status = status ? status : one;
            continue;
        }
        sm_error err;
        sm_error_clear(&err);
        if (sm_sandbox_stop(s, &err) != SM_OK) {
            one = cli_fail(cli, &err);
            status = status ? status : one;
        } else if (cli->json) {
            cJSON_AddItemToArray(removed, cJSON_CreateString(sm_sandbox_id(s)));
        } else {
            cli_print_id(cli, sm_sandbox_id(s));
        }
        sm_sandbox_free(s);
    }
    if (cli->json) {
        cJSON *doc = cJSON_CreateObject();
        cJSON_AddItemToObject(doc, "removed", removed);
        cli_print_json(cli, doc);
    } else {
        cJSON_Delete(removed);
    }
    return status;
}

const sm_cmd sm_cmd_create = {
    "create", "[options]", "create a sandbox and print its id",
    "  -i, --image IMG        image (local: host or dir:/path/to/rootfs)\n"
    "      --cpu N            vCPUs (fractions allowed)\n"
    "  -m, --memory-mib N     memory limit in MiB\n"
    "      --disk-gib N       size limit of the writable areas in GiB\n"
    "      --ttl S            end the sandbox after S seconds\n"
    "  -w, --workdir DIR      default working directory\n"
    "  -e, --env K=V          environment variable (repeatable); -e K alone passes K's value\n"
    "                         from sandman's environment, keeping it off the command line\n"
    "      --env-file FILE    KEY=VALUE lines (docker's format: # comments, no quoting)\n"
    "  -f, --file REMOTE=LOCAL  write LOCAL's text to REMOTE after create (repeatable)\n"
    "  -l, --label K=V        label (repeatable)\n"
    "      --port N           declare a port (repeatable)\n"
    "      --ready-timeout S  how long to wait for the sandbox to be ready\n"
    "      --entrypoint ARG   main process argument (repeatable; ends the sandbox on exit)\n",
    cmd_create};
const sm_cmd sm_cmd_ls = {"ls", "[-a] [-l K=V]...", "list sandboxes",
                          "  -a, --all       include ended sandboxes\n"
                          "  -l, --label K=V only sandboxes with this label (repeatable)\n"
                          "  -q, --quiet     ids only\n",
                          cmd_ls};
const sm_cmd sm_cmd_status = {"status", "ID", "show a sandbox's status and why it ended", NULL,
                              cmd_status};
const sm_cmd sm_cmd_rm = {"rm", "ID...", "end sandboxes and remove every trace of them", NULL,
                          cmd_rm};
