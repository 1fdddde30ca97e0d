/* The sandbox facade: lifecycle, exec and transfer over any provider, with journaling. */
#include "core/sandbox.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/attribution.h"
#include "core/journal.h"
#include "core/json.h"
#include "core/otel.h"
#include "core/output.h"
#include "core/provider_impl.h"
#include "core/redact.h"
#include "core/util.h"

struct sm_sandbox {
    sm_provider *provider;
    bool owns_provider;
    sm_handle *handle;
    sm_spec spec;
    bool have_spec;
    bool stopped;
};

sm_sandbox *sm_sandbox_new(sm_provider *p, bool owns_provider)
{
    sm_sandbox *s = xcalloc(1, sizeof *s);
    s->provider = p;
    s->owns_provider = owns_provider;
    sm_spec_init(&s->spec);
    return s;
}

void sm_sandbox_free(sm_sandbox *s)
{
    if (!s)
        return;
    sm_handle_free(s->provider, s->handle);
    sm_spec_free(&s->spec);
    if (s->owns_provider)
        sm_provider_free(s->provider);
    free(s);
}

const char *sm_sandbox_id(const sm_sandbox *s)
{
    return s->handle ? s->handle->id : NULL;
}

const char *sm_sandbox_warning(const sm_sandbox *s)
{
    return s->handle ? s->handle->warning : NULL;
}

sm_provider *sm_sandbox_provider(const sm_sandbox *s)
{
    return s->provider;
}

struct sm_handle *sm_sandbox_handle(const sm_sandbox *s)
{
    return s->stopped ? NULL : s->handle;
}

static const char *pname(const sm_sandbox *s)
{
    return s->provider->ops->name;
}

static int need_handle(sm_sandbox *s, sm_error *err)
{
    if (s->stopped)
        return sm_error_set(err, SM_ERR_CLOSED, SM_FAIL_INVALID_REQUEST, "sandbox %s was stopped",
                            s->handle ? s->handle->id : "");
    if (!s->handle)
        return sm_error_set(err, SM_ERR_STATE, SM_FAIL_INVALID_REQUEST, "sandbox is not started");
    return SM_OK;
}

static void fill_failure_ids(sm_sandbox *s, sm_failure *f, const char *op)
{
    if (!f->operation[0])
        snprintf(f->operation, sizeof f->operation, "%s", op);
    if (!f->sandbox_id[0] && s->handle)
        snprintf(f->sandbox_id, sizeof f->sandbox_id, "%s", s->handle->id);
    if (!f->provider[0])
        snprintf(f->provider, sizeof f->provider, "%s", pname(s));
}

static void journal_error(sm_sandbox *s, const char *op, sm_error *err)
{
    if (!s->handle || !err)
        return;
    fill_failure_ids(s, &err->failure, op);
    sm_journal_failure(pname(s), s->handle->id, &err->failure);
}

/* Ends an operation's span (core/otel.h: nothing when export is off). */
static void span_end(sm_sandbox *s, sm_otel_span *sp, int rc, const sm_error *err)
{
    sm_otel_span_end(sp, s->handle ? s->handle->id : NULL, rc == SM_OK,
                     rc != SM_OK && err ? err->msg : NULL);
}

/* Writes one spec.files entry through a temp file and the provider's upload. */
static int write_spec_file(sm_sandbox *s, const char *remote, const char *text, sm_error *err)
{
    char tmp[] = "/tmp/sandman-file-XXXXXX";
    int fd = mkstemp(tmp);
    if (fd < 0)
        return sm_error_set(err, SM_ERR_IO, SM_FAIL_TRANSFER_FAILED,
                            "files: cannot create a temp file: %s", strerror(errno));
    /* Uploads keep the source's mode: a task file must be readable by whoever the agent
     * runs as, not only by root (mkstemp makes it 0600). */
    fchmod(fd, 0644);
    size_t n = strlen(text);
    ssize_t w = write(fd, text, n);
    close(fd);
    int rc;
    if (w != (ssize_t)n)
        rc = sm_error_set(err, SM_ERR_IO, SM_FAIL_TRANSFER_FAILED,
                          "files: cannot write a temp file for %s", remote);
    else
        rc = s->provider->ops->upload(s->provider, s->handle, tmp, remote, err);
    unlink(tmp);
    if (rc != SM_OK)
        sm_error_prefix(err, "files: writing %s", remote);
    return rc;
}

int sm_sandbox_start(sm_sandbox *s, const sm_spec *spec_in, sm_error *err)
{
    if (s->stopped)
        return sm_error_set(err, SM_ERR_CLOSED, SM_FAIL_INVALID_REQUEST,
                            "this sandbox was stopped and cannot be started again");
    if (s->handle)
        return sm_error_set(err, SM_ERR_STATE, SM_FAIL_INVALID_REQUEST,
                            "sandbox %s is already running", s->handle->id);
    if (!spec_in)
        return sm_error_set(err, SM_ERR_INVALID, SM_FAIL_INVALID_REQUEST,
                            "start needs a sandbox spec");
    if (sm_spec_validate(spec_in, err) != SM_OK)
        return SM_ERR_INVALID;

    sm_spec_free(&s->spec);
    sm_spec_copy(&s->spec, spec_in);
    s->have_spec = true;
    /* Labels: explicit metadata wins over the context's default_metadata, which wins over
     * attribution. */
    sm_map_merge_under(&s->spec.metadata, &s->provider->default_metadata);
    /* A label named like a credential (--label api_token=...) is a secret wherever it came
     * from: never printed, journalled or recorded. */
    sm_redact_register_map(&s->spec.metadata);
    sm_attribution attr;
    sm_attribution_resolve(NULL, &attr);
    sm_attribution_to_labels(&attr, SM_ATTRIBUTION_PREFIX, &s->spec.metadata);
    sm_attribution_free(&attr);
    if (s->spec.image && s->provider->image_rewrites.n) {
        char *img = sm_rewrite_image(s->spec.image, &s->provider->image_rewrites);
        free(s->spec.image);
        s->spec.image = img;
    }

    sm_otel_span sp;
    sm_otel_span_begin(&sp, "gym.sandbox.start", pname(s));
    sm_otel_span_str(&sp, "nemo.gym.sandbox.image", s->spec.image);
    double t0 = sm_now_mono();
    int rc = s->provider->ops->create(s->provider, &s->spec, &s->handle, err);
    if (rc != SM_OK) {
        if (err && err->failure.kind == SM_FAIL_NONE)
            err->failure.kind = SM_FAIL_CREATE_FAILED;
        span_end(s, &sp, rc, err);
        return rc;
    }
    sm_otel_sandbox_started(pname(s), (sm_now_mono() - t0) * 1000.0);
    cJSON *fields = cJSON_CreateObject();
    cJSON_AddStringToObject(fields, "context", s->provider->context);
    cJSON_AddItemToObject(fields, "spec", sm_spec_to_json(&s->spec, false));
    cJSON_AddNumberToObject(fields, "duration_ms", (sm_now_mono() - t0) * 1000.0);
    sm_journal_append(pname(s), s->handle->id, "lifecycle", "created", fields);

    for (size_t i = 0; i < s->spec.files.n; i++) {
        rc = write_spec_file(s, s->spec.files.items[i].key, s->spec.files.items[i].value, err);
        if (rc != SM_OK) {
            /* Roll back: a half-made sandbox must not outlive a failed start. */
            if (err)
                err->failure.kind = SM_FAIL_CREATE_FAILED;
            sm_error ignore;
            sm_error_clear(&ignore);
            s->provider->ops->close(s->provider, s->handle, &ignore);
            sm_journal_remove(pname(s), s->handle->id);
            sm_output_remove(pname(s), s->handle->id);
            sm_otel_sandbox_stopped(pname(s));
            span_end(s, &sp, rc, err);
            sm_handle_free(s->provider, s->handle);
            s->handle = NULL;
            s->stopped = true;
            return rc;
        }
    }
    span_end(s, &sp, SM_OK, err);
    return SM_OK;
}

int sm_sandbox_open(sm_sandbox *s, const char *id_or_prefix, sm_error *err)
{
    char *full = NULL;
    int rc = sm_provider_resolve_id(s->provider, id_or_prefix, &full, err);
    if (rc != SM_OK)
        return rc;
    cJSON *desc = cJSON_CreateObject();
    cJSON_AddStringToObject(desc, "sandbox_id", full);
    free(full);
    rc = sm_sandbox_connect(s, desc, err);
    cJSON_Delete(desc);
    return rc;
}

cJSON *sm_sandbox_serialize(sm_sandbox *s)
{
    if (!s->handle)
        return NULL;
    cJSON *d =
        s->provider->ops->serialize ? s->provider->ops->serialize(s->provider, s->handle) : NULL;
    if (!d) {
        d = cJSON_CreateObject();
        cJSON_AddStringToObject(d, "sandbox_id", s->handle->id);
    }
    cJSON_AddStringToObject(d, "provider", pname(s));
    if (s->have_spec && s->spec.workdir)
        cJSON_AddStringToObject(d, "workdir", s->spec.workdir);
    return d;
}

int sm_sandbox_connect(sm_sandbox *s, const cJSON *descriptor, sm_error *err)
{
    if (s->handle)
        return sm_error_set(err, SM_ERR_STATE, SM_FAIL_INVALID_REQUEST,
                            "sandbox facade is already bound to %s", s->handle->id);
    const char *id = sm_json_str(descriptor, "sandbox_id");
    if (!s->provider->ops->connect) {
        if (!id)
            return sm_error_set(err, SM_ERR_INVALID, SM_FAIL_INVALID_REQUEST,
                                "descriptor has no sandbox_id");
        s->handle = sm_handle_new(id, pname(s));
    } else {
        int rc = s->provider->ops->connect(s->provider, descriptor, &s->handle, err);
        if (rc != SM_OK)
            return rc;
    }
    const char *wd = sm_json_str(descriptor, "workdir");
    if (wd) {
        free(s->spec.workdir);
        s->spec.workdir = xstrdup(wd);
        s->have_spec = true;
    }
    return SM_OK;
}

/* Commands are journaled whole up to 4 KiB, so a replay script can run them again. */
static char *short_cmd(const char *cmd)
{
    size_t n = strlen(cmd);
    if (n <= 4096)
        return xstrdup(cmd);
    return xasprintf("%.4093s...", cmd);
}

/* Keeps the command's output with the sandbox and names its last stderr line in the failure's
 * reason; returns the kept output's number (-1 when none was kept). */
static int keep_output(sm_sandbox *s, const sm_exec_request *req, sm_output_tee *tee,
                       sm_exec_result *res, double started)
{
    sm_output_tail out, err;
    size_t cap = (size_t)sm_output_cap();
    if (tee) {
        sm_output_tee_finish(tee, &out, &err);
    } else {
        sm_output_tail_init(&out, cap);
        sm_output_tail_init(&err, cap);
    }
    if (req->stdout_fd < 0 && res->out)
        sm_output_tail_feed(&out, res->out, res->out_len);
    if (req->stderr_fd < 0 && res->err)
        sm_output_tail_feed(&err, res->err, res->err_len);
    sm_failure_kind k = res->failure.kind;
    if (!res->error_type && err.data &&
        (k == SM_FAIL_EXIT_NONZERO || k == SM_FAIL_SIGNALED || k == SM_FAIL_OOM ||
         k == SM_FAIL_PIDS_LIMIT))
        sm_failure_reason_from_stderr(&res->failure, err.data, err.len);
    int n = sm_output_keep_exec(pname(s), s->handle->id, req->cmd, started,
                                res->duration_s * 1000.0, res->return_code, &out, &err);
    sm_output_tail_free(&out);
    sm_output_tail_free(&err);
    return n;
}

int sm_sandbox_exec(sm_sandbox *s, const sm_exec_request *req_in, sm_exec_result *res,
                    sm_error *err)
{
    sm_exec_result_init(res);
    sm_failure f;
    sm_failure_init(&f);
    int rc = need_handle(s, err);
    if (rc == SM_OK && (!req_in || !req_in->cmd || !*req_in->cmd))
        rc = sm_error_set(err, SM_ERR_INVALID, SM_FAIL_INVALID_REQUEST,
                          "exec needs a non-empty command");
    if (rc == SM_OK)
        rc = sm_exec_timeout_validate(req_in->timeout_s, err);
    if (rc != SM_OK) {
        f.kind = SM_FAIL_INVALID_REQUEST;
        sm_exec_result_runtime(res, "sandbox", &f);
        return rc;
    }
    sm_exec_request req = *req_in;
    if (!req.cwd && s->have_spec)
        req.cwd = s->spec.workdir;
    /* timeout_s <= 0: the provider's default (its exec.default_timeout_s, 180 s unless set) */

    sm_otel_span sp;
    sm_otel_span_begin(&sp, "gym.sandbox.exec", pname(s));
    double t0 = sm_now_mono(), started = sm_now_wall();
    sm_exec_request streamed = req; /* the caller's descriptors, before the tee takes them */
    sm_output_tee *tee =
        sm_output_tee_start(&req.stdout_fd, &req.stderr_fd, (size_t)sm_output_cap());
    rc = s->provider->ops->exec(s->provider, s->handle, &req, res, err);
    if (res->duration_s <= 0)
        res->duration_s = sm_now_mono() - t0;
    if (rc != SM_OK && res->error_type == NULL) {
        /* The provider could not run the command: seed says 125 + "sandbox" (or "timeout"). */
        f = err ? err->failure : f;
        if (f.kind == SM_FAIL_NONE)
            f.kind = SM_FAIL_SANDBOX_ERROR;
        sm_exec_result_runtime(res, rc == SM_ERR_TIMEOUT ? "timeout" : "sandbox", &f);
        if (!res->err && err) {
            res->err = xstrdup(err->msg);
            res->err_len = strlen(res->err);
        }
    }
    fill_failure_ids(s, &res->failure, "exec");
    int kept = keep_output(s, &streamed, tee, res, started);
    /* the command itself is never an attribute: it is task content (as the seed) */
    sm_otel_exec_duration(pname(s), res->duration_s * 1000.0);
    sm_otel_span_int(&sp, "nemo.gym.sandbox.return_code", res->return_code);
    sm_otel_span_str(&sp, "nemo.gym.sandbox.error_type", res->error_type);
    if (res->failure.kind != SM_FAIL_NONE)
        sm_otel_span_str(&sp, "nemo.gym.sandbox.failure_kind",
                         sm_failure_kind_name(res->failure.kind));
    span_end(s, &sp, rc, err);

    cJSON *fields = cJSON_CreateObject();
    char *c = short_cmd(req.cmd);
    cJSON_AddStringToObject(fields, "cmd", c);
    free(c);
    if (kept > 0)
        cJSON_AddNumberToObject(fields, "output", kept);
    if (req_in->cwd)
        cJSON_AddStringToObject(fields, "cwd", req_in->cwd);
    if (req.user)
        cJSON_AddStringToObject(fields, "user", req.user);
    if (req.timeout_s > 0)
        cJSON_AddNumberToObject(fields, "timeout_s", req.timeout_s);
    if (req.env && req.env->n) { /* names only: a replay takes the values from its env */
        cJSON *names = cJSON_AddArrayToObject(fields, "env");
        for (size_t i = 0; i < req.env->n; i++)
            cJSON_AddItemToArray(names, cJSON_CreateString(req.env->items[i].key));
    }
    cJSON_AddNumberToObject(fields, "return_code", res->return_code);
    if (res->error_type)
        cJSON_AddStringToObject(fields, "error_type", res->error_type);
    cJSON_AddNumberToObject(fields, "duration_ms", res->duration_s * 1000.0);
    if (res->failure.kind != SM_FAIL_NONE)
        cJSON_AddItemToObject(fields, "failure", sm_failure_to_json(&res->failure));
    sm_journal_append(pname(s), s->handle->id, "exec", "exec", fields);
    if (sm_failure_kind_is_failure(res->failure.kind) && res->failure.kind != SM_FAIL_EXIT_NONZERO)
        sm_journal_failure(pname(s), s->handle->id, &res->failure);
    return rc;
}

static int transfer(sm_sandbox *s, bool up, const char *local, const char *remote, sm_error *err)
{
    int rc = need_handle(s, err);
    if (rc != SM_OK)
        return rc;
    if (!local || !*local || !remote || !*remote)
        return sm_error_set(err, SM_ERR_INVALID, SM_FAIL_INVALID_REQUEST,
                            "%s needs a local and a remote path", up ? "upload" : "download");
    sm_otel_span sp;
    sm_otel_span_begin(&sp, up ? "gym.sandbox.upload" : "gym.sandbox.download", pname(s));
    sm_otel_span_str(&sp, "nemo.gym.sandbox.remote_path", remote);
    double t0 = sm_now_mono();
    rc = up ? s->provider->ops->upload(s->provider, s->handle, local, remote, err)
            : s->provider->ops->download(s->provider, s->handle, remote, local, err);
    cJSON *fields = cJSON_CreateObject();
    cJSON_AddStringToObject(fields, "local", local);
    cJSON_AddStringToObject(fields, "remote", remote);
    cJSON_AddNumberToObject(fields, "duration_ms", (sm_now_mono() - t0) * 1000.0);
    if (rc == SM_OK) {
        struct stat st;
        if (stat(local, &st) == 0) {
            cJSON_AddNumberToObject(fields, "bytes", (double)st.st_size);
            sm_otel_span_int(&sp, "nemo.gym.sandbox.bytes", (long long)st.st_size);
        }
        sm_journal_append(pname(s), s->handle->id, "transfer", up ? "upload" : "download", fields);
    } else {
        cJSON_Delete(fields);
        if (err && err->failure.kind == SM_FAIL_NONE)
            err->failure.kind = SM_FAIL_TRANSFER_FAILED;
        journal_error(s, up ? "upload" : "download", err);
    }
    span_end(s, &sp, rc, err);
    return rc;
}

int sm_sandbox_upload(sm_sandbox *s, const char *local, const char *remote, sm_error *err)
{
    return transfer(s, true, local, remote, err);
}

int sm_sandbox_download(sm_sandbox *s, const char *remote, const char *local, sm_error *err)
{
    return transfer(s, false, local, remote, err);
}

/* An end the provider reports but nobody journaled (a supervisor that died, a container the
 * runtime ended) is journaled by the first who sees it, so events tells what status tells. */
static void journal_end_once(sm_sandbox *s, const sm_sandbox_info *i)
{
    if ((i->status != SM_STATUS_STOPPED && i->status != SM_STATUS_ERROR) ||
        !sm_failure_kind_is_failure(i->failure.kind))
        return;
    cJSON *tail = NULL; /* only the lines that name an end are parsed */
    sm_journal_read_tail(pname(s), s->handle->id, 64 * 1024, "\"ended\"", &tail);
    bool recorded = false;
    const cJSON *ev;
    cJSON_ArrayForEach(ev, tail)
    {
        const char *e = sm_json_str(ev, "event");
        if ((recorded = e && !strcmp(e, "ended")))
            break;
    }
    cJSON_Delete(tail);
    if (recorded)
        return;
    cJSON *fields = cJSON_CreateObject();
    sm_failure f = i->failure;
    fill_failure_ids(s, &f, "lifecycle");
    cJSON_AddItemToObject(fields, "failure", sm_failure_to_json(&f));
    sm_journal_append(pname(s), s->handle->id, "lifecycle", "ended", fields);
}

sm_status sm_sandbox_status(sm_sandbox *s, sm_sandbox_info *info, sm_error *err)
{
    sm_sandbox_info tmp;
    sm_sandbox_info *i = info ? info : &tmp;
    sm_sandbox_info_init(i);
    if (!s->handle)
        return SM_STATUS_UNKNOWN;
    if (s->stopped) {
        i->status = SM_STATUS_STOPPED;
        return SM_STATUS_STOPPED;
    }
    if (s->provider->ops->status(s->provider, s->handle, i, err) != SM_OK)
        i->status = SM_STATUS_UNKNOWN;
    journal_end_once(s, i);
    sm_status st = i->status;
    if (!info)
        sm_sandbox_info_free(&tmp);
    return st;
}

static int need_cap(sm_sandbox *s, unsigned cap, const char *what, sm_error *err)
{
    if (s->provider->ops->caps & cap)
        return SM_OK;
    return sm_error_set(err, SM_ERR_UNSUPPORTED, SM_FAIL_INVALID_REQUEST,
                        "provider '%s' does not support %s", pname(s), what);
}

int sm_sandbox_stats(sm_sandbox *s, sm_sample *out, sm_error *err)
{
    int rc = need_handle(s, err);
    if (rc == SM_OK)
        rc = need_cap(s, SM_CAP_STATS, "stats", err);
    if (rc != SM_OK)
        return rc;
    sm_sample_init(out);
    return s->provider->ops->stats(s->provider, s->handle, out, err);
}

int sm_sandbox_endpoint(sm_sandbox *s, int port, sm_endpoint *out, sm_error *err)
{
    int rc = need_handle(s, err);
    if (rc == SM_OK)
        rc = need_cap(s, SM_CAP_ENDPOINT, "endpoints", err);
    if (rc == SM_OK)
        rc = sm_port_validate(port, err);
    if (rc != SM_OK)
        return rc;
    /* A handle that holds the spec checks here; one opened by id leaves it to the provider,
     * which checks the spec it recorded. */
    if (s->have_spec && !sm_spec_has_port(&s->spec, port)) {
        char msg[400];
        sm_ports_undeclared_msg(port, s->spec.ports, s->spec.nports, msg, sizeof msg);
        return sm_error_set(err, SM_ERR_INVALID, SM_FAIL_INVALID_REQUEST, "%s", msg);
    }
    rc = s->provider->ops->endpoint(s->provider, s->handle, port, out, err);
    if (rc == SM_OK && (!out->url || strstr(out->url, "://") == NULL)) {
        sm_endpoint_free(out);
        return sm_error_set(err, SM_ERR_RUNTIME, SM_FAIL_SANDBOX_ERROR,
                            "provider returned an invalid endpoint");
    }
    return rc;
}

int sm_sandbox_pty_open(sm_sandbox *s, const sm_pty_spec *spec_in, sm_pty **out, sm_error *err)
{
    int rc = need_handle(s, err);
    if (rc == SM_OK)
        rc = need_cap(s, SM_CAP_PTY, "interactive PTY sessions", err);
    if (rc == SM_OK)
        rc = sm_pty_spec_validate(spec_in, err);
    if (rc != SM_OK)
        return rc;
    sm_pty_spec spec = *spec_in;
    if (!spec.cwd && s->have_spec)
        spec.cwd = s->spec.workdir;
    rc = s->provider->ops->pty_open(s->provider, s->handle, &spec, out, err);
    if (rc != SM_OK) {
        if (err && err->failure.kind == SM_FAIL_NONE)
            err->failure.kind = SM_FAIL_PTY_ERROR;
        journal_error(s, "pty", err);
        return rc;
    }
    cJSON *fields = cJSON_CreateObject();
    cJSON_AddStringToObject(fields, "session_id", (*out)->session_id);
    cJSON_AddStringToObject(fields, "command", spec.command ? spec.command : "(shell)");
    sm_journal_append(pname(s), s->handle->id, "lifecycle", "pty_open", fields);
    return SM_OK;
}

int sm_sandbox_pty_attach(sm_sandbox *s, const char *session_id, bool takeover, long long since,
                          sm_pty **out, sm_error *err)
{
    int rc = need_handle(s, err);
    if (rc == SM_OK)
        rc = need_cap(s, SM_CAP_PTY_ATTACH, "attaching to PTY sessions", err);
    if (rc != SM_OK)
        return rc;
    return s->provider->ops->pty_attach(s->provider, s->handle, session_id, takeover, since, out,
                                        err);
}

int sm_sandbox_pty_sessions(sm_sandbox *s, sm_pty_session_info **out, size_t *n, sm_error *err)
{
    *out = NULL;
    *n = 0;
    int rc = need_handle(s, err);
    if (rc == SM_OK)
        rc = need_cap(s, SM_CAP_PTY_ATTACH, "PTY session listing", err);
    if (rc == SM_OK && !s->provider->ops->pty_sessions)
        rc = sm_error_set(err, SM_ERR_UNSUPPORTED, SM_FAIL_INVALID_REQUEST,
                          "provider '%s' does not list PTY sessions", pname(s));
    if (rc != SM_OK)
        return rc;
    return s->provider->ops->pty_sessions(s->provider, s->handle, out, n, err);
}

int sm_sandbox_pause(sm_sandbox *s, bool pause, sm_error *err)
{
    int rc = need_handle(s, err);
    if (rc == SM_OK)
        rc = need_cap(s, SM_CAP_PAUSE, pause ? "pause" : "resume", err);
    if (rc != SM_OK)
        return rc;
    const sm_provider_ops *ops = s->provider->ops;
    rc = (pause ? ops->pause : ops->resume)(s->provider, s->handle, err);
    if (rc != SM_OK) {
        journal_error(s, pause ? "pause" : "resume", err);
        return rc;
    }
    sm_journal_append(pname(s), s->handle->id, "lifecycle", pause ? "paused" : "resumed", NULL);
    return SM_OK;
}

int sm_sandbox_stop(sm_sandbox *s, sm_error *err)
{
    if (s->stopped || !s->handle) {
        s->stopped = true;
        return SM_OK;
    }
    sm_otel_span sp;
    sm_otel_span_begin(&sp, "gym.sandbox.stop", pname(s));
    int rc = s->provider->ops->close(s->provider, s->handle, err);
    span_end(s, &sp, rc, err);
    if (rc != SM_OK) {
        journal_error(s, "close", err);
        return rc;
    }
    sm_otel_sandbox_stopped(pname(s));
    sm_journal_remove(pname(s), s->handle->id);
    sm_output_remove(pname(s), s->handle->id);
    s->stopped = true;
    return SM_OK;
}

void sm_sandbox_sync_entry_output(sm_sandbox *s)
{
    if (!s->handle || !s->provider->ops->entry_output)
        return;
    char *text = NULL;
    size_t len = 0;
    if (s->provider->ops->entry_output(s->provider, s->handle, (size_t)sm_output_cap(), &text, &len,
                                       NULL) == SM_OK)
        sm_output_put_entry(pname(s), s->handle->id, text, len);
    free(text);
}
