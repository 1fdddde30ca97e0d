/* Tar streams for providers that have none of their own: built from what every provider has,
 * a shell command (exec) and single-file upload and download. A directory goes out as one tar
 * file made by the sandbox's own tar (GNU or BusyBox) and downloaded; one comes in as a tar
 * file checked here first (core/archive.c: no absolute paths, no "..", no devices, no links
 * out), uploaded, then unpacked by the sandbox's tar. Slower than a native stream (the archive
 * sits whole in a temporary file on each side), but every provider moves directories. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/archive.h"
#include "core/provider_impl.h"
#include "core/transfer_exec.h"
#include "core/util.h"

#define SPOOL_TIMEOUT_S 600

/* Runs cmd as root in the sandbox; its stdout (trimmed) into *out when out is not NULL. */
static int run(sm_provider *p, sm_handle *h, const char *cmd, char **out, sm_error *err)
{
    sm_exec_request req;
    sm_exec_request_init(&req);
    req.cmd = cmd;
    req.user = "root";
    req.timeout_s = SPOOL_TIMEOUT_S;
    sm_exec_result res;
    sm_exec_result_init(&res);
    int rc = p->ops->exec(p, h, &req, &res, err);
    if (rc == SM_OK && res.return_code != 0) {
        char msg[300] = "";
        if (res.err)
            snprintf(msg, sizeof msg, "%.*s", (int)res.err_len, res.err);
        msg[strcspn(msg, "\n")] = '\0';
        rc = sm_error_set(err, SM_ERR_RUNTIME, SM_FAIL_TRANSFER_FAILED,
                          "tar in the sandbox failed (exit %d)%s%s", res.return_code,
                          msg[0] ? ": " : "", msg);
    }
    if (rc == SM_OK && out) {
        *out = res.out ? xstrndup(res.out, res.out_len) : xstrdup("");
        (*out)[strcspn(*out, "\n")] = '\0';
    }
    sm_exec_result_free(&res);
    return rc;
}

static int local_spool(char path[64])
{
    snprintf(path, 64, "/tmp/sandman-tar-XXXXXX");
    return mkstemp(path);
}

static char *remote_spool(void)
{
    char hex[17];
    sm_random_hex(hex, 16);
    return xasprintf("/tmp/.sandman-tar-%s.tar", hex);
}

static bool has_native(const sm_provider *p)
{
    return p->ops->tar_get && p->ops->tar_put && p->ops->path_kind;
}

bool sm_tar_available(const sm_provider *p)
{
    return has_native(p) || (p->ops->exec && p->ops->upload && p->ops->download);
}

int sm_tar_path_kind(sm_provider *p, sm_handle *h, const char *remote, sm_remote_kind *kind,
                     sm_error *err)
{
    if (has_native(p))
        return p->ops->path_kind(p, h, remote, kind, err);
    char *q = sm_shell_quote(remote), *out = NULL;
    char *cmd = xasprintf("if [ -L %s ]; then echo other; elif [ -d %s ]; then echo dir; "
                          "elif [ -f %s ]; then echo file; elif [ -e %s ]; then echo other; "
                          "else echo absent; fi",
                          q, q, q, q);
    int rc = run(p, h, cmd, &out, err);
    if (rc == SM_OK)
        *kind = !strcmp(out, "dir")      ? SM_KIND_DIR
                : !strcmp(out, "file")   ? SM_KIND_FILE
                : !strcmp(out, "absent") ? SM_KIND_ABSENT
                                         : SM_KIND_OTHER;
    free(out);
    free(cmd);
    free(q);
    return rc;
}

int sm_tar_get(sm_provider *p, sm_handle *h, const char *remote, sm_write_fn out, void *ud,
               sm_error *err)
{
    if (has_native(p))
        return p->ops->tar_get(p, h, remote, out, ud, err);
    char *dir = xstrdup(remote), *slash = strrchr(dir, '/');
    const char *name = remote;
    if (slash && slash[1]) {
        name = remote + (slash - dir) + 1;
        slash == dir ? (void)(dir[1] = '\0') : (void)(*slash = '\0');
    } else {
        strcpy(dir, ".");
    }
    char *spool = remote_spool(), *qd = sm_shell_quote(dir), *qn = sm_shell_quote(name),
         *qs = sm_shell_quote(spool);
    char *cmd = xasprintf("cd %s && tar -cf %s -- %s", qd, qs, qn);
    char local[64];
    int fd = local_spool(local);
    int rc = fd < 0 ? sm_error_set(err, SM_ERR_IO, SM_FAIL_TRANSFER_FAILED,
                                   "cannot make a temporary file: %s", strerror(errno))
                    : run(p, h, cmd, NULL, err);
    if (rc == SM_OK)
        rc = p->ops->download(p, h, spool, local, err);
    char *rm = xasprintf("rm -f %s", qs);
    run(p, h, rm, NULL, NULL);
    if (rc == SM_OK) {
        int in = open(local, O_RDONLY | O_CLOEXEC);
        char buf[65536];
        ssize_t r;
        while (in >= 0 && rc == SM_OK && (r = read(in, buf, sizeof buf)) > 0)
            if (out(ud, buf, (size_t)r) < 0)
                rc = sm_error_set(err, SM_ERR_IO, SM_FAIL_TRANSFER_FAILED,
                                  "the tar stream's reader went away");
        if (in >= 0)
            close(in);
    }
    if (fd >= 0) {
        close(fd);
        unlink(local);
    }
    free(rm);
    free(cmd);
    free(qs);
    free(qn);
    free(qd);
    free(spool);
    free(dir);
    return rc;
}

static ssize_t file_read(void *ud, void *buf, size_t len)
{
    return read(*(int *)ud, buf, len);
}

int sm_tar_put(sm_provider *p, sm_handle *h, const char *remote_dir, sm_read_fn in, void *ud,
               sm_error *err)
{
    if (has_native(p))
        return p->ops->tar_put(p, h, remote_dir, in, ud, err);
    char local[64];
    int fd = local_spool(local);
    if (fd < 0)
        return sm_error_set(err, SM_ERR_IO, SM_FAIL_TRANSFER_FAILED,
                            "cannot make a temporary file: %s", strerror(errno));
    int rc = SM_OK;
    char buf[65536];
    ssize_t r;
    while ((r = in(ud, buf, sizeof buf)) > 0)
        if (sm_write_all(fd, buf, (size_t)r) < 0) {
            rc = sm_error_set(err, SM_ERR_IO, SM_FAIL_TRANSFER_FAILED,
                              "cannot spool the tar stream: %s", strerror(errno));
            break;
        }
    if (rc == SM_OK && r < 0)
        rc = sm_error_set(err, SM_ERR_IO, SM_FAIL_TRANSFER_FAILED, "reading the tar stream: %s",
                          strerror(errno));
    if (rc == SM_OK) { /* the whole archive is checked before the sandbox sees any of it */
        int scan = open(local, O_RDONLY | O_CLOEXEC);
        sm_manifest m = {0};
        rc = scan < 0 ? sm_error_set(err, SM_ERR_IO, SM_FAIL_TRANSFER_FAILED, "%s: %s", local,
                                     strerror(errno))
                      : sm_archive_scan(file_read, &scan, &m, err);
        sm_manifest_free(&m);
        if (scan >= 0)
            close(scan);
    }
    char *spool = remote_spool(), *qs = sm_shell_quote(spool), *qd = sm_shell_quote(remote_dir);
    if (rc == SM_OK)
        rc = p->ops->upload(p, h, local, spool, err);
    if (rc == SM_OK) {
        char *cmd =
            xasprintf("mkdir -p %s && tar -xpf %s -C %s; r=$?; rm -f %s; exit $r", qd, qs, qd, qs);
        rc = run(p, h, cmd, NULL, err);
        free(cmd);
    }
    close(fd);
    unlink(local);
    free(qd);
    free(qs);
    free(spool);
    return rc;
}
