/* `sandman cp [-r] SRC DST`: copies files and (with -r) directories into, out of and between
 * sandboxes: ID:PATH on either side or both (sandbox to sandbox, streamed, nothing on local
 * disk), `-` for a tar stream on stdin (into ID:DIR) or stdout (of ID:PATH). A progress bar on
 * a terminal, JSON progress lines with -o json, nothing otherwise. Directory work is
 * core/transfer.c; a single file without -r goes through the provider's file upload/download. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "core/transfer.h"
#include "core/util.h"

enum { CP_RECURSIVE = 1, CP_NO_VERIFY };

static const cli_opt cp_opts[] = {
    {"recursive", 'r', NULL, "copy directories (with their modes, links and empty directories)",
     CP_RECURSIVE},
    {"no-verify", 0, NULL, "do not read an upload back to compare checksums", CP_NO_VERIFY},
    {NULL, 0, NULL, NULL, 0}};

typedef struct cp_side {
    char *id;         /* NULL: local */
    const char *path; /* "-" for a stream */
} cp_side;

typedef struct cp_args {
    cp_side src, dst;
    bool recursive, no_verify;
} cp_args;

/* "ID:PATH" names a sandbox path when the part before the colon has no slash. */
static int split_remote(const char *arg, cp_side *s)
{
    const char *colon = strchr(arg, ':');
    s->path = arg;
    if (!colon || colon == arg || memchr(arg, '/', (size_t)(colon - arg)))
        return 0;
    s->id = xstrndup(arg, (size_t)(colon - arg));
    s->path = colon + 1;
    return 1;
}

static int cp_opt(sm_cli *cli, void *args, int id, const char *arg)
{
    (void)cli, (void)arg;
    cp_args *a = args;
    if (id == CP_RECURSIVE)
        a->recursive = true;
    else
        a->no_verify = true;
    return 0;
}

/* Which sides are sandboxes is known before any provider is built. */
static int cp_check(sm_cli *cli, cli_call *c)
{
    cp_args *a = c->args;
    if (c->npos != 2)
        return cli_usage(cli, "cp wants SRC and DST (ID:PATH on either side or both, - for a "
                              "tar stream)");
    split_remote(c->pos[0], &a->src);
    split_remote(c->pos[1], &a->dst);
    if (!a->src.id && !a->dst.id)
        return cli_usage(cli, "one of SRC and DST must be ID:PATH");
    if ((a->src.id && !*a->src.path) || (a->dst.id && !*a->dst.path))
        return cli_usage(cli, "the sandbox path after '%s:' is empty",
                         a->src.id && !*a->src.path ? a->src.id : a->dst.id);
    bool sin = !a->src.id && !strcmp(a->src.path, "-");
    bool sout = !a->dst.id && !strcmp(a->dst.path, "-");
    if ((sin || sout) && a->src.id && a->dst.id)
        return cli_usage(cli, "- stands for the local side");
    /* a local file that is not there is bad input (2), as for create --file */
    struct stat st;
    if (!a->src.id && !sin) {
        if (lstat(a->src.path, &st) != 0)
            return cli_error(cli, CLI_USAGE, "cp: cannot read %s: %s", a->src.path,
                             strerror(errno));
        if (S_ISDIR(st.st_mode) && !a->recursive)
            return cli_usage(cli, "%s is a directory (use -r to copy directories)", a->src.path);
    }
    return 0;
}

static void cp_done(void *args)
{
    cp_args *a = args;
    free(a->src.id);
    free(a->dst.id);
}

/* ---------------------------------------------------------------- progress */

typedef struct meter {
    sm_cli *cli;
    bool bar, json;
    double t0, last;
    unsigned long long done;
    long long total;
    bool drawn;
} meter;

static void progress(void *ud, unsigned long long done, long long total)
{
    meter *m = ud;
    m->done = done;
    m->total = total;
    double now = sm_now_mono();
    if (now - m->last < (m->json ? 0.5 : 0.1))
        return;
    m->last = now;
    double el = now - m->t0, rate = el > 0 ? (double)done / el : 0;
    if (m->json) {
        cJSON *doc = cJSON_CreateObject(), *p = cJSON_AddObjectToObject(doc, "progress");
        cJSON_AddNumberToObject(p, "bytes", (double)done);
        if (total >= 0)
            cJSON_AddNumberToObject(p, "total", (double)total);
        cJSON_AddNumberToObject(p, "rate", rate);
        if (total > 0 && rate > 0)
            cJSON_AddNumberToObject(p, "eta_s", ((double)total - (double)done) / rate);
        cli_print_json_line(m->cli, doc);
        return;
    }
    if (!m->bar)
        return;
    char b[32], r[32], t[32] = "", eta[48] = "", bar[34] = "";
    sm_format_bytes((double)done, b, sizeof b);
    sm_format_bytes(rate, r, sizeof r);
    if (total > 0) {
        double f = (double)done / (double)total;
        if (f > 1)
            f = 1;
        int w = (int)(f * 30);
        bar[0] = '[';
        for (int i = 0; i < 30; i++)
            bar[1 + i] = i < w ? '=' : i == w ? '>' : ' ';
        bar[31] = ']';
        bar[32] = '\0';
        sm_format_bytes((double)total, t, sizeof t);
        char d[24];
        sm_format_duration(rate > 0 ? ((double)total - (double)done) / rate : 0, d, sizeof d);
        snprintf(eta, sizeof eta, " %3d%% ETA %s", (int)(f * 100), d);
    }
    fprintf(m->cli->err, "\r\033[K%s %s%s%s  %s/s%s", bar, b, *t ? " / " : "", t, r, eta);
    fflush(m->cli->err);
    m->drawn = true;
}

static void meter_end(meter *m)
{
    if (m->drawn) {
        fprintf(m->cli->err, "\r\033[K");
        fflush(m->cli->err);
    }
}

static void note(void *ud, const char *line)
{
    meter *m = ud;
    meter_end(m);
    m->drawn = false;
    cli_printf(m->cli->err, "sandman: note: %s\n", line);
}

/* ---------------------------------------------------------------- the copy */

static char *join(const char *dir, const char *path)
{
    char *copy = xstrdup(path);
    size_t n = strlen(copy);
    while (n > 1 && copy[n - 1] == '/')
        copy[--n] = '\0';
    char *r = xasprintf("%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", basename(copy));
    free(copy);
    return r;
}

/* Where src lands in a sandbox: inside dst when dst is a directory (or ends with /), as cp. */
static char *remote_dest(sm_sandbox *s, const char *dst, const char *src, sm_error *err, int *rc)
{
    sm_remote_kind k = SM_KIND_ABSENT;
    *rc = SM_OK;
    if (dst[strlen(dst) - 1] == '/')
        return join(dst, src);
    *rc = sm_transfer_remote_kind(s, dst, &k, err);
    if (*rc != SM_OK)
        return NULL;
    return k == SM_KIND_DIR ? join(dst, src) : xstrdup(dst);
}

static char *local_dest(const char *dst, const char *src)
{
    struct stat st;
    if (stat(dst, &st) == 0 && S_ISDIR(st.st_mode))
        return join(dst, src);
    return xstrdup(dst);
}

static int cmd_cp(sm_cli *cli, cli_call *c)
{
    cp_args *a = c->args;
    int status = CLI_OK;
    sm_sandbox *ss = NULL, *ds = NULL;
    if (a->src.id && !(ss = cli_open_sandbox(cli, a->src.id, &status)))
        return status;
    if (a->dst.id && !(ds = cli_open_sandbox(cli, a->dst.id, &status))) {
        sm_sandbox_free(ss);
        return status;
    }
    meter m = {.cli = cli, .json = cli->json, .t0 = sm_now_mono(), .total = -1};
    m.bar = !cli->json && isatty(fileno(cli->err));
    sm_transfer_opts o = {.progress = progress, .note = note, .ud = &m, .no_verify = a->no_verify};
    sm_transfer_result res = {0};
    sm_error err;
    sm_error_clear(&err);
    int rc = SM_OK;
    char *from = NULL, *to = NULL;
    const char *direction = "";
    sm_remote_kind k = SM_KIND_FILE;
    if (ss && !a->recursive && strcmp(a->dst.path, "-") &&
        (rc = sm_transfer_remote_kind(ss, a->src.path, &k, &err)) == SM_OK && k == SM_KIND_DIR) {
        rc = sm_error_set(&err, SM_ERR_INVALID, SM_FAIL_INVALID_REQUEST,
                          "%s in sandbox %s is a directory (use -r to copy directories)",
                          a->src.path, sm_sandbox_id(ss));
    } else if (rc == SM_ERR_UNSUPPORTED) {
        rc = SM_OK, k = SM_KIND_FILE; /* a provider without tar streams: single files */
        sm_error_clear(&err);
    }
    if (rc != SM_OK) {
        /* reported below */
    } else if (ss && ds) {
        direction = "copy";
        from = xstrdup(a->src.path);
        to = remote_dest(ds, a->dst.path, a->src.path, &err, &rc);
        if (rc == SM_OK)
            rc = sm_transfer_copy(ss, from, ds, to, &o, &res, &err);
    } else if (ds && !strcmp(a->src.path, "-")) {
        direction = "upload";
        from = xstrdup("-");
        to = xstrdup(a->dst.path);
        rc = sm_transfer_upload_stream(ds, 0, to, &o, &res, &err);
    } else if (ss && !strcmp(a->dst.path, "-")) {
        direction = "download";
        from = xstrdup(a->src.path);
        to = xstrdup("-");
        rc = sm_transfer_download_stream(ss, from, 1, &o, &res, &err);
    } else if (ds) {
        direction = "upload";
        from = xstrdup(a->src.path);
        if (a->dst.path[strlen(a->dst.path) - 1] == '/')
            to = join(a->dst.path, from);
        else if (a->recursive)
            to = remote_dest(ds, a->dst.path, from, &err, &rc);
        else
            to = xstrdup(a->dst.path);
        if (rc == SM_OK && a->recursive)
            rc = sm_transfer_upload_path(ds, from, to, &o, &res, &err);
        else if (rc == SM_OK)
            rc = sm_sandbox_upload(ds, from, to, &err);
    } else {
        direction = "download";
        from = xstrdup(a->src.path);
        to = local_dest(a->dst.path, from);
        if (a->recursive)
            rc = sm_transfer_download_path(ss, from, to, &o, &res, &err);
        else
            rc = sm_sandbox_download(ss, from, to, &err);
    }
    meter_end(&m);
    if (rc != SM_OK) {
        status = cli_fail(cli, &err);
    } else if (cli->json) {
        cJSON *doc = cJSON_CreateObject();
        if (ss)
            cJSON_AddStringToObject(doc, "from_sandbox", sm_sandbox_id(ss));
        if (ds)
            cJSON_AddStringToObject(doc, "to_sandbox", sm_sandbox_id(ds));
        cJSON_AddStringToObject(doc, "sandbox_id", sm_sandbox_id(ds ? ds : ss));
        cJSON_AddStringToObject(doc, "direction", direction);
        cJSON_AddStringToObject(doc, ss ? "remote" : "local", from);
        cJSON_AddStringToObject(doc, ds ? (ss ? "remote_to" : "remote") : "local", to);
        struct stat st;
        if (!a->recursive && !ss && stat(from, &st) == 0)
            res.bytes = (unsigned long long)st.st_size;
        else if (!a->recursive && !ds && stat(to, &st) == 0)
            res.bytes = (unsigned long long)st.st_size;
        cJSON_AddNumberToObject(doc, "bytes", (double)res.bytes);
        if (res.entries) {
            cJSON_AddNumberToObject(doc, "files", (double)res.files);
            cJSON_AddNumberToObject(doc, "entries", (double)res.entries);
            cJSON_AddNumberToObject(doc, "skipped", (double)res.skipped);
            cJSON_AddBoolToObject(doc, "verified", res.verified);
        }
        cli_print_json_line(cli, doc);
    }
    free(from);
    free(to);
    sm_sandbox_free(ss);
    sm_sandbox_free(ds);
    return status;
}

const sm_cmd sm_cmd_cp = {
    .name = "cp",
    .usage = "[-r] SRC DST",
    .summary = "copy files and directories into, out of and between sandboxes (ID:PATH; - for "
               "a tar stream)",
    .max_pos = 2,
    .opts = cp_opts,
    .args_size = sizeof(cp_args),
    .opt = cp_opt,
    .check = cp_check,
    .run = cmd_cp,
    .done = cp_done,
};
