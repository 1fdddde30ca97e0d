/* The transfer module (core/transfer.h). A provider's tar_get pushes and its tar_put pulls, while
 * libarchive on our side pulls from readers and pushes to writers, so each provider side runs on
 * a thread of its own (core/transfer_side.c). A side that fails makes the other one's stream end
 * in an error, never in a clean end of archive, so a half stream is never taken as complete. */
#include "core/transfer.h"
#include "core/transfer_exec.h"
#include "core/transfer_side.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/archive_int.h"
#include "core/journal.h"
#include "core/provider_impl.h"
#include "core/util.h"

/* ---------------------------------------------------------------- error classes */

sm_transfer_error_class sm_transfer_classify(const sm_error *err)
{
    if (!err || err->code == SM_OK)
        return SM_XFER_ERR_NONE;
    switch (err->failure.kind) {
    case SM_FAIL_PROVIDER_UNREACHABLE:
    case SM_FAIL_AUTH_REJECTED: return SM_XFER_ERR_UNAVAILABLE;
    case SM_FAIL_NOT_FOUND:
    case SM_FAIL_SANDBOX_ERROR:
    case SM_FAIL_SUPERVISOR_LOST:
    case SM_FAIL_TTL_EXPIRED:
    case SM_FAIL_KILLED_BY_USER: return SM_XFER_ERR_PROBE;
    default: return err->code == SM_ERR_TIMEOUT ? SM_XFER_ERR_PROBE : SM_XFER_ERR_TRANSFER;
    }
}

const char *sm_transfer_error_class_name(sm_transfer_error_class c)
{
    static const char *const n[] = {"none", "transfer", "probe", "unavailable"};
    return n[c];
}

const char *sm_transfer_error_seed_name(sm_transfer_error_class c)
{
    static const char *const n[] = {"", "SandboxTransferError", "SandboxProbeError",
                                    "SandboxUnavailableError"};
    return n[c];
}

/* ---------------------------------------------------------------- helpers */

static int need_tar(sm_sandbox *s, sm_provider **p, sm_handle **h, sm_error *err)
{
    *p = sm_sandbox_provider(s);
    *h = sm_sandbox_handle(s);
    if (!*h)
        return sm_error_set(err, SM_ERR_STATE, SM_FAIL_INVALID_REQUEST,
                            "the sandbox is not running");
    if (!sm_tar_available(*p))
        return sm_error_set(err, SM_ERR_UNSUPPORTED, SM_FAIL_INVALID_REQUEST,
                            "the %s provider cannot move directories (no tar streams, no exec)",
                            (*p)->ops->name);
    return SM_OK;
}

/* Splits a path into its directory and last name ("a/b/" -> "a", "b"; "x" -> ".", "x"). */
static int split(const char *path, char **dir, char **name)
{
    char *d = xstrdup(path);
    size_t n = strlen(d);
    while (n > 1 && d[n - 1] == '/')
        d[--n] = '\0';
    char *slash = strrchr(d, '/');
    const char *base = slash ? slash + 1 : d;
    if (!*base || !strcmp(base, ".") || !strcmp(base, "..")) {
        free(d);
        return -1;
    }
    *name = xstrdup(base);
    if (!slash)
        snprintf(d, n + 1, ".");
    else if (slash == d)
        d[1] = '\0';
    else
        *slash = '\0';
    *dir = d;
    return 0;
}

typedef struct prog {
    const sm_transfer_opts *o;
    long long total;
} prog;

static void on_progress(void *ud, unsigned long long bytes)
{
    prog *g = ud;
    if (g->o && g->o->progress)
        g->o->progress(g->o->ud, bytes, g->total);
}

static void on_note(void *ud, const char *line)
{
    prog *g = ud;
    if (g->o && g->o->note)
        g->o->note(g->o->ud, line);
}

static sm_archive_opts ar_opts(prog *g)
{
    return (sm_archive_opts){
        .note = on_note, .progress = on_progress, .ud = g, .cancel = g->o ? g->o->cancel : NULL};
}

static void journal(sm_sandbox *s, const char *op, int rc, const char *local, const char *remote,
                    const sm_transfer_result *r, double t0, sm_error *err)
{
    sm_provider *p = sm_sandbox_provider(s);
    sm_handle *h = sm_sandbox_handle(s);
    if (!h)
        return;
    if (rc != SM_OK) {
        if (!err)
            return;
        if (err->failure.kind == SM_FAIL_NONE)
            err->failure.kind = SM_FAIL_TRANSFER_FAILED;
        sm_failure f = err->failure;
        if (!f.operation[0])
            snprintf(f.operation, sizeof f.operation, "%s", op);
        snprintf(f.sandbox_id, sizeof f.sandbox_id, "%s", h->id);
        if (!f.provider[0])
            snprintf(f.provider, sizeof f.provider, "%s", p->ops->name);
        if (!f.reason[0])
            snprintf(f.reason, sizeof f.reason, "%s", err->msg);
        err->failure = f;
        sm_journal_failure(p->ops->name, h->id, &f);
        return;
    }
    cJSON *fields = cJSON_CreateObject();
    if (local)
        cJSON_AddStringToObject(fields, "local", local);
    if (remote)
        cJSON_AddStringToObject(fields, "remote", remote);
    cJSON_AddNumberToObject(fields, "bytes", (double)r->bytes);
    cJSON_AddNumberToObject(fields, "files", (double)r->files);
    if (r->skipped)
        cJSON_AddNumberToObject(fields, "skipped", (double)r->skipped);
    cJSON_AddBoolToObject(fields, "verified", r->verified);
    cJSON_AddNumberToObject(fields, "duration_ms", (sm_now_mono() - t0) * 1000.0);
    sm_journal_append(p->ops->name, h->id, "transfer", op, fields);
}

static void fill(sm_transfer_result *r, const sm_manifest *m, double t0)
{
    if (!r)
        return;
    r->bytes = m->bytes;
    r->files = m->files;
    r->entries = m->n;
    r->skipped = m->skipped;
    r->seconds = sm_now_mono() - t0;
}

/* Reads remote back through the provider and compares it with what was sent. */
static int verify(sm_provider *p, sm_handle *h, const char *remote, const sm_manifest *sent,
                  bool strip, sm_error *err)
{
    sm_xfer_side sd;
    sm_xfer_ours mine;
    int rc = sm_xfer_side_start(&sd, p, h, remote, true, &mine, err);
    if (rc != SM_OK)
        return rc;
    sm_manifest got = {0};
    rc = sm_archive_scan(sm_xfer_ours_read, &mine, &got, err);
    rc = sm_xfer_side_finish(&sd, &mine, rc, err);
    char why[512];
    if (rc == SM_OK && sm_manifest_compare(sent, &got, strip, why, sizeof why) < 0)
        rc =
            sm_error_set(err, SM_ERR_IO, SM_FAIL_TRANSFER_FAILED, "checksum check failed: %s", why);
    else if (rc != SM_OK)
        sm_error_prefix(err, "reading %s back to check it", remote);
    sm_manifest_free(&got);
    return rc;
}

static long long tree_bytes(int dirfd, const char *name, int depth)
{
    struct stat st;
    if (depth > 512 || fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
        return 0;
    if (S_ISREG(st.st_mode)) /* what is read: holes are not */
        return (long long)st.st_blocks * 512 < st.st_size ? (long long)st.st_blocks * 512
                                                          : st.st_size;
    if (!S_ISDIR(st.st_mode))
        return 0;
    int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return 0;
    long long sum = 0;
    DIR *d = fdopendir(fd);
    if (!d) {
        close(fd);
        return 0;
    }
    struct dirent *de;
    while ((de = readdir(d)) != NULL)
        if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
            sum += tree_bytes(fd, de->d_name, depth + 1);
    closedir(d);
    return sum;
}

/* ---------------------------------------------------------------- operations */

int sm_transfer_remote_kind(sm_sandbox *s, const char *remote, sm_remote_kind *kind, sm_error *err)
{
    sm_provider *p;
    sm_handle *h;
    int rc = need_tar(s, &p, &h, err);
    return rc != SM_OK ? rc : sm_tar_path_kind(p, h, remote, kind, err);
}

static int upload(sm_sandbox *s, const char *local, const char *remote, bool want_dir,
                  const sm_transfer_opts *o, sm_transfer_result *res, sm_error *err)
{
    double t0 = sm_now_mono();
    sm_provider *p;
    sm_handle *h;
    int rc = need_tar(s, &p, &h, err);
    if (rc != SM_OK)
        return rc;
    char *ldir = NULL, *lname = NULL, *rdir = NULL, *rname = NULL;
    struct stat st;
    if (split(local, &ldir, &lname) < 0 || split(remote, &rdir, &rname) < 0) {
        free(ldir), free(lname);
        return sm_error_set(err, SM_ERR_INVALID, SM_FAIL_INVALID_REQUEST,
                            "upload needs a named source and destination (not '/', '.' or "
                            "'..'), got %s and %s",
                            local, remote);
    }
    int dfd = open(ldir, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0 || fstatat(dfd, lname, &st, AT_SYMLINK_NOFOLLOW) < 0)
        rc = sm_error_set(err, SM_ERR_NOT_FOUND, SM_FAIL_INVALID_REQUEST, "cannot read %s: %s",
                          local, strerror(errno));
    else if (want_dir && !S_ISDIR(st.st_mode))
        rc = sm_error_set(err, SM_ERR_INVALID, SM_FAIL_INVALID_REQUEST, "%s is not a directory",
                          local);
    sm_manifest m = {0};
    sm_transfer_result r = {0};
    if (rc == SM_OK) {
        prog g = {.o = o, .total = tree_bytes(dfd, lname, 0)};
        sm_archive_opts ao = ar_opts(&g);
        sm_xfer_side sd;
        sm_xfer_ours mine;
        rc = sm_xfer_side_start(&sd, p, h, rdir, false, &mine, err);
        if (rc == SM_OK) {
            rc = sm_archive_write_tree(dfd, lname, rname, sm_xfer_ours_write, &mine, &ao, &m, err);
            rc = sm_xfer_side_finish(&sd, &mine, rc, err);
        }
        if (rc == SM_OK && !(o && o->no_verify)) {
            rc = verify(p, h, remote, &m, false, err);
            r.verified = rc == SM_OK;
        }
    }
    if (dfd >= 0)
        close(dfd);
    fill(&r, &m, t0);
    if (res)
        *res = r;
    journal(s, "upload", rc, local, remote, &r, t0, err);
    sm_manifest_free(&m);
    free(ldir), free(lname), free(rdir), free(rname);
    return rc;
}

static int download(sm_sandbox *s, const char *remote, const char *local, bool want_dir,
                    const sm_transfer_opts *o, sm_transfer_result *res, sm_error *err)
{
    double t0 = sm_now_mono();
    sm_provider *p;
    sm_handle *h;
    int rc = need_tar(s, &p, &h, err);
    if (rc != SM_OK)
        return rc;
    if (want_dir) {
        sm_remote_kind k;
        rc = sm_tar_path_kind(p, h, remote, &k, err);
        if (rc == SM_OK && k != SM_KIND_DIR)
            rc = sm_error_set(err, k == SM_KIND_ABSENT ? SM_ERR_NOT_FOUND : SM_ERR_INVALID,
                              SM_FAIL_TRANSFER_FAILED, "%s in sandbox %s is %s, not a directory",
                              remote, h->id, k == SM_KIND_ABSENT ? "absent" : "a file");
        if (rc != SM_OK)
            return rc;
    }
    char *ldir = NULL, *lname = NULL;
    if (split(local, &ldir, &lname) < 0)
        return sm_error_set(err, SM_ERR_INVALID, SM_FAIL_INVALID_REQUEST,
                            "download needs a named destination (not '/', '.' or '..'), got %s",
                            local);
    if (strcmp(ldir, ".") && strcmp(ldir, "/"))
        sm_mkdir_p(ldir, 0755);
    int dfd = open(ldir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    sm_manifest m = {0};
    sm_transfer_result r = {0};
    if (dfd < 0) {
        rc = sm_error_set(err, SM_ERR_IO, SM_FAIL_TRANSFER_FAILED, "cannot write %s: %s", local,
                          strerror(errno));
    } else {
        prog g = {.o = o, .total = -1};
        sm_archive_opts ao = ar_opts(&g);
        sm_xfer_side sd;
        sm_xfer_ours mine;
        rc = sm_xfer_side_start(&sd, p, h, remote, true, &mine, err);
        if (rc == SM_OK) {
            /* nothing from a sandbox becomes setuid or setgid here */
            rc = sm_archive_extract(dfd, lname, 01777, sm_xfer_ours_read, &mine, &ao, &m, err);
            rc = sm_xfer_side_finish(&sd, &mine, rc, err);
        }
        r.verified = rc == SM_OK;
        close(dfd);
    }
    fill(&r, &m, t0);
    if (res)
        *res = r;
    journal(s, "download", rc, local, remote, &r, t0, err);
    sm_manifest_free(&m);
    free(ldir), free(lname);
    return rc;
}

int sm_transfer_upload_path(sm_sandbox *s, const char *local, const char *remote,
                            const sm_transfer_opts *o, sm_transfer_result *res, sm_error *err)
{
    return upload(s, local, remote, false, o, res, err);
}

int sm_transfer_upload_dir(sm_sandbox *s, const char *local, const char *remote,
                           const sm_transfer_opts *o, sm_transfer_result *res, sm_error *err)
{
    return upload(s, local, remote, true, o, res, err);
}

int sm_transfer_download_path(sm_sandbox *s, const char *remote, const char *local,
                              const sm_transfer_opts *o, sm_transfer_result *res, sm_error *err)
{
    return download(s, remote, local, false, o, res, err);
}

int sm_transfer_download_dir(sm_sandbox *s, const char *remote, const char *local,
                             const sm_transfer_opts *o, sm_transfer_result *res, sm_error *err)
{
    return download(s, remote, local, true, o, res, err);
}

/* ---------------------------------------------------------------- archives */

typedef struct fd_io {
    int fd;
    sm_write_fn also; /* a copy of what was read goes here */
    void *also_ud;
    unsigned long long n;
    const sm_transfer_opts *o;
} fd_io;

static ssize_t fd_read(void *ud, void *buf, size_t len)
{
    fd_io *f = ud;
    ssize_t n = read(f->fd, buf, len);
    if (n > 0) {
        f->n += (unsigned long long)n;
        if (f->o && f->o->progress)
            f->o->progress(f->o->ud, f->n, -1);
    }
    return n;
}

static int fd_write(void *ud, const void *buf, size_t len)
{
    fd_io *f = ud;
    if (sm_write_all(f->fd, buf, len) < 0)
        return -1;
    f->n += len;
    return 0;
}

/* Copies the provider's raw stream to fd, counting it. */
static int raw_to_fd(sm_xfer_ours *mine, int fd, const sm_transfer_opts *o, sm_error *err)
{
    char *buf = xmalloc(SM_AR_BUF);
    fd_io f = {.fd = fd, .o = o};
    int rc = SM_OK;
    for (;;) {
        ssize_t n = sm_xfer_ours_read(mine, buf, SM_AR_BUF);
        if (n < 0) {
            rc = sm_error_set(err, SM_ERR_IO, SM_FAIL_TRANSFER_FAILED, "reading the stream: %s",
                              strerror(errno));
            break;
        }
        if (n == 0)
            break;
        if (fd_write(&f, buf, (size_t)n) < 0) {
            rc = sm_error_set(err, SM_ERR_IO, SM_FAIL_TRANSFER_FAILED, "writing the archive: %s",
                              strerror(errno));
            break;
        }
        if (o && o->progress)
            o->progress(o->ud, f.n, -1);
    }
    free(buf);
    return rc;
}

/* A new file in the directory of path, of random name (O_EXCL | O_NOFOLLOW). */
static int temp_beside(const char *path, char **tmp)
{
    char *dir = NULL, *name = NULL;
    if (split(path, &dir, &name) < 0) {
        errno = EINVAL;
        return -1;
    }
    int fd = -1;
    for (int i = 0; i < 100 && fd < 0; i++) {
        char hex[17];
        sm_random_hex(hex, 16);
        free(*tmp);
        *tmp = xasprintf("%s/.sandman-%s.part", dir, hex);
        fd = open(*tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    free(dir);
    free(name);
    return fd;
}

int sm_transfer_archive_copy(sm_sandbox *s, const char *remote, const char *archive,
                             const sm_transfer_opts *o, sm_transfer_result *res, sm_error *err)
{
    double t0 = sm_now_mono();
    sm_provider *p;
    sm_handle *h;
    int rc = need_tar(s, &p, &h, err);
    if (rc != SM_OK)
        return rc;
    char *tmp = NULL;
    int fd = temp_beside(archive, &tmp);
    sm_manifest m = {0};
    sm_transfer_result r = {0};
    if (fd < 0) {
        rc = sm_error_set(err, SM_ERR_IO, SM_FAIL_TRANSFER_FAILED, "cannot write %s: %s", archive,
                          strerror(errno));
    } else {
        sm_xfer_side sd;
        sm_xfer_ours mine;
        rc = sm_xfer_side_start(&sd, p, h, remote, true, &mine, err);
        if (rc == SM_OK) {
            rc = raw_to_fd(&mine, fd, o, err);
            rc = sm_xfer_side_finish(&sd, &mine, rc, err);
        }
        if (rc == SM_OK && lseek(fd, 0, SEEK_SET) == 0) {
            fd_io f = {.fd = fd};
            rc = sm_archive_scan(fd_read, &f, &m, err);
            r.verified = rc == SM_OK;
        }
        if (rc == SM_OK && (fsync(fd) < 0 || rename(tmp, archive) < 0))
            rc = sm_error_set(err, SM_ERR_IO, SM_FAIL_TRANSFER_FAILED, "cannot write %s: %s",
                              archive, strerror(errno));
        if (rc != SM_OK)
            unlink(tmp);
        close(fd);
    }
    fill(&r, &m, t0);
    if (res)
        *res = r;
    journal(s, "archive_copy", rc, archive, remote, &r, t0, err);
    sm_manifest_free(&m);
    free(tmp);
    return rc;
}

static int replay(sm_sandbox *s, int afd, const char *shown, const char *remote_dir,
                  const sm_transfer_opts *o, sm_transfer_result *res, sm_error *err)
{
    double t0 = sm_now_mono();
    sm_provider *p;
    sm_handle *h;
    int rc = need_tar(s, &p, &h, err);
    if (rc != SM_OK)
        return rc;
    sm_manifest m = {0};
    sm_transfer_result r = {0};
    fd_io f = {.fd = afd};
    /* every entry is checked before the first byte is sent */
    rc = sm_archive_scan(fd_read, &f, &m, err);
    if (rc == SM_OK && lseek(afd, 0, SEEK_SET) != 0)
        rc = sm_error_set(err, SM_ERR_IO, SM_FAIL_TRANSFER_FAILED, "cannot reread %s: %s", shown,
                          strerror(errno));
    if (rc == SM_OK) {
        sm_xfer_side sd;
        sm_xfer_ours mine;
        rc = sm_xfer_side_start(&sd, p, h, remote_dir, false, &mine, err);
        if (rc == SM_OK) {
            char *buf = xmalloc(SM_AR_BUF);
            unsigned long long sent = 0;
            for (;;) {
                ssize_t n = read(afd, buf, SM_AR_BUF);
                if (n < 0 && errno == EINTR)
                    continue;
                if (n < 0)
                    rc = sm_error_set(err, SM_ERR_IO, SM_FAIL_TRANSFER_FAILED, "reading %s: %s",
                                      shown, strerror(errno));
                if (n <= 0)
                    break;
                if (sm_xfer_ours_write(&mine, buf, (size_t)n) < 0) {
                    rc = sm_error_set(err, SM_ERR_IO, SM_FAIL_TRANSFER_FAILED, "sending %s: %s",
                                      shown, strerror(errno));
                    break;
                }
                sent += (unsigned long long)n;
                if (o && o->progress)
                    o->progress(o->ud, sent, -1);
            }
            free(buf);
            rc = sm_xfer_side_finish(&sd, &mine, rc, err);
        }
    }
    char *rd = NULL, *base = NULL;
    if (rc == SM_OK && !(o && o->no_verify) && m.n && split(remote_dir, &rd, &base) == 0) {
        /* read back, the archive's entries come under remote_dir's own name */
        sm_manifest prefixed = {0};
        for (size_t i = 0; i < m.n; i++) {
            char *pp = xasprintf("%s/%s", base, m.v[i].path);
            sm_ar_manifest_add(&prefixed, pp, m.v[i].type, m.v[i].size, m.v[i].link)->crc =
                m.v[i].crc;
            free(pp);
        }
        rc = verify(p, h, remote_dir, &prefixed, false, err);
        r.verified = rc == SM_OK;
        sm_manifest_free(&prefixed);
    }
    free(rd), free(base);
    fill(&r, &m, t0);
    if (res)
        *res = r;
    journal(s, "upload_archive", rc, shown, remote_dir, &r, t0, err);
    sm_manifest_free(&m);
    return rc;
}

int sm_transfer_upload_archive(sm_sandbox *s, const char *archive, const char *remote_dir,
                               const sm_transfer_opts *o, sm_transfer_result *res, sm_error *err)
{
    int fd = open(archive, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
        int e = fd < 0 ? errno : EINVAL;
        if (fd >= 0)
            close(fd);
        return sm_error_set(err, SM_ERR_INVALID, SM_FAIL_INVALID_REQUEST,
                            "cannot read the archive %s: %s", archive,
                            e == EINVAL ? "not a regular file" : strerror(e));
    }
    fcntl(fd, F_SETFL, 0);
    int rc = replay(s, fd, archive, remote_dir, o, res, err);
    close(fd);
    return rc;
}

int sm_transfer_upload_stream(sm_sandbox *s, int in, const char *remote_dir,
                              const sm_transfer_opts *o, sm_transfer_result *res, sm_error *err)
{
    const char *td = getenv("TMPDIR");
    char *path = xasprintf("%s/sandman-stdin-XXXXXX", td && *td ? td : "/tmp");
    int fd = mkstemp(path);
    if (fd < 0) {
        int e = errno;
        free(path);
        return sm_error_set(err, SM_ERR_IO, SM_FAIL_TRANSFER_FAILED,
                            "cannot keep the stream in a temp file: %s", strerror(e));
    }
    unlink(path);
    free(path);
    char *buf = xmalloc(SM_AR_BUF);
    int rc = SM_OK;
    for (;;) {
        ssize_t n = read(in, buf, SM_AR_BUF);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            rc = sm_error_set(err, SM_ERR_IO, SM_FAIL_TRANSFER_FAILED, "reading stdin: %s",
                              strerror(errno));
        if (n <= 0)
            break;
        if (sm_write_all(fd, buf, (size_t)n) < 0) {
            rc = sm_error_set(err, SM_ERR_IO, SM_FAIL_TRANSFER_FAILED,
                              "keeping the stream in a temp file: %s", strerror(errno));
            break;
        }
    }
    free(buf);
    if (rc == SM_OK && lseek(fd, 0, SEEK_SET) != 0)
        rc =
            sm_error_set(err, SM_ERR_IO, SM_FAIL_TRANSFER_FAILED, "temp file: %s", strerror(errno));
    if (rc == SM_OK)
        rc = replay(s, fd, "the tar stream on stdin", remote_dir, o, res, err);
    close(fd);
    return rc;
}

int sm_transfer_download_stream(sm_sandbox *s, const char *remote, int out,
                                const sm_transfer_opts *o, sm_transfer_result *res, sm_error *err)
{
    double t0 = sm_now_mono();
    sm_provider *p;
    sm_handle *h;
    int rc = need_tar(s, &p, &h, err);
    if (rc != SM_OK)
        return rc;
    sm_manifest m = {0};
    sm_transfer_result r = {0};
    prog g = {.o = o, .total = -1};
    sm_archive_opts ao = ar_opts(&g);
    fd_io f = {.fd = out};
    sm_xfer_side sd;
    sm_xfer_ours mine;
    rc = sm_xfer_side_start(&sd, p, h, remote, true, &mine, err);
    if (rc == SM_OK) {
        rc = sm_archive_recode(sm_xfer_ours_read, &mine, NULL, fd_write, &f, &ao, &m, err);
        rc = sm_xfer_side_finish(&sd, &mine, rc, err);
    }
    r.verified = rc == SM_OK;
    fill(&r, &m, t0);
    if (res)
        *res = r;
    journal(s, "download", rc, "-", remote, &r, t0, err);
    sm_manifest_free(&m);
    return rc;
}

int sm_transfer_copy(sm_sandbox *from, const char *src, sm_sandbox *to, const char *dst,
                     const sm_transfer_opts *o, sm_transfer_result *res, sm_error *err)
{
    double t0 = sm_now_mono();
    sm_provider *pa, *pb;
    sm_handle *ha, *hb;
    int rc = need_tar(from, &pa, &ha, err);
    if (rc == SM_OK)
        rc = need_tar(to, &pb, &hb, err);
    if (rc != SM_OK)
        return rc;
    char *ddir = NULL, *dname = NULL;
    if (split(dst, &ddir, &dname) < 0)
        return sm_error_set(err, SM_ERR_INVALID, SM_FAIL_INVALID_REQUEST,
                            "copy needs a named destination (not '/', '.' or '..'), got %s", dst);
    sm_manifest m = {0};
    sm_transfer_result r = {0};
    prog g = {.o = o, .total = -1};
    sm_archive_opts ao = ar_opts(&g);
    sm_xfer_side a, b;
    sm_xfer_ours ma, mb;
    rc = sm_xfer_side_start(&a, pa, ha, src, true, &ma, err);
    if (rc == SM_OK) {
        rc = sm_xfer_side_start(&b, pb, hb, ddir, false, &mb, err);
        if (rc == SM_OK) {
            /* checked and renamed entry by entry: what one sandbox sends is not trusted by
             * the other */
            rc = sm_archive_recode(sm_xfer_ours_read, &ma, dname, sm_xfer_ours_write, &mb, &ao, &m,
                                   err);
            int ra = sm_xfer_side_finish(&a, &ma, rc, err);
            rc = sm_xfer_side_finish(&b, &mb, ra, err);
        } else {
            sm_xfer_side_finish(&a, &ma, rc, NULL);
        }
    }
    if (rc == SM_OK && !(o && o->no_verify)) {
        rc = verify(pb, hb, dst, &m, true, err);
        r.verified = rc == SM_OK;
    }
    fill(&r, &m, t0);
    if (res)
        *res = r;
    char *from_desc = xasprintf("%s:%s", ha->id, src), *to_desc = xasprintf("%s:%s", hb->id, dst);
    sm_error copy_err;
    if (err)
        copy_err = *err;
    journal(from, "copy", rc, to_desc, src, &r, t0, err ? &copy_err : NULL);
    journal(to, "copy", rc, from_desc, dst, &r, t0, err);
    free(from_desc), free(to_desc);
    sm_manifest_free(&m);
    free(ddir), free(dname);
    return rc;
}
