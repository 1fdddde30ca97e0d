/* The transfer module (seed §3.9): files and whole directories in and out of a sandbox and
 * between two sandboxes, on tar streams through the providers' path_kind/tar_get/tar_put.
 * Modes, symlinks (as links), empty directories, unicode names and sparse files survive;
 * every transfer is checked by checksum (downloads: each file read back against the stream;
 * uploads and copies: the destination read back through the provider against what was
 * sent); nothing appears under a final name before it is complete and checked; untrusted
 * streams are checked entry by entry (core/archive.h). Every call is journaled in each
 * sandbox it touches, failures as failure events. */
#ifndef SM_TRANSFER_H
#define SM_TRANSFER_H

#include <stdbool.h>

#include "core/archive.h"
#include "core/sandbox.h"

typedef struct sm_transfer_opts {
    /* done: content bytes so far; total: expected, -1 when unknown. Called often: throttle. */
    void (*progress)(void *ud, unsigned long long done, long long total);
    void (*note)(void *ud, const char *line); /* an entry skipped (FIFO, socket, device) */
    void *ud;
    const volatile int *cancel;
    bool no_verify; /* skip the read-back of uploads and copies (downloads are always checked) */
} sm_transfer_opts;

typedef struct sm_transfer_result {
    unsigned long long bytes; /* file content */
    size_t files, entries, skipped;
    double seconds;
    bool verified;
} sm_transfer_result;

/* The seed's three error classes: the command failed in the sandbox (SandboxTransferError), the
 * sandbox could not answer (SandboxProbeError), the provider could not run it
 * (SandboxUnavailableError). */
typedef enum {
    SM_XFER_ERR_NONE = 0,
    SM_XFER_ERR_TRANSFER,
    SM_XFER_ERR_PROBE,
    SM_XFER_ERR_UNAVAILABLE
} sm_transfer_error_class;

sm_transfer_error_class sm_transfer_classify(const sm_error *err);
/* "transfer", "probe", "unavailable" (JSON) and the seed's exception names. */
const char *sm_transfer_error_class_name(sm_transfer_error_class c);
const char *sm_transfer_error_seed_name(sm_transfer_error_class c);

int sm_transfer_remote_kind(sm_sandbox *s, const char *remote, sm_remote_kind *kind, sm_error *err);

/* local (a file, a link or a directory tree) becomes remote (its final name). */
int sm_transfer_upload_path(sm_sandbox *s, const char *local, const char *remote,
                            const sm_transfer_opts *o, sm_transfer_result *res, sm_error *err);
/* remote (file, link or directory) becomes local (its final name). */
int sm_transfer_download_path(sm_sandbox *s, const char *remote, const char *local,
                              const sm_transfer_opts *o, sm_transfer_result *res, sm_error *err);
/* As the two above, but the source must be a directory. */
int sm_transfer_upload_dir(sm_sandbox *s, const char *local, const char *remote,
                           const sm_transfer_opts *o, sm_transfer_result *res, sm_error *err);
int sm_transfer_download_dir(sm_sandbox *s, const char *remote, const char *local,
                             const sm_transfer_opts *o, sm_transfer_result *res, sm_error *err);

/* Keeps remote as a tar file at archive (checked entry by entry before it gets that name). */
int sm_transfer_archive_copy(sm_sandbox *s, const char *remote, const char *archive,
                             const sm_transfer_opts *o, sm_transfer_result *res, sm_error *err);
/* Replays a tar file byte for byte into the directory remote_dir (checked first: nothing is
 * sent when an entry is refused). */
int sm_transfer_upload_archive(sm_sandbox *s, const char *archive, const char *remote_dir,
                               const sm_transfer_opts *o, sm_transfer_result *res, sm_error *err);
/* A tar on fd (stdin) into remote_dir: kept in a private temp file, checked, then replayed. */
int sm_transfer_upload_stream(sm_sandbox *s, int fd, const char *remote_dir,
                              const sm_transfer_opts *o, sm_transfer_result *res, sm_error *err);
/* remote as a tar on fd (stdout), re-encoded entry by entry, so a refused entry never reaches
 * whoever unpacks it. */
int sm_transfer_download_stream(sm_sandbox *s, const char *remote, int fd,
                                const sm_transfer_opts *o, sm_transfer_result *res, sm_error *err);
/* from:src becomes to:dst (its final name), streamed: nothing touches the local disk. */
int sm_transfer_copy(sm_sandbox *from, const char *src, sm_sandbox *to, const char *dst,
                     const sm_transfer_opts *o, sm_transfer_result *res, sm_error *err);

#endif
