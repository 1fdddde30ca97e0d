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
    char *env[4];
    slurm_node_env(sp, env);
    int rc = slurm_run(c->argv, env, in_fd, -1, -1, o);
    for (int i = 0; env[i]; i++)
        free(env[i]);
    return rc;
}

static const char *error_type_of(const char *s)
{
    if (!s)
        return NULL;
    if (!strcmp(s, "timeout"))
        return "timeout";
    if (!strcmp(s, "pty"))
        return "pty";
    return "sandbox";
}

static char *json_bytes(const cJSON *o, const char *key, size_t *len)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    char *s = xstrdup(cJSON_IsString(v) ? v->valuestring : "");
    *len = strlen(s);
    return s;
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
    push(&c, xstrdup("-o"));
    push(&c, xstrdup("json"));
    if (req->timeout_s > 0)
        push(&c, xasprintf("--timeout=%g", req->timeout_s));
    if (req->cwd)
        push(&c, xasprintf("--workdir=%s", req->cwd));
    if (req->user)
        push(&c, xasprintf("--user=%s", req->user));
    char *envfile = NULL;
    if (req->env && req->env->n) {
        char rnd[13];
        sm_random_hex(rnd, 12);
        envfile = xasprintf("%s/exec-env-%s", c.dir, rnd);
        char *text = xstrdup("");
        for (size_t i = 0; i < req->env->n; i++) {
            char *next =
                xasprintf("%s%s=%s\n", text, req->env->items[i].key, req->env->items[i].value);
            free(text);
            text = next;
        }
        sm_write_file_atomic(envfile, text, strlen(text), 0600);
        free(text);
        push(&c, xasprintf("--env-file=%s", envfile));
    }
    push(&c, xstrdup(req->stdin_fd >= 0 ? "-i" : "-n"));
    push(&c, xstrdup(c.lid));
    push(&c, xstrdup("--"));
    push(&c, xstrdup(req->cmd));
    double t0 = sm_now_mono();
    slurm_out o;
    run_node(sp, &c, req->stdin_fd, &o);
    if (envfile) {
        unlink(envfile);
        free(envfile);
    }
    cJSON *j = o.out ? cJSON_Parse(o.out) : NULL;
    const cJSON *code = cJSON_GetObjectItemCaseSensitive(j, "return_code");
    if (cJSON_IsNumber(code)) {
        res->return_code = (int)code->valuedouble;
        res->out = json_bytes(j, "stdout", &res->out_len);
        res->err = json_bytes(j, "stderr", &res->err_len);
        const cJSON *et = cJSON_GetObjectItemCaseSensitive(j, "error_type");
        res->error_type = error_type_of(cJSON_IsString(et) ? et->valuestring : NULL);
        const cJSON *f = cJSON_GetObjectItemCaseSensitive(j, "failure");
        if (cJSON_IsObject(f))
            sm_failure_from_json(f, &res->failure);
        /* named after this sandbox, not the node's local one */
        res->failure.sandbox_id[0] = res->failure.provider[0] = '\0';
        res->duration_s = sm_now_mono() - t0;
        /* Streams asked for get the whole output once the command ended. */
        if (req->stdout_fd >= 0 && res->out_len) {
            sm_write_all(req->stdout_fd, res->out, res->out_len);
            free(res->out);
            res->out = NULL;
            res->out_len = 0;
        }
        if (req->stderr_fd >= 0 && res->err_len) {
            sm_write_all(req->stderr_fd, res->err, res->err_len);
            free(res->err);
            res->err = NULL;
            res->err_len = 0;
        }
        rc = SM_OK;
    } else {
        /* The step could not run (the job ended under it, srun refused): say why it ended. */
        rc = not_running(sp, h->id, c.dir, c.jobid, "exec", err);
        if (err && err->failure.kind == SM_FAIL_NOT_FOUND) {
            char line[200] = "";
            sm_failure_last_line(o.err, o.err_len, line, sizeof line);
            rc = sm_error_set(err, SM_ERR_RUNTIME, SM_FAIL_SANDBOX_ERROR, "exec: %s",
                              line[0] ? line : "the node's sandman did not answer");
        }
    }
    cJSON_Delete(j);
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
