/* For core/transfer.c only: a provider's tar stream (tar_get or tar_put) run on a thread of its
 * own, with our end of it as a reader or a writer of a tar stream (core/transfer_side.c). */
#ifndef SM_TRANSFER_SIDE_H
#define SM_TRANSFER_SIDE_H

#include <pthread.h>
#include <stdbool.h>
#include <sys/types.h>

#include "core/provider_impl.h"

typedef struct sm_xfer_side {
    sm_provider *p;
    sm_handle *h;
    const char *path;
    bool get;        /* tar_get (pushes into fd) or tar_put (pulls from fd) */
    int fd;          /* its end of the socket pair */
    int rc;          /* atomic: set before fd closes */
    int peer_failed; /* atomic: our end failed; an end of stream is an error */
    sm_error err;
    pthread_t t;
    bool started;
} sm_xfer_side;

/* Our end of the stream with the provider side: what we read (get) or write (put). */
typedef struct sm_xfer_ours {
    int fd;
    sm_xfer_side *peer;
} sm_xfer_ours;

/* An sm_read_fn and an sm_write_fn on our end (ud: the sm_xfer_ours). */
ssize_t sm_xfer_ours_read(void *ud, void *buf, size_t len);
int sm_xfer_ours_write(void *ud, const void *buf, size_t len);

/* Starts the provider side on path (get: tar_get, else tar_put) and fills *mine. */
int sm_xfer_side_start(sm_xfer_side *s, sm_provider *p, sm_handle *h, const char *path, bool get,
                       sm_xfer_ours *mine, sm_error *err);
/* Ends our side (ok: a clean end of stream), waits for the provider side, and picks the error
 * to report: the provider's when it failed first, else ours. */
int sm_xfer_side_finish(sm_xfer_side *s, sm_xfer_ours *mine, int our_rc, sm_error *err);

#endif
