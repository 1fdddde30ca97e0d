/* File transfer for local sandboxes. Paths are resolved inside the sandbox's root as the
 * sandbox sees it (/proc/<init>/root) with openat2(RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS),
 * so a symlink planted in the sandbox can never lead to a host file. Every path in a sandbox is
 * the agent's choice, so only regular files on ordinary filesystems are read or written (never
 * /proc, /sys, devices or FIFOs, which would write sysctls, read kernel memory or block), files
 * are opened without blocking and checked before any byte moves, holes are kept, and a file
 * replaces its destination by rename only once complete, so a killed copy never leaves a
 * truncated file or a temp file that anyone could have predicted. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/archive.h"
#include "core/json.h"
#include "core/util.h"
#include "providers/local/local.h"

#define RESOLVE_FLAGS (RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS)
#define MAX_LINKS     40

static int openat2_in_root(int root, const char *path, int flags, mode_t mode)
{
    struct open_how how = {.flags = (unsigned long long)flags | O_CLOEXEC,
                           .mode = (flags & O_CREAT) ? mode : 0,
                           .resolve = RESOLVE_FLAGS};
    long fd;
    do {
        fd = syscall(SYS_openat2, root, path, &how, sizeof how);
    } while (fd < 0 && errno == EAGAIN);
    return (int)fd;
}

/* The name of the kernel filesystem fd is on, or NULL for an ordinary one. These expose
 * kernel state (sysctls, process memory, cgroup limits) rather than stored bytes. */
static const char *kernel_fs(int fd)
{
    return sm_fs_kernel_name(fd);
}

/* Opens the running sandbox's root directory; checks the init is still the same process. */
static int open_root(const char *id, local_record *r, sm_error *err)
{
    int rc = local_record_running(id, r, err);
    if (rc != SM_OK)
        return -1;
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/root", (int)r->init_pid);
    int fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0 || !local_record_init_alive(r)) {
        if (fd >= 0)
            close(fd);
        sm_error_set(err, SM_ERR_RUNTIME, SM_FAIL_SANDBOX_ERROR,
                     "cannot open the root of sandbox %s: %s", id, strerror(errno));
        local_record_free(r);
        return -1;
    }
    return fd;
}

/* Relative remote paths are taken from the sandbox's workdir (or /). */
static char *remote_path(const local_record *r, const char *remote)
{
    if (remote[0] == '/')
        return xstrdup(remote);
    const char *wd = sm_json_str(r->spec, "workdir");
    return xasprintf("%s/%s", wd ? wd : "", remote);
}

static int write_full(int out, const char *buf, size_t n, off_t at)
{
    for (size_t off = 0; off < n;) {
        ssize_t w = pwrite(out, buf + off, n - off, at + (off_t)off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            return -1;
        off += (size_t)w;
    }
    return 0;
}

/* Copies the first size bytes of in to out, skipping holes so a sparse file stays sparse
 * (a 20 GiB file of holes costs nothing). Never reads past size, so a file that keeps growing
 * while it is copied cannot make the copy endless; a file that shrinks ends the copy there. */
static int copy_sparse(int in, int out, off_t size)
{
    char buf[65536];
    off_t off = 0;
    while (off < size) {
        off_t data = lseek(in, off, SEEK_DATA), hole = size;
        if (data < 0 && errno == ENXIO)
            break;
        if (data < 0) /* no hole support: all of it is data */
            data = off;
        else if ((hole = lseek(in, data, SEEK_HOLE)) < 0 || hole > size)
            hole = size;
        for (off = data; off < hole;) {
            size_t want = (size_t)(hole - off) < sizeof buf ? (size_t)(hole - off) : sizeof buf;
            ssize_t n = pread(in, buf, want, off);
            if (n < 0 && errno == EINTR)
                continue;
            if (n < 0)
                return -1;
            if (n == 0) {
                size = off;
                break;
            }
            if (write_full(out, buf, (size_t)n, off) < 0)
                return -1;
            off += n;
        }
    }
    return ftruncate(out, size);
}

/* A new file in dir that no one can predict or pre-plant: unnamed (O_TMPFILE) where the
 * filesystem allows, so a killed copy leaves nothing, else a random name made with O_EXCL.
 * *named tells which; name receives the random name either way. */
static int open_temp(int dir, mode_t mode, char *name, size_t len, bool *named)
{
    char hex[17];
    int fd = openat(dir, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, mode);
    *named = fd < 0;
    if (fd < 0 && errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)
        return -1;
    for (int i = 0; i < 100; i++) {
        sm_random_hex(hex, 16);
        snprintf(name, len, ".sandman-%s.part", hex);
        if (!*named)
            return fd;
        fd = openat(dir, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
        if (fd >= 0 || errno != EEXIST)
            return fd;
    }
    return -1;
}

/* A file that replaces an existing one keeps its permissions and (when we may) its owner, as
 * cp writing over a file does. */
static int keep_attrs(int out, const struct stat *dst)
{
    if (!S_ISREG(dst->st_mode))
        return 0;
    if (geteuid() == 0 && fchown(out, dst->st_uid, dst->st_gid) < 0)
        return -1;
    return fchmod(out, dst->st_mode & 0777);
}

/* Gives the complete temp file its final name in dir (replacing what was there, never writing
 * through it). Returns -1 with errno set; the temp file is gone either way. */
static int commit_temp(int fd, int dir, const char *tmp, bool named, const char *final)
{
    if (!named) {
        char self[64];
        snprintf(self, sizeof self, "/proc/self/fd/%d", fd);
        if (linkat(AT_FDCWD, self, dir, tmp, AT_SYMLINK_FOLLOW) < 0)
            return -1;
    }
    if (renameat(dir, tmp, dir, final) < 0) {
        int e = errno;
        unlinkat(dir, tmp, 0);
        errno = e;
        return -1;
    }
    return 0;
}

/* Splits path into its directory and last name; NULL name when it names a directory. */
static char *split_last(const char *path, char **name)
{
    char *dir = xstrdup(path);
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/')
        dir[--n] = '\0';
    char *slash = strrchr(dir, '/');
    const char *base = slash ? slash + 1 : dir;
    *name = (*base && strcmp(base, ".") && strcmp(base, "..")) ? xstrdup(base) : NULL;
    if (!slash)
        snprintf(dir, n + 1, ".");
    else if (slash == dir)
        dir[1] = '\0';
    else
        *slash = '\0';
    return dir;
}

/* Creates the parents of path inside the root, one component at a time. */
static int make_parents(int root, const char *path)
{
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", path);
    char *slash = strrchr(buf, '/');
    if (!slash || slash == buf)
        return 0;
    *slash = '\0';
    for (char *p = buf + 1;; p++) {
        bool last = *p == '\0';
        if (*p == '/' || last) {
            char save = *p;
            *p = '\0';
            int fd = openat2_in_root(root, buf, O_PATH | O_DIRECTORY, 0);
            if (fd < 0 && errno == ENOENT) {
                char *name = strrchr(buf, '/');
                *name = '\0';
                int parent = openat2_in_root(root, *buf ? buf : "/", O_PATH | O_DIRECTORY, 0);
                *name = '/';
                if (parent < 0)
                    return -1;
                int mk = kernel_fs(parent) ? (errno = EPERM, -1) : mkdirat(parent, name + 1, 0755);
                close(parent);
                if (mk < 0 && errno != EEXIST)
                    return -1;
                fd = openat2_in_root(root, buf, O_PATH | O_DIRECTORY, 0);
            }
            if (fd < 0)
                return -1;
            close(fd);
            *p = save;
        }
        if (last)
            break;
    }
    return 0;
}

/* Where an upload of path lands: the directory (opened in the root) and the name in it. A
 * symlink at the last component is followed inside the root, as cp writes through a link. */
static int upload_target(int root, const char *path, int *dirfd, char **name, struct stat *st)
{
    char *cur = xstrdup(path);
    for (int hops = 0; hops <= MAX_LINKS; hops++) {
        char *dir = split_last(cur, name);
        if (!*name) {
            free(dir);
            free(cur);
            errno = EISDIR;
            return -1;
        }
        int fd = openat2_in_root(root, dir, O_PATH | O_DIRECTORY, 0);
        if (fd < 0) {
            free(dir);
            free(*name);
            free(cur);
            return -1;
        }
        if (fstatat(fd, *name, st, AT_SYMLINK_NOFOLLOW) < 0) {
            if (errno != ENOENT) {
                int e = errno;
                close(fd), free(dir), free(*name), free(cur);
                errno = e;
                return -1;
            }
            memset(st, 0, sizeof *st);
        }
        if (!S_ISLNK(st->st_mode)) {
            free(dir);
            free(cur);
            *dirfd = fd;
            return 0;
        }
        char link[4096];
        ssize_t n = readlinkat(fd, *name, link, sizeof link - 1);
        close(fd);
        free(*name);
        if (n < 0) {
            free(dir);
            free(cur);
            return -1;
        }
        link[n] = '\0';
        free(cur);
        cur = link[0] == '/' ? xstrdup(link) : xasprintf("%s/%s", dir, link);
        free(dir);
    }
    free(cur);
    errno = ELOOP;
    return -1;
}

/* The kernel filesystem of an existing entry of dir (a file of /proc bind-mounted onto an
 * ordinary directory), or NULL. */
static const char *entry_fs(int dir, const char *name)
{
    int fd = openat(dir, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    const char *kfs = kernel_fs(fd);
    close(fd);
    return kfs;
}

/* Whether dir's filesystem has room for the data of st (its allocated blocks: holes are
 * kept), so a copy that cannot fit fails at once with a clear error instead of filling the
 * disk first. Sets *need and *avail (bytes). */
static bool has_room(int dir, const struct stat *st, long long *need, long long *avail)
{
    struct statvfs sv;
    *need = (long long)st->st_blocks * 512;
    if (fstatvfs(dir, &sv) < 0)
        return true;
    *avail = (long long)sv.f_bavail * (long long)sv.f_frsize;
    return *need <= *avail;
}

/* Why this open file must not be transferred, or NULL. */
static const char *refuse(int fd, struct stat *st)
{
    static __thread char why[96];
    const char *kfs = kernel_fs(fd);
    if (kfs) {
        snprintf(why, sizeof why, "it is on %s (a kernel filesystem, not stored data)", kfs);
        return why;
    }
    if (fstat(fd, st) < 0)
        return strerror(errno);
    if (!S_ISREG(st->st_mode))
        return S_ISDIR(st->st_mode) ? "it is a directory" : "it is not a regular file";
    return NULL;
}

int local_upload(sm_provider *p, sm_handle *h, const char *local, const char *remote, sm_error *err)
{
    /* O_NONBLOCK: opening a FIFO for reading would wait for a writer forever. */
    int in = open(local, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    struct stat st;
    if (in < 0) {
        int e = errno;
        return sm_error_set(err, SM_ERR_NOT_FOUND, SM_FAIL_TRANSFER_FAILED,
                            "upload: cannot read %s: %s", local, strerror(e));
    }
    const char *why = refuse(in, &st);
    if (why) {
        close(in);
        return sm_error_set(err, SM_ERR_INVALID, SM_FAIL_TRANSFER_FAILED,
                            "upload: %s cannot be copied: %s", local, why);
    }
    local_record r;
    int root = open_root(h->id, &r, err);
    if (root < 0) {
        close(in);
        return err ? err->code : SM_ERR_RUNTIME;
    }
    char *path = remote_path(&r, remote), *name = NULL, tmp[64];
    int rc = SM_OK, dir = -1, out = -1;
    struct stat dst;
    long long need = 0, avail = 0;
    bool named = false;
    if (make_parents(root, path) < 0 || upload_target(root, path, &dir, &name, &dst) < 0) {
        rc =
            sm_error_set(err, errno == EISDIR ? SM_ERR_INVALID : SM_ERR_IO, SM_FAIL_TRANSFER_FAILED,
                         "upload: cannot write %s in sandbox %s: %s", path, h->id, strerror(errno));
    } else if ((why = kernel_fs(dir)) != NULL || (why = entry_fs(dir, name)) != NULL) {
        rc = sm_error_set(err, SM_ERR_INVALID, SM_FAIL_TRANSFER_FAILED,
                          "upload: %s in sandbox %s leads into %s (a kernel filesystem); only "
                          "regular files on ordinary filesystems are written",
                          path, h->id, why);
    } else if (dst.st_mode && !S_ISREG(dst.st_mode)) {
        rc = sm_error_set(err, SM_ERR_INVALID, SM_FAIL_TRANSFER_FAILED,
                          "upload: %s in sandbox %s exists and %s; only a regular file is "
                          "replaced",
                          path, h->id,
                          S_ISDIR(dst.st_mode) ? "is a directory" : "is not a regular file");
    } else if (!has_room(dir, &st, &need, &avail)) {
        rc = sm_error_set(err, SM_ERR_IO, SM_FAIL_TRANSFER_FAILED,
                          "upload: %s holds %lld MiB of data but sandbox %s has only %lld MiB free "
                          "there",
                          local, need >> 20, h->id, avail >> 20);
    } else if ((out = open_temp(dir, st.st_mode & 0777, tmp, sizeof tmp, &named)) < 0) {
        rc =
            sm_error_set(err, SM_ERR_IO, SM_FAIL_TRANSFER_FAILED,
                         "upload: cannot write %s in sandbox %s: %s", path, h->id, strerror(errno));
    } else if (copy_sparse(in, out, st.st_size) < 0 || keep_attrs(out, &dst) < 0 ||
               commit_temp(out, dir, tmp, named, name) < 0) {
        /* No fsync: the sandbox's files do not outlive it, and the rename alone keeps a
         * killed upload from replacing a complete file with a part of one. */
        rc = sm_error_set(err, SM_ERR_IO, SM_FAIL_TRANSFER_FAILED, "upload: writing %s: %s", path,
                          strerror(errno));
        if (named)
            unlinkat(dir, tmp, 0);
    }
    if (out >= 0 && close(out) < 0 && rc == SM_OK)
        rc = sm_error_set(err, SM_ERR_IO, SM_FAIL_TRANSFER_FAILED, "upload: writing %s: %s", path,
                          strerror(errno));
    if (dir >= 0)
        close(dir);
    close(in);
    close(root);
    free(name);
    free(path);
    local_record_free(&r);
    return rc;
}

/* Opens the file to download without following it anywhere and without opening anything
 * that is not a regular file on an ordinary filesystem (opening a FIFO blocks, a device may
 * act on open). Returns the fd, or -1 with *why (static) or errno. */
static int open_source(int root, const char *path, struct stat *st, const char **why)
{
    *why = NULL;
    int fd = openat2_in_root(root, path, O_PATH, 0);
    if (fd < 0)
        return -1;
    if ((*why = refuse(fd, st)) != NULL) {
        close(fd);
        return -1;
    }
    char self[64];
    snprintf(self, sizeof self, "/proc/self/fd/%d", fd);
    int in = open(self, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    int e = errno;
    close(fd);
    struct stat again;
    if (in >= 0 && (fstat(in, &again) < 0 || again.st_ino != st->st_ino ||
                    again.st_dev != st->st_dev || (*why = refuse(in, st)) != NULL)) {
        if (!*why)
            *why = "it was replaced while being opened";
        close(in);
        return -1;
    }
    errno = e;
    return in;
}

/* Creates the destination's parent on the host and opens it. */
static int open_local_dir(const char *local, char **name)
{
    char *dir = split_last(local, name);
    if (!*name) {
        free(dir);
        errno = EISDIR;
        return -1;
    }
    if (strcmp(dir, ".") && strcmp(dir, "/"))
        sm_mkdir_p(dir, 0755);
    int fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
    int e = errno;
    free(dir);
    if (fd < 0) {
        free(*name);
        *name = NULL;
    }
    errno = e;
    return fd;
}

int local_download(sm_provider *p, sm_handle *h, const char *remote, const char *local,
                   sm_error *err)
{
    local_record r;
    int root = open_root(h->id, &r, err);
    if (root < 0)
        return err ? err->code : SM_ERR_RUNTIME;
    char *path = remote_path(&r, remote), *name = NULL, tmp[64];
    int rc = SM_OK, dir = -1, out = -1;
    struct stat st, dst = {0};
    long long need = 0, avail = 0;
    const char *why;
    bool named = false;
    int in = open_source(root, path, &st, &why);
    if (in < 0 && why) {
        rc = sm_error_set(err, SM_ERR_INVALID, SM_FAIL_TRANSFER_FAILED,
                          "download: %s in sandbox %s cannot be copied: %s", path, h->id, why);
    } else if (in < 0) {
        bool escape = errno == EXDEV || errno == ELOOP;
        rc = sm_error_set(err, escape ? SM_ERR_INVALID : SM_ERR_NOT_FOUND, SM_FAIL_TRANSFER_FAILED,
                          "download: cannot read %s in sandbox %s: %s", path, h->id,
                          strerror(errno));
    } else if ((dir = open_local_dir(local, &name)) < 0) {
        rc = sm_error_set(err, SM_ERR_IO, SM_FAIL_TRANSFER_FAILED, "download: cannot write %s: %s",
                          local, strerror(errno));
    } else if (fstatat(dir, name, &dst, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISREG(dst.st_mode) &&
               !S_ISLNK(dst.st_mode)) {
        /* Renaming over it would replace a device or FIFO (as root, /dev/null itself). */
        rc = sm_error_set(err, SM_ERR_INVALID, SM_FAIL_TRANSFER_FAILED,
                          "download: %s exists and %s; only a regular file (or a link, which "
                          "is replaced, not followed) is overwritten",
                          local, S_ISDIR(dst.st_mode) ? "is a directory" : "is not a regular file");
    } else if (!has_room(dir, &st, &need, &avail)) {
        rc = sm_error_set(err, SM_ERR_IO, SM_FAIL_TRANSFER_FAILED,
                          "download: %s in sandbox %s holds %lld MiB of data but %s has only "
                          "%lld MiB free",
                          path, h->id, need >> 20, local, avail >> 20);
    } else if ((out = open_temp(dir, st.st_mode & 0777, tmp, sizeof tmp, &named)) < 0) {
        rc = sm_error_set(err, SM_ERR_IO, SM_FAIL_TRANSFER_FAILED, "download: cannot write %s: %s",
                          local, strerror(errno));
    } else if (copy_sparse(in, out, st.st_size) < 0 || keep_attrs(out, &dst) < 0 ||
               fsync(out) < 0 || commit_temp(out, dir, tmp, named, name) < 0) {
        rc = sm_error_set(err, SM_ERR_IO, SM_FAIL_TRANSFER_FAILED, "download: cannot write %s: %s",
                          local, strerror(errno));
        if (named)
            unlinkat(dir, tmp, 0);
    }
    if (out >= 0 && close(out) < 0 && rc == SM_OK)
        rc = sm_error_set(err, SM_ERR_IO, SM_FAIL_TRANSFER_FAILED, "download: cannot write %s: %s",
                          local, strerror(errno));
    if (in >= 0)
        close(in);
    if (dir >= 0)
        close(dir);
    close(root);
    free(name);
    free(path);
    local_record_free(&r);
    return rc;
}

/* ---------------------------------------------------------------- tar streams */

/* The directory holding path (opened inside the root, O_PATH) and path's last name (NULL for
 * the root itself). */
static int open_parent(int root, const char *path, char **name)
{
    char *dir = split_last(path, name);
    int fd = openat2_in_root(root, dir, O_PATH | O_DIRECTORY, 0);
    int e = errno;
    free(dir);
    if (fd < 0) {
        free(*name);
        *name = NULL;
    }
    errno = e;
    return fd;
}

int local_path_kind(sm_provider *p, sm_handle *h, const char *remote, sm_remote_kind *kind,
                    sm_error *err)
{
    (void)p;
    local_record r;
    int root = open_root(h->id, &r, err);
    if (root < 0)
        return err ? err->code : SM_ERR_RUNTIME;
    char *path = remote_path(&r, remote), *name = NULL;
    int rc = SM_OK, dir = open_parent(root, path, &name);
    struct stat st;
    if (dir < 0 && (errno == ENOENT || errno == ENOTDIR))
        *kind = SM_KIND_ABSENT;
    else if (dir < 0)
        rc = sm_error_set(err, SM_ERR_IO, SM_FAIL_TRANSFER_FAILED,
                          "cannot look at %s in sandbox %s: %s", path, h->id, strerror(errno));
    else if (!name)
        *kind = SM_KIND_DIR;
    else if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
        *kind = SM_KIND_ABSENT;
    else
        *kind = S_ISDIR(st.st_mode)   ? SM_KIND_DIR
                : S_ISREG(st.st_mode) ? SM_KIND_FILE
                                      : SM_KIND_OTHER;
    if (dir >= 0)
        close(dir);
    close(root);
    free(name);
    free(path);
    local_record_free(&r);
    return rc;
}

int local_tar_get(sm_provider *p, sm_handle *h, const char *remote, sm_write_fn out, void *ud,
                  sm_error *err)
{
    (void)p;
    local_record r;
    int root = open_root(h->id, &r, err);
    if (root < 0)
        return err ? err->code : SM_ERR_RUNTIME;
    char *path = remote_path(&r, remote), *name = NULL;
    int rc = SM_OK, dir = open_parent(root, path, &name);
    const char *kfs;
    if (dir < 0) {
        bool escape = errno == EXDEV || errno == ELOOP;
        rc = sm_error_set(err, escape ? SM_ERR_INVALID : SM_ERR_NOT_FOUND, SM_FAIL_TRANSFER_FAILED,
                          "cannot read %s in sandbox %s: %s", path, h->id, strerror(errno));
    } else if (!name) {
        rc = sm_error_set(err, SM_ERR_INVALID, SM_FAIL_INVALID_REQUEST,
                          "%s: name a directory under / to copy", path);
    } else if ((kfs = kernel_fs(dir)) != NULL) {
        rc = sm_error_set(err, SM_ERR_INVALID, SM_FAIL_TRANSFER_FAILED,
                          "%s in sandbox %s is on %s (a kernel filesystem, not stored data)", path,
                          h->id, kfs);
    } else {
        rc = sm_archive_write_tree(dir, name, NULL, out, ud, NULL, NULL, err);
        if (rc != SM_OK && err && err->code == SM_ERR_NOT_FOUND)
            snprintf(err->msg, sizeof err->msg, "no %s in sandbox %s", path, h->id);
    }
    if (dir >= 0)
        close(dir);
    close(root);
    free(name);
    free(path);
    local_record_free(&r);
    return rc;
}

int local_tar_put(sm_provider *p, sm_handle *h, const char *remote_dir, sm_read_fn in, void *ud,
                  sm_error *err)
{
    (void)p;
    local_record r;
    int root = open_root(h->id, &r, err);
    if (root < 0)
        return err ? err->code : SM_ERR_RUNTIME;
    char *path = remote_path(&r, remote_dir);
    char *probe = xasprintf("%s/.", path);
    int rc = SM_OK, dir = -1;
    if (make_parents(root, probe) < 0 ||
        (dir = openat2_in_root(root, path, O_RDONLY | O_DIRECTORY, 0)) < 0)
        rc = sm_error_set(err, errno == ENOTDIR ? SM_ERR_INVALID : SM_ERR_IO,
                          SM_FAIL_TRANSFER_FAILED, "cannot write in %s in sandbox %s: %s", path,
                          h->id, strerror(errno));
    else
        /* setuid and setgid bits never land: the workdir may be a host directory */
        rc = sm_archive_extract(dir, NULL, 01777, in, ud, NULL, NULL, err);
    if (rc != SM_OK && err)
        sm_error_prefix(err, "sandbox %s", h->id);
    if (dir >= 0)
        close(dir);
    close(root);
    free(probe);
    free(path);
    local_record_free(&r);
    return rc;
}
