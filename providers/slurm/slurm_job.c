/* What a slurm sandbox is: the job's state and reason from the controller (squeue), combined
 * with the record the job writes in the shared state directory (ready, why the node's sandbox
 * ended, cancelled), for status and list. list also finds sandman jobs made from other state
 * directories by their name and comment (labels, hex-encoded JSON). */
#include <cjson/cJSON.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/util.h"
#include "providers/slurm/slurm.h"

static void copy_field(char *dst, size_t len, const char *src, size_t n)
{
    if (n >= len)
        n = len - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

/* Splits "a|b|c" into at most max fields (pointers into line, which is modified). */
static size_t split(char *line, char **f, size_t max)
{
    size_t n = 0;
    char *p = line;
    while (n < max) {
        f[n++] = p;
        char *bar = strchr(p, '|');
        if (!bar)
            break;
        *bar = '\0';
        p = bar + 1;
    }
    return n;
}

int slurm_job_query(long jobid, slurm_job *j)
{
    memset(j, 0, sizeof *j);
    char jid[32];
    snprintf(jid, sizeof jid, "%ld", jobid);
    char *argv[] = {"squeue", "-h", "-t", "all", "-j", jid, "-o", "%T|%r|%N", NULL};
    slurm_out o;
    int rc = slurm_run(argv, NULL, -1, -1, -1, &o);
    if (rc != 0) {
        bool forgotten = o.err && strstr(o.err, "Invalid job id");
        slurm_out_free(&o);
        return forgotten ? 0 : -1;
    }
    char *nl = strchr(o.out, '\n');
    if (nl)
        *nl = '\0';
    char *f[3];
    if (o.out[0] && split(o.out, f, 3) == 3) {
        copy_field(j->state, sizeof j->state, f[0], strlen(f[0]));
        copy_field(j->reason, sizeof j->reason, f[1], strlen(f[1]));
        copy_field(j->node, sizeof j->node, f[2], strlen(f[2]));
    }
    slurm_out_free(&o);
    return 0;
}

bool slurm_job_terminal(const char *s)
{
    return !*s || !strcmp(s, "COMPLETED") || !strcmp(s, "FAILED") || !strcmp(s, "TIMEOUT") ||
           !strcmp(s, "CANCELLED") || !strcmp(s, "OUT_OF_MEMORY") || !strcmp(s, "NODE_FAIL") ||
           !strcmp(s, "PREEMPTED") || !strcmp(s, "BOOT_FAIL") || !strcmp(s, "DEADLINE");
}

static double mtime_of(const char *dir, const char *name)
{
    char *path = xasprintf("%s/%s", dir, name);
    struct stat st;
    double t = stat(path, &st) == 0 ? st.st_mtim.tv_sec + st.st_mtim.tv_nsec / 1e9 : -1;
    free(path);
    return t;
}

static void fail(sm_sandbox_info *info, sm_status st, sm_failure_kind k, const char *state,
                 const char *fmt, const char *arg)
{
    info->status = st;
    info->failure.kind = k;
    snprintf(info->failure.reason, sizeof info->failure.reason, fmt, arg);
    snprintf(info->failure.provider_reason, sizeof info->failure.provider_reason, "%s", state);
}

/* The job's own view, when the node's sandbox left no end record. */
static void from_job(const char *dir, const slurm_job *j, sm_sandbox_info *info)
{
    const char *s = j->state;
    bool ready = slurm_rec_has(dir, "local_id");
    if (!strcmp(s, "PENDING") || !strcmp(s, "CONFIGURING")) {
        info->status = SM_STATUS_STARTING;
        info->detail = xasprintf("pending (%s)", j->reason[0] ? j->reason : "None");
    } else if (!strcmp(s, "RUNNING") || !strcmp(s, "COMPLETING")) {
        info->status = ready ? SM_STATUS_RUNNING : SM_STATUS_STARTING;
        if (!strcmp(s, "COMPLETING"))
            info->status = SM_STATUS_STOPPED;
    } else if (!strcmp(s, "TIMEOUT") || !strcmp(s, "DEADLINE")) {
        fail(info, SM_STATUS_STOPPED, SM_FAIL_TTL_EXPIRED, s, "the job hit its time limit (%s)", s);
    } else if (!strcmp(s, "CANCELLED")) {
        fail(info, SM_STATUS_STOPPED, SM_FAIL_KILLED_BY_USER, s, "the job was cancelled (%s)", s);
    } else if (!strcmp(s, "OUT_OF_MEMORY")) {
        fail(info, SM_STATUS_STOPPED, SM_FAIL_OOM, s, "the job ran out of memory (%s)", s);
    } else if (!strcmp(s, "NODE_FAIL") || !strcmp(s, "BOOT_FAIL")) {
        fail(info, SM_STATUS_ERROR, SM_FAIL_SANDBOX_ERROR, s, "node %s failed",
             j->node[0] ? j->node : "?");
    } else if (!strcmp(s, "PREEMPTED")) {
        fail(info, SM_STATUS_STOPPED, SM_FAIL_KILLED_BY_USER, s, "the job was preempted (%s)", s);
    } else if (!strcmp(s, "FAILED") || !strcmp(s, "COMPLETED") || !*s) {
        char *why = slurm_rec_read(dir, "create.err");
        if (slurm_rec_has(dir, "failed"))
            fail(info, SM_STATUS_ERROR, SM_FAIL_CREATE_FAILED, s[0] ? s : "gone",
                 "the node's sandbox could not start: %s", why && *why ? why : "unknown");
        else if (!*s)
            fail(info, SM_STATUS_STOPPED, SM_FAIL_SANDBOX_ERROR, "gone",
                 "the controller no longer knows the job%s", "");
        else if (!strcmp(s, "FAILED"))
            fail(info, SM_STATUS_STOPPED, SM_FAIL_SANDBOX_ERROR, s, "the job failed (%s)",
                 j->reason);
        else
            info->status = SM_STATUS_STOPPED;
        free(why);
    } else {
        info->status = SM_STATUS_UNKNOWN;
        info->detail = xasprintf("job state %s", s);
    }
}

void slurm_info(const slurm_provider *sp, const char *id, const char *dir, const slurm_job *j,
                sm_sandbox_info *info)
{
    (void)sp;
    sm_sandbox_info_init(info);
    info->id = xstrdup(id);
    info->provider = xstrdup("slurm");
    char *text = slurm_rec_read(dir, "meta.json");
    cJSON *m = text ? cJSON_Parse(text) : NULL;
    free(text);
    const cJSON *v;
    if ((v = cJSON_GetObjectItemCaseSensitive(m, "created_at")) && cJSON_IsNumber(v))
        info->created_at = v->valuedouble;
    if ((v = cJSON_GetObjectItemCaseSensitive(m, "ttl_s")) && cJSON_IsNumber(v))
        info->ttl_s = v->valuedouble;
    if ((v = cJSON_GetObjectItemCaseSensitive(m, "image")) && cJSON_IsString(v))
        info->image = xstrdup(v->valuestring);
    if ((v = cJSON_GetObjectItemCaseSensitive(m, "workdir")) && cJSON_IsString(v))
        info->workdir = xstrdup(v->valuestring);
    if ((v = cJSON_GetObjectItemCaseSensitive(m, "labels")))
        sm_map_from_json(v, &info->labels, NULL, 0);
    if ((v = cJSON_GetObjectItemCaseSensitive(m, "resources")))
        sm_resources_from_json(v, &info->resources, NULL);
    info->ready_at = mtime_of(dir, "local_id");
    char *node = slurm_rec_read(dir, "node");
    char *end = slurm_rec_read(dir, "end.json");
    cJSON *e = end ? cJSON_Parse(end) : NULL;
    free(end);
    if (slurm_rec_has(dir, "cancelled")) {
        fail(info, SM_STATUS_STOPPED, SM_FAIL_KILLED_BY_USER, j->state, "the job was cancelled%s",
             "");
        info->ended_at = mtime_of(dir, "cancelled");
    } else if (e) {
        info->status = SM_STATUS_STOPPED;
        const cJSON *f = cJSON_GetObjectItemCaseSensitive(e, "failure");
        if (cJSON_IsObject(f))
            sm_failure_from_json(f, &info->failure);
        info->ended_at = mtime_of(dir, "end.json");
    } else {
        from_job(dir, j, info);
        if (info->status == SM_STATUS_STOPPED || info->status == SM_STATUS_ERROR)
            info->ended_at = mtime_of(dir, "job.out");
    }
    if (info->failure.kind != SM_FAIL_NONE) {
        snprintf(info->failure.operation, sizeof info->failure.operation, "job");
        snprintf(info->failure.sandbox_id, sizeof info->failure.sandbox_id, "%s", id);
        snprintf(info->failure.provider, sizeof info->failure.provider, "slurm");
    }
    info->extra = cJSON_CreateObject();
    cJSON_AddNumberToObject(info->extra, "job_id", slurm_rec_jobid(dir));
    cJSON_AddStringToObject(info->extra, "job_state", j->state[0] ? j->state : "gone");
    if (j->reason[0] && strcmp(j->reason, "None"))
        cJSON_AddStringToObject(info->extra, "job_reason", j->reason);
    const char *nd = j->node[0] ? j->node : node;
    if (nd && *nd)
        cJSON_AddStringToObject(info->extra, "node", nd);
    char *lid = slurm_rec_read(dir, "local_id");
    if (lid)
        cJSON_AddStringToObject(info->extra, "local_id", lid);
    free(lid);
    free(node);
    cJSON_Delete(e);
    cJSON_Delete(m);
}

static bool labels_match(const sm_map *want, const sm_map *have)
{
    for (size_t i = 0; want && i < want->n; i++) {
        const char *v = sm_map_get(have, want->items[i].key);
        if (!v || strcmp(v, want->items[i].value))
            return false;
    }
    return true;
}

static int hexval(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* A job made by sandman from another state directory: what its name and comment say. */
static void from_comment(const char *id, const char *state, const char *reason, const char *node,
                         const char *comment, sm_sandbox_info *info)
{
    sm_sandbox_info_init(info);
    info->id = xstrdup(id);
    info->provider = xstrdup("slurm");
    slurm_job j;
    memset(&j, 0, sizeof j);
    copy_field(j.state, sizeof j.state, state, strlen(state));
    copy_field(j.reason, sizeof j.reason, reason, strlen(reason));
    copy_field(j.node, sizeof j.node, node, strlen(node));
    from_job("/nonexistent", &j, info);
    if (info->status == SM_STATUS_STARTING && !strcmp(state, "RUNNING"))
        info->status = SM_STATUS_RUNNING;
    if (sm_str_has_prefix(comment, "sandman:")) {
        const char *h = comment + 8;
        size_t n = strlen(h) / 2;
        char *js = xcalloc(n + 1, 1);
        for (size_t i = 0; i < n; i++) {
            int a = hexval(h[2 * i]), b = hexval(h[2 * i + 1]);
            js[i] = (char)(a < 0 || b < 0 ? ' ' : a * 16 + b);
        }
        cJSON *l = cJSON_Parse(js);
        if (l)
            sm_map_from_json(l, &info->labels, NULL, 0);
        cJSON_Delete(l);
        free(js);
    }
    info->extra = cJSON_CreateObject();
    cJSON_AddStringToObject(info->extra, "job_state", state);
    if (*node)
        cJSON_AddStringToObject(info->extra, "node", node);
}

int slurm_list(sm_provider *p, const sm_list_filter *f, sm_sandbox_info **out, size_t *n,
               sm_error *err)
{
    slurm_provider *sp = p->impl;
    *out = NULL;
    *n = 0;
    char *argv[] = {"squeue", "-h", "-a", "-t", "all", "-o", "%i|%j|%T|%r|%N|%k", NULL};
    slurm_out o;
    if (slurm_run(argv, NULL, -1, -1, -1, &o) != 0) {
        int rc = sm_error_set(err, SM_ERR_RUNTIME, SM_FAIL_PROVIDER_UNREACHABLE,
                              "squeue failed: %s", o.err ? o.err : "");
        slurm_out_free(&o);
        return rc;
    }
    sm_sandbox_info *list = NULL;
    size_t cnt = 0;
    char *save = NULL;
    for (char *line = strtok_r(o.out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char *fl[6];
        if (split(line, fl, 6) < 6 || !sm_str_has_prefix(fl[1], "sandman-"))
            continue;
        const char *id = fl[1] + 8;
        char *dir = slurm_rec_dir(sp, id);
        sm_sandbox_info info;
        if (slurm_rec_jobid(dir) == atol(fl[0])) {
            slurm_job j;
            memset(&j, 0, sizeof j);
            copy_field(j.state, sizeof j.state, fl[2], strlen(fl[2]));
            copy_field(j.reason, sizeof j.reason, fl[3], strlen(fl[3]));
            copy_field(j.node, sizeof j.node, fl[4], strlen(fl[4]));
            slurm_info(sp, id, dir, &j, &info);
        } else if (!slurm_job_terminal(fl[2])) {
            /* made from another state directory (or by another user): what the job says */
            from_comment(id, fl[2], fl[3], fl[4], fl[5], &info);
        } else {
            free(dir); /* an ended job whose record is gone (removed, or not ours) */
            continue;
        }
        free(dir);
        bool ended = info.status == SM_STATUS_STOPPED || info.status == SM_STATUS_ERROR;
        if ((ended && !f->all) || !labels_match(f->labels, &info.labels)) {
            sm_sandbox_info_free(&info);
            continue;
        }
        list = xrealloc(list, (cnt + 1) * sizeof *list);
        list[cnt++] = info;
    }
    slurm_out_free(&o);
    /* Records whose job the controller has forgotten: ended ones. */
    char *root = xasprintf("%s/slurm", sp->state_dir);
    DIR *d = f->all ? opendir(root) : NULL;
    struct dirent *de;
    while (d && (de = readdir(d))) {
        if (de->d_name[0] == '.')
            continue;
        bool seen = false;
        for (size_t i = 0; i < cnt && !seen; i++)
            seen = !strcmp(list[i].id, de->d_name);
        if (seen)
            continue;
        char *dir = xasprintf("%s/%s", root, de->d_name);
        slurm_job j;
        memset(&j, 0, sizeof j);
        sm_sandbox_info info;
        slurm_info(sp, de->d_name, dir, &j, &info);
        free(dir);
        if (!labels_match(f->labels, &info.labels)) {
            sm_sandbox_info_free(&info);
            continue;
        }
        list = xrealloc(list, (cnt + 1) * sizeof *list);
        list[cnt++] = info;
    }
    if (d)
        closedir(d);
    free(root);
    sm_sandbox_info_sort(list, cnt);
    *out = list;
    *n = cnt;
    return SM_OK;
}
