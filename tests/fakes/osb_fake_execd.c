/* A stand-in for OpenSandbox's in-sandbox daemon, execd (spec/opensandbox-api.md §7), for
 * tests: one per sandbox of osb_fake_server, on an ephemeral loopback port it prints on
 * stdout. Commands and files are real: they run in a local sandbox (the local provider,
 * reached by its id). Routes: /ping, POST /command (the SSE stream: bare JSON events, each
 * followed by a blank line; foreground or background), /command/status/{id},
 * /command/{id}/logs, /files/upload (multipart, `metadata` as a file part), /files/download,
 * and /proxy/{port}/... (44772 is execd itself; other ports are forwarded to 127.0.0.1).
 * usage: osb_fake_execd --sandbox ID [--local-config JSON] */
#include <arpa/inet.h>
#include <cjson/cJSON.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/json.h"
#include "core/provider_impl.h"
#include "core/strbuf.h"
#include "core/util.h"
#include "providers/builtin.h"
#include "tests/fakes/fake_http.h"

static sm_provider *local;
static sm_handle *box;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* One command: run by a thread; a foreground stream reads its pipes. */
typedef struct cmd {
    char id[33];
    char *command, *cwd, *user;
    sm_map env;
    double timeout_s;
    bool background;
    int out[2], err[2], done[2];
    pthread_t th;
    int refs; /* thread + stream (or the table for background ones) */
    bool finished;
    int exit_code;
    char error[256];
    bool timed_out;
    double started, ended;
    sm_strbuf logs;    /* background: merged output */
    sm_strbuf pending; /* stream: bytes not yet handed to MHD */
    size_t pending_off;
    bool ended_stream;
    struct cmd *next;
} cmd;

static cmd *table; /* background commands (never freed: a test's lifetime) */

static void cmd_unref(cmd *c)
{
    pthread_mutex_lock(&lock);
    bool last = --c->refs == 0;
    pthread_mutex_unlock(&lock);
    if (!last)
        return;
    for (int i = 0; i < 2; i++) {
        if (c->out[i] >= 0)
            close(c->out[i]);
        if (c->err[i] >= 0)
            close(c->err[i]);
        close(c->done[i]);
    }
    free(c->command);
    free(c->cwd);
    free(c->user);
    sm_map_free(&c->env);
    sm_strbuf_free(&c->logs);
    sm_strbuf_free(&c->pending);
    free(c);
}

static void *run_thread(void *arg)
{
    cmd *c = arg;
    sm_exec_request rq;
    sm_exec_request_init(&rq);
    rq.cmd = c->command;
    rq.cwd = c->cwd;
    rq.env = &c->env;
    rq.user = c->user;
    rq.timeout_s = c->timeout_s;
    sm_exec_result r;
    sm_exec_result_init(&r);
    if (!c->background) {
        rq.stdout_fd = c->out[1];
        rq.stderr_fd = c->err[1];
    }
    sm_error e;
    sm_error_clear(&e);
    int rc = local->ops->exec(local, box, &rq, &r, &e);
    pthread_mutex_lock(&lock);
    if (c->background) {
        if (r.out)
            sm_strbuf_append(&c->logs, r.out, r.out_len);
        if (r.err)
            sm_strbuf_append(&c->logs, r.err, r.err_len);
    }
    c->exit_code = r.return_code;
    c->timed_out = r.error_type && !strcmp(r.error_type, "timeout");
    if (rc != SM_OK || (r.error_type && !c->timed_out))
        snprintf(c->error, sizeof c->error, "%s", e.msg[0] ? e.msg : "execution failed");
    c->finished = true;
    c->ended = sm_now_wall();
    pthread_mutex_unlock(&lock);
    sm_exec_result_free(&r);
    if (write(c->done[1], "x", 1) < 0) {
    }
    cmd_unref(c);
    return NULL;
}

/* A JSON string of raw bytes: control bytes as \u00XX, the rest as is. */
static void json_bytes(sm_strbuf *b, const char *s, size_t n)
{
    sm_strbuf_puts(b, "\"");
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch == '"' || ch == '\\')
            sm_strbuf_printf(b, "\\%c", ch);
        else if (ch < 0x20 || ch == 0x7f)
            sm_strbuf_printf(b, "\\u%04x", ch);
        else
            sm_strbuf_append(b, (const char *)&ch, 1);
    }
    sm_strbuf_puts(b, "\"");
}

static void event(cmd *c, const char *type, const char *text, size_t n, const char *extra)
{
    sm_strbuf_printf(&c->pending, "{\"type\":\"%s\"", type);
    if (text) {
        sm_strbuf_puts(&c->pending, ",\"text\":");
        json_bytes(&c->pending, text, n);
    }
    if (extra)
        sm_strbuf_puts(&c->pending, extra);
    sm_strbuf_printf(&c->pending, ",\"timestamp\":%lld}\n\n", (long long)(sm_now_wall() * 1000));
}

static bool drain(cmd *c, int fd, const char *type)
{
    char buf[8192];
    ssize_t n = read(fd, buf, sizeof buf);
    if (n > 0)
        event(c, type, buf, (size_t)n, NULL);
    return n > 0;
}

static ssize_t stream_read(void *cls, uint64_t pos, char *buf, size_t max)
{
    cmd *c = cls;
    while (c->pending_off >= c->pending.len) {
        sm_strbuf_reset(&c->pending);
        c->pending_off = 0;
        if (c->ended_stream)
            return MHD_CONTENT_READER_END_OF_STREAM;
        struct pollfd p[3] = {
            {c->out[0], POLLIN, 0}, {c->err[0], POLLIN, 0}, {c->done[0], POLLIN, 0}};
        if (poll(p, 3, 1000) <= 0) {
            event(c, "ping", NULL, 0, NULL);
            continue;
        }
        if (p[0].revents)
            drain(c, c->out[0], "stdout");
        if (p[1].revents)
            drain(c, c->err[0], "stderr");
        if (p[2].revents && !(p[0].revents & POLLIN) && !(p[1].revents & POLLIN)) {
            fcntl(c->out[0], F_SETFL, O_NONBLOCK);
            fcntl(c->err[0], F_SETFL, O_NONBLOCK);
            while (drain(c, c->out[0], "stdout") || drain(c, c->err[0], "stderr"))
                ;
            pthread_mutex_lock(&lock);
            double ms = (c->ended - c->started) * 1000;
            char extra[512];
            if (c->error[0] || c->timed_out) {
                sm_strbuf tb = {0};
                json_bytes(&tb, c->timed_out ? "command timed out" : c->error,
                           strlen(c->timed_out ? "command timed out" : c->error));
                snprintf(extra, sizeof extra,
                         ",\"error\":{\"ename\":\"%s\",\"evalue\":%s,\"traceback\":[]}",
                         c->timed_out ? "TimeoutError" : "RuntimeError", tb.data);
                sm_strbuf_free(&tb);
                event(c, "error", NULL, 0, extra);
            } else if (c->exit_code != 0) {
                snprintf(extra, sizeof extra,
                         ",\"error\":{\"ename\":\"CommandExecError\",\"evalue\":\"%d\","
                         "\"traceback\":[]}",
                         c->exit_code);
                event(c, "error", NULL, 0, extra);
            } else {
                snprintf(extra, sizeof extra, ",\"execution_time\":%.0f", ms);
                event(c, "execution_complete", NULL, 0, extra);
            }
            pthread_mutex_unlock(&lock);
            c->ended_stream = true;
        }
    }
    size_t n = c->pending.len - c->pending_off;
    if (n > max)
        n = max;
    memcpy(buf, c->pending.data + c->pending_off, n);
    c->pending_off += n;
    return (ssize_t)n;
}

static void stream_free(void *cls)
{
    cmd_unref(cls);
}

static enum MHD_Result do_command(struct MHD_Connection *conn, const fake_req *rq)
{
    cJSON *j = rq->len ? cJSON_ParseWithLength(rq->body, rq->len) : NULL;
    const char *command = sm_json_str(j, "command");
    if (!command || !*command) {
        cJSON_Delete(j);
        return fake_error(conn, 400, "INVALID_REQUEST_BODY", "command is required");
    }
    cmd *c = xcalloc(1, sizeof *c);
    sm_random_hex(c->id, 32);
    c->command = xstrdup(command);
    const char *cwd = sm_json_str(j, "cwd");
    c->cwd = cwd && *cwd ? xstrdup(cwd) : NULL;
    c->background = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "background"));
    c->timeout_s = sm_json_num(j, "timeout", 0) / 1000.0;
    const cJSON *uid = cJSON_GetObjectItemCaseSensitive(j, "uid");
    if (cJSON_IsNumber(uid))
        c->user = xasprintf("%d", uid->valueint);
    const cJSON *envs = cJSON_GetObjectItemCaseSensitive(j, "envs");
    if (cJSON_IsObject(envs))
        sm_map_from_json(envs, &c->env, NULL, 0);
    cJSON_Delete(j);
    c->out[0] = c->out[1] = c->err[0] = c->err[1] = -1;
    if (!c->background && (pipe2(c->out, O_CLOEXEC) < 0 || pipe2(c->err, O_CLOEXEC) < 0))
        abort();
    if (pipe2(c->done, O_CLOEXEC) < 0)
        abort();
    c->started = sm_now_wall();
    c->refs = 2;
    event(c, "init", c->id, strlen(c->id), NULL);
    if (c->background) {
        pthread_mutex_lock(&lock);
        c->next = table;
        table = c;
        pthread_mutex_unlock(&lock);
        c->ended_stream = true;
        c->refs = 3; /* thread, stream, table */
    }
    pthread_create(&c->th, NULL, run_thread, c);
    pthread_detach(c->th);
    struct MHD_Response *r =
        MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 16384, stream_read, c, stream_free);
    MHD_add_response_header(r, "Content-Type", "text/event-stream");
    MHD_add_response_header(r, "Cache-Control", "no-cache");
    MHD_add_response_header(r, "X-Accel-Buffering", "no");
    enum MHD_Result ret = MHD_queue_response(conn, 200, r);
    MHD_destroy_response(r);
    return ret;
}

static cmd *find_cmd(const char *id)
{
    for (cmd *c = table; c; c = c->next)
        if (!strncmp(c->id, id, 32) && strlen(id) >= 32)
            return c;
    return NULL;
}

static enum MHD_Result do_status(struct MHD_Connection *conn, const char *id, bool logs)
{
    pthread_mutex_lock(&lock);
    cmd *c = find_cmd(id);
    if (!c) {
        pthread_mutex_unlock(&lock);
        return fake_error(conn, 404, "UNKNOWN", "command %s not found", id);
    }
    if (logs) {
        enum MHD_Result ret = fake_send(conn, 200, "text/plain", c->logs.data, c->logs.len);
        pthread_mutex_unlock(&lock);
        return ret;
    }
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "id", c->id);
    cJSON_AddStringToObject(j, "content", c->command);
    cJSON_AddBoolToObject(j, "running", !c->finished);
    if (c->finished)
        cJSON_AddNumberToObject(j, "exit_code", c->timed_out ? -1 : c->exit_code);
    if (c->error[0] || c->timed_out)
        cJSON_AddStringToObject(j, "error", c->timed_out ? "command timed out" : c->error);
    char t[40];
    sm_format_time(c->started, t, sizeof t);
    cJSON_AddStringToObject(j, "started_at", t);
    if (c->finished) {
        sm_format_time(c->ended, t, sizeof t);
        cJSON_AddStringToObject(j, "finished_at", t);
    }
    pthread_mutex_unlock(&lock);
    return fake_json(conn, 200, j);
}

/* ---- upload: multipart parts `metadata` (JSON) and `file`, in pairs */

typedef struct upload {
    struct MHD_PostProcessor *pp;
    sm_strbuf meta;
    int fd;
    char tmp[64];
    char *path;
    char failed[512];
    int files;
} upload;

static void upload_flush(upload *u)
{
    if (u->fd < 0)
        return;
    close(u->fd);
    u->fd = -1;
    cJSON *m = cJSON_ParseWithLength(u->meta.data ? u->meta.data : "", u->meta.len);
    const char *path = sm_json_str(m, "path");
    sm_error e;
    sm_error_clear(&e);
    if (!path)
        snprintf(u->failed, sizeof u->failed, "metadata has no path");
    else if (local->ops->upload(local, box, u->tmp, path, &e) != SM_OK && !u->failed[0])
        snprintf(u->failed, sizeof u->failed, "%s", e.msg);
    cJSON_Delete(m);
    unlink(u->tmp);
    sm_strbuf_reset(&u->meta);
    u->files++;
}

static enum MHD_Result upload_part(void *cls, enum MHD_ValueKind kind, const char *key,
                                   const char *filename, const char *type, const char *enc,
                                   const char *data, uint64_t off, size_t size)
{
    upload *u = cls;
    if (!strcmp(key, "metadata")) {
        if (off == 0)
            upload_flush(u);
        sm_strbuf_append(&u->meta, data, size);
    } else if (!strcmp(key, "file")) {
        if (u->fd < 0) {
            snprintf(u->tmp, sizeof u->tmp, "/tmp/osb-execd-up-XXXXXX");
            u->fd = mkstemp(u->tmp);
        }
        if (size && sm_write_all(u->fd, data, size) < 0)
            snprintf(u->failed, sizeof u->failed, "write failed");
    }
    return MHD_YES;
}

static void upload_free(void *p)
{
    upload *u = p;
    if (u->pp)
        MHD_destroy_post_processor(u->pp);
    if (u->fd >= 0) {
        close(u->fd);
        unlink(u->tmp);
    }
    sm_strbuf_free(&u->meta);
    free(u);
}

static enum MHD_Result do_download(struct MHD_Connection *conn)
{
    const char *path = MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "path");
    if (!path)
        return fake_error(conn, 400, "MISSING_QUERY", "missing query parameter 'path'");
    char tmp[] = "/tmp/osb-execd-down-XXXXXX";
    int fd = mkstemp(tmp);
    if (fd < 0)
        return fake_error(conn, 500, "RUNTIME_ERROR", "no temporary file");
    close(fd);
    sm_error e;
    sm_error_clear(&e);
    enum MHD_Result ret;
    if (local->ops->download(local, box, path, tmp, &e) != SM_OK) {
        ret = fake_error(conn, 404, "FILE_NOT_FOUND", "file not found: %s (%s)", path, e.msg);
    } else {
        char *data = NULL;
        size_t len = 0;
        sm_read_file(tmp, &data, &len);
        ret = fake_send(conn, 200, "application/octet-stream", data, len);
        free(data);
    }
    unlink(tmp);
    return ret;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
                                  const char *method, const char *version, const char *data,
                                  size_t *size, void **con_cls)
{
    const char *path = url;
    if (sm_str_has_prefix(path, "/proxy/")) {
        int port = atoi(path + 7);
        const char *rest = strchr(path + 7, '/');
        if (port != 44772) {
            fake_req *rq;
            if (!fake_gather(con_cls, data, size, &rq))
                return MHD_YES;
            char *q = fake_query(conn);
            char *fwd = xasprintf("%s%s%s", rest ? rest : "/", *q ? "?" : "", q);
            enum MHD_Result ret = fake_forward(conn, port, method, fwd, rq);
            free(fwd);
            free(q);
            return ret;
        }
        path = rest ? rest : "/";
    }
    if (!strcmp(path, "/files/upload") && !strcmp(method, "POST")) {
        fake_req *rq = *con_cls;
        if (!rq) {
            rq = xcalloc(1, sizeof *rq);
            upload *u = xcalloc(1, sizeof *u);
            u->fd = -1;
            u->pp = MHD_create_post_processor(conn, 65536, upload_part, u);
            rq->user = u;
            rq->user_free = upload_free;
            *con_cls = rq;
            return MHD_YES;
        }
        upload *u = rq->user;
        if (*size) {
            if (!u->pp || MHD_post_process(u->pp, data, *size) != MHD_YES)
                snprintf(u->failed, sizeof u->failed, "malformed multipart body");
            *size = 0;
            return MHD_YES;
        }
        upload_flush(u);
        if (u->failed[0])
            return fake_error(conn, 500, "RUNTIME_ERROR", "%s", u->failed);
        if (!u->files)
            return fake_error(conn, 400, "INVALID_FILE", "no file part");
        return fake_send(conn, 200, NULL, "", 0);
    }
    fake_req *rq;
    if (!fake_gather(con_cls, data, size, &rq))
        return MHD_YES;
    if (!strcmp(path, "/ping"))
        return fake_send(conn, 200, NULL, "", 0);
    if (!strcmp(path, "/command") && !strcmp(method, "POST"))
        return do_command(conn, rq);
    if (sm_str_has_prefix(path, "/command/status/"))
        return do_status(conn, path + strlen("/command/status/"), false);
    if (sm_str_has_prefix(path, "/command/") && strstr(path, "/logs"))
        return do_status(conn, path + strlen("/command/"), true);
    if (!strcmp(path, "/files/download"))
        return do_download(conn);
    return fake_error(conn, 404, "UNKNOWN", "no route %s %s", method, path);
}

int main(int argc, char **argv)
{
    const char *id = NULL, *cfg = "{}";
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--sandbox"))
            id = argv[i + 1];
        else if (!strcmp(argv[i], "--local-config"))
            cfg = argv[i + 1];
    }
    if (!id) {
        fprintf(stderr, "usage: %s --sandbox ID [--local-config JSON]\n", argv[0]);
        return 2;
    }
    signal(SIGPIPE, SIG_IGN);
    sm_builtin_register_all();
    cJSON *lc = cJSON_Parse(cfg);
    sm_error e;
    sm_error_clear(&e);
    cJSON *desc = cJSON_CreateObject();
    cJSON_AddStringToObject(desc, "sandbox_id", id);
    if (sm_provider_new("local", lc, &local, &e) != SM_OK ||
        local->ops->connect(local, desc, &box, &e) != SM_OK) {
        fprintf(stderr, "fake execd: %s\n", e.msg);
        return 1;
    }
    cJSON_Delete(lc);
    cJSON_Delete(desc);
    struct sockaddr_in lo = {.sin_family = AF_INET};
    lo.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    struct MHD_Daemon *d = MHD_start_daemon(
        MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG, 0,
        NULL, NULL, on_request, NULL, MHD_OPTION_NOTIFY_COMPLETED, fake_req_done, NULL,
        MHD_OPTION_SOCK_ADDR, &lo, MHD_OPTION_END);
    if (!d)
        return 1;
    printf("%d\n", MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT)->port);
    fflush(stdout);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    int sig;
    sigwait(&set, &sig);
    _exit(0); /* the sandbox belongs to the server */
}
