/* The provider's side of a transfer (core/transfer_side.h): its tar_get or tar_put run on a
 * thread of its own, joined to ours by a socket pair (send with MSG_NOSIGNAL: a side that stops
 * early is an error, not a SIGPIPE); a side that fails makes the other one's stream end in an
 * error, never in a clean end of archive. */
#include "core/transfer_side.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/transfer_exec.h"

static int sock_write(void *ud, const void *buf, size_t len)
{
    sm_xfer_side *s = ud;
    const char *p = buf;
    while (len) {
        ssize_t n = send(s->fd, p, len, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

static ssize_t sock_read(void *ud, void *buf, size_t len)
{
    sm_xfer_side *s = ud;
    ssize_t n;
    do {
        n = recv(s->fd, buf, len, 0);
    } while (n < 0 && errno == EINTR);
    if (n == 0 && __atomic_load_n(&s->peer_failed, __ATOMIC_SEQ_CST)) {
        errno = EPIPE;
        return -1;
    }
    return n;
}

static void *side_run(void *arg)
{
    sm_xfer_side *s = arg;
    int rc = s->get ? sm_tar_get(s->p, s->h, s->path, sock_write, s, &s->err)
                    : sm_tar_put(s->p, s->h, s->path, sock_read, s, &s->err);
    __atomic_store_n(&s->rc, rc, __ATOMIC_SEQ_CST);
    shutdown(s->fd, SHUT_RDWR);
    return NULL;
}

ssize_t sm_xfer_ours_read(void *ud, void *buf, size_t len)
{
    sm_xfer_ours *o = ud;
    ssize_t n;
    do {
        n = recv(o->fd, buf, len, 0);
    } while (n < 0 && errno == EINTR);
    /* the provider's tar_get ended: a clean end only if it succeeded */
    if (n == 0 && __atomic_load_n(&o->peer->rc, __ATOMIC_SEQ_CST) != SM_OK) {
        errno = EIO;
        return -1;
    }
    return n;
}

int sm_xfer_ours_write(void *ud, const void *buf, size_t len)
{
    sm_xfer_ours *o = ud;
    sm_xfer_side tmp = {.fd = o->fd};
    return sock_write(&tmp, buf, len);
}

int sm_xfer_side_start(sm_xfer_side *s, sm_provider *p, sm_handle *h, const char *path, bool get,
                       sm_xfer_ours *mine, sm_error *err)
{
    int sv[2];
    *s = (sm_xfer_side){.p = p, .h = h, .path = path, .get = get, .rc = -1};
    sm_error_clear(&s->err);
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
        return sm_error_set(err, SM_ERR_IO, SM_FAIL_TRANSFER_FAILED, "socketpair: %s",
                            strerror(errno));
    int big = 1 << 20;
    setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &big, sizeof big);
    setsockopt(sv[1], SOL_SOCKET, SO_SNDBUF, &big, sizeof big);
    s->fd = sv[0];
    *mine = (sm_xfer_ours){.fd = sv[1], .peer = s};
    if (pthread_create(&s->t, NULL, side_run, s) != 0) {
        close(sv[0]);
        close(sv[1]);
        return sm_error_set(err, SM_ERR_RUNTIME, SM_FAIL_TRANSFER_FAILED,
                            "cannot start a transfer thread");
    }
    s->started = true;
    return SM_OK;
}

int sm_xfer_side_finish(sm_xfer_side *s, sm_xfer_ours *mine, int our_rc, sm_error *err)
{
    if (!s->started)
        return our_rc;
    if (our_rc != SM_OK)
        __atomic_store_n(&s->peer_failed, 1, __ATOMIC_SEQ_CST);
    shutdown(mine->fd, our_rc == SM_OK ? SHUT_WR : SHUT_RDWR);
    pthread_join(s->t, NULL);
    close(mine->fd);
    close(s->fd);
    s->started = false;
    if (s->rc != SM_OK && (our_rc == SM_OK || s->err.code != SM_OK)) {
        /* a provider that failed because we stopped reading says "broken pipe": ours is
         * the cause then */
        bool ours_first =
            our_rc != SM_OK && (strstr(s->err.msg, "Broken pipe") ||
                                strstr(s->err.msg, "aborted") || strstr(s->err.msg, "callback"));
        if (!ours_first) {
            if (err)
                *err = s->err;
            return s->rc;
        }
    }
    return our_rc;
}
