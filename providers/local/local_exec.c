/* Exec and PTY sessions on local sandboxes, over the init's control socket. A plain command
 * gets pipes of ours passed with SCM_RIGHTS, so its output never goes through the init; when
 * the caller streams, we relay the pipes to its descriptors: no descriptor of the caller's
 * (a terminal, an output file) ever enters the sandbox, where a process left behind could
 * read the user's typing or reopen the file through /proc/self/fd. A PTY session is relayed by the
 * init, which keeps its recent output for re-attaching. OOM and pids-limit counters are read before
 * and after a command so that its failure is attributed to the right cause. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/json.h"
#include "core/pty.h"
#include "core/strbuf.h"
#include "core/util.h"
#include "providers/local/local.h"
#include "providers/local/proto.h"

#define DRAIN_GRACE_S 0.2

int local_ctl_connect(const local_record *r, int *fd, sm_error *err)
{
    /* sun_path is short; reach the socket through our own descriptor of its directory. */
    int dfd = open(r->dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
    int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    snprintf(sa.sun_path, sizeof sa.sun_path, "/proc/self/fd/%d/ctl.sock", dfd);
    int rc = (dfd >= 0 && s >= 0) ? connect(s, (struct sockaddr *)&sa, sizeof sa) : -1;
    int e = errno;
    if (dfd >= 0)
        close(dfd);
    if (rc < 0) {
        if (s >= 0)
            close(s);
        return sm_error_set(err, SM_ERR_RUNTIME, SM_FAIL_SANDBOX_ERROR,
                            "cannot reach sandbox %s: %s", r->id, strerror(e));
    }
    *fd = s;
    return SM_OK;
}

/* Connects to a sandbox that must be running. */
static int connect_running(const char *id, int *sock, sm_error *err)
{
    local_record r;
    int rc = local_record_running(id, &r, err);
    if (rc != SM_OK)
        return rc;
    rc = local_ctl_connect(&r, sock, err);
    local_record_free(&r);
    return rc;
}

char **local_build_env(const local_record *r, const sm_map *extra, const char *term)
{
    sm_map env = {0};
    sm_map_set(&env, "PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
    char host[64];
    snprintf(host, sizeof host, "sbx-%.8s", r->id);
    sm_map_set(&env, "HOSTNAME", host);
    if (term)
        sm_map_set(&env, "TERM", term);
    char ebuf[64];
    sm_map_from_json(cJSON_GetObjectItemCaseSensitive(r->spec, "env"), &env, ebuf, sizeof ebuf);
    for (size_t i = 0; extra && i < extra->n; i++)
        sm_map_set(&env, extra->items[i].key, extra->items[i].value);
    char **out = xcalloc(env.n + 1, sizeof *out);
    for (size_t i = 0; i < env.n; i++)
        out[i] = xasprintf("%s=%s", env.items[i].key, env.items[i].value);
    sm_map_free(&env);
    return out;
}

static void free_strv(char **v)
{
    for (size_t i = 0; v && v[i]; i++)
        free(v[i]);
    free(v);
}

/* Payload of LP_EXEC / LP_PTY_OPEN: shell, cmd, cwd, user, env... */
static char *spawn_payload(const local_record *r, const char *cmd, const char *cwd,
                           const char *user, char **env, size_t *len)
{
    size_t n = 0;
    while (env[n])
        n++;
    const char **strs = xcalloc(n + 4, sizeof *strs);
    const char *shell = sm_json_str(r->spec, "shell");
    strs[0] = shell ? shell : "/bin/sh";
    strs[1] = cmd ? cmd : "";
    strs[2] = cwd ? cwd : (sm_json_str(r->spec, "workdir") ? sm_json_str(r->spec, "workdir") : "");
    strs[3] = user ? user : "";
    for (size_t i = 0; i < n; i++)
        strs[4 + i] = env[i];
    char *payload = lp_pack(strs, n + 4, len);
    free(strs);
    return payload;
}

static void set_nonblock(int fd)
{
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

/* Writes all of buf to the caller's descriptor (which may be non-blocking, or a pipe whose
 * reader left: then the output is dropped, as a closed stdout would drop it). */
static void relay(int to, const char *buf, size_t n)
{
    while (n > 0) {
        ssize_t w = write(to, buf, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && errno == EAGAIN) {
            struct pollfd pf = {.fd = to, .events = POLLOUT};
            poll(&pf, 1, 1000);
            continue;
        }
        if (w <= 0)
            return;
        buf += w;
        n -= (size_t)w;
    }
}

/* Output kept in memory per stream (exec -o json, the dashboard): a command that prints
 * without end must not make this process, on the host, grow until the exec timeout. */
#define CAPTURE_MAX (16u << 20)

/* Reads what a pipe has into b (up to CAPTURE_MAX; the rest is counted in *dropped), or on to
 * the descriptor `to` when it is >= 0; returns false at EOF. */
static bool pump(int fd, sm_strbuf *b, int to, size_t *dropped)
{
    char buf[65536];
    for (;;) {
        ssize_t r = read(fd, buf, sizeof buf);
        if (r > 0) {
            size_t keep = b->len < CAPTURE_MAX ? CAPTURE_MAX - b->len : 0;
            if (keep > (size_t)r)
                keep = (size_t)r;
            if (to >= 0) {
                relay(to, buf, (size_t)r);
            } else {
                sm_strbuf_append(b, buf, keep);
                *dropped += (size_t)r - keep;
            }
            continue;
        }
        if (r < 0 && errno == EINTR)
            continue;
        return r < 0 && errno == EAGAIN;
    }
}

/* The init went away under a running command: the sandbox ended (its TTL, an rm, the OOM
 * killer), and why it ended is why the command failed, not a sandbox error. The supervisor
 * writes the end record as the init goes: waited for a little. */
static int ended_while_running(const char *id, sm_error *err)
{
    double until = sm_now_mono() + 2;
    for (;;) {
        local_record r;
        if (local_record_load(id, &r, NULL) != SM_OK)
            break;
        if (r.ended && r.end.kind != SM_FAIL_NONE) {
            char label[128];
            sm_failure_label(&r.end, label, sizeof label);
            int rc = sm_error_set(
                err, SM_ERR_RUNTIME, r.end.kind, "sandbox %s ended while the command ran: %s%s%s%s",
                id, label, r.end.reason[0] ? " (" : "", r.end.reason, r.end.reason[0] ? ")" : "");
            if (err) {
                err->failure = r.end;
                snprintf(err->failure.operation, sizeof err->failure.operation, "exec");
                snprintf(err->failure.reason, sizeof err->failure.reason, "%s", err->msg);
            }
            local_record_free(&r);
            return rc;
        }
        local_record_free(&r);
        if (sm_now_mono() >= until)
            break;
        usleep(10000);
    }
    return sm_error_set(err, SM_ERR_RUNTIME, SM_FAIL_SANDBOX_ERROR,
                        "sandbox %s stopped while the command ran", id);
}

/* The caller's stdin copied into the command's stdin pipe: one buffer, read when empty and
 * written when the pipe takes it. End of file (or an error) on the caller's side closes the
 * pipe, so the command reads end of file; a command that closed its stdin ends the relay. */
typedef struct stdin_relay {
    int from, to; /* the caller's descriptor; our pipe's writer (-1 once closed) */
    char buf[65536];
    size_t len, off;
} stdin_relay;

static void stdin_relay_close(stdin_relay *sr)
{
    if (sr->to >= 0)
        close(sr->to);
    sr->to = -1;
    sr->len = sr->off = 0;
}

static void stdin_relay_write(stdin_relay *sr)
{
    while (sr->to >= 0 && sr->off < sr->len) {
        ssize_t w = write(sr->to, sr->buf + sr->off, sr->len - sr->off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && errno == EAGAIN)
            return;
        if (w <= 0) { /* EPIPE: the command closed its stdin */
            stdin_relay_close(sr);
            return;
        }
        sr->off += (size_t)w;
    }
    sr->len = sr->off = 0;
}

static void stdin_relay_read(stdin_relay *sr)
{
    ssize_t r = read(sr->from, sr->buf, sizeof sr->buf);
    if (r > 0) {
        sr->len = (size_t)r;
        sr->off = 0;
        stdin_relay_write(sr); /* most often the pipe takes it at once */
    } else if (r == 0 || (errno != EINTR && errno != EAGAIN)) {
        stdin_relay_close(sr);
    }
}

int local_exec(sm_provider *p, sm_handle *h, const sm_exec_request *req, sm_exec_result *res,
               sm_error *err)
{
    local_record r;
    int rc = local_record_running(h->id, &r, err);
    if (rc != SM_OK)
        return rc;
    double t0 = sm_now_mono();
    /* no timeout asked for: the one the sandbox was created with (its spec), else ours */
    double timeout = sm_json_num(r.spec, "default_timeout_s", 0);
    if (!(timeout > 0 && timeout <= SM_MAX_EXEC_TIMEOUT_S))
        timeout = ((local_provider *)p->impl)->default_timeout_s;
    if (req->timeout_s > 0)
        timeout = req->timeout_s;
    long long oom0 = -1, pids0 = -1;
    local_cg_counters(&r.cg, &oom0, &pids0);

    /* stdin is a pipe of ours: its writer is closed at once (the command reads end of file),
     * or with stdin_fd we copy the caller's input into it, so the caller's descriptor (a
     * terminal, a file) never enters the sandbox */
    int sock = -1, in[2] = {-1, -1}, out[2] = {-1, -1}, errp[2] = {-1, -1};
    rc = local_ctl_connect(&r, &sock, err);
    if (rc == SM_OK &&
        (pipe2(in, O_CLOEXEC) < 0 || pipe2(out, O_CLOEXEC) < 0 || pipe2(errp, O_CLOEXEC) < 0))
        rc = sm_error_set(err, SM_ERR_IO, SM_FAIL_SANDBOX_ERROR, "pipe: %s", strerror(errno));
    if (in[1] >= 0 && (rc != SM_OK || req->stdin_fd < 0)) {
        close(in[1]);
        in[1] = -1;
    }
    if (rc == SM_OK) {
        char **env = local_build_env(&r, req->env, NULL);
        size_t len;
        char *payload = spawn_payload(&r, req->cmd, req->cwd, req->user, env, &len);
        int fds[3] = {in[0], out[1], errp[1]};
        if (len > LP_MAX_PAYLOAD)
            rc = sm_error_set(err, SM_ERR_INVALID, SM_FAIL_INVALID_REQUEST,
                              "the command and its environment take %zu bytes; at most %u are "
                              "allowed",
                              len, LP_MAX_PAYLOAD);
        else if (lp_send(sock, LP_EXEC, 0, 0, 0, payload, len, fds, 3) < 0)
            rc = sm_error_set(err, SM_ERR_RUNTIME, SM_FAIL_SANDBOX_ERROR,
                              "sending the command to sandbox %s: %s", h->id, strerror(errno));
        free(payload);
        free_strv(env);
    }
    if (in[0] >= 0)
        close(in[0]);
    if (out[1] >= 0)
        close(out[1]);
    if (errp[1] >= 0)
        close(errp[1]);

    sm_strbuf ob = {0}, eb = {0};
    size_t out_cut = 0, err_cut = 0;
    bool exited = false, timed_out = false, out_open = out[0] >= 0, err_open = errp[0] >= 0;
    int status = 0;
    double deadline = t0 + timeout, exited_at = 0;
    if (out[0] >= 0)
        set_nonblock(out[0]);
    if (errp[0] >= 0)
        set_nonblock(errp[0]);
    stdin_relay sr = {.from = req->stdin_fd, .to = in[1]};
    if (sr.to >= 0)
        set_nonblock(sr.to);
    while (rc == SM_OK && (!exited || out_open || err_open)) {
        double now = sm_now_mono();
        if (!exited && now >= deadline) {
            timed_out = true;
            lp_send(sock, LP_KILL, 0, SIGKILL, 0, NULL, 0, NULL, 0);
            break;
        }
        if (exited && now - exited_at > DRAIN_GRACE_S)
            break; /* a background child still holds the pipes; do not wait for it */
        if (exited)
            stdin_relay_close(&sr); /* the command is gone: its input ends here */
        struct pollfd pf[5];
        int n = 0;
        pf[n++] = (struct pollfd){.fd = exited ? -1 : sock, .events = POLLIN};
        pf[n++] = (struct pollfd){.fd = out_open ? out[0] : -1, .events = POLLIN};
        pf[n++] = (struct pollfd){.fd = err_open ? errp[0] : -1, .events = POLLIN};
        /* input: read the caller's when our buffer is empty, else wait to write it; the pipe
         * is watched either way, so that a command closing its stdin (POLLERR) is seen */
        bool want_in = sr.to >= 0 && sr.len == 0;
        pf[n++] = (struct pollfd){.fd = want_in ? sr.from : -1, .events = POLLIN};
        pf[n++] = (struct pollfd){.fd = sr.to, .events = sr.len ? POLLOUT : 0};
        double until = exited ? exited_at + DRAIN_GRACE_S : deadline;
        int ms = (int)((until - now) * 1000) + 1;
        if (poll(pf, (nfds_t)n, ms) < 0 && errno != EINTR)
            break;
        if (out_open && (pf[1].revents & (POLLIN | POLLHUP | POLLERR)))
            out_open = pump(out[0], &ob, req->stdout_fd, &out_cut);
        if (err_open && (pf[2].revents & (POLLIN | POLLHUP | POLLERR)))
            err_open = pump(errp[0], &eb, req->stderr_fd, &err_cut);
        if (pf[3].revents)
            stdin_relay_read(&sr);
        if (pf[4].revents & (POLLERR | POLLHUP))
            stdin_relay_close(&sr); /* the command closed its stdin */
        else if (pf[4].revents)
            stdin_relay_write(&sr);
        if (pf[0].revents & (POLLIN | POLLHUP | POLLERR)) {
            struct lp_frame f;
            int got = lp_recv(sock, &f);
            if (got != 0) {
                rc = ended_while_running(h->id, err);
            } else if (f.h.type == LP_ERROR) {
                rc = sm_error_set(err, SM_ERR_RUNTIME, SM_FAIL_SANDBOX_ERROR, "%s",
                                  f.payload ? f.payload : "the sandbox refused the command");
            } else if (f.h.type == LP_EXITED) {
                exited = true;
                exited_at = sm_now_mono();
                status = (int)f.h.a;
            }
            lp_frame_free(&f);
        }
    }
    if (out[0] >= 0) {
        pump(out[0], &ob, req->stdout_fd, &out_cut);
        close(out[0]);
    }
    if (errp[0] >= 0) {
        pump(errp[0], &eb, req->stderr_fd, &err_cut);
        close(errp[0]);
    }
    stdin_relay_close(&sr);
    if (sock >= 0)
        close(sock);

    sm_failure *f = &res->failure;
    snprintf(f->operation, sizeof f->operation, "exec");
    snprintf(f->sandbox_id, sizeof f->sandbox_id, "%s", h->id);
    snprintf(f->provider, sizeof f->provider, "local");
    res->duration_s = sm_now_mono() - t0;
    for (int i = 0; i < 2; i++) {
        size_t cut = i ? err_cut : out_cut;
        if (cut)
            sm_strbuf_printf(&eb,
                             "\nsandman: the command's %s was cut at %u MiB (%zu bytes "
                             "dropped)\n",
                             i ? "stderr" : "stdout", CAPTURE_MAX >> 20, cut);
    }
    if (req->stdout_fd < 0) {
        res->out_len = ob.len;
        res->out = sm_strbuf_take(&ob);
    }
    if (req->stderr_fd < 0) {
        res->err_len = eb.len;
        res->err = sm_strbuf_take(&eb);
    }
    sm_strbuf_free(&ob);
    sm_strbuf_free(&eb);
    if (rc != SM_OK) {
        local_record_free(&r);
        return rc;
    }
    long long oom1 = -1, pids1 = -1;
    local_cg_counters(&r.cg, &oom1, &pids1);
    long long oom_delta = (oom0 >= 0 && oom1 >= 0) ? oom1 - oom0 : -1;
    long long pids_delta = (pids0 >= 0 && pids1 >= 0) ? pids1 - pids0 : -1;
    if (timed_out) {
        sm_exec_result_timed_out(res, timeout);
    } else {
        int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        int sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
        res->return_code = code;
        f->exit_code = code;
        f->signal = sig;
        f->kind = sm_failure_classify_exit(code, sig, oom_delta, pids_delta, false);
        if (f->kind == SM_FAIL_OOM) {
            f->oom_kills = oom_delta;
            f->memory_limit = local_cg_memory_limit(&r.cg);
            snprintf(f->reason, sizeof f->reason,
                     "the command hit the sandbox's memory limit and was OOM killed");
        } else if (f->kind == SM_FAIL_PIDS_LIMIT) {
            f->pids_events = pids_delta;
            sm_sample s;
            sm_sample_init(&s);
            local_cg_stats(&r.cg, NULL, &s, true);
            f->pids_limit = s.pids_limit;
            snprintf(f->reason, sizeof f->reason,
                     "the command could not start a process: the pids limit was reached");
        }
        if (f->kind == SM_FAIL_NONE)
            sm_failure_init(f);
    }
    local_record_free(&r);
    return SM_OK;
}

/* ---- PTY sessions ----------------------------------------------------------------------- */

typedef struct lpty {
    sm_pty base;
    int sock;
    char *pend; /* data received but not yet handed to the caller */
    size_t pend_len, pend_off;
    bool eof;
    bool exited;
    int status;
    long long offset; /* bytes delivered to the caller */
    bool broken;
    char broken_msg[256];
} lpty;

/* Receives one frame, waiting at most timeout_s (< 0: forever). 1 = frame, 0 = timeout. */
static int recv_frame(lpty *t, double timeout_s, struct lp_frame *f, sm_error *err)
{
    struct pollfd pf = {.fd = t->sock, .events = POLLIN};
    int ms = timeout_s < 0 ? -1 : (int)(timeout_s * 1000);
    int r;
    do {
        r = poll(&pf, 1, ms);
    } while (r < 0 && errno == EINTR);
    if (r == 0)
        return 0;
    if (lp_recv(t->sock, f) != 0) {
        t->broken = true;
        snprintf(t->broken_msg, sizeof t->broken_msg, "the PTY session's sandbox went away");
        return sm_error_set(err, SM_ERR_RUNTIME, SM_FAIL_PTY_ERROR, "%s", t->broken_msg) ? -1 : -1;
    }
    return 1;
}

static int lpty_read(sm_pty *p, char *buf, size_t len, double timeout_s, size_t *got, sm_error *err)
{
    lpty *t = p->impl;
    *got = 0;
    double deadline = timeout_s < 0 ? -1 : sm_now_mono() + timeout_s;
    for (;;) {
        if (t->pend_off < t->pend_len) {
            size_t n = t->pend_len - t->pend_off;
            if (n > len)
                n = len;
            memcpy(buf, t->pend + t->pend_off, n);
            t->pend_off += n;
            t->offset += (long long)n;
            *got = n;
            return SM_OK;
        }
        if (t->eof)
            return SM_OK;
        if (t->broken)
            return sm_error_set(err, SM_ERR_RUNTIME, SM_FAIL_PTY_ERROR, "%s", t->broken_msg);
        double left = deadline < 0 ? -1 : deadline - sm_now_mono();
        if (deadline >= 0 && left < 0)
            left = 0;
        struct lp_frame f;
        int r = recv_frame(t, left, &f, err);
        if (r < 0)
            return SM_ERR_RUNTIME;
        if (r == 0)
            return sm_error_set(err, SM_ERR_TIMEOUT, SM_FAIL_NONE, "no PTY output in time");
        if (f.h.type == LP_DATA && f.h.len) {
            t->offset = f.h.a; /* where this chunk starts (a replay may skip what was lost) */
            free(t->pend);
            t->pend = f.payload;
            t->pend_len = f.h.len;
            t->pend_off = 0;
            f.payload = NULL;
        } else if (f.h.type == LP_EXITED) {
            t->exited = true;
            t->status = (int)f.h.a;
            t->eof = true;
        } else if (f.h.type == LP_ERROR) {
            t->broken = true;
            snprintf(t->broken_msg, sizeof t->broken_msg, "%s",
                     f.payload ? f.payload : "PTY session failed");
        }
        lp_frame_free(&f);
    }
}

static int lpty_write(sm_pty *p, const void *data, size_t len, sm_error *err)
{
    lpty *t = p->impl;
    if (t->eof || t->broken)
        return sm_error_set(err, SM_ERR_RUNTIME, SM_FAIL_PTY_ERROR, "the PTY session has ended");
    const char *d = data;
    while (len > 0) {
        size_t n = len > 65536 ? 65536 : len;
        if (lp_send(t->sock, LP_DATA, 0, 0, 0, d, n, NULL, 0) < 0)
            return sm_error_set(err, SM_ERR_RUNTIME, SM_FAIL_PTY_ERROR,
                                "writing to the PTY session: %s", strerror(errno));
        d += n;
        len -= n;
    }
    return SM_OK;
}

static int lpty_resize(sm_pty *p, int rows, int cols, sm_error *err)
{
    lpty *t = p->impl;
    if (lp_send(t->sock, LP_RESIZE, 0, rows, cols, NULL, 0, NULL, 0) < 0)
        return sm_error_set(err, SM_ERR_RUNTIME, SM_FAIL_PTY_ERROR, "resizing the PTY: %s",
                            strerror(errno));
    return SM_OK;
}

static int lpty_signal(sm_pty *p, int sig, sm_error *err)
{
    lpty *t = p->impl;
    if (lp_send(t->sock, LP_KILL, 0, sig, 0, NULL, 0, NULL, 0) < 0)
        return sm_error_set(err, SM_ERR_RUNTIME, SM_FAIL_PTY_ERROR, "signalling the PTY: %s",
                            strerror(errno));
    return SM_OK;
}

static int lpty_wait_exit(sm_pty *p, double timeout_s, int *code, sm_error *err)
{
    lpty *t = p->impl;
    double deadline = timeout_s < 0 ? -1 : sm_now_mono() + timeout_s;
    char buf[16384];
    while (!t->exited) {
        /* Output that nobody reads is dropped here: waiting must not stall on it. */
        t->pend_off = t->pend_len;
        double left = deadline < 0 ? -1 : deadline - sm_now_mono();
        if (deadline >= 0 && left <= 0)
            return sm_error_set(err, SM_ERR_TIMEOUT, SM_FAIL_NONE,
                                "the PTY process did not exit in time");
        size_t got;
        int rc = lpty_read(p, buf, sizeof buf, left, &got, err);
        if (rc == SM_ERR_TIMEOUT)
            continue;
        if (rc != SM_OK)
            return rc;
        if (got == 0 && !t->exited)
            return sm_error_set(err, SM_ERR_RUNTIME, SM_FAIL_PTY_ERROR,
                                "the PTY session ended without an exit status");
    }
    *code = WIFEXITED(t->status) ? WEXITSTATUS(t->status) : 128 + WTERMSIG(t->status);
    return SM_OK;
}

static int lpty_fd(sm_pty *p)
{
    return ((lpty *)p->impl)->sock;
}

static long long lpty_offset(sm_pty *p)
{
    return ((lpty *)p->impl)->offset;
}

static void lpty_close(sm_pty *p)
{
    lpty *t = p->impl;
    if (t->sock >= 0) {
        lp_send(t->sock, LP_CLOSE, 0, 0, 0, NULL, 0, NULL, 0);
        close(t->sock);
    }
    free(t->pend);
    free(t);
}

static void lpty_detach(sm_pty *p)
{
    lpty *t = p->impl;
    if (t->sock >= 0) {
        lp_send(t->sock, LP_DETACH, 0, 0, 0, NULL, 0, NULL, 0);
        close(t->sock);
        t->sock = -1;
    }
    lpty_close(p);
}

static const sm_pty_ops lpty_ops = {
    .read = lpty_read,
    .write = lpty_write,
    .resize = lpty_resize,
    .signal = lpty_signal,
    .wait_exit = lpty_wait_exit,
    .fd = lpty_fd,
    .close = lpty_close,
    .offset = lpty_offset,
    .detach = lpty_detach,
};

/* Attached sessions detach on close instead of ending. */
static const sm_pty_ops lpty_attached_ops = {
    .read = lpty_read,
    .write = lpty_write,
    .resize = lpty_resize,
    .signal = lpty_signal,
    .wait_exit = lpty_wait_exit,
    .fd = lpty_fd,
    .close = lpty_detach,
    .offset = lpty_offset,
    .detach = lpty_detach,
};

static int await_started(lpty *t, sm_error *err)
{
    struct lp_frame f;
    int r = recv_frame(t, 30, &f, err);
    if (r <= 0)
        return r == 0 ? sm_error_set(err, SM_ERR_TIMEOUT, SM_FAIL_PTY_ERROR,
                                     "the sandbox did not start the PTY session")
                      : SM_ERR_RUNTIME;
    int rc = SM_OK;
    if (f.h.type == LP_STARTED) {
        snprintf(t->base.session_id, sizeof t->base.session_id, "%s", f.payload ? f.payload : "");
        t->base.replay_end = f.h.b; /* an attach: where the replay of retained output ends */
        sm_vtq_init(&t->base.replay_filter);
    } else {
        sm_failure_kind k =
            (f.h.type == LP_ERROR && f.h.a == ENOENT) ? SM_FAIL_NOT_FOUND : SM_FAIL_PTY_ERROR;
        rc = sm_error_set(err, f.h.a == ENOENT ? SM_ERR_NOT_FOUND : SM_ERR_RUNTIME, k, "%s",
                          f.payload ? f.payload : "the PTY session could not start");
    }
    lp_frame_free(&f);
    return rc;
}

/* Waits for the init's answer; on failure frees the session. */
static int session_started(lpty *t, sm_pty **out, sm_error *err)
{
    int rc = await_started(t, err);
    if (rc != SM_OK) {
        close(t->sock);
        t->sock = -1;
        lpty_close(&t->base);
        return rc;
    }
    *out = &t->base;
    return SM_OK;
}

static lpty *lpty_new(int sock, const sm_pty_ops *ops)
{
    lpty *t = xcalloc(1, sizeof *t);
    t->sock = sock;
    t->base.ops = ops;
    t->base.impl = t;
    t->base.mode = SM_PTY_MODE_PTY;
    return t;
}

int local_pty_open(sm_provider *p, sm_handle *h, const sm_pty_spec *spec, sm_pty **out,
                   sm_error *err)
{
    if (!spec->pty)
        return sm_error_set(err, SM_ERR_UNSUPPORTED, SM_FAIL_INVALID_REQUEST,
                            "the local provider's sessions always use a terminal (pty=true)");
    local_record r;
    int rc = local_record_running(h->id, &r, err);
    if (rc != SM_OK)
        return rc;
    int sock = -1;
    rc = local_ctl_connect(&r, &sock, err);
    if (rc != SM_OK) {
        local_record_free(&r);
        return rc;
    }
    char **env = local_build_env(&r, spec->env, spec->term ? spec->term : "xterm-256color");
    size_t len;
    char *payload = spawn_payload(&r, spec->command, spec->cwd, spec->user, env, &len);
    int flags = (spec->command ? 0 : LP_F_LOGIN) | LP_F_PTY | (spec->keep ? LP_F_KEEP : 0);
    /* the host's dotfiles are the host's: a shell on image host starts clean unless the
     * sandbox was made with shell_rc: host (an image directory's rc files are its own) */
    const char *rc_mode = sm_json_str(r.spec, "shell_rc"), *image = sm_json_str(r.spec, "image");
    if (!spec->command && image && !strcmp(image, "host") && (!rc_mode || strcmp(rc_mode, "host")))
        flags |= LP_F_CLEAN_RC;
    if (lp_send(sock, LP_PTY_OPEN, flags, spec->rows, spec->cols, payload, len, NULL, 0) < 0)
        rc = sm_error_set(err, SM_ERR_RUNTIME, SM_FAIL_PTY_ERROR, "opening a PTY: %s",
                          strerror(errno));
    free(payload);
    free_strv(env);
    local_record_free(&r);
    if (rc != SM_OK) {
        close(sock);
        return rc;
    }
    return session_started(lpty_new(sock, &lpty_ops), out, err);
}

int local_pty_attach(sm_provider *p, sm_handle *h, const char *session_id, bool takeover,
                     long long since, sm_pty **out, sm_error *err)
{
    int sock = -1;
    int rc = connect_running(h->id, &sock, err);
    if (rc != SM_OK)
        return rc;
    if (lp_send(sock, LP_PTY_ATTACH, 0, since < 0 ? 0 : since, takeover ? 1 : 0, session_id,
                strlen(session_id) + 1, NULL, 0) < 0) {
        close(sock);
        return sm_error_set(err, SM_ERR_RUNTIME, SM_FAIL_PTY_ERROR, "attaching: %s",
                            strerror(errno));
    }
    lpty *t = lpty_new(sock, &lpty_attached_ops);
    t->offset = since < 0 ? 0 : since;
    return session_started(t, out, err);
}

int local_pty_sessions(sm_provider *p, sm_handle *h, sm_pty_session_info **out, size_t *n,
                       sm_error *err)
{
    *out = NULL;
    *n = 0;
    int sock = -1;
    int rc = connect_running(h->id, &sock, err);
    if (rc != SM_OK)
        return rc;
    struct lp_frame f;
    if (lp_send(sock, LP_SESSIONS, 0, 0, 0, NULL, 0, NULL, 0) < 0 || lp_recv(sock, &f) != 0) {
        close(sock);
        return sm_error_set(err, SM_ERR_RUNTIME, SM_FAIL_SANDBOX_ERROR,
                            "listing the PTY sessions of %s failed", h->id);
    }
    close(sock);
    size_t cap = 0;
    char *save = NULL;
    for (char *line = f.payload ? strtok_r(f.payload, "\n", &save) : NULL; line;
         line = strtok_r(NULL, "\n", &save)) {
        sm_pty_session_info s;
        memset(&s, 0, sizeof s);
        char state[16], holder[16];
        int used = 0;
        if (sscanf(line, "%63s %d %15s %15s %lld %n", s.id, &s.pid, state, holder, &s.bytes,
                   &used) < 5)
            continue;
        s.running = !strcmp(state, "running");
        s.attached = !strcmp(holder, "attached");
        snprintf(s.command, sizeof s.command, "%s", line + used);
        if (*n == cap) {
            cap = cap ? cap * 2 : 8;
            *out = xrealloc(*out, cap * sizeof **out);
        }
        (*out)[(*n)++] = s;
    }
    lp_frame_free(&f);
    return SM_OK;
}
