/* `sandman exec ID [options] -- CMD...`: runs one command in a sandbox; the words are
 * joined into one shell command, as ssh does. The exit status is the command's own. Our stdin
 * is passed to the command when it is not a terminal (`seq 3 | sandman exec ID -- cat`, as
 * ssh does), or always with -i (as docker exec -i); -n/--no-stdin never passes it (ssh -n).
 * A terminal is not read without -i, so a plain `sandman exec ID -- cmd` typed at a prompt
 * never waits for input nobody means to give. */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "core/env.h"
#include "core/util.h"

typedef struct exec_args {
    double timeout;
    char *cwd;
    char *user;
    sm_map env;
    int stdin_mode; /* 0: when not a terminal; 1: always (-i); -1: never (-n) */
} exec_args;

enum { X_TIMEOUT = 1, X_WORKDIR, X_ENV, X_USER, X_ENV_FILE, X_INTERACTIVE, X_NO_STDIN };
static const cli_opt exec_opts[] = {
    {"timeout", 't', "S", "kill the command after S seconds (default 180); exit 125", X_TIMEOUT},
    {"workdir", 'w', "DIR", "working directory", X_WORKDIR},
    {"env", 'e', "K=V",
     "environment variable (repeatable); -e K alone passes K's value from\n"
     "sandman's environment, keeping it off the command line",
     X_ENV},
    {"env-file", 0, "F", "KEY=VALUE lines (docker's format: # comments, no quoting)", X_ENV_FILE},
    {"user", 'u', "USER", "run as USER (name or uid in the sandbox)", X_USER},
    {"interactive", 'i', NULL,
     "pass stdin to the command even when it is a terminal (as docker exec -i);\n"
     "without -i stdin is passed when it is not a terminal (a pipe, a file)",
     X_INTERACTIVE},
    {"no-stdin", 'n', NULL, "never pass stdin: the command reads end of file (ssh -n)", X_NO_STDIN},
    {NULL, 0, NULL, NULL, 0}};

static int exec_opt(sm_cli *cli, void *args, int id, const char *arg)
{
    exec_args *a = args;
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
    case X_INTERACTIVE: a->stdin_mode = 1; return 0;
    case X_NO_STDIN: a->stdin_mode = -1; return 0;
    }
    return 0;
}

static void exec_done(void *args)
{
    exec_args *a = args;
    free(a->cwd);
    free(a->user);
    sm_map_free(&a->env);
}

/* Only a CLI with descriptors of its own reads stdin: the dashboard's palette (output into
 * memory) shares the dashboard's terminal. A closed stdin passes nothing. */
static bool pass_stdin(const sm_cli *cli, const exec_args *a)
{
    if (a->stdin_mode < 0 || fileno(cli->out) < 0 || fcntl(STDIN_FILENO, F_GETFL) < 0)
        return false;
    /* /dev/null has nothing to pass: the command reads end of file either way, and a provider
     * keeps its fastest path (docker's exec helper takes no stdin) */
    struct stat in, null;
    if (fstat(STDIN_FILENO, &in) == 0 && S_ISCHR(in.st_mode) && stat("/dev/null", &null) == 0 &&
        in.st_rdev == null.st_rdev)
        return false;
    return a->stdin_mode > 0 || !isatty(STDIN_FILENO);
}

static int cmd_exec(sm_cli *cli, cli_call *c)
{
    exec_args *a = c->args;
    sm_sandbox *s = c->target;
    int status;
    char *cmd = sm_join_words(c->nwords, c->words);
    sm_exec_request req;
    sm_exec_request_init(&req);
    req.cmd = cmd;
    req.cwd = a->cwd;
    req.user = a->user;
    req.env = &a->env;
    req.timeout_s = a->timeout;
    req.stdin_fd = pass_stdin(cli, a) ? STDIN_FILENO : -1;
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
    return status;
}

const sm_cmd sm_cmd_exec = {
    .name = "exec",
    .usage = "ID [options] -- CMD...",
    .summary = "run a command in a sandbox (words are joined into one shell command, as ssh does)",
    .flags = CLI_TARGET | CLI_WORDS | CLI_WORDS_REQUIRED,
    .max_pos = 1,
    .opts = exec_opts,
    .args_size = sizeof(exec_args),
    .opt = exec_opt,
    .run = cmd_exec,
    .done = exec_done,
};
