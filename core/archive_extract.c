/* Extraction of an untrusted tar stream beneath a directory (core/archive.h). Every entry is
 * checked (core/archive.c's sm_ar_check) before anything is written for it, and written into a
 * private directory of random name inside the destination, resolved with
 * RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS so no link (planted in the stream or by whoever else
 * writes there) is ever followed. Each file is read back and compared with the stream's
 * checksum. Only when the whole stream was read and checked are its entries moved to their
 * final names (after a dry run that finds every conflict first); a failure removes the private
 * directory, so an interrupted transfer leaves nothing under a final name. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <zlib.h>

#include "core/archive_int.h"
#include "core/archive_lazy.h"
#include "core/util.h"

typedef struct xdir {
    char *path; /* final, relative to the destination */
    mode_t mode;
    struct timespec mtime;
} xdir;

typedef struct xctx {
    int dirfd, tfd;
    char tmpname[64];
    const char *as_name;
    char top[1024];
    mode_t mask;
    const sm_archive_opts *o;
    sm_error *err;
    xdir *dirs;
    size_t nd, capd;
    char last_parent[4096];
    int last_pfd;
    unsigned long long moved;
    char *rbuf;
} xctx;

static int open_beneath(int base, const char *rel, int flags)
{
    struct open_how how = {.flags = (unsigned long long)flags | O_CLOEXEC,
                           .resolve =
                               RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS};
    long fd;
    do {
        fd = syscall(SYS_openat2, base, *rel ? rel : ".", &how, sizeof how);
    } while (fd < 0 && errno == EAGAIN);
    return (int)fd;
}

static int xfail(xctx *x, const char *path, const char *what, int e)
{
    char *clean = sm_utf8_clean(path, strlen(path));
    int rc = sm_error_set(x->err, e == ENOSPC ? SM_ERR_IO : SM_ERR_IO, SM_FAIL_TRANSFER_FAILED,
                          "extracting '%s': %s: %s", clean, what, strerror(e));
    free(clean);
    return rc;
}

/* The directory that holds path inside the private directory (created as needed, 0755: the
 * private directory itself is 0700 until the move). */
static int parent_of(xctx *x, const char *path, const char **name)
{
    const char *slash = strrchr(path, '/');
    *name = slash ? slash + 1 : path;
    size_t plen = slash ? (size_t)(slash - path) : 0;
    if (x->last_pfd >= 0 && strlen(x->last_parent) == plen && !strncmp(x->last_parent, path, plen))
        return x->last_pfd;
    if (x->last_pfd >= 0)
        close(x->last_pfd);
    x->last_pfd = -1;
    int cur = dup(x->tfd);
    for (const char *p = path; cur >= 0 && p < path + plen;) {
        const char *e = memchr(p, '/', (size_t)(path + plen - p));
        size_t n = e ? (size_t)(e - p) : (size_t)(path + plen - p);
        char comp[256];
        if (n >= sizeof comp) {
            close(cur);
            errno = ENAMETOOLONG;
            return -1;
        }
        memcpy(comp, p, n);
        comp[n] = '\0';
        if (mkdirat(cur, comp, 0755) < 0 && errno != EEXIST) {
            close(cur);
            return -1;
        }
        int next = openat(cur, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        close(cur);
        cur = next;
        p += n + 1;
    }
    if (cur < 0)
        return -1;
    snprintf(x->last_parent, sizeof x->last_parent, "%.*s", (int)plen, path);
    x->last_pfd = cur;
    return cur;
}

static bool all_zero(const char *p, size_t n)
{
    return n == 0 || (p[0] == 0 && memcmp(p, p + 1, n - 1) == 0);
}

/* Writes a block at off, leaving runs of zeros as holes (so a file sent without its holes, as
 * engines do, lands sparse). */
static int put_block(int fd, const char *buf, size_t len, off_t off)
{
    const size_t chunk = 64 * 1024;
    for (size_t o = 0; o < len;) {
        size_t n = len - o < chunk ? len - o : chunk;
        if (!all_zero(buf + o, n)) {
            for (size_t w = 0; w < n;) {
                ssize_t k = pwrite(fd, buf + o + w, n - w, off + (off_t)(o + w));
                if (k < 0 && errno == EINTR)
                    continue;
                if (k <= 0)
                    return -1;
                w += (size_t)k;
            }
        }
        o += n;
    }
    return 0;
}

/* The CRC-32 of what fd holds now, holes read as zeros without reading them. */
static int read_back(xctx *x, int fd, off_t size, uint32_t *crc)
{
    *crc = (uint32_t)crc32(0, NULL, 0);
    for (off_t pos = 0; pos < size;) {
        off_t d = lseek(fd, pos, SEEK_DATA);
        if (d < 0 || d > size)
            d = size;
        off_t h = d < size ? lseek(fd, d, SEEK_HOLE) : size;
        if (h < 0 || h > size)
            h = size;
        *crc = sm_crc32_zeros(*crc, (unsigned long long)(d - pos));
        for (pos = d; pos < h;) {
            size_t want = (size_t)(h - pos) < SM_AR_BUF ? (size_t)(h - pos) : SM_AR_BUF;
            ssize_t n = pread(fd, x->rbuf, want, pos);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                return -1;
            *crc = (uint32_t)crc32(*crc, (const unsigned char *)x->rbuf, (unsigned)n);
            pos += n;
        }
    }
    return 0;
}

static int unlink_old(int pfd, const char *name)
{
    struct stat st;
    if (fstatat(pfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
        return 0;
    if (S_ISDIR(st.st_mode)) {
        errno = EISDIR;
        return -1;
    }
    return unlinkat(pfd, name, 0);
}

static int put_file(xctx *x, struct archive *r, sm_ar_src *src, struct archive_entry *e,
                    const char *path, int pfd, const char *name, sm_manifest_entry *me)
{
    if (unlink_old(pfd, name) < 0)
        return xfail(x, path, "cannot replace an earlier entry", errno);
    int fd = openat(pfd, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return xfail(x, path, "cannot create it", errno);
    const void *buf;
    size_t len;
    la_int64_t off;
    off_t size = (off_t)archive_entry_size(e);
    unsigned long long pos = 0;
    uint32_t crc = (uint32_t)crc32(0, NULL, 0);
    int rc = SM_OK, h;
    while ((h = archive_read_data_block(r, &buf, &len, &off)) == ARCHIVE_OK) {
        if (sm_ar_cancelled(x->o)) {
            rc = sm_error_set(x->err, SM_ERR_IO, SM_FAIL_TRANSFER_FAILED, "cancelled");
            break;
        }
        if ((unsigned long long)off > pos)
            crc = sm_crc32_zeros(crc, (unsigned long long)off - pos);
        crc = (uint32_t)crc32(crc, buf, (unsigned)len);
        if (put_block(fd, buf, len, (off_t)off) < 0) {
            rc = xfail(x, path, "cannot write it", errno);
            break;
        }
        pos = (unsigned long long)off + len;
        x->moved += len;
        if (x->o && x->o->progress)
            x->o->progress(x->o->ud, x->moved);
    }
    if (rc == SM_OK && h != ARCHIVE_EOF)
        rc = sm_ar_fail(x->err, r, src->err, "reading the archive");
    if (rc == SM_OK && pos < (unsigned long long)size)
        crc = sm_crc32_zeros(crc, (unsigned long long)size - pos);
    if (rc == SM_OK && ftruncate(fd, size) < 0)
        rc = xfail(x, path, "cannot write it", errno);
    uint32_t back;
    if (rc == SM_OK && read_back(x, fd, size, &back) < 0)
        rc = xfail(x, path, "cannot read it back", errno);
    else if (rc == SM_OK && back != crc)
        rc = sm_error_set(x->err, SM_ERR_IO, SM_FAIL_TRANSFER_FAILED,
                          "extracting '%s': the written file does not match the stream (crc32 "
                          "%08x, sent %08x)",
                          path, back, crc);
    if (rc == SM_OK) {
        struct timespec ts[2] = {
            {.tv_nsec = UTIME_OMIT},
            {.tv_sec = archive_entry_mtime(e), .tv_nsec = archive_entry_mtime_nsec(e)}};
        if (fchmod(fd, archive_entry_perm(e) & x->mask) < 0 || futimens(fd, ts) < 0)
            rc = xfail(x, path, "cannot set its mode", errno);
    }
    close(fd);
    me->crc = crc;
    return rc;
}

static char *final_path(xctx *x, const char *path)
{
    if (!x->as_name)
        return xstrdup(path);
    return xasprintf("%s%s", x->as_name, path + strcspn(path, "/"));
}

static int put_entry(xctx *x, struct archive *r, sm_ar_src *src, struct archive_entry *e,
                     const char *path, char type, sm_manifest *m)
{
    const char *name;
    int pfd = parent_of(x, path, &name);
    if (pfd < 0)
        return xfail(x, path,
                     errno == ELOOP || errno == ENOTDIR
                         ? "its directory is not a directory of the archive"
                         : "cannot create its directory",
                     errno);
    const char *link = type == 'l' ? archive_entry_symlink(e) : NULL;
    char hl[4096] = "";
    if (type == 'h') {
        /* sm_ar_check normalized and matched it; normalize again for the path */
        const char *raw = archive_entry_hardlink(e);
        size_t o = 0;
        for (const char *p = raw; *p && o + 2 < sizeof hl;) {
            size_t n = strcspn(p, "/");
            if (n && !(n == 1 && *p == '.')) {
                if (o)
                    hl[o++] = '/';
                if (o + n >= sizeof hl)
                    break;
                memcpy(hl + o, p, n);
                o += n;
            }
            p += n;
            while (*p == '/')
                p++;
        }
        hl[o] = '\0';
        link = hl;
    }
    sm_manifest_entry *me =
        sm_ar_manifest_add(m, path, type, (unsigned long long)archive_entry_size(e), link);
    struct timespec ts[2] = {
        {.tv_nsec = UTIME_OMIT},
        {.tv_sec = archive_entry_mtime(e), .tv_nsec = archive_entry_mtime_nsec(e)}};
    switch (type) {
    case 'd': {
        struct stat st;
        if (mkdirat(pfd, name, 0700) < 0 &&
            (errno != EEXIST || fstatat(pfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
             !S_ISDIR(st.st_mode)))
            return xfail(x, path, "cannot create the directory", errno);
        if (x->nd == x->capd)
            x->dirs = xrealloc(x->dirs, (x->capd = x->capd ? x->capd * 2 : 32) * sizeof *x->dirs);
        x->dirs[x->nd++] = (xdir){
            .path = final_path(x, path), .mode = archive_entry_perm(e) & x->mask, .mtime = ts[1]};
        return SM_OK;
    }
    case 'l':
        if (unlink_old(pfd, name) < 0 || symlinkat(link, pfd, name) < 0)
            return xfail(x, path, "cannot create the link", errno);
        utimensat(pfd, name, ts, AT_SYMLINK_NOFOLLOW);
        return SM_OK;
    case 'h': {
        const char *tname;
        char tparent[4096];
        snprintf(tparent, sizeof tparent, "%s", hl);
        char *slash = strrchr(tparent, '/');
        tname = slash ? slash + 1 : tparent;
        if (slash)
            *slash = '\0';
        int tpfd = open_beneath(x->tfd, slash ? tparent : "", O_PATH | O_DIRECTORY);
        int rc = SM_OK;
        if (tpfd < 0 || unlink_old(pfd, name) < 0 || linkat(tpfd, tname, pfd, name, 0) < 0)
            rc = xfail(x, path, "cannot create the hard link", errno);
        if (tpfd >= 0)
            close(tpfd);
        for (size_t i = m->n - 1; i-- > 0;)
            if (m->v[i].type == 'f' && !strcmp(m->v[i].path, hl)) {
                me->crc = m->v[i].crc;
                me->size = m->v[i].size;
                break;
            }
        return rc;
    }
    default: return put_file(x, r, src, e, path, pfd, name, me);
    }
}

/* Removes name in dirfd and everything under it, never following a link. */
static void rm_tree_at(int dirfd, const char *name, int depth)
{
    if (unlinkat(dirfd, name, 0) == 0 || errno == ENOENT || depth > 600)
        return;
    int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return;
    fchmod(fd, 0700);
    DIR *d = fdopendir(fd);
    if (!d) {
        close(fd);
        return;
    }
    struct dirent *de;
    while ((de = readdir(d)) != NULL)
        if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
            rm_tree_at(fd, de->d_name, depth + 1);
    closedir(d);
    unlinkat(dirfd, name, AT_REMOVEDIR);
}

/* Moves sname (in sfd) to dname (in dfd), merging directories. dry: only find conflicts. */
static int move_entry(xctx *x, int sfd, const char *sname, int dfd, const char *dname,
                      const char *shown, bool dry, int depth)
{
    struct stat ss, ds;
    if (fstatat(sfd, sname, &ss, AT_SYMLINK_NOFOLLOW) < 0)
        return xfail(x, shown, "lost while moving it into place", errno);
    if (fstatat(dfd, dname, &ds, AT_SYMLINK_NOFOLLOW) < 0) {
        if (errno != ENOENT)
            return xfail(x, shown, "cannot look at the destination", errno);
        if (!dry && renameat(sfd, sname, dfd, dname) < 0)
            return xfail(x, shown, "cannot move it into place", errno);
        return SM_OK;
    }
    bool sdir = S_ISDIR(ss.st_mode), ddir = S_ISDIR(ds.st_mode);
    if (sdir != ddir) {
        char *clean = sm_utf8_clean(shown, strlen(shown));
        int rc =
            sm_error_set(x->err, SM_ERR_INVALID, SM_FAIL_TRANSFER_FAILED,
                         "%s exists and %s; nothing was changed", clean,
                         ddir ? "is a directory (a file would replace it)" : "is not a directory");
        free(clean);
        return rc;
    }
    if (!sdir) {
        if (!S_ISREG(ds.st_mode) && !S_ISLNK(ds.st_mode)) {
            char *clean = sm_utf8_clean(shown, strlen(shown));
            int rc =
                sm_error_set(x->err, SM_ERR_INVALID, SM_FAIL_TRANSFER_FAILED,
                             "%s exists and is not a regular file; nothing was changed", clean);
            free(clean);
            return rc;
        }
        if (!dry && renameat(sfd, sname, dfd, dname) < 0)
            return xfail(x, shown, "cannot move it into place", errno);
        return SM_OK;
    }
    if (depth > 600)
        return xfail(x, shown, "too deep", ELOOP);
    int s = openat(sfd, sname, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    int d = openat(dfd, dname, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    const char *kfs = d >= 0 ? sm_fs_kernel_name(d) : NULL;
    int rc = SM_OK;
    if (s < 0 || d < 0)
        rc = xfail(x, shown, "cannot open the directory", errno);
    else if (kfs)
        rc =
            sm_error_set(x->err, SM_ERR_INVALID, SM_FAIL_TRANSFER_FAILED,
                         "%s is on %s (a kernel filesystem); nothing is written there", shown, kfs);
    DIR *dir = rc == SM_OK ? fdopendir(dup(s)) : NULL;
    struct dirent *de;
    while (dir && rc == SM_OK && (de = readdir(dir)) != NULL) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
            continue;
        char *child = xasprintf("%s/%s", shown, de->d_name);
        rc = move_entry(x, s, de->d_name, d, de->d_name, child, dry, depth + 1);
        free(child);
    }
    if (dir)
        closedir(dir);
    if (s >= 0)
        close(s);
    if (d >= 0)
        close(d);
    return rc;
}

static int move_all(xctx *x, bool dry)
{
    if (x->as_name)
        return move_entry(x, x->tfd, x->top, x->dirfd, x->as_name, x->as_name, dry, 0);
    DIR *dir = fdopendir(dup(x->tfd));
    if (!dir)
        return xfail(x, ".", "cannot read the extracted entries", errno);
    rewinddir(dir); /* the dup shares its offset with the dry run's */
    int rc = SM_OK;
    struct dirent *de;
    while (rc == SM_OK && (de = readdir(dir)) != NULL)
        if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
            rc = move_entry(x, x->tfd, de->d_name, x->dirfd, de->d_name, de->d_name, dry, 0);
    closedir(dir);
    return rc;
}

static int extract_entries(xctx *x, sm_read_fn in, void *ud, sm_manifest *m)
{
    sm_ar_src src = {.fn = in, .ud = ud};
    struct archive *r = sm_ar_reader(&src);
    struct archive_entry *e;
    char path[4096], why[512], type;
    int rc = SM_OK, h;
    while (rc == SM_OK && (h = archive_read_next_header(r, &e)) != ARCHIVE_EOF) {
        if (h < ARCHIVE_WARN) {
            rc = sm_ar_fail(x->err, r, src.err, "reading the archive");
            break;
        }
        sm_ar_verdict v = sm_ar_check(e, m, path, sizeof path, &type, why, sizeof why);
        if (v == SM_AR_BAD) {
            rc = sm_error_set(x->err, SM_ERR_INVALID, SM_FAIL_TRANSFER_FAILED, "%s", why);
            break;
        }
        if (v == SM_AR_SKIP) {
            m->skipped++;
            if (x->o && x->o->note)
                x->o->note(x->o->ud, why);
            continue;
        }
        if (!*path)
            continue; /* "." : the destination itself */
        size_t tl = strcspn(path, "/");
        if (!x->top[0])
            snprintf(x->top, sizeof x->top, "%.*s", (int)tl, path);
        else if (x->as_name && (strlen(x->top) != tl || strncmp(x->top, path, tl)))
            rc = sm_error_set(x->err, SM_ERR_INVALID, SM_FAIL_TRANSFER_FAILED,
                              "the archive holds more than one top entry (%s and %.*s)", x->top,
                              (int)tl, path);
        if (rc == SM_OK)
            rc = put_entry(x, r, &src, e, path, type, m);
    }
    archive_read_free(r);
    if (rc == SM_OK && x->as_name && !x->top[0])
        rc = sm_error_set(x->err, SM_ERR_INVALID, SM_FAIL_TRANSFER_FAILED, "the archive is empty");
    return rc;
}

int sm_archive_extract(int dirfd, const char *as_name, mode_t mode_mask, sm_read_fn in, void *ud,
                       const sm_archive_opts *o, sm_manifest *m, sm_error *err)
{
    const char *why;
    if (!sm_archive_load(&why))
        return sm_error_set(err, SM_ERR_RUNTIME, SM_FAIL_TRANSFER_FAILED, "%s", why);
    sm_manifest local = {0};
    if (!m)
        m = &local;
    const char *kfs = sm_fs_kernel_name(dirfd);
    if (kfs) {
        sm_manifest_free(&local);
        return sm_error_set(err, SM_ERR_INVALID, SM_FAIL_TRANSFER_FAILED,
                            "the destination is on %s (a kernel filesystem); nothing is written "
                            "there",
                            kfs);
    }
    xctx x = {
        .dirfd = dirfd, .as_name = as_name, .mask = mode_mask, .o = o, .err = err, .last_pfd = -1};
    x.tfd = -1;
    for (int i = 0; i < 100; i++) {
        char hex[17];
        sm_random_hex(hex, 16);
        snprintf(x.tmpname, sizeof x.tmpname, ".sandman-%s.part", hex);
        if (mkdirat(dirfd, x.tmpname, 0700) == 0 || errno != EEXIST)
            break;
    }
    x.tfd = openat(dirfd, x.tmpname, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (x.tfd < 0) {
        int e = errno;
        sm_manifest_free(&local);
        return sm_error_set(err, e == ENOENT ? SM_ERR_NOT_FOUND : SM_ERR_IO,
                            SM_FAIL_TRANSFER_FAILED, "cannot write in the destination: %s",
                            strerror(e));
    }
    x.rbuf = xmalloc(SM_AR_BUF);
    int rc = extract_entries(&x, in, ud, m);
    if (x.last_pfd >= 0)
        close(x.last_pfd);
    if (rc == SM_OK)
        rc = move_all(&x, true);
    if (rc == SM_OK)
        rc = move_all(&x, false);
    /* directories get their modes (a read-only one too) once everything is in them */
    for (size_t i = x.nd; rc == SM_OK && i-- > 0;) {
        int fd = open_beneath(dirfd, x.dirs[i].path, O_RDONLY | O_DIRECTORY);
        struct timespec ts[2] = {{.tv_nsec = UTIME_OMIT}, x.dirs[i].mtime};
        if (fd >= 0) {
            fchmod(fd, x.dirs[i].mode);
            futimens(fd, ts);
            close(fd);
        }
    }
    for (size_t i = 0; i < x.nd; i++)
        free(x.dirs[i].path);
    free(x.dirs);
    free(x.rbuf);
    close(x.tfd);
    rm_tree_at(dirfd, x.tmpname, 0);
    sm_manifest_free(&local);
    return rc;
}
