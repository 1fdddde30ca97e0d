/* Commands that act inside a sandbox: exec (run a command) and cp (copy files in or out). */
#include <cjson/cJSON.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "core/env.h"
#include "core/util.h"

typedef struct exec_args {
    double timeout;
    char *cwd;
    char *user;
    sm_map env;
} exec_args;

enum { X_TIMEOUT = 1, X_WORKDIR, X_ENV, X_USER, X_ENV_FILE };
static const cli_opt exec_opts[] = {
    {"timeout", 't', true, X_TIMEOUT}, {"workdir", 'w', true, X_WORKDIR}, {"env", 'e', true, X_ENV},
    {"user", 'u', true, X_USER},       {"env-file", 0, true, X_ENV_FILE}, {NULL, 0, false, 0}};

static int exec_opt(sm_cli *cli, void *ud, int id, const char *arg)
{
    exec_args *a = ud;
    switch (id) {
    case X_TIMEOUT:
        if (sm_parse_double(arg, &a->timeout) || !(a->timeout > 0) ||
            a->timeout > SM_MAX_EXEC_TIMEOUT_S)
            return cli_usage(cli,
                             "--timeout wants a positive number of seconds up to %.0f (1 week), "
                             "not '%s'",
                             SM_MAX_EXEC_TIMEOUT_S, arg);
        return 0;
    case X_WORKDIR:
        if (arg[0] != '/')
            return cli_usage(cli, "--workdir wants an absolute path, not '%s'", arg);
        free(a->cwd);
        a->cwd = xstrdup(arg);
        return 0;
    case X_ENV:
    case X_ENV_FILE: {
        sm_error err;
        sm_error_clear(&err);
        if ((id == X_ENV ? sm_env_parse_arg : sm_env_read_file)(&a->env, arg, &err) != SM_OK)
            return cli_fail(cli, &err);
        return 0;
    }
    case X_USER:
        free(a->user);
        a->user = xstrdup(arg);
        return 0;
    }
    return 0;
}

static int cmd_exec(sm_cli *cli, int argc, char **argv)
{
    exec_args a = {0};
    char *pos[1], **words = NULL;
    int npos, nwords = 0, status = CLI_OK;
    int rc = cli_parse(cli, cli_find_command("exec"), exec_opts, exec_opt, &a, argc, argv, pos, 1,
                       &npos, 1, &words, &nwords);
    if (rc == 0 && npos == 0)
        rc = cli_usage(cli, "missing sandbox id");
    if (rc == 0 && nwords == 0)
        rc = cli_usage(cli, "missing command (sandman exec ID -- CMD...)");
    sm_sandbox *s = rc == 0 ? cli_open_sandbox(cli, pos[0], &status) : NULL;
    if (rc != 0 || !s) {
        free(a.cwd);
        free(a.user);
        sm_map_free(&a.env);
        return rc < 0 ? CLI_OK : (rc ? rc : status);
    }
    char *cmd = sm_join_words(nwords, words);
    sm_exec_request req;
    sm_exec_request_init(&req);
    req.cmd = cmd;
    req.cwd = a.cwd;
    req.user = a.user;
    req.env = &a.env;
    req.timeout_s = a.timeout;
    /* Text output streams straight to our descriptors; streams without one (the dashboard's
     * palette captures into memory) get the captured output afterwards. */
    bool stream = !cli->json && fileno(cli->out) >= 0 && fileno(cli->err) >= 0;
    if (stream) {
        fflush(cli->out);
        req.stdout_fd = fileno(cli->out);
        req.stderr_fd = fileno(cli->err);
    }
    sm_exec_result res;
    sm_error err;
    sm_error_clear(&err);
    sm_sandbox_exec(s, &req, &res, &err);
    if (!cli->json && !stream) {
        if (res.out)
            fwrite(res.out, 1, res.out_len, cli->out);
        if (res.err)
            fwrite(res.err, 1, res.err_len, cli->err);
    }
    if (cli->json) {
        cli_print_json_output(cli, sm_exec_result_to_json(&res));
        status = res.return_code;
    } else if (res.error_type) {
        char label[128];
        sm_failure_label(&res.failure, label, sizeof label);
        status = cli_error(cli, CLI_RUNTIME, "exec in %s failed: %s", sm_sandbox_id(s),
                           err.msg[0] ? err.msg : label);
    } else {
        status = res.return_code;
        if (res.failure.kind == SM_FAIL_OOM || res.failure.kind == SM_FAIL_PIDS_LIMIT) {
            char label[128], ev[256];
            sm_failure_label(&res.failure, label, sizeof label);
            sm_failure_evidence(&res.failure, ev, sizeof ev);
            cli_error(cli, status, "command in %s was %s (%s)", sm_sandbox_id(s), label, ev);
        }
    }
    sm_exec_result_free(&res);
    free(cmd);
    free(a.cwd);
    free(a.user);
    sm_map_free(&a.env);
    sm_sandbox_free(s);
    return status;
}

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

static int cmd_cp(sm_cli *cli, int argc, char **argv)
{
    char *pos[2];
    int npos, status = CLI_OK;
    int rc = cli_parse(cli, cli_find_command("cp"), NULL, NULL, NULL, argc, argv, pos, 2, &npos, 0,
                       NULL, NULL);
    if (rc != 0)
        return rc < 0 ? CLI_OK : rc;
    if (npos != 2)
        return cli_usage(cli, "cp wants SRC and DST, one of them ID:PATH");
    char *sid = NULL, *did = NULL;
    const char *spath = NULL, *dpath = NULL;
    int src_remote = split_remote(pos[0], &sid, &spath);
    int dst_remote = split_remote(pos[1], &did, &dpath);
    if (src_remote == dst_remote) {
        free(sid);
        free(did);
        return cli_usage(cli, "exactly one of SRC and DST must be ID:PATH");
    }
    const char *id = src_remote ? sid : did;
    const char *remote = src_remote ? spath : dpath;
    const char *local = src_remote ? pos[1] : pos[0];
    if (!*remote) {
        free(sid);
        free(did);
        return cli_usage(cli, "the sandbox path after '%s:' is empty", id);
    }
    sm_sandbox *s = cli_open_sandbox(cli, id, &status);
    if (!s) {
        free(sid);
        free(did);
        return status;
    }
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
    rc = src_remote ? sm_sandbox_download(s, rpath, lpath, &err)
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
    free(sid);
    free(did);
    sm_sandbox_free(s);
    return status;
}

const sm_cmd sm_cmd_exec = {
    "exec", "ID [options] -- CMD...",
    "run a command in a sandbox (words are joined into one shell command, as ssh does)",
    "  -t, --timeout S   kill the command after S seconds (default 180); exit 125\n"
    "  -w, --workdir DIR working directory\n"
    "  -e, --env K=V     environment variable (repeatable); -e K alone passes K's value from\n"
    "                    sandman's environment, keeping it off the command line\n"
    "      --env-file F  KEY=VALUE lines (docker's format: # comments, no quoting)\n"
    "  -u, --user USER   run as USER (name or uid in the sandbox)\n",
    cmd_exec};
const sm_cmd sm_cmd_cp = {
    "cp", "SRC DST", "copy a file into or out of a sandbox (one side is ID:PATH)", NULL, cmd_cp};
