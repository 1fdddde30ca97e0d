/* File transfer for local sandboxes. Paths are resolved inside the sandbox's root as the
 * sandbox sees it (/proc/<init>/root) with openat2(RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS),
 * so a symlink planted in the sandbox can never lead to a host file. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/json.h"
#include "core/util.h"
#include "providers/local/local.h"

#define RESOLVE_FLAGS (RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS)

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

static int copy_fd(int in, int out)
{
    char buf[65536];
    for (;;) {
        ssize_t n = read(in, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return (int)n;
        for (ssize_t off = 0; off < n;) {
            ssize_t w = write(out, buf + off, (size_t)(n - off));
            if (w < 0 && errno == EINTR)
                continue;
            if (w < 0)
                return -1;
            off += w;
        }
    }
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
                int mk = mkdirat(parent, name + 1, 0755);
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

int local_upload(sm_provider *p, sm_handle *h, const char *local, const char *remote, sm_error *err)
{
    int in = open(local, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (in < 0 || fstat(in, &st) < 0) {
        int e = errno;
        if (in >= 0)
            close(in);
        return sm_error_set(err, SM_ERR_NOT_FOUND, SM_FAIL_TRANSFER_FAILED,
                            "upload: cannot read %s: %s", local, strerror(e));
    }
    if (!S_ISREG(st.st_mode)) {
        close(in);
        return sm_error_set(err, SM_ERR_INVALID, SM_FAIL_TRANSFER_FAILED,
                            "upload: %s is not a regular file", local);
    }
    local_record r;
    int root = open_root(h->id, &r, err);
    if (root < 0) {
        close(in);
        return err ? err->code : SM_ERR_RUNTIME;
    }
    char *path = remote_path(&r, remote);
    int rc = SM_OK;
    int out = -1;
    if (make_parents(root, path) < 0)
        rc = sm_error_set(err, SM_ERR_IO, SM_FAIL_TRANSFER_FAILED,
                          "upload: cannot create the parent directories of %s in sandbox %s: %s",
                          path, h->id, strerror(errno));
    else if ((out = openat2_in_root(root, path, O_WRONLY | O_CREAT | O_TRUNC, st.st_mode & 0777)) <
             0)
        rc =
            sm_error_set(err, SM_ERR_IO, SM_FAIL_TRANSFER_FAILED,
                         "upload: cannot write %s in sandbox %s: %s", path, h->id, strerror(errno));
    else if (copy_fd(in, out) < 0)
        rc = sm_error_set(err, SM_ERR_IO, SM_FAIL_TRANSFER_FAILED, "upload: writing %s: %s", path,
                          strerror(errno));
    if (out >= 0 && close(out) < 0 && rc == SM_OK)
        rc = sm_error_set(err, SM_ERR_IO, SM_FAIL_TRANSFER_FAILED, "upload: writing %s: %s", path,
                          strerror(errno));
    close(in);
    close(root);
    free(path);
    local_record_free(&r);
    return rc;
}

int local_download(sm_provider *p, sm_handle *h, const char *remote, const char *local,
                   sm_error *err)
{
    local_record r;
    int root = open_root(h->id, &r, err);
    if (root < 0)
        return err ? err->code : SM_ERR_RUNTIME;
    char *path = remote_path(&r, remote);
    int rc = SM_OK;
    int in = openat2_in_root(root, path, O_RDONLY, 0);
    struct stat st;
    if (in < 0) {
        bool escape = errno == EXDEV || errno == ELOOP;
        rc = sm_error_set(err, escape ? SM_ERR_INVALID : SM_ERR_NOT_FOUND, SM_FAIL_TRANSFER_FAILED,
                          "download: cannot read %s in sandbox %s: %s", path, h->id,
                          strerror(errno));
    } else if (fstat(in, &st) < 0 || !S_ISREG(st.st_mode)) {
        rc = sm_error_set(err, SM_ERR_INVALID, SM_FAIL_TRANSFER_FAILED,
                          "download: %s in sandbox %s is not a regular file", path, h->id);
    } else {
        char *slash = strrchr(local, '/');
        if (slash && slash != local) {
            char *parent = xstrndup(local, (size_t)(slash - local));
            sm_mkdir_p(parent, 0755);
            free(parent);
        }
        char *tmp = xasprintf("%s.sandman-part", local);
        int out = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, st.st_mode & 0777);
        if (out < 0 || copy_fd(in, out) < 0 || close(out) < 0 || rename(tmp, local) < 0) {
            rc = sm_error_set(err, SM_ERR_IO, SM_FAIL_TRANSFER_FAILED,
                              "download: cannot write %s: %s", local, strerror(errno));
            unlink(tmp);
        }
        free(tmp);
    }
    if (in >= 0)
        close(in);
    close(root);
    free(path);
    local_record_free(&r);
    return rc;
}
