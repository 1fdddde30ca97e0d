/* Tar streams (core/archive.h): the libarchive glue, checksums, and the writing, scanning and
 * re-encoding of streams. Manifests and the check of untrusted entries are in
 * core/archive_check.c, extraction in core/archive_extract.c. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>
#include <zlib.h>

#include "core/archive_int.h"
#include "core/archive_lazy.h"
#include "core/util.h"

#define MAX_DEPTH 512

const char *sm_remote_kind_name(sm_remote_kind k)
{
    static const char *const names[] = {"absent", "file", "dir", "other"};
    return (unsigned)k < SM_ARRAY_LEN(names) ? names[k] : "other";
}

/* ---------------------------------------------------------------- checksums */

static uint32_t zero_pow[64]; /* CRC-32 of 2^k zero bytes */
static pthread_once_t zero_once = PTHREAD_ONCE_INIT;

static void zero_init(void)
{
    static const unsigned char z = 0;
    zero_pow[0] = (uint32_t)crc32(0, &z, 1);
    for (int k = 1; k < 64; k++)
        zero_pow[k] = (uint32_t)crc32_combine(zero_pow[k - 1], zero_pow[k - 1], 1LL << (k - 1));
}

uint32_t sm_crc32_zeros(uint32_t crc, unsigned long long n)
{
    pthread_once(&zero_once, zero_init);
    for (int k = 0; n && k < 63; k++, n >>= 1)
        if (n & 1)
            crc = (uint32_t)crc32_combine(crc, zero_pow[k], 1LL << k);
    return crc;
}

/* ---------------------------------------------------------------- filesystems */

const char *sm_fs_kernel_name(int fd)
{
    static const struct {
        unsigned long magic;
        const char *name;
    } fs[] = {{PROC_SUPER_MAGIC, "/proc"},
              {SYSFS_MAGIC, "sysfs"},
              {DEVPTS_SUPER_MAGIC, "devpts"},
              {CGROUP_SUPER_MAGIC, "cgroupfs"},
              {CGROUP2_SUPER_MAGIC, "cgroup2"},
              {SECURITYFS_MAGIC, "securityfs"},
              {DEBUGFS_MAGIC, "debugfs"},
              {TRACEFS_MAGIC, "tracefs"},
              {BPF_FS_MAGIC, "bpffs"},
              {PSTOREFS_MAGIC, "pstore"},
              {EFIVARFS_MAGIC, "efivarfs"},
              {BINFMTFS_MAGIC, "binfmt_misc"},
              {SELINUX_MAGIC, "selinuxfs"},
              {SMACK_MAGIC, "smackfs"},
              {NSFS_MAGIC, "nsfs"},
              {0x62656570 /* configfs */, "configfs"},
              {0x65735543 /* fusectl */, "fusectl"}};
    struct statfs sf;
    if (fstatfs(fd, &sf) < 0)
        return "an unknown filesystem";
    for (size_t i = 0; i < SM_ARRAY_LEN(fs); i++)
        if ((unsigned long)sf.f_type == fs[i].magic)
            return fs[i].name;
    return NULL;
}

/* ---------------------------------------------------------------- libarchive glue */

static la_ssize_t src_read(struct archive *a, void *ud, const void **buf)
{
    (void)a;
    sm_ar_src *s = ud;
    ssize_t n;
    do {
        n = s->fn(s->ud, s->buf, SM_AR_BUF);
    } while (n < 0 && errno == EINTR);
    if (n < 0) {
        s->err = errno ? errno : EIO;
        archive_set_error(a, s->err, "reading the stream: %s", strerror(s->err));
        return -1;
    }
    *buf = s->buf;
    return n;
}

static int src_close(struct archive *a, void *ud)
{
    (void)a;
    sm_ar_src *s = ud;
    free(s->buf);
    s->buf = NULL;
    return ARCHIVE_OK;
}

struct archive *sm_ar_reader(sm_ar_src *src)
{
    struct archive *a = archive_read_new();
    src->buf = xmalloc(SM_AR_BUF);
    archive_read_support_format_tar(a);
    archive_read_support_format_empty(a);
    archive_read_support_filter_none(a);
    archive_read_support_filter_gzip(a);
    if (archive_read_open(a, src, NULL, src_read, src_close) != ARCHIVE_OK)
        return a; /* the caller's first next_header reports the error */
    return a;
}

static la_ssize_t sink_write(struct archive *a, void *ud, const void *buf, size_t len)
{
    sm_ar_sink *s = ud;
    if (s->dead) {
        archive_set_error(a, EPIPE, "the stream was abandoned");
        return -1;
    }
    if (s->fn(s->ud, buf, len) < 0) {
        s->err = errno ? errno : EIO;
        archive_set_error(a, s->err, "writing the stream: %s", strerror(s->err));
        return -1;
    }
    return (la_ssize_t)len;
}

struct archive *sm_ar_writer(sm_ar_sink *sink)
{
    struct archive *a = archive_write_new();
    archive_write_set_format_pax_restricted(a);
    /* Names are bytes: no conversion through the locale (a C locale would refuse UTF-8). */
    /* archive_write_set_options(a, "hdrcharset=BINARY"); */
    archive_write_set_bytes_per_block(a, 64 * 1024);
    archive_write_set_bytes_in_last_block(a, 1);
    if (archive_write_open(a, sink, NULL, sink_write, NULL) != ARCHIVE_OK) {
        archive_write_free(a);
        return NULL;
    }
    return a;
}

int sm_ar_fail(sm_error *err, struct archive *a, int cb_errno, const char *what)
{
    const char *msg = cb_errno ? strerror(cb_errno) : a ? archive_error_string(a) : NULL;
    return sm_error_set(err, cb_errno ? SM_ERR_IO : SM_ERR_INVALID, SM_FAIL_TRANSFER_FAILED,
                        "%s: %s", what, msg ? msg : "not a tar stream");
}

bool sm_ar_cancelled(const sm_archive_opts *o)
{
    return o && o->cancel && *o->cancel;
}

/* ---------------------------------------------------------------- writing a tree */

typedef struct walker {
    struct archive *a;
    sm_ar_sink *sink;
    const sm_archive_opts *o;
    sm_manifest *m;
    sm_error *err;
    unsigned long long moved;
    char *buf;
} walker;

static void note(const sm_archive_opts *o, const char *fmt, const char *path)
{
    if (!o || !o->note)
        return;
    char *clean = sm_utf8_clean(path, strlen(path));
    char *line = xasprintf(fmt, clean);
    o->note(o->ud, line);
    free(line);
    free(clean);
}

static int write_fail(walker *w, const char *path)
{
    char *what = xasprintf("writing the archive at %s", path);
    int rc = sm_ar_fail(w->err, w->a, w->sink->err, what);
    free(what);
    return rc;
}

static int feed(walker *w, const void *data, size_t n, const char *path)
{
    if (n && archive_write_data(w->a, data, n) < 0)
        return write_fail(w, path);
    return SM_OK;
}

static int feed_zeros(walker *w, unsigned long long n, const char *path)
{
    static const char zeros[64 * 1024];
    while (n) {
        size_t k = n < sizeof zeros ? (size_t)n : sizeof zeros;
        /* the pax writer drops bytes that fall in a declared hole */
        if (archive_write_data(w->a, zeros, k) < 0)
            return write_fail(w, path);
        n -= k;
    }
    return SM_OK;
}

static int add_file(walker *w, int fd, struct stat *st, struct archive_entry *e, const char *path)
{
    off_t size = st->st_size;
    bool sparse = (long long)st->st_blocks * 512 < (long long)size;
    if (sparse) {
        for (off_t off = 0; off < size;) {
            off_t d = lseek(fd, off, SEEK_DATA);
            if (d < 0)
                break;
            off_t h = lseek(fd, d, SEEK_HOLE);
            if (h < 0 || h > size)
                h = size;
            archive_entry_sparse_add_entry(e, d, h - d);
            off = h;
        }
    }
    if (archive_write_header(w->a, e) < ARCHIVE_WARN)
        return write_fail(w, path);
    sm_manifest_entry *me =
        w->m ? sm_ar_manifest_add(w->m, path, 'f', (unsigned long long)size, NULL) : NULL;
    uint32_t crc = (uint32_t)crc32(0, NULL, 0);
    off_t pos = 0;
    while (pos < size) {
        if (sm_ar_cancelled(w->o))
            return sm_error_set(w->err, SM_ERR_IO, SM_FAIL_TRANSFER_FAILED, "cancelled");
        off_t d = pos, h = size;
        if (sparse) {
            d = lseek(fd, pos, SEEK_DATA);
            if (d < 0 || d > size)
                d = size;
            h = d < size ? lseek(fd, d, SEEK_HOLE) : size;
            if (h < 0 || h > size)
                h = size;
        }
        if (d > pos) {
            if (feed_zeros(w, (unsigned long long)(d - pos), path) != SM_OK)
                return w->err ? w->err->code : SM_ERR_IO;
            crc = sm_crc32_zeros(crc, (unsigned long long)(d - pos));
            pos = d;
        }
        while (pos < h) {
            size_t want = (size_t)(h - pos) < SM_AR_BUF ? (size_t)(h - pos) : SM_AR_BUF;
            ssize_t n = pread(fd, w->buf, want, pos);
            if (n < 0 && errno == EINTR)
                continue;
            if (n < 0)
                return sm_error_set(w->err, SM_ERR_IO, SM_FAIL_TRANSFER_FAILED, "reading %s: %s",
                                    path, strerror(errno));
            if (n == 0) { /* it shrank: pad so the archive stays well-formed */
                memset(w->buf, 0, want);
                n = (ssize_t)want;
            }
            crc = (uint32_t)crc32(crc, (const unsigned char *)w->buf, (unsigned)n);
            if (feed(w, w->buf, (size_t)n, path) != SM_OK)
                return w->err ? w->err->code : SM_ERR_IO;
            pos += n;
            w->moved += (unsigned long long)n;
            if (w->o && w->o->progress)
                w->o->progress(w->o->ud, w->moved);
        }
    }
    if (me)
        me->crc = crc;
    return SM_OK;
}

static int add(walker *w, int dirfd, const char *name, const char *path, int depth);

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int add_dir(walker *w, int fd, const char *path, int depth)
{
    const char *kfs = sm_fs_kernel_name(fd);
    if (kfs)
        return sm_error_set(w->err, SM_ERR_INVALID, SM_FAIL_TRANSFER_FAILED,
                            "%s is on %s (a kernel filesystem, not stored data)", path, kfs);
    int dup_fd = dup(fd);
    DIR *d = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
    if (!d) {
        if (dup_fd >= 0)
            close(dup_fd);
        return sm_error_set(w->err, SM_ERR_IO, SM_FAIL_TRANSFER_FAILED, "reading %s: %s", path,
                            strerror(errno));
    }
    /* Sorted, so the same tree always gives the same stream. */
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
            continue;
        if (n == cap)
            names = xrealloc(names, (cap = cap ? cap * 2 : 32) * sizeof *names);
        names[n++] = xstrdup(de->d_name);
    }
    closedir(d);
    if (n) /* qsort wants an array, even for none */
        qsort(names, n, sizeof *names, cmp_str);
    int rc = SM_OK;
    for (size_t i = 0; i < n; i++) {
        if (rc == SM_OK) {
            char *child = xasprintf("%s/%s", path, names[i]);
            rc = add(w, fd, names[i], child, depth + 1);
            free(child);
        }
        free(names[i]);
    }
    free(names);
    return rc;
}

static int add(walker *w, int dirfd, const char *name, const char *path, int depth)
{
    struct stat st;
    if (depth > MAX_DEPTH)
        return sm_error_set(w->err, SM_ERR_INVALID, SM_FAIL_TRANSFER_FAILED,
                            "%s: more than %d levels of directories", path, MAX_DEPTH);
    if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
        return sm_error_set(w->err, errno == ENOENT ? SM_ERR_NOT_FOUND : SM_ERR_IO,
                            SM_FAIL_TRANSFER_FAILED, "cannot read %s: %s", path, strerror(errno));
    if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode) && !S_ISLNK(st.st_mode)) {
        note(w->o,
             S_ISFIFO(st.st_mode)   ? "skipped %s: a FIFO"
             : S_ISSOCK(st.st_mode) ? "skipped %s: a socket"
                                    : "skipped %s: a device node",
             path);
        if (w->m)
            w->m->skipped++;
        return SM_OK;
    }
    int fd = -1;
    if (!S_ISLNK(st.st_mode)) {
        int flags = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC;
        fd = openat(dirfd, name, S_ISDIR(st.st_mode) ? flags | O_DIRECTORY : flags);
        struct stat again;
        if (fd < 0 || fstat(fd, &again) < 0 || again.st_ino != st.st_ino ||
            again.st_dev != st.st_dev || (again.st_mode & S_IFMT) != (st.st_mode & S_IFMT)) {
            int e = fd < 0 ? errno : EAGAIN;
            if (fd >= 0)
                close(fd);
            return sm_error_set(w->err, SM_ERR_IO, SM_FAIL_TRANSFER_FAILED, "cannot read %s: %s",
                                path, e == EAGAIN ? "it changed while being read" : strerror(e));
        }
        st = again;
        const char *kfs = S_ISREG(st.st_mode) ? sm_fs_kernel_name(fd) : NULL;
        if (kfs) {
            close(fd);
            return sm_error_set(w->err, SM_ERR_INVALID, SM_FAIL_TRANSFER_FAILED,
                                "%s is on %s (a kernel filesystem, not stored data)", path, kfs);
        }
    }
    struct archive_entry *e = archive_entry_new();
    archive_entry_copy_stat(e, &st);
    /* exec_as_root: what lands in a sandbox belongs to its root, as with docker cp */
    archive_entry_set_uid(e, 0);
    archive_entry_set_gid(e, 0);
    archive_entry_set_nlink(e, 1);
    archive_entry_set_pathname(e, path);
    int rc = SM_OK;
    if (S_ISLNK(st.st_mode)) {
        char target[4096];
        ssize_t n = readlinkat(dirfd, name, target, sizeof target - 1);
        if (n < 0) {
            rc = sm_error_set(w->err, SM_ERR_IO, SM_FAIL_TRANSFER_FAILED, "reading %s: %s", path,
                              strerror(errno));
        } else {
            target[n] = '\0';
            archive_entry_set_symlink(e, target);
            archive_entry_set_size(e, 0);
            if (archive_write_header(w->a, e) < ARCHIVE_WARN)
                rc = write_fail(w, path);
            else if (w->m)
                sm_ar_manifest_add(w->m, path, 'l', 0, target);
        }
    } else if (S_ISDIR(st.st_mode)) {
        archive_entry_set_size(e, 0);
        if (archive_write_header(w->a, e) < ARCHIVE_WARN)
            rc = write_fail(w, path);
        else if (w->m)
            sm_ar_manifest_add(w->m, path, 'd', 0, NULL);
        if (rc == SM_OK)
            rc = add_dir(w, fd, path, depth);
    } else {
        rc = add_file(w, fd, &st, e, path);
    }
    archive_entry_free(e);
    if (fd >= 0)
        close(fd);
    return rc;
}

int sm_archive_write_tree(int dirfd, const char *name, const char *as_name, sm_write_fn out,
                          void *ud, const sm_archive_opts *o, sm_manifest *m, sm_error *err)
{
    const char *why;
    if (!sm_archive_load(&why))
        return sm_error_set(err, SM_ERR_RUNTIME, SM_FAIL_TRANSFER_FAILED, "%s", why);
    sm_ar_sink sink = {.fn = out, .ud = ud};
    struct archive *a = sm_ar_writer(&sink);
    if (!a)
        return sm_error_set(err, SM_ERR_RUNTIME, SM_FAIL_TRANSFER_FAILED,
                            "cannot start a tar stream");
    char *top = NULL;
    if (as_name) {
        top = xstrdup(as_name);
    } else {
        const char *s = strrchr(name, '/');
        top = xstrdup(s && s[1] ? s + 1 : name);
    }
    walker w = {.a = a, .sink = &sink, .o = o, .m = m, .err = err, .buf = xmalloc(SM_AR_BUF)};
    int rc = add(&w, dirfd, name, top, 0);
    if (rc == SM_OK && archive_write_close(a) != ARCHIVE_OK)
        rc = write_fail(&w, top);
    /* a failed stream must not end like a complete one */
    sink.dead = rc != SM_OK;
    archive_write_free(a);
    free(w.buf);
    free(top);
    return rc;
}

/* ---------------------------------------------------------------- scan and recode */

/* Reads the current entry's data, feeding it to w (when given) with holes as zeros, and
 * returns its CRC-32 in *crc. */
static int pass_data(struct archive *r, sm_ar_src *src, walker *w, struct archive_entry *e,
                     uint32_t *crc, const char *path, sm_error *err)
{
    const void *buf;
    size_t len;
    la_int64_t off;
    unsigned long long pos = 0, size = (unsigned long long)archive_entry_size(e);
    *crc = (uint32_t)crc32(0, NULL, 0);
    int r_rc;
    while ((r_rc = archive_read_data_block(r, &buf, &len, &off)) == ARCHIVE_OK) {
        if (w && sm_ar_cancelled(w->o))
            return sm_error_set(err, SM_ERR_IO, SM_FAIL_TRANSFER_FAILED, "cancelled");
        if ((unsigned long long)off > pos) {
            if (w && feed_zeros(w, (unsigned long long)off - pos, path) != SM_OK)
                return err ? err->code : SM_ERR_IO;
            *crc = sm_crc32_zeros(*crc, (unsigned long long)off - pos);
            pos = (unsigned long long)off;
        }
        *crc = (uint32_t)crc32(*crc, buf, (unsigned)len);
        if (w && feed(w, buf, len, path) != SM_OK)
            return err ? err->code : SM_ERR_IO;
        pos += len;
        if (w) {
            w->moved += len;
            if (w->o && w->o->progress)
                w->o->progress(w->o->ud, w->moved);
        }
    }
    if (r_rc != ARCHIVE_EOF)
        return sm_ar_fail(err, r, src->err, "reading the archive");
    if (pos < size) {
        if (w && feed_zeros(w, size - pos, path) != SM_OK)
            return err ? err->code : SM_ERR_IO;
        *crc = sm_crc32_zeros(*crc, size - pos);
    }
    return SM_OK;
}

static int read_stream(sm_read_fn in, void *rud, const char *as_name, walker *w, sm_manifest *m,
                       sm_error *err)
{
    sm_ar_src src = {.fn = in, .ud = rud};
    struct archive *r = sm_ar_reader(&src);
    struct archive_entry *e;
    char path[4096], why[512], type, top[4096] = "";
    int rc = SM_OK, h;
    bool first = true;
    while (rc == SM_OK && (h = archive_read_next_header(r, &e)) != ARCHIVE_EOF) {
        if (h < ARCHIVE_WARN) {
            rc = sm_ar_fail(err, r, src.err, "reading the archive");
            break;
        }
        sm_ar_verdict v = sm_ar_check(e, m, path, sizeof path, &type, why, sizeof why);
        if (v == SM_AR_BAD) {
            rc = sm_error_set(err, SM_ERR_INVALID, SM_FAIL_TRANSFER_FAILED, "%s", why);
            break;
        }
        if (v == SM_AR_SKIP || !*path) {
            if (v == SM_AR_SKIP && w)
                note(w->o, "%s", why);
            if (v == SM_AR_SKIP)
                m->skipped++;
            continue;
        }
        size_t tl = strcspn(path, "/");
        if (first)
            snprintf(top, sizeof top, "%.*s", (int)tl, path);
        first = false;
        if (as_name && (strlen(top) != tl || strncmp(top, path, tl))) {
            rc = sm_error_set(err, SM_ERR_INVALID, SM_FAIL_TRANSFER_FAILED,
                              "the archive holds more than one top entry (%s and %.*s)", top,
                              (int)tl, path);
            break;
        }
        char *renamed = as_name ? xasprintf("%s%s", as_name, path + tl) : xstrdup(path);
        if (w) {
            archive_entry_set_pathname(e, renamed);
            if (type == 'h') {
                char hl[4096];
                const char *rule;
                sm_ar_normalize(archive_entry_hardlink(e), hl, sizeof hl, &rule);
                char *hr =
                    as_name ? xasprintf("%s%s", as_name, hl + strcspn(hl, "/")) : xstrdup(hl);
                archive_entry_set_hardlink(e, hr);
                free(hr);
            }
            archive_entry_set_uid(e, 0);
            archive_entry_set_gid(e, 0);
            if (archive_write_header(w->a, e) < ARCHIVE_WARN)
                rc = write_fail(w, renamed);
        }
        if (rc == SM_OK) {
            const char *link = type == 'l'   ? archive_entry_symlink(e)
                               : type == 'h' ? archive_entry_hardlink(e)
                                             : NULL;
            sm_manifest_entry *me =
                sm_ar_manifest_add(m, path, type, (unsigned long long)archive_entry_size(e), link);
            if (type == 'f')
                rc = pass_data(r, &src, w, e, &me->crc, renamed, err);
        }
        free(renamed);
    }
    archive_read_free(r);
    return rc;
}

int sm_archive_scan(sm_read_fn in, void *ud, sm_manifest *m, sm_error *err)
{
    const char *why;
    if (!sm_archive_load(&why))
        return sm_error_set(err, SM_ERR_RUNTIME, SM_FAIL_TRANSFER_FAILED, "%s", why);
    return read_stream(in, ud, NULL, NULL, m, err);
}

int sm_archive_recode(sm_read_fn in, void *rud, const char *as_name, sm_write_fn out, void *wud,
                      const sm_archive_opts *o, sm_manifest *m, sm_error *err)
{
    const char *why;
    if (!sm_archive_load(&why))
        return sm_error_set(err, SM_ERR_RUNTIME, SM_FAIL_TRANSFER_FAILED, "%s", why);
    sm_ar_sink sink = {.fn = out, .ud = wud};
    struct archive *a = sm_ar_writer(&sink);
    if (!a)
        return sm_error_set(err, SM_ERR_RUNTIME, SM_FAIL_TRANSFER_FAILED,
                            "cannot start a tar stream");
    walker w = {.a = a, .sink = &sink, .o = o, .m = m, .err = err};
    int rc = read_stream(in, rud, as_name, &w, m, err);
    if (rc == SM_OK && archive_write_close(a) != ARCHIVE_OK)
        rc = write_fail(&w, "its end");
    sink.dead = rc != SM_OK;
    archive_write_free(a);
    return rc;
}

char *sm_archive_extract_command(const char *dir)
{
    /* Only options both GNU and BusyBox tar know: -x -f - -C; no --no-same-owner tricks. */
    char *q = sm_shell_quote(dir);
    char *cmd = xasprintf("mkdir -p %s && tar -x -f - -C %s", q, q);
    free(q);
    return cmd;
}
