/* The docker provider's exec operation (docker_exec.h). From a handle's second command on, a
 * command goes to the handle's exec helper (docker_executor.c) when the helper can run it the
 * same way; otherwise it is one exec instance (docker_run.c). A command killed with 137 is
 * checked against the container's OOM counter, so that memory is blamed only when it was
 * memory. */
#include "providers/docker/docker_exec.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/json.h"
#include "core/util.h"
#include "providers/docker/docker_executor.h"

/* The container's OOM-kill counter as its own cgroup shows it (v2 memory.events, v1
 * memory.oom_control); -1 when unreadable. */
static long long oom_counter(docker_provider *dp, const char *cid)
{
    const char *argv[] = {dp->cfg.keepalive_shell, "-c",
                          "cat /sys/fs/cgroup/memory.events "
                          "/sys/fs/cgroup/memory/memory.oom_control 2>/dev/null",
                          NULL};
    sm_strbuf out = {0};
    docker_run r = {
        .argv = argv, .user = "0", .timeout_s = 10, .stdout_fd = -1, .stderr_fd = -1, .out = &out};
    long long best = -1;
    if (docker_exec_run(dp, cid, &r, NULL) == SM_OK && !r.timed_out && out.data) {
        for (char *l = out.data; l && *l;) {
            long long v;
            if (sscanf(l, "oom_kill %lld", &v) == 1 && v > best)
                best = v;
            l = strchr(l, '\n');
            if (l)
                l++;
        }
    }
    sm_strbuf_free(&out);
    return best;
}

/* OOM kills already attributed to earlier commands, kept beside the state of other sandman
 * processes (<state>/docker/oom/<id>) so that a later plain SIGKILL is not blamed on memory
 * by the next `sandman exec`. */
static char *oom_file(const char *cid)
{
    return xasprintf("%s/docker/oom/%.64s", sm_state_dir(), cid);
}

static long long oom_recorded(const char *cid)
{
    char *path = oom_file(cid), buf[32];
    long v = -1;
    if (sm_read_small(path, buf, sizeof buf) < 0 || sm_parse_long(buf, &v) < 0)
        v = -1;
    free(path);
    return v;
}

static void oom_record(const char *cid, long long count)
{
    char *path = oom_file(cid), *dir = xasprintf("%s/docker/oom", sm_state_dir()), buf[32];
    snprintf(buf, sizeof buf, "%lld\n", count);
    if (sm_mkdir_p(dir, 0700) == 0)
        sm_write_file_atomic(path, buf, strlen(buf), 0600);
    free(dir);
    free(path);
}

long long docker_oom_known(docker_provider *dp, sm_handle *h)
{
    docker_cache *c = docker_cache_get(dp, h, NULL);
    long long v = oom_recorded(h->id);
    return c && c->oom_seen > v ? c->oom_seen : v;
}

void docker_oom_forget(const char *cid)
{
    char *path = oom_file(cid);
    unlink(path);
    free(path);
}

/* Was a command that ended with 137 (SIGKILL) killed by the OOM killer? Docker sets
 * State.OOMKilled on any OOM event in the container; podman only for the main process, so the
 * container's cgroup counter is read too and compared with the kills already attributed (this
 * handle's count, else the recorded one, else 0). */
static bool exec_was_oom(docker_provider *dp, sm_handle *h, long long *kills, long long *limit)
{
    cJSON *insp = NULL;
    *kills = -1;
    *limit = -1;
    if (docker_inspect(dp, h->id, &insp, NULL) != SM_OK)
        return false;
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(insp, "State");
    const cJSON *hc = cJSON_GetObjectItemCaseSensitive(insp, "HostConfig");
    bool flagged = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(st, "OOMKilled"));
    double mem = sm_json_num(hc, "Memory", 0);
    *limit = mem > 0 ? (long long)mem : -1;
    cJSON_Delete(insp);
    docker_cache *c = docker_cache_get(dp, h, NULL);
    bool oom = false;
    long long now = mem > 0 ? oom_counter(dp, h->id) : -1;
    if (now >= 0) {
        long long base = (c && c->oom_seen >= 0) ? c->oom_seen : oom_recorded(h->id);
        if (base < 0)
            base = 0;
        if (now > base) {
            *kills = now - base;
            oom = true;
            oom_record(h->id, now);
        }
        if (c)
            c->oom_seen = now;
    } else if (flagged) {
        /* no counter to compare with: Docker's flag is the only evidence */
        oom = true;
        *kills = 1;
    }
    return oom;
}

int docker_exec(sm_provider *p, sm_handle *h, const sm_exec_request *req, sm_exec_result *res,
                sm_error *err)
{
    docker_provider *dp = p->impl;
    double t0 = sm_now_mono();
    double timeout = req->timeout_s > 0 ? req->timeout_s : dp->cfg.default_timeout_s;
    /* exec.exec_shell, else (the seed's default) bash when the container has it, else sh */
    const char *pinned[] = {dp->cfg.exec_shell, "-c", req->cmd, NULL};
    const char *pwd = req->env ? sm_map_get(req->env, "PWD") : NULL;
    const char *lvl = req->env ? sm_map_get(req->env, "SHLVL") : NULL;
    char *auto_sh = xasprintf("unset PWD SHLVL;%s%s " DOCKER_AUTO_SHELL,
                              pwd ? " export PWD=\"$2\";" : "", lvl ? " export SHLVL=\"$3\";" : "");
    const char *detect[] = {dp->cfg.keepalive_shell, "-c",           auto_sh, "sh", req->cmd,
                            pwd ? pwd : "",          lvl ? lvl : "", NULL};
    sm_strbuf out = {0}, errb = {0};
    docker_run r = {.argv = dp->cfg.exec_shell ? pinned : detect,
                    .cwd = req->cwd,
                    .env = req->env,
                    .user = req->user,
                    .extra_args = dp->cfg.extra_exec_args,
                    .timeout_s = timeout,
                    .stdout_fd = req->stdout_fd,
                    .stderr_fd = req->stderr_fd,
                    .with_stdin = req->stdin_fd >= 0,
                    .stdin_fd = req->stdin_fd,
                    .out = &out,
                    .errb = &errb};
    /* The handle's exec helper when it can run the command as an exec would (it knows no
     * extra exec flags and reads no stdin of ours); else (and for a handle's first command)
     * an exec instance. */
    int rc = r.with_stdin || (dp->cfg.extra_exec_args && dp->cfg.extra_exec_args[0])
                 ? DOCKER_EXECUTOR_DECLINED
                 : docker_executor_run(dp, h, req->cmd, &r, err);
    if (rc == DOCKER_EXECUTOR_DECLINED) {
        r.timeout_s = timeout - (sm_now_mono() - t0);
        if (r.timeout_s < 0.01)
            r.timeout_s = 0.01;
        rc = docker_exec_run(dp, h->id, &r, err);
    }
    free(auto_sh);
    sm_failure *f = &res->failure;
    snprintf(f->operation, sizeof f->operation, "exec");
    snprintf(f->sandbox_id, sizeof f->sandbox_id, "%s", h->id);
    snprintf(f->provider, sizeof f->provider, "docker");
    for (int i = 0; i < 2; i++)
        if (r.dropped[i])
            sm_strbuf_printf(&errb,
                             "\nsandman: the command's %s was cut at %u MiB (%zu bytes "
                             "dropped)\n",
                             i ? "stderr" : "stdout", DOCKER_CAPTURE_MAX >> 20, r.dropped[i]);
    if (req->stdout_fd < 0) {
        res->out_len = out.len;
        res->out = sm_strbuf_take(&out);
    }
    if (req->stderr_fd < 0) {
        res->err_len = errb.len;
        res->err = sm_strbuf_take(&errb);
    }
    sm_strbuf_free(&out);
    sm_strbuf_free(&errb);
    if (rc != SM_OK) {
        if (err)
            snprintf(err->failure.operation, sizeof err->failure.operation, "exec");
        res->duration_s = sm_now_mono() - t0;
        return rc;
    }
    if (r.timed_out) {
        sm_exec_result_timed_out(res, timeout);
        res->duration_s = sm_now_mono() - t0;
        return SM_OK;
    }
    res->return_code = r.code;
    f->exit_code = r.code;
    long long kills = -1, limit = -1;
    bool oom = r.code == 137 && exec_was_oom(dp, h, &kills, &limit);
    f->signal = docker_exit_signal(r.code);
    f->kind = sm_failure_classify_exit(r.code, f->signal, oom ? kills : -1, -1, false);
    if (f->kind == SM_FAIL_OOM) {
        f->oom_kills = kills;
        f->memory_limit = limit;
        snprintf(f->reason, sizeof f->reason,
                 "the command hit the sandbox's memory limit and was OOM killed");
    }
    if (f->kind == SM_FAIL_NONE)
        sm_failure_init(f);
    res->duration_s = sm_now_mono() - t0;
    return SM_OK;
}
