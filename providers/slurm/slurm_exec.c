/* Commands and files for a slurm sandbox: the node-side sandman runs them in the node's local
 * sandbox, started as a step of the sandbox's job (`srun --jobid=N --overlap`, exec_path: srun,
 * which works whether or not this host reaches the node's sockets) or on this host against the
 * shared state directory (exec_path: socket). Files pass through the shared state directory. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/util.h"
#include "providers/slurm/slurm.h"

typedef struct node_cmd {
    char **argv;
    size_t n;
    char *dir, *lid, *cfg;
    char *rcfile; /* srun: where the step writes the node-side sandman's exit status */
    long jobid;
} node_cmd;

static void push(node_cmd *c, char *s)
{
    c->argv = xrealloc(c->argv, (c->n + 2) * sizeof *c->argv);
    c->argv[c->n++] = s;
    c->argv[c->n] = NULL;
}

static void node_cmd_free(node_cmd *c)
{
    for (size_t i = 0; i < c->n; i++)
        free(c->argv[i]);
    free(c->argv);
    free(c->dir);
    free(c->lid);
    free(c->cfg);
    if (c->rcfile)
        unlink(c->rcfile);
    free(c->rcfile);
}

/* The node-side sandman's exit status: srun's own says nothing of it (and a non-zero one makes
 * srun add a line to stderr), so the step reports it in a file of the shared state directory;
 * -1 when the step did not run. */
static int node_status(node_cmd *c, int code)
{
    if (!c->rcfile || code < 0)
        return code;
    char buf[32];
    int n = sm_read_small(c->rcfile, buf, sizeof buf);
    unlink(c->rcfile);
    return n >= 0 && buf[0] ? atoi(buf) : -1;
}

/* The environment of a node-side command: the state directory, and the status file. */
static void node_env(const slurm_provider *sp, const node_cmd *c, char **env)
{
    slurm_node_env(sp, env);
    size_t k = 0;
    while (env[k])
        k++;
    if (c->rcfile)
        env[k++] = xasprintf("SANDMAN_SLURM_RC=%s", c->rcfile);
    env[k] = NULL;
}

/* Why the sandbox cannot take commands (not ready, ended, gone), into err. */
static int not_running(const slurm_provider *sp, const char *id, const char *dir, long jobid,
                       const char *op, sm_error *err)
{
    slurm_job j;
    memset(&j, 0, sizeof j);
    if (jobid > 0)
        slurm_job_query(jobid, &j);
    sm_sandbox_info info;
    slurm_info(sp, id, dir, &j, &info);
    sm_failure_kind k = info.failure.kind != SM_FAIL_NONE ? info.failure.kind : SM_FAIL_NOT_FOUND;
    int rc = sm_error_set(err, SM_ERR_RUNTIME, k, "%s: sandbox %s is %s%s%s", op, id,
                          sm_status_name(info.status), info.failure.reason[0] ? ": " : "",
                          info.failure.reason);
    sm_sandbox_info_free(&info);
    return rc;
}

/* The start of a node-side sandman command for the sandbox: srun step or this host. */
static int node_cmd_start(const slurm_provider *sp, const char *id, node_cmd *c, const char *op,
                          sm_error *err)
{
    memset(c, 0, sizeof *c);
    c->dir = slurm_rec_dir(sp, id);
    c->jobid = slurm_rec_jobid(c->dir);
    c->lid = slurm_rec_read(c->dir, "local_id");
    if (c->jobid <= 0 || !c->lid || slurm_rec_has(c->dir, "end.json") ||
        slurm_rec_has(c->dir, "cancelled")) {
        int rc = not_running(sp, id, c->dir, c->jobid, op, err);
        node_cmd_free(c);
        memset(c, 0, sizeof *c);
        return rc;
    }
    c->cfg = xasprintf("%s/node.yaml", c->dir);
    if (!strcmp(sp->exec_path, "srun")) {
        push(c, xstrdup("srun"));
        push(c, xasprintf("--jobid=%ld", c->jobid));
        push(c, xstrdup("--overlap"));
        push(c, xstrdup("--quiet"));
        push(c, xstrdup("--nodes=1"));
        push(c, xstrdup("--ntasks=1"));
        push(c, xstrdup("/bin/sh"));
        push(c, xstrdup("-c"));
        push(c, xstrdup("\"$0\" \"$@\"; echo $? >\"$SANDMAN_SLURM_RC\""));
        char rnd[13];
        sm_random_hex(rnd, 12);
        c->rcfile = xasprintf("%s/rc-%s", c->dir, rnd);
    }
    push(c, xstrdup(sp->sandman));
    push(c, xstrdup("-c"));
    push(c, xstrdup(c->cfg));
    push(c, xstrdup("-p"));
    push(c, xstrdup("node"));
    return SM_OK;
}

static int run_node(const slurm_provider *sp, node_cmd *c, int in_fd, slurm_out *o)
{
    char *env[5];
    node_env(sp, c, env);
    int rc = node_status(c, slurm_run(c->argv, env, in_fd, -1, -1, o));
    o->status = rc;
    for (int i = 0; env[i]; i++)
        free(env[i]);
    return rc;
}

/* The failure the node's sandbox recorded for the command that just ended with rc (its
 * journal is in the shared state directory, read from this host). */
static bool last_failure(const slurm_provider *sp, node_cmd *c, int rc, sm_failure *f)
{
    char *env[4];
    slurm_node_env(sp, env);
    char *argv[] = {sp->sandman, "-c", c->cfg, "-p", "node", "-o", "json", "status", c->lid, NULL};
    slurm_out o;
    slurm_run(argv, env, -1, -1, -1, &o);
    for (int i = 0; env[i]; i++)
        free(env[i]);
    cJSON *j = o.out ? cJSON_Parse(o.out) : NULL;
    const cJSON *lf = cJSON_GetObjectItemCaseSensitive(j, "last_failure");
    bool found = false;
    if (cJSON_IsObject(lf)) {
        sm_failure_from_json(lf, f);
        found = f->commands_since == 0 && (rc == SM_RUNTIME_RETURN_CODE || f->exit_code == rc);
    }
    cJSON_Delete(j);
    slurm_out_free(&o);
    f->sandbox_id[0] = f->provider[0] = '\0'; /* named after this sandbox by the caller */
    return found;
}

int slurm_exec(sm_provider *p, sm_handle *h, const sm_exec_request *req, sm_exec_result *res,
               sm_error *err)
{
    slurm_provider *sp = p->impl;
    node_cmd c;
    int rc = node_cmd_start(sp, h->id, &c, "exec", err);
    if (rc != SM_OK)
        return rc;
    push(&c, xstrdup("exec"));
    if (req->timeout_s > 0)
        push(&c, xasprintf("--timeout=%g", req->timeout_s));
    if (req->cwd)
        push(&c, xasprintf("--workdir=%s", req->cwd));
    if (req->user)
        push(&c, xasprintf("--user=%s", req->user));
    /* Values travel in the step's environment (srun passes it on), never on a command line;
     * `-e KEY` takes each from there. */
    size_t nenv = req->env ? req->env->n : 0;
    char **env = xcalloc(nenv + 5, sizeof *env);
    node_env(sp, &c, env + nenv);
    for (size_t i = 0; i < nenv; i++) {
        env[i] = xasprintf("%s=%s", req->env->items[i].key, req->env->items[i].value);
        push(&c, xasprintf("--env=%s", req->env->items[i].key));
    }
    push(&c, xstrdup(req->stdin_fd >= 0 ? "-i" : "-n"));
    push(&c, xstrdup(c.lid));
    push(&c, xstrdup("--"));
    push(&c, xstrdup(req->cmd));
    double t0 = sm_now_mono();
    slurm_out o;
    int code =
        node_status(&c, slurm_run(c.argv, env, req->stdin_fd, req->stdout_fd, req->stderr_fd, &o));
    for (size_t i = 0; env[i]; i++)
        free(env[i]);
    free(env);
    res->duration_s = sm_now_mono() - t0;
    if (req->stdout_fd < 0) {
        res->out = o.out;
        res->out_len = o.out_len;
        o.out = NULL;
    }
    if (req->stderr_fd < 0) {
        res->err = o.err;
        res->err_len = o.err_len;
        o.err = NULL;
    }
    res->return_code = code;
    rc = SM_OK;
    if (code < 0) {
        rc = sm_error_set(err, SM_ERR_RUNTIME, SM_FAIL_SANDBOX_ERROR, "exec: cannot run %s",
                          c.argv[0]);
    } else if (code != 0) {
        slurm_job j;
        if (slurm_job_query(c.jobid, &j) == 0 && slurm_job_terminal(j.state)) {
            /* the job (and its sandbox) ended under the command */
            rc = not_running(sp, h->id, c.dir, c.jobid, "exec", err);
        } else if (last_failure(sp, &c, code, &res->failure)) {
            if (res->failure.kind == SM_FAIL_EXEC_TIMEOUT)
                res->error_type = "timeout";
            else if (code == SM_RUNTIME_RETURN_CODE)
                res->error_type = "sandbox";
        } else if (code == SM_RUNTIME_RETURN_CODE) {
            char line[200] = "";
            sm_failure_last_line(res->err, res->err_len, line, sizeof line);
            rc = sm_error_set(err, SM_ERR_RUNTIME, SM_FAIL_SANDBOX_ERROR, "exec: %s",
                              line[0] ? line : "the node's sandman failed");
        } else {
            sm_failure_init(&res->failure);
            res->failure.kind = code > 128 ? SM_FAIL_SIGNALED : SM_FAIL_EXIT_NONZERO;
            res->failure.exit_code = code;
            if (code > 128)
                res->failure.signal = code - 128;
        }
    }
    slurm_out_free(&o);
    node_cmd_free(&c);
    return rc;
}

/* A file in the shared state directory for a transfer. */
static char *stage_path(const char *dir)
{
    char rnd[13];
    sm_random_hex(rnd, 12);
    return xasprintf("%s/xfer-%s", dir, rnd);
}

static int copy_file(const char *from, const char *to, mode_t mode)
{
    char *data = NULL;
    size_t len = 0;
    if (sm_read_file(from, &data, &len) < 0)
        return -1;
    int rc = sm_write_file_atomic(to, data, len, mode);
    free(data);
    return rc;
}

static int xfer_error(const slurm_out *o, const char *what, sm_error *err)
{
    char line[200] = "";
    sm_failure_last_line(o->err, o->err_len, line, sizeof line);
    int code = o->status == 2 ? SM_ERR_INVALID : SM_ERR_RUNTIME;
    if (strstr(line, "No such file") || strstr(line, "not found") || strstr(line, "does not exist"))
        code = SM_ERR_NOT_FOUND;
    return sm_error_set(err, code, SM_FAIL_TRANSFER_FAILED, "%s: %s", what,
                        line[0] ? line : "the node's sandman failed");
}

int slurm_upload(sm_provider *p, sm_handle *h, const char *local, const char *remote, sm_error *err)
{
    slurm_provider *sp = p->impl;
    struct stat st;
    if (stat(local, &st) != 0)
        return sm_error_set(err, SM_ERR_NOT_FOUND, SM_FAIL_TRANSFER_FAILED,
                            "upload: cannot read %s: %s", local, strerror(errno));
    node_cmd c;
    int rc = node_cmd_start(sp, h->id, &c, "upload", err);
    if (rc != SM_OK)
        return rc;
    char *staged = stage_path(c.dir);
    if (copy_file(local, staged, st.st_mode & 0777) < 0) {
        rc = sm_error_set(err, SM_ERR_IO, SM_FAIL_TRANSFER_FAILED, "upload: cannot read %s: %s",
                          local, strerror(errno));
        goto out;
    }
    push(&c, xstrdup("cp"));
    push(&c, xstrdup(staged));
    push(&c, xasprintf("%s:%s", c.lid, remote));
    slurm_out o;
    if (run_node(sp, &c, -1, &o) != 0)
        rc = xfer_error(&o, "upload", err);
    slurm_out_free(&o);
out:
    unlink(staged);
    free(staged);
    node_cmd_free(&c);
    return rc;
}

int slurm_download(sm_provider *p, sm_handle *h, const char *remote, const char *local,
                   sm_error *err)
{
    slurm_provider *sp = p->impl;
    node_cmd c;
    int rc = node_cmd_start(sp, h->id, &c, "download", err);
    if (rc != SM_OK)
        return rc;
    char *staged = stage_path(c.dir);
    push(&c, xstrdup("cp"));
    push(&c, xasprintf("%s:%s", c.lid, remote));
    push(&c, xstrdup(staged));
    slurm_out o;
    if (run_node(sp, &c, -1, &o) != 0)
        rc = xfer_error(&o, "download", err);
    else if (copy_file(staged, local, 0644) < 0)
        rc = sm_error_set(err, SM_ERR_IO, SM_FAIL_TRANSFER_FAILED, "download: cannot write %s: %s",
                          local, strerror(errno));
    slurm_out_free(&o);
    unlink(staged);
    free(staged);
    node_cmd_free(&c);
    return rc;
}
