/* `sandman cp SRC DST`: copies one file into or out of a sandbox; one side is ID:PATH. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "core/util.h"

typedef struct cp_args {
    char *id;           /* the sandbox side's id */
    const char *remote; /* its path */
    const char *local;
    bool download;
} cp_args;

/* "ID:PATH" names a sandbox path when the part before the colon has no slash. */
static int split_remote(const char *arg, char **id, const char **path)
{
    const char *colon = strchr(arg, ':');
    if (!colon || colon == arg || memchr(arg, '/', (size_t)(colon - arg)))
        return 0;
    *id = xstrndup(arg, (size_t)(colon - arg));
    *path = colon + 1;
    return 1;
}

/* Which side is the sandbox's is known before any provider is built. */
static int cp_check(sm_cli *cli, cli_call *c)
{
    cp_args *a = c->args;
    if (c->npos != 2)
        return cli_usage(cli, "cp wants SRC and DST, one of them ID:PATH");
    char *sid = NULL, *did = NULL;
    const char *spath = NULL, *dpath = NULL;
    int src_remote = split_remote(c->pos[0], &sid, &spath);
    int dst_remote = split_remote(c->pos[1], &did, &dpath);
    if (src_remote == dst_remote) {
        free(sid);
        free(did);
        return cli_usage(cli, "exactly one of SRC and DST must be ID:PATH");
    }
    a->download = src_remote;
    a->id = src_remote ? sid : did;
    a->remote = src_remote ? spath : dpath;
    a->local = src_remote ? c->pos[1] : c->pos[0];
    if (!*a->remote)
        return cli_usage(cli, "the sandbox path after '%s:' is empty", a->id);
    /* a local file that is not there is bad input (2), as for create --file */
    struct stat st;
    if (!a->download && stat(a->local, &st) != 0)
        return cli_error(cli, CLI_USAGE, "cp: cannot read %s: %s", a->local, strerror(errno));
    return 0;
}

static void cp_done(void *args)
{
    free(((cp_args *)args)->id);
}

static int cmd_cp(sm_cli *cli, cli_call *c)
{
    cp_args *a = c->args;
    int status = CLI_OK;
    bool src_remote = a->download;
    const char *remote = a->remote, *local = a->local;
    sm_sandbox *s = cli_open_sandbox(cli, a->id, &status);
    if (!s)
        return status;
    char *lpath = xstrdup(local), *rpath = xstrdup(remote);
    struct stat st;
    if (src_remote && stat(local, &st) == 0 && S_ISDIR(st.st_mode)) {
        char *copy = xstrdup(remote);
        free(lpath);
        lpath = xasprintf("%s/%s", local, basename(copy));
        free(copy);
    }
    if (!src_remote && remote[strlen(remote) - 1] == '/') {
        char *copy = xstrdup(local);
        free(rpath);
        rpath = xasprintf("%s%s", remote, basename(copy));
        free(copy);
    }
    sm_error err;
    sm_error_clear(&err);
    int rc = src_remote ? sm_sandbox_download(s, rpath, lpath, &err)
                        : sm_sandbox_upload(s, lpath, rpath, &err);
    if (rc != SM_OK) {
        status = cli_fail(cli, &err);
    } else if (cli->json) {
        cJSON *doc = cJSON_CreateObject();
        cJSON_AddStringToObject(doc, "sandbox_id", sm_sandbox_id(s));
        cJSON_AddStringToObject(doc, "direction", src_remote ? "download" : "upload");
        cJSON_AddStringToObject(doc, "local", lpath);
        cJSON_AddStringToObject(doc, "remote", rpath);
        if (stat(lpath, &st) == 0)
            cJSON_AddNumberToObject(doc, "bytes", (double)st.st_size);
        cli_print_json(cli, doc);
    }
    free(lpath);
    free(rpath);
    sm_sandbox_free(s);
    return status;
}

const sm_cmd sm_cmd_cp = {
    .name = "cp",
    .usage = "SRC DST",
    .summary = "copy a file into or out of a sandbox (one side is ID:PATH)",
    .max_pos = 2,
    .args_size = sizeof(cp_args),
    .check = cp_check,
    .run = cmd_cp,
    .done = cp_done,
};
