/* The slurm provider: each sandbox is a batch job running one local sandbox (namespaces,
 * cgroup limits, supervisor) on the node Slurm gives it. create writes the job script into the
 * shared state directory, submits it with sbatch and waits until the node's sandbox is ready
 * (showing the queue state while it waits); close cancels the job and removes every trace. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/json.h"
#include "core/util.h"
#include "providers/slurm/slurm.h"
#include "providers/slurm/slurm_provider.h"

/* Keys of the node's local provider that a slurm block passes on. */
static const char *const local_keys[] = {"network",      "pids_limit",
                                         "image",        "shell",
                                         "workdir",      "default_timeout_s",
                                         "seccomp",      "nested_userns",
                                         "no_new_privs", "unenforced_limits",
                                         "expose_home",  "hide",
                                         "shell_rc",     NULL};

static const char *const config_keys[] = {"partition",
                                          "account",
                                          "qos",
                                          "default_time_limit_s",
                                          "sbatch_args",
                                          "sandman",
                                          "supervisor",
                                          "state_dir",
                                          "exec_path",
                                          "network",
                                          "pids_limit",
                                          "image",
                                          "shell",
                                          "workdir",
                                          "default_timeout_s",
                                          "seccomp",
                                          "nested_userns",
                                          "no_new_privs",
                                          "unenforced_limits",
                                          "expose_home",
                                          "hide",
                                          "shell_rc",
                                          NULL};

/* Pending reasons after which a job will never start by itself. */
static const char *const never_reasons[] = {"PartitionTimeLimit",
                                            "PartitionNodeLimit",
                                            "BadConstraints",
                                            "InvalidQOS",
                                            "InvalidAccount",
                                            "QOSMaxCpuPerJobLimit",
                                            "QOSMaxWallDurationPerJobLimit",
                                            "AssocMaxWallDurationPerJobLimit",
                                            "JobHeldAdmin",
                                            "DependencyNeverSatisfied",
                                            NULL};

static char *find_sandman(void)
{
    const char *env = getenv("SANDMAN_SLURM_SANDMAN");
    if (env && *env)
        return xstrdup(env);
    static const char *const rel[] = {"sandman", "../sandman"};
    char *p = sm_find_beside_self(rel, SM_ARRAY_LEN(rel));
    return p ? p : xstrdup("sandman");
}

static void slurm_destroy(sm_provider *p)
{
    slurm_provider *sp = p->impl;
    if (!sp)
        return;
    free(sp->partition);
    free(sp->account);
    free(sp->qos);
    for (size_t i = 0; i < sp->nsbatch_args; i++)
        free(sp->sbatch_args[i]);
    free(sp->sbatch_args);
    free(sp->sandman);
    free(sp->supervisor);
    free(sp->state_dir);
    free(sp->exec_path);
    cJSON_Delete(sp->local);
    free(sp);
    p->impl = NULL;
}

static int slurm_init(sm_provider *p, const cJSON *config, sm_error *err)
{
    slurm_provider *sp = xcalloc(1, sizeof *sp);
    p->impl = sp;
    int rc = sm_json_get_string(config, "partition", &sp->partition, "slurm", err);
    if (!rc)
        rc = sm_json_get_string(config, "account", &sp->account, "slurm", err);
    if (!rc)
        rc = sm_json_get_string(config, "qos", &sp->qos, "slurm", err);
    if (!rc)
        rc = sm_json_get_number(config, "default_time_limit_s", &sp->default_time_limit_s, "slurm",
                                err);
    if (!rc)
        rc = sm_json_get_string(config, "sandman", &sp->sandman, "slurm", err);
    if (!rc)
        rc = sm_json_get_string(config, "supervisor", &sp->supervisor, "slurm", err);
    if (!rc)
        rc = sm_json_get_string(config, "state_dir", &sp->state_dir, "slurm", err);
    if (!rc)
        rc = sm_json_get_string(config, "exec_path", &sp->exec_path, "slurm", err);
    if (rc) {
        slurm_destroy(p);
        return rc;
    }
    const cJSON *args = config ? cJSON_GetObjectItemCaseSensitive(config, "sbatch_args") : NULL,
                *it;
    if (args && !cJSON_IsNull(args)) {
        if (!cJSON_IsArray(args)) {
            slurm_destroy(p);
            return sm_error_set(err, SM_ERR_CONFIG, SM_FAIL_INVALID_REQUEST,
                                "slurm.sbatch_args must be a list of strings");
        }
        cJSON_ArrayForEach(it, args)
        {
            if (!cJSON_IsString(it)) {
                slurm_destroy(p);
                return sm_error_set(err, SM_ERR_CONFIG, SM_FAIL_INVALID_REQUEST,
                                    "slurm.sbatch_args must be a list of strings");
            }
            sp->sbatch_args =
                xrealloc(sp->sbatch_args, (sp->nsbatch_args + 1) * sizeof *sp->sbatch_args);
            sp->sbatch_args[sp->nsbatch_args++] = xstrdup(it->valuestring);
        }
    }
    if (!sp->exec_path)
        sp->exec_path = xstrdup("srun");
    if (strcmp(sp->exec_path, "srun") && strcmp(sp->exec_path, "socket")) {
        slurm_destroy(p);
        return sm_error_set(err, SM_ERR_CONFIG, SM_FAIL_INVALID_REQUEST,
                            "slurm.exec_path must be srun or socket");
    }
    if (!sp->sandman)
        sp->sandman = find_sandman();
    if (!sp->state_dir)
        sp->state_dir = xasprintf("%s/slurm-shared", sm_state_dir());
    if (sp->state_dir[0] != '/') {
        slurm_destroy(p);
        return sm_error_set(err, SM_ERR_CONFIG, SM_FAIL_INVALID_REQUEST,
                            "slurm.state_dir must be an absolute path on a filesystem the "
                            "nodes share");
    }
    /* The node's local block: the keys given here, and the shared state directory hidden
     * from every sandbox (it holds other sandboxes' records and env files). */
    sp->local = cJSON_CreateObject();
    for (size_t i = 0; local_keys[i]; i++) {
        const cJSON *v = config ? cJSON_GetObjectItemCaseSensitive(config, local_keys[i]) : NULL;
        if (v && strcmp(local_keys[i], "hide"))
            cJSON_AddItemToObject(sp->local, local_keys[i], cJSON_Duplicate(v, 1));
    }
    cJSON *hide = cJSON_AddArrayToObject(sp->local, "hide");
    const cJSON *h = config ? cJSON_GetObjectItemCaseSensitive(config, "hide") : NULL;
    if (cJSON_IsArray(h))
        cJSON_ArrayForEach(it, h) cJSON_AddItemToArray(hide, cJSON_Duplicate(it, 1));
    cJSON_AddItemToArray(hide, cJSON_CreateString(sp->state_dir));
    return SM_OK;
}

/* Environment of every node-side sandman: the shared state directory as its state. */
void slurm_node_env(const slurm_provider *sp, char *env[4])
{
    int k = 0;
    env[k++] = xasprintf("SANDMAN_STATE_DIR=%s", sp->state_dir);
    if (sp->supervisor)
        env[k++] = xasprintf("SANDMAN_SUPERVISOR=%s", sp->supervisor);
    env[k++] = xstrdup("SANDMAN_CONFIG=/dev/null");
    env[k] = NULL;
}

static void add(char ***v, size_t *n, char *s)
{
    *v = xrealloc(*v, (*n + 2) * sizeof **v);
    (*v)[(*n)++] = s;
    (*v)[*n] = NULL;
}

static void free_argv(char **v)
{
    for (size_t i = 0; v && v[i]; i++)
        free(v[i]);
    free(v);
}

static int write_text(const char *dir, const char *name, const char *text, mode_t mode)
{
    char *path = xasprintf("%s/%s", dir, name);
    int rc = sm_write_file_atomic(path, text, strlen(text), mode);
    free(path);
    return rc;
}

/* The node-side `sandman create` arguments for the spec. */
static char **node_create_args(const slurm_provider *sp, const char *dir, const sm_spec *s)
{
    char **v = NULL;
    size_t n = 0;
    add(&v, &n, xstrdup(sp->sandman));
    add(&v, &n, xstrdup("-c"));
    add(&v, &n, xasprintf("%s/node.yaml", dir));
    add(&v, &n, xstrdup("-p"));
    add(&v, &n, xstrdup("node"));
    add(&v, &n, xstrdup("create"));
    if (s->image)
        add(&v, &n, xasprintf("--image=%s", s->image));
    if (s->resources.set & SM_RES_CPU)
        add(&v, &n, xasprintf("--cpu=%g", s->resources.cpu));
    if (s->resources.set & SM_RES_MEMORY)
        add(&v, &n, xasprintf("--memory-mib=%ld", s->resources.memory_mib));
    if (s->resources.set & SM_RES_DISK)
        add(&v, &n, xasprintf("--disk-gib=%ld", s->resources.disk_gib));
    if (s->ttl_s > 0)
        add(&v, &n, xasprintf("--ttl=%g", s->ttl_s));
    if (s->ready_timeout_s > 0)
        add(&v, &n, xasprintf("--ready-timeout=%g", s->ready_timeout_s));
    if (s->workdir)
        add(&v, &n, xasprintf("--workdir=%s", s->workdir));
    for (size_t i = 0; i < s->metadata.n; i++)
        add(&v, &n,
            xasprintf("--label=%s=%s", s->metadata.items[i].key, s->metadata.items[i].value));
    for (size_t i = 0; i < s->nports; i++)
        add(&v, &n, xasprintf("--port=%d", s->ports[i]));
    for (size_t i = 0; s->entrypoint && s->entrypoint[i]; i++)
        add(&v, &n, xasprintf("--entrypoint=%s", s->entrypoint[i]));
    if (s->env.n)
        add(&v, &n, xasprintf("--env-file=%s/env", dir));
    return v;
}

/* The batch script: creates the node's sandbox, says when it is ready, lives as long as it
 * does (waiting on its supervisor's lock), and on scancel ends it and says so. */
static char *job_script(const slurm_provider *sp, const char *dir, char **create)
{
    char *qd = sm_shell_quote(dir), *qs = sm_shell_quote(sp->state_dir),
         *qsm = sm_shell_quote(sp->sandman);
    char *cmd = xstrdup("");
    for (size_t i = 0; create[i]; i++) {
        char *q = sm_shell_quote(create[i]), *next = xasprintf("%s %s", cmd, q);
        free(q);
        free(cmd);
        cmd = next;
    }
    char *sup = NULL;
    if (sp->supervisor) {
        char *q = sm_shell_quote(sp->supervisor);
        sup = xasprintf("export SANDMAN_SUPERVISOR=%s\n", q);
        free(q);
    }
    char *text = xasprintf(
        "#!/bin/sh\n"
        "# sandman slurm sandbox: runs one local sandbox on this node while it lives\n"
        "D=%s\n"
        "export SANDMAN_STATE_DIR=%s SANDMAN_CONFIG=/dev/null\n"
        "%s"
        "S=%s\n"
        "printf '%%s\\n' \"${SLURMD_NODENAME:-$(hostname)}\" >\"$D/node\"\n"
        "lid=$(%s 2>\"$D/create.err\")\n"
        "rc=$?\n"
        "if [ $rc -ne 0 ]; then echo $rc >\"$D/failed\"; exit 1; fi\n"
        "rm -f \"$D/env\"\n"
        "stop() {\n"
        "    : >\"$D/cancelled\"\n"
        "    [ -n \"${w:-}\" ] && kill \"$w\" 2>/dev/null\n"
        "    \"$S\" -c \"$D/node.yaml\" -p node rm \"$lid\" >/dev/null 2>&1\n"
        "    exit 143\n"
        "}\n"
        "trap stop TERM INT\n"
        "printf '%%s\\n' \"$lid\" >\"$D/local_id.tmp\" && mv \"$D/local_id.tmp\" \"$D/local_id\"\n"
        "flock -s \"$SANDMAN_STATE_DIR/local/$lid/lock\" true &\n"
        "w=$!\n"
        "wait \"$w\"\n"
        "\"$S\" -c \"$D/node.yaml\" -p node -o json status \"$lid\" >\"$D/end.tmp\" 2>/dev/null "
        "&&\n"
        "    mv \"$D/end.tmp\" \"$D/end.json\"\n",
        qd, qs, sup ? sup : "", qsm, cmd);
    free(sup);
    free(cmd);
    free(qd);
    free(qs);
    free(qsm);
    return text;
}

static char *hex_labels(const sm_map *m)
{
    cJSON *o = sm_map_to_json(m);
    char *js = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    size_t n = strlen(js);
    char *h = xmalloc(8 + 2 * n + 1);
    memcpy(h, "sandman:", 8);
    for (size_t i = 0; i < n; i++)
        snprintf(h + 8 + 2 * i, 3, "%02x", (unsigned char)js[i]);
    h[8 + 2 * n] = '\0';
    free(js);
    return h;
}

static char **sbatch_args(const slurm_provider *sp, const char *id, const char *dir,
                          const sm_spec *s)
{
    char **v = NULL;
    size_t n = 0;
    add(&v, &n, xstrdup("sbatch"));
    add(&v, &n, xstrdup("--parsable"));
    add(&v, &n, xasprintf("--job-name=sandman-%s", id));
    char *comment = hex_labels(&s->metadata);
    add(&v, &n, xasprintf("--comment=%s", comment));
    free(comment);
    add(&v, &n, xasprintf("--output=%s/job.out", dir));
    add(&v, &n, xasprintf("--chdir=%s", dir));
    add(&v, &n, xstrdup("--nodes=1"));
    add(&v, &n, xstrdup("--ntasks=1"));
    if (sp->partition)
        add(&v, &n, xasprintf("--partition=%s", sp->partition));
    if (sp->account)
        add(&v, &n, xasprintf("--account=%s", sp->account));
    if (sp->qos)
        add(&v, &n, xasprintf("--qos=%s", sp->qos));
    long cpus = (s->resources.set & SM_RES_CPU) ? (long)ceil(s->resources.cpu) : 1;
    add(&v, &n, xasprintf("--cpus-per-task=%ld", cpus < 1 ? 1 : cpus));
    if (s->resources.set & SM_RES_MEMORY)
        add(&v, &n, xasprintf("--mem=%ldM", s->resources.memory_mib));
    /* The sandbox enforces its own TTL; the job's limit is a minute past it, as a backstop. */
    double limit = s->ttl_s > 0 ? s->ttl_s + 60 : sp->default_time_limit_s;
    if (limit > 0)
        add(&v, &n, xasprintf("--time=%ld", (long)ceil(limit / 60)));
    for (size_t i = 0; i < sp->nsbatch_args; i++)
        add(&v, &n, xstrdup(sp->sbatch_args[i]));
    add(&v, &n, xasprintf("%s/job.sh", dir));
    return v;
}

/* Cancels the job and waits until its script has ended the node's sandbox (it has KillWait
 * to do it). An error when the controller cannot be reached: the record stays for a retry. */
static int cancel_job(long jobid, sm_error *err)
{
    if (jobid <= 0)
        return SM_OK;
    slurm_job j;
    if (slurm_job_query(jobid, &j) == 0 && slurm_job_terminal(j.state))
        return SM_OK;
    char jid[32];
    snprintf(jid, sizeof jid, "%ld", jobid);
    char *argv[] = {"scancel", jid, NULL};
    slurm_out o;
    if (slurm_run(argv, NULL, -1, -1, -1, &o) != 0) {
        char line[200] = "";
        sm_failure_last_line(o.err, o.err_len, line, sizeof line);
        slurm_out_free(&o);
        return sm_error_set(err, SM_ERR_RUNTIME, SM_FAIL_PROVIDER_UNREACHABLE,
                            "scancel %ld failed: %s", jobid, line);
    }
    slurm_out_free(&o);
    double deadline = sm_now_mono() + 60;
    while (sm_now_mono() < deadline) {
        if (slurm_job_query(jobid, &j) == 0 && slurm_job_terminal(j.state))
            return SM_OK;
        usleep(20000);
    }
    return sm_error_set(err, SM_ERR_TIMEOUT, SM_FAIL_SANDBOX_ERROR,
                        "job %ld did not end within 60 s of scancel", jobid);
}

/* Removes the node's sandbox (if the job left it) and the record. */
static int remove_traces(const slurm_provider *sp, const char *dir, sm_error *err)
{
    char *lid = slurm_rec_read(dir, "local_id");
    if (lid) {
        char *cfg = xasprintf("%s/node.yaml", dir), *env[4];
        slurm_node_env(sp, env);
        char *argv[] = {sp->sandman, "-c", cfg, "-p", "node", "rm", lid, NULL};
        slurm_out o;
        int rc = slurm_run(argv, env, -1, -1, -1, &o);
        for (int i = 0; env[i]; i++)
            free(env[i]);
        free(cfg);
        free(lid);
        if (rc != 0) {
            rc = sm_error_set(err, SM_ERR_RUNTIME, SM_FAIL_SANDBOX_ERROR,
                              "removing the node's sandbox failed: %s", o.err);
            slurm_out_free(&o);
            return rc;
        }
        slurm_out_free(&o);
    }
    char what[400];
    if (sm_rm_rf_report(dir, what, sizeof what) < 0)
        return sm_error_set(err, SM_ERR_IO, SM_FAIL_SANDBOX_ERROR,
                            "the job ended, but rm could not remove %s", what);
    return SM_OK;
}

static bool never_starts(const char *reason)
{
    for (size_t i = 0; never_reasons[i]; i++)
        if (!strcmp(reason, never_reasons[i]))
            return true;
    return false;
}

/* Waits for the node's sandbox: ready (local_id), failed, or a job that ended or will never
 * start. Shows the queue state on stderr while it waits. */
static int wait_ready(const char *dir, long jobid, double timeout_s, sm_error *err)
{
    double deadline = sm_now_mono() + timeout_s, next_q = 0;
    char shown[160] = "";
    slurm_job j;
    memset(&j, 0, sizeof j);
    for (;;) {
        if (slurm_rec_has(dir, "local_id"))
            return SM_OK;
        if (slurm_rec_has(dir, "failed")) {
            char *why = slurm_rec_read(dir, "create.err");
            int rc = sm_error_set(err, SM_ERR_RUNTIME, SM_FAIL_CREATE_FAILED,
                                  "the node's sandbox could not start: %s",
                                  why && *why ? why : "unknown");
            free(why);
            return rc;
        }
        double now = sm_now_mono();
        if (now >= next_q) {
            next_q = now + 0.25;
            if (slurm_job_query(jobid, &j) == 0) {
                if (slurm_job_terminal(j.state) && !slurm_rec_has(dir, "local_id") &&
                    !slurm_rec_has(dir, "failed"))
                    return sm_error_set(err, SM_ERR_RUNTIME, SM_FAIL_CREATE_FAILED,
                                        "job %ld ended before its sandbox was ready: %s (%s)",
                                        jobid, j.state[0] ? j.state : "gone", j.reason);
                if (!strcmp(j.state, "PENDING") && never_starts(j.reason))
                    return sm_error_set(err, SM_ERR_RUNTIME, SM_FAIL_CREATE_FAILED,
                                        "job %ld cannot start: %s", jobid, j.reason);
                char line[160];
                snprintf(line, sizeof line, "%s (%s)",
                         !strcmp(j.state, "PENDING") ? "pending" : j.state, j.reason);
                if (!strcmp(j.state, "PENDING") && strcmp(j.reason, "None") &&
                    strcmp(line, shown)) {
                    fprintf(stderr, "starting: %s\n", line);
                    snprintf(shown, sizeof shown, "%s", line);
                }
            }
        }
        if (now >= deadline)
            return sm_error_set(err, SM_ERR_TIMEOUT, SM_FAIL_CREATE_FAILED,
                                "job %ld: sandbox not ready after %g s (%s %s)", jobid, timeout_s,
                                j.state, j.reason);
        usleep(10000);
    }
}

static int slurm_create(sm_provider *p, const sm_spec *spec, sm_handle **out, sm_error *err)
{
    slurm_provider *sp = p->impl;
    for (size_t i = 0; i < spec->env.n; i++)
        if (strchr(spec->env.items[i].value, '\n'))
            return sm_error_set(err, SM_ERR_INVALID, SM_FAIL_INVALID_REQUEST,
                                "env %s: a value with a newline cannot be passed to a Slurm "
                                "sandbox",
                                spec->env.items[i].key);
    char id[13];
    sm_random_hex(id, 12);
    char *dir = slurm_rec_dir(sp, id);
    if (sm_mkdir_p(dir, 0700) < 0) {
        int rc = sm_error_set(err, SM_ERR_IO, SM_FAIL_CREATE_FAILED, "cannot create %s: %s", dir,
                              strerror(errno));
        free(dir);
        return rc;
    }
    cJSON *meta = cJSON_CreateObject();
    cJSON_AddNumberToObject(meta, "created_at", sm_now_wall());
    if (spec->image)
        cJSON_AddStringToObject(meta, "image", spec->image);
    if (spec->ttl_s > 0)
        cJSON_AddNumberToObject(meta, "ttl_s", spec->ttl_s);
    if (spec->workdir)
        cJSON_AddStringToObject(meta, "workdir", spec->workdir);
    cJSON_AddItemToObject(meta, "labels", sm_map_to_json(&spec->metadata));
    cJSON_AddItemToObject(meta, "resources", sm_resources_to_json(&spec->resources));
    cJSON *cfg = cJSON_CreateObject(), *blk = cJSON_AddObjectToObject(cfg, "node");
    cJSON_AddItemToObject(blk, "local", cJSON_Duplicate(sp->local, 1));
    char *cfgtext = cJSON_Print(cfg);
    cJSON_Delete(cfg);
    char *envtext = xstrdup("");
    for (size_t i = 0; i < spec->env.n; i++) {
        char *next =
            xasprintf("%s%s=%s\n", envtext, spec->env.items[i].key, spec->env.items[i].value);
        free(envtext);
        envtext = next;
    }
    char **create = node_create_args(sp, dir, spec);
    char *script = job_script(sp, dir, create);
    int wrc = write_text(dir, "node.yaml", cfgtext, 0600) | write_text(dir, "env", envtext, 0600) |
              write_text(dir, "job.sh", script, 0700);
    free(cfgtext);
    free(envtext);
    free(script);
    free_argv(create);
    char *metatext = cJSON_PrintUnformatted(meta);
    wrc |= write_text(dir, "meta.json", metatext, 0600);
    free(metatext);
    int rc = SM_OK;
    if (wrc < 0) {
        rc = sm_error_set(err, SM_ERR_IO, SM_FAIL_CREATE_FAILED, "cannot write the job in %s", dir);
        goto fail;
    }
    char **argv = sbatch_args(sp, id, dir, spec);
    slurm_out o;
    int st = slurm_run(argv, NULL, -1, -1, -1, &o);
    free_argv(argv);
    long jobid = st == 0 ? atol(o.out) : 0;
    if (jobid <= 0) {
        char line[256] = "";
        sm_failure_last_line(o.err, o.err_len, line, sizeof line);
        rc = sm_error_set(err, SM_ERR_RUNTIME, SM_FAIL_CREATE_FAILED, "sbatch refused the job: %s",
                          line[0] ? line : "no reason given");
        slurm_out_free(&o);
        goto fail;
    }
    slurm_out_free(&o);
    cJSON_AddNumberToObject(meta, "job_id", (double)jobid);
    metatext = cJSON_PrintUnformatted(meta);
    write_text(dir, "meta.json", metatext, 0600);
    free(metatext);
    rc = wait_ready(dir, jobid, spec->ready_timeout_s > 0 ? spec->ready_timeout_s + 60 : 600, err);
    if (rc != SM_OK) {
        cancel_job(jobid, NULL);
        goto fail;
    }
    cJSON_Delete(meta);
    free(dir);
    *out = sm_handle_new(id, "slurm");
    return SM_OK;
fail:
    remove_traces(sp, dir, NULL);
    cJSON_Delete(meta);
    free(dir);
    return rc;
}

static int slurm_status(sm_provider *p, sm_handle *h, sm_sandbox_info *info, sm_error *err)
{
    (void)err;
    slurm_provider *sp = p->impl;
    char *dir = slurm_rec_dir(sp, h->id);
    long jobid = slurm_rec_jobid(dir);
    slurm_job j;
    memset(&j, 0, sizeof j);
    if (jobid <= 0) {
        free(dir);
        sm_sandbox_info_init(info);
        info->id = xstrdup(h->id);
        info->provider = xstrdup("slurm");
        info->status = SM_STATUS_STOPPED;
        info->failure.kind = SM_FAIL_NOT_FOUND;
        snprintf(info->failure.reason, sizeof info->failure.reason, "the sandbox is gone");
        return SM_OK;
    }
    if (slurm_job_query(jobid, &j) < 0) {
        slurm_info(sp, h->id, dir, &j, info);
        info->status = SM_STATUS_UNKNOWN;
        free(info->detail);
        info->detail = xstrdup("squeue did not answer");
    } else {
        slurm_info(sp, h->id, dir, &j, info);
    }
    free(dir);
    return SM_OK;
}

static int slurm_close(sm_provider *p, sm_handle *h, sm_error *err)
{
    slurm_provider *sp = p->impl;
    char *dir = slurm_rec_dir(sp, h->id);
    struct stat st;
    if (stat(dir, &st) != 0) {
        free(dir);
        return SM_OK;
    }
    int rc = cancel_job(slurm_rec_jobid(dir), err);
    if (rc == SM_OK)
        rc = remove_traces(sp, dir, err);
    free(dir);
    return rc;
}

static void slurm_handle_free(sm_provider *p, sm_handle *h)
{
    (void)p;
    h->raw = NULL;
}

static char *slurm_describe(sm_provider *p)
{
    slurm_provider *sp = p->impl;
    return xasprintf("partition %s, state %s, exec via %s, node-side %s",
                     sp->partition ? sp->partition : "(default)", sp->state_dir, sp->exec_path,
                     sp->sandman);
}

const sm_provider_ops sm_slurm_provider_ops = {
    .name = "slurm",
    .summary = "sandboxes as Slurm batch jobs, each a local sandbox on its node",
    .caps = SM_CAP_LIST,
    .config_keys = config_keys,
    .init = slurm_init,
    .destroy = slurm_destroy,
    .create = slurm_create,
    .exec = slurm_exec,
    .upload = slurm_upload,
    .download = slurm_download,
    .status = slurm_status,
    .close = slurm_close,
    .handle_free = slurm_handle_free,
    .list = slurm_list,
    .describe = slurm_describe,
};
