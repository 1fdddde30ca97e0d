/* File transfer of the docker provider through the archive endpoints: an upload is a one-file
 * tar stream (with entries for missing parent directories) PUT into the deepest directory that
 * exists, so no shell or mkdir is needed inside the container; a download reads the first
 * entry of the tar the engine sends and writes it beside the target, then renames it into
 * place. Single files only: whole tar streams for directories are in docker_tar.c.
 * The tar writer and reader are deliberately tiny (ustar + pax path/size records). */
#include "providers/docker/docker_fs.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/json.h"
#include "core/util.h"
#include "providers/docker/docker_cache.h"

#define TAR_BLOCK 512
#define MAX_LINKS 8

/* ---------------------------------------------------------------- tar writing */

static void octal(char *field, size_t width, unsigned long long v)
{
    /* width - 1 digits and a NUL */
    snprintf(field, width, "%0*llo", (int)width - 1, v);
}

static void pax_record(sm_strbuf *b, const char *key, const char *value)
{
    /* "<len> key=value\n" where len counts itself */
    size_t body = strlen(key) + strlen(value) + 3; /* ' ', '=', '\n' */
    size_t len = body + 1;
    for (;;) {
        char digits[32];
        size_t want = body + (size_t)snprintf(digits, sizeof digits, "%zu", len);
        if (want == len)
            break;
        len = want;
    }
    sm_strbuf_printf(b, "%zu %s=%s\n", len, key, value);
}

static void raw_header(sm_strbuf *out, const char *name, char type, unsigned mode,
                       unsigned long long size, long long mtime)
{
    unsigned char h[TAR_BLOCK];
    memset(h, 0, sizeof h);
    snprintf((char *)h, 100, "%s", name);
    octal((char *)h + 100, 8, mode & 07777);
    octal((char *)h + 108, 8, 0);
    octal((char *)h + 116, 8, 0);
    octal((char *)h + 124, 12, size);
    octal((char *)h + 136, 12, (unsigned long long)(mtime > 0 ? mtime : 0));
    memset(h + 148, ' ', 8);
    h[156] = (unsigned char)type;
    memcpy(h + 257, "ustar", 6);
    memcpy(h + 263, "00", 2);
    snprintf((char *)h + 265, 32, "root");
    snprintf((char *)h + 297, 32, "root");
    unsigned sum = 0;
    for (size_t i = 0; i < TAR_BLOCK; i++)
        sum += h[i];
    snprintf((char *)h + 148, 8, "%06o", sum);
    h[155] = ' ';
    sm_strbuf_append(out, h, TAR_BLOCK);
}

/* One entry's header; long names and huge sizes go into a pax extended header first. */
static void tar_header(sm_strbuf *out, const char *name, char type, unsigned mode,
                       unsigned long long size, long long mtime)
{
    bool long_name = strlen(name) >= 100;
    bool big = size > 077777777777ULL;
    if (long_name || big) {
        sm_strbuf pax = {0};
        if (long_name)
            pax_record(&pax, "path", name);
        if (big) {
            char num[32];
            snprintf(num, sizeof num, "%llu", size);
            pax_record(&pax, "size", num);
        }
        raw_header(out, "././@PaxHeader", 'x', 0644, pax.len, mtime);
        sm_strbuf_append(out, pax.data, pax.len);
        static const char zeros[TAR_BLOCK];
        if (pax.len % TAR_BLOCK)
            sm_strbuf_append(out, zeros, TAR_BLOCK - pax.len % TAR_BLOCK);
        sm_strbuf_free(&pax);
    }
    raw_header(out, long_name ? "pax-long-name" : name, type, mode, big ? 0 : size, mtime);
}

typedef struct tar_src {
    sm_strbuf head; /* headers of the missing directories and of the file */
    size_t head_off;
    int fd;
    unsigned long long size, sent; /* file bytes */
    size_t tail_left;              /* padding + end-of-archive blocks */
    int read_errno;
} tar_src;

static size_t tar_read(char *buf, size_t len, void *ud)
{
    tar_src *s = ud;
    size_t n = 0;
    if (s->head_off < s->head.len) {
        n = s->head.len - s->head_off;
        if (n > len)
            n = len;
        memcpy(buf, s->head.data + s->head_off, n);
        s->head_off += n;
        return n;
    }
    if (s->sent < s->size) {
        size_t want = s->size - s->sent < len ? (size_t)(s->size - s->sent) : len;
        ssize_t r;
        do {
            r = read(s->fd, buf, want);
        } while (r < 0 && errno == EINTR);
        if (r < 0) {
            s->read_errno = errno;
            return (size_t)-1;
        }
        if (r == 0) { /* the file shrank while we sent it: keep the archive well-formed */
            memset(buf, 0, want);
            r = (ssize_t)want;
        }
        s->sent += (unsigned long long)r;
        return (size_t)r;
    }
    n = s->tail_left < len ? s->tail_left : len;
    memset(buf, 0, n);
    s->tail_left -= n;
    return n;
}

/* ---------------------------------------------------------------- paths */

static char *dir_of(const char *path)
{
    char *tmp = xstrdup(path), *d = xstrdup(dirname(tmp));
    free(tmp);
    return d;
}

static char *base_of(const char *path)
{
    char *tmp = xstrdup(path), *b = xstrdup(basename(tmp));
    free(tmp);
    return b;
}

/* Absolute remote path: relative ones are under the container's working directory. A
 * trailing slash means "into this directory" (the local file's name is kept). */
char *docker_remote_path(docker_provider *dp, sm_handle *h, const char *remote, const char *local,
                         sm_error *err)
{
    char *abs;
    if (remote[0] == '/') {
        abs = xstrdup(remote);
    } else {
        docker_cache *c = docker_cache_get(dp, h, err);
        if (!c)
            return NULL;
        const char *wd = c->workdir ? c->workdir : "/";
        abs = xasprintf("%s%s%s", wd, wd[strlen(wd) - 1] == '/' ? "" : "/", remote);
    }
    size_t n = strlen(abs);
    if (n > 1 && abs[n - 1] == '/' && local) {
        char *b = base_of(local), *joined = xasprintf("%s%s", abs, b);
        free(b);
        free(abs);
        abs = joined;
    }
    /* collapse repeated slashes and a trailing one */
    char *w = abs;
    for (const char *r = abs; *r; r++)
        if (!(*r == '/' && w > abs && w[-1] == '/'))
            *w++ = *r;
    *w = '\0';
    n = strlen(abs);
    while (n > 1 && abs[n - 1] == '/')
        abs[--n] = '\0';
    return abs;
}

/* HEAD on the archive endpoint: 1 = a directory, 0 = exists but not a directory, -1 = absent.
 * The X-Docker-Container-Path-Stat header is base64 JSON with Go's file mode (bit 31 = dir). */
int docker_remote_kind(docker_provider *dp, const char *cid, const char *path, sm_error *err)
{
    char *esc = sm_http_escape(path);
    char *full = docker_path(dp, err, "/containers/%s/archive?path=%s", cid, esc);
    free(esc);
    if (!full)
        return -2;
    sm_http_req r = {.method = "HEAD",
                     .path = full,
                     .timeout_s = 60,
                     .idempotent = true,
                     .no_body = true,
                     .body_size = -1};
    sm_http_resp resp;
    int rc = sm_http_do(dp->http, &r, &resp, err);
    free(full);
    int kind = -2;
    if (rc == SM_OK && resp.status == 200) {
        kind = 1;
        const char *stat64 = sm_http_resp_header(&resp, "X-Docker-Container-Path-Stat");
        if (stat64) {
            static const char tbl[] =
                "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
            sm_strbuf dec = {0};
            unsigned acc = 0;
            int bits = 0;
            for (const char *p = stat64; *p && *p != '=' && *p != '\r'; p++) {
                const char *pos = strchr(tbl, *p);
                if (!pos)
                    continue;
                acc = (acc << 6) | (unsigned)(pos - tbl);
                bits += 6;
                if (bits >= 8) {
                    bits -= 8;
                    char ch = (char)((acc >> bits) & 0xff);
                    sm_strbuf_append(&dec, &ch, 1);
                }
            }
            cJSON *j = dec.data ? cJSON_Parse(dec.data) : NULL;
            const cJSON *isdir = j ? cJSON_GetObjectItemCaseSensitive(j, "isDir") : NULL;
            double mode = sm_json_num(j, "mode", -1);
            if (cJSON_IsBool(isdir))
                kind = cJSON_IsTrue(isdir) ? 1 : 0;
            else if (mode >= 0)
                kind = ((unsigned long long)mode & (1ULL << 31)) ? 1 : 0;
            cJSON_Delete(j);
            sm_strbuf_free(&dec);
        }
    } else if (rc == SM_OK && resp.status == 404) {
        kind = -1;
    } else if (rc == SM_OK) {
        docker_http_error(err, resp.status, resp.body.data, NULL, SM_FAIL_TRANSFER_FAILED,
                          "looking at %s in %.12s", path, cid);
    }
    sm_http_resp_free(&resp);
    return kind;
}

int docker_gone_error(sm_error *err, const char *cid)
{
    return sm_error_set(err, SM_ERR_NOT_FOUND, SM_FAIL_NOT_FOUND, "sandbox %.12s does not exist",
                        cid);
}

/* ---------------------------------------------------------------- upload */

int docker_upload(sm_provider *p, sm_handle *h, const char *local, const char *remote,
                  sm_error *err)
{
    docker_provider *dp = p->impl;
    int fd = open(local, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return sm_error_set(err, SM_ERR_IO, SM_FAIL_TRANSFER_FAILED, "cannot read %s: %s", local,
                            strerror(errno));
    struct stat st;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return sm_error_set(err, SM_ERR_UNSUPPORTED, SM_FAIL_INVALID_REQUEST,
                            "%s is not a regular file (the docker provider copies single files; "
                            "directories come with the transfer feature)",
                            local);
    }
    char *dest = docker_remote_path(dp, h, remote, local, err);
    if (!dest) {
        close(fd);
        return err ? err->code : SM_ERR_RUNTIME;
    }
    if (!strcmp(dest, "/")) {
        free(dest);
        close(fd);
        return sm_error_set(err, SM_ERR_INVALID, SM_FAIL_INVALID_REQUEST,
                            "upload needs a file path, not /");
    }
    /* The deepest directory that exists; the ones below it are created by the archive. */
    char *parent = dir_of(dest), *anchor = xstrdup(parent);
    int rc = SM_OK;
    for (;;) {
        int kind = docker_remote_kind(dp, h->id, anchor, err);
        if (kind == -2) {
            rc = err ? err->code : SM_ERR_RUNTIME;
            break;
        }
        if (kind == 1)
            break;
        if (kind == 0) {
            rc = sm_error_set(err, SM_ERR_IO, SM_FAIL_TRANSFER_FAILED,
                              "cannot create %s in sandbox %.12s: %s is not a directory", dest,
                              h->id, anchor);
            break;
        }
        if (!strcmp(anchor, "/")) { /* even the root is missing: the container is */
            rc = docker_gone_error(err, h->id);
            break;
        }
        char *up = dir_of(anchor);
        free(anchor);
        anchor = up;
    }
    tar_src src = {.fd = fd, .size = (unsigned long long)st.st_size};
    if (rc == SM_OK) {
        size_t alen = strlen(anchor);
        const char *rel = parent + (strcmp(anchor, "/") ? alen : 0);
        while (*rel == '/')
            rel++;
        /* directory entries for each missing level: "a/", "a/b/" */
        for (const char *s = rel; *rel && s;) {
            const char *slash = strchr(s, '/');
            size_t n = slash ? (size_t)(slash - rel) : strlen(rel);
            char *dname = xasprintf("%.*s/", (int)n, rel);
            tar_header(&src.head, dname, '5', 0755, 0, (long long)st.st_mtime);
            free(dname);
            s = slash ? slash + 1 : NULL;
        }
        char *name = base_of(dest);
        char *entry = *rel ? xasprintf("%s/%s", rel, name) : xstrdup(name);
        tar_header(&src.head, entry, '0', (unsigned)st.st_mode & 07777,
                   (unsigned long long)st.st_size, (long long)st.st_mtime);
        free(entry);
        free(name);
        size_t pad = (size_t)(src.size % TAR_BLOCK ? TAR_BLOCK - src.size % TAR_BLOCK : 0);
        src.tail_left = pad + 2 * TAR_BLOCK;

        char *esc = sm_http_escape(anchor);
        char *path = docker_path(dp, err, "/containers/%s/archive?path=%s", h->id, esc);
        free(esc);
        if (!path) {
            rc = err ? err->code : SM_ERR_RUNTIME;
        } else {
            sm_http_req r = {.method = "PUT",
                             .path = path,
                             .content_type = "application/x-tar",
                             .read_cb = tar_read,
                             .read_ud = &src,
                             .body_size = (long long)(src.head.len + src.size + src.tail_left),
                             .timeout_s = DOCKER_XFER_TIMEOUT};
            sm_http_resp resp;
            rc = sm_http_do(dp->http, &r, &resp, err);
            if (rc != SM_OK && src.read_errno)
                rc = sm_error_set(err, SM_ERR_IO, SM_FAIL_TRANSFER_FAILED, "reading %s: %s", local,
                                  strerror(src.read_errno));
            else if (rc == SM_OK && resp.status != 200)
                rc = docker_http_error(err, resp.status, resp.body.data, NULL,
                                       SM_FAIL_TRANSFER_FAILED, "writing %s in sandbox %.12s", dest,
                                       h->id);
            if (rc != SM_OK && err && err->failure.kind == SM_FAIL_NOT_FOUND && resp.status == 404)
                err->failure.kind = SM_FAIL_TRANSFER_FAILED;
            sm_http_resp_free(&resp);
            free(path);
        }
    }
    if (rc != SM_OK && err)
        snprintf(err->failure.operation, sizeof err->failure.operation, "upload");
    sm_strbuf_free(&src.head);
    free(anchor);
    free(parent);
    free(dest);
    close(fd);
    return rc;
}

/* ---------------------------------------------------------------- workdir */

int docker_make_workdir(docker_provider *dp, const char *cid, const char *workdir, sm_error *err)
{
    return docker_make_dir(dp, cid, workdir, 01777, err);
}

/* Creates workdir (and the parents the engine adds for it) unless it exists. */
int docker_make_dir(docker_provider *dp, const char *cid, const char *workdir, unsigned mode,
                    sm_error *err)
{
    while (*workdir == '/')
        workdir++;
    if (!*workdir)
        return SM_OK;
    char *abs = xasprintf("/%s", workdir);
    int kind = docker_remote_kind(dp, cid, abs, err);
    free(abs);
    if (kind != -1)
        return kind == -2 ? (err ? err->code : SM_ERR_RUNTIME) : SM_OK;
    sm_strbuf tar = {0};
    char *entry = xasprintf("%s/", workdir);
    tar_header(&tar, entry, '5', mode, 0, (long long)time(NULL));
    free(entry);
    static const char zeros[2 * TAR_BLOCK];
    sm_strbuf_append(&tar, zeros, sizeof zeros);
    char *path = docker_path(dp, err, "/containers/%s/archive?path=/", cid);
    int rc = path ? SM_OK : (err ? err->code : SM_ERR_RUNTIME);
    if (path) {
        sm_http_req r = {.method = "PUT",
                         .path = path,
                         .content_type = "application/x-tar",
                         .body = tar.data,
                         .body_len = tar.len,
                         .body_size = -1,
                         .timeout_s = DOCKER_XFER_TIMEOUT};
        sm_http_resp resp;
        rc = sm_http_do(dp->http, &r, &resp, err);
        if (rc == SM_OK && resp.status != 200)
            rc = docker_http_error(err, resp.status, resp.body.data, NULL, SM_FAIL_CREATE_FAILED,
                                   "creating the workdir /%s in container %.12s", workdir, cid);
        sm_http_resp_free(&resp);
        free(path);
    }
    sm_strbuf_free(&tar);
    return rc;
}

/* ---------------------------------------------------------------- download */

typedef struct tar_sink {
    unsigned char hdr[TAR_BLOCK];
    size_t hdr_len;
    unsigned long long left, pad; /* of the current entry's data */
    int state;                    /* 0 header, 1 pax data, 2 file data, 3 skip data, 4 done */
    sm_strbuf pax;
    unsigned long long pax_size; /* size from a pax record, 0 = none */
    bool have_pax_size;
    /* the entry we want */
    char type;
    char link[4096];
    unsigned mode;
    int out_fd;
    const char *tmp_path;
    int werrno;
    bool got_file;
    char err[160];
} tar_sink;

static unsigned long long tar_num(const unsigned char *f, size_t n)
{
    if (f[0] & 0x80) { /* GNU base-256 */
        unsigned long long v = f[0] & 0x3f;
        for (size_t i = 1; i < n; i++)
            v = (v << 8) | f[i];
        return v;
    }
    unsigned long long v = 0;
    for (size_t i = 0; i < n && f[i]; i++)
        if (f[i] >= '0' && f[i] <= '7')
            v = v * 8 + (unsigned long long)(f[i] - '0');
    return v;
}

static void pax_parse(tar_sink *s)
{
    for (char *p = s->pax.data; p && *p;) {
        char *sp = strchr(p, ' ');
        long len = strtol(p, NULL, 10);
        if (!sp || len <= 0 || (size_t)(p - s->pax.data) + (size_t)len > s->pax.len)
            break;
        char *kv = sp + 1, *end = p + len - 1; /* at '\n' */
        if (!strncmp(kv, "size=", 5)) {
            s->pax_size = strtoull(kv + 5, NULL, 10);
            s->have_pax_size = true;
        } else if (!strncmp(kv, "linkpath=", 9)) {
            snprintf(s->link, sizeof s->link, "%.*s", (int)(end - kv - 9), kv + 9);
        }
        p += len;
    }
    sm_strbuf_reset(&s->pax);
}

static bool tar_write(const char *data, size_t len, void *ud)
{
    tar_sink *s = ud;
    while (len > 0 && s->state != 4) {
        if (s->state == 0) {
            size_t n = TAR_BLOCK - s->hdr_len < len ? TAR_BLOCK - s->hdr_len : len;
            memcpy(s->hdr + s->hdr_len, data, n);
            s->hdr_len += n;
            data += n;
            len -= n;
            if (s->hdr_len < TAR_BLOCK)
                return true;
            s->hdr_len = 0;
            bool zero = true;
            for (size_t i = 0; i < TAR_BLOCK && zero; i++)
                zero = s->hdr[i] == 0;
            if (zero) {
                s->state = 4;
                return true;
            }
            char type = (char)s->hdr[156];
            unsigned long long size = tar_num(s->hdr + 124, 12);
            if (s->have_pax_size) {
                size = s->pax_size;
                s->have_pax_size = false;
            }
            s->left = size;
            s->pad = size % TAR_BLOCK ? TAR_BLOCK - size % TAR_BLOCK : 0;
            if (type == 'x' || type == 'g' || type == 'L' || type == 'K') {
                s->state = 1; /* extended header data (GNU long names are just skipped) */
                s->type = type;
                continue;
            }
            if (s->got_file) {
                s->state = 3;
                continue;
            }
            s->type = type;
            s->mode = (unsigned)tar_num(s->hdr + 100, 8) & 07777;
            if (type == '2') {
                if (!s->link[0])
                    snprintf(s->link, sizeof s->link, "%.100s", (const char *)s->hdr + 157);
                s->state = 4;
                return true;
            }
            if (type != '0' && type != '\0' && type != '7') {
                snprintf(s->err, sizeof s->err, "%s",
                         type == '5' ? "it is a directory (the docker provider copies single "
                                       "files; directories come with the transfer feature)"
                                     : "it is not a regular file");
                s->state = 4;
                return false;
            }
            s->got_file = true;
            s->state = 2;
            continue;
        }
        /* entry data (+ padding) */
        size_t n = s->left < len ? (size_t)s->left : len;
        if (n) {
            if (s->state == 1 && s->type == 'x') {
                sm_strbuf_append(&s->pax, data, n);
            } else if (s->state == 2 && !s->werrno) {
                const char *p = data;
                size_t m = n;
                while (m > 0) {
                    ssize_t w = write(s->out_fd, p, m);
                    if (w < 0 && errno == EINTR)
                        continue;
                    if (w <= 0) {
                        s->werrno = w < 0 ? errno : EIO;
                        return false;
                    }
                    p += w;
                    m -= (size_t)w;
                }
            }
            s->left -= n;
            data += n;
            len -= n;
            continue;
        }
        size_t skip = s->pad < len ? (size_t)s->pad : len;
        s->pad -= skip;
        data += skip;
        len -= skip;
        if (s->pad == 0) {
            if (s->state == 1 && s->type == 'x')
                pax_parse(s);
            s->state = 0;
        }
    }
    return true;
}

/* Resolves a symlink's target against the link's directory. */
static char *link_target(const char *path, const char *target)
{
    if (target[0] == '/')
        return xstrdup(target);
    char *d = dir_of(path), *t = xasprintf("%s/%s", d, target);
    free(d);
    return t;
}

int docker_download(sm_provider *p, sm_handle *h, const char *remote, const char *local,
                    sm_error *err)
{
    docker_provider *dp = p->impl;
    char *src = docker_remote_path(dp, h, remote, NULL, err);
    if (!src)
        return err ? err->code : SM_ERR_RUNTIME;
    /* A local directory receives the file under its own name. */
    char *dest;
    struct stat st;
    if (stat(local, &st) == 0 && S_ISDIR(st.st_mode)) {
        char *b = base_of(src);
        dest = xasprintf("%s/%s", local, b);
        free(b);
    } else {
        dest = xstrdup(local);
    }
    char *ldir = dir_of(dest);
    if (sm_mkdir_p(ldir, 0755) < 0) {
        int e = errno;
        free(ldir);
        free(dest);
        free(src);
        return sm_error_set(err, SM_ERR_IO, SM_FAIL_TRANSFER_FAILED, "cannot create %s: %s", local,
                            strerror(e));
    }
    char *tmp = xasprintf("%s/.%s.sandman-XXXXXX", ldir, "download");
    free(ldir);
    int rc = SM_OK;
    for (int hop = 0;; hop++) {
        int fd = mkstemp(tmp);
        if (fd < 0) {
            rc = sm_error_set(err, SM_ERR_IO, SM_FAIL_TRANSFER_FAILED, "cannot write near %s: %s",
                              dest, strerror(errno));
            break;
        }
        tar_sink s = {.out_fd = fd, .tmp_path = tmp};
        char *esc = sm_http_escape(src);
        char *path = docker_path(dp, err, "/containers/%s/archive?path=%s", h->id, esc);
        free(esc);
        sm_http_resp resp;
        sm_http_resp_init(&resp);
        if (!path) {
            rc = err ? err->code : SM_ERR_RUNTIME;
        } else {
            sm_http_req r = {.method = "GET",
                             .path = path,
                             .write_cb = tar_write,
                             .write_ud = &s,
                             .timeout_s = DOCKER_XFER_TIMEOUT,
                             .idempotent = true,
                             .body_size = -1};
            rc = sm_http_do(dp->http, &r, &resp, err);
            free(path);
        }
        bool ok_file = false;
        if (rc == SM_OK && resp.status == 200) {
            if (s.err[0])
                rc = sm_error_set(err, SM_ERR_UNSUPPORTED, SM_FAIL_INVALID_REQUEST,
                                  "cannot download %s: %s", src, s.err);
            else if (s.werrno)
                rc = sm_error_set(err, SM_ERR_IO, SM_FAIL_TRANSFER_FAILED, "writing %s: %s", dest,
                                  strerror(s.werrno));
            else if (s.type == '2' && !s.got_file)
                ; /* a symlink: follow it below */
            else if (!s.got_file)
                rc = sm_error_set(err, SM_ERR_RUNTIME, SM_FAIL_TRANSFER_FAILED,
                                  "the engine sent no file for %s", src);
            else
                ok_file = true;
        } else if (rc == SM_OK && resp.status == 404) {
            char reason[256];
            sm_http_body_reason(resp.body.data, reason, sizeof reason);
            if (strcasestr(reason, "no such container"))
                rc = docker_gone_error(err, h->id);
            else
                rc = sm_error_set(err, SM_ERR_NOT_FOUND, SM_FAIL_TRANSFER_FAILED,
                                  "no file %s in sandbox %.12s", src, h->id);
            if (err) {
                err->failure.http_status = 404;
                snprintf(err->failure.provider_reason, sizeof err->failure.provider_reason, "%s",
                         reason);
            }
        } else if (rc == SM_OK) {
            rc = docker_http_error(err, resp.status, resp.body.data, NULL, SM_FAIL_TRANSFER_FAILED,
                                   "reading %s from sandbox %.12s", src, h->id);
        }
        sm_http_resp_free(&resp);
        sm_strbuf_free(&s.pax);
        if (rc == SM_OK && ok_file) {
            fchmod(fd, s.mode ? (s.mode & 0777) : 0644);
            if (close(fd) < 0 || rename(tmp, dest) < 0) {
                rc = sm_error_set(err, SM_ERR_IO, SM_FAIL_TRANSFER_FAILED, "writing %s: %s", dest,
                                  strerror(errno));
                unlink(tmp);
            }
            break;
        }
        close(fd);
        unlink(tmp);
        if (rc != SM_OK)
            break;
        /* symlink: fetch what it points at */
        if (hop + 1 >= MAX_LINKS) {
            rc = sm_error_set(err, SM_ERR_INVALID, SM_FAIL_TRANSFER_FAILED,
                              "%s: too many levels of symbolic links", remote);
            break;
        }
        char *next = link_target(src, s.link);
        free(src);
        src = next;
        strcpy(tmp + strlen(tmp) - 6, "XXXXXX");
    }
    if (rc != SM_OK && err)
        snprintf(err->failure.operation, sizeof err->failure.operation, "download");
    free(tmp);
    free(dest);
    free(src);
    return rc;
}
