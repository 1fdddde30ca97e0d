/* `sandman create [options]`: starts a sandbox from a spec built of its options and prints
 * its id. The options and their parser are shared with `shell --new`. */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "core/env.h"
#include "core/util.h"

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
    {"image", 'i', "IMG", "image (local: host or dir:/path/to/rootfs)", C_IMAGE},
    {"cpu", 0, "N", "vCPUs (fractions allowed)", C_CPU},
    {"memory-mib", 'm', "N", "memory limit in MiB", C_MEM},
    {"disk-gib", 0, "N", "size limit of the writable areas in GiB", C_DISK},
    {"ttl", 0, "S", "end the sandbox after S seconds", C_TTL},
    {"workdir", 'w', "DIR", "default working directory", C_WORKDIR},
    {"env", 'e', "K=V",
     "environment variable (repeatable); -e K alone passes K's value\n"
     "from sandman's environment, keeping it off the command line",
     C_ENV},
    {"env-file", 0, "FILE", "KEY=VALUE lines (docker's format: # comments, no quoting)",
     C_ENV_FILE},
    {"file", 'f', "REMOTE=LOCAL", "write LOCAL's text to REMOTE after create (repeatable)", C_FILE},
    {"label", 'l', "K=V", "label (repeatable)", C_LABEL},
    {"port", 0, "N", "declare a port (repeatable)", C_PORT},
    {"ready-timeout", 0, "S", "how long to wait for the sandbox to be ready", C_READY},
    {"entrypoint", 0, "ARG", "main process argument (repeatable; ends the sandbox on exit)",
     C_ENTRY},
    {NULL, 0, NULL, NULL, 0},
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

int cli_create_opt(sm_cli *cli, void *args, int id, const char *arg)
{
    sm_spec *s = args;
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

static void spec_init(void *args)
{
    sm_spec_init(args);
}

static void spec_done(void *args)
{
    sm_spec_free(args);
}

static int cmd_create(sm_cli *cli, cli_call *c)
{
    const sm_spec *spec = c->args;
    int status = CLI_OK;
    sm_sandbox *s = sm_sandbox_new(c->provider, false);
    sm_error err;
    sm_error_clear(&err);
    int started = sm_sandbox_start(s, spec, &err);
    if (started == SM_OK && sm_sandbox_warning(s))
        cli_printf(cli->err, "sandman: warning: %s\n", sm_sandbox_warning(s));
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
    return status;
}

const sm_cmd sm_cmd_create = {
    .name = "create",
    .usage = "[options]",
    .summary = "create a sandbox and print its id",
    .flags = CLI_PROVIDER,
    .opts = cli_create_opts,
    .args_size = sizeof(sm_spec),
    .init = spec_init,
    .opt = cli_create_opt,
    .run = cmd_create,
    .done = spec_done,
};
