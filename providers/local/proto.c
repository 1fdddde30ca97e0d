/* The local provider's framed control protocol (libc only: linked into the static supervisor). */
#include "providers/local/proto.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

static int write_full(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN) {
                /* Blocking semantics on a non-blocking socket: wait a little and retry. */
                usleep(1000);
                continue;
            }
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

int lp_send(int fd, int type, int flags, int64_t a, int64_t b, const void *payload, size_t len,
            const int *fds, int nfds)
{
    struct lp_hdr h = {
        .len = (uint32_t)len, .type = (uint16_t)type, .flags = (uint16_t)flags, .a = a, .b = b};
    struct iovec iov = {.iov_base = &h, .iov_len = sizeof h};
    union {
        char buf[CMSG_SPACE(sizeof(int) * LP_MAX_FDS)];
        struct cmsghdr align;
    } u;
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};
    if (nfds > 0) {
        memset(&u, 0, sizeof u);
        msg.msg_control = u.buf;
        msg.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)nfds);
        struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)nfds);
        memcpy(CMSG_DATA(c), fds, sizeof(int) * (size_t)nfds);
    }
    ssize_t w;
    do {
        w = sendmsg(fd, &msg, MSG_NOSIGNAL);
    } while (w < 0 && (errno == EINTR || errno == EAGAIN) && (usleep(500), 1));
    if (w < 0)
        return -1;
    if ((size_t)w < sizeof h && write_full(fd, (const char *)&h + w, sizeof h - (size_t)w) < 0)
        return -1;
    if (len && write_full(fd, payload, len) < 0)
        return -1;
    return 0;
}

/* Reads exactly n bytes. The descriptor may be non-blocking (an event loop polls it): the rest
 * of a frame whose start arrived is then waited for, not mistaken for an error. */
static int read_full(int fd, char *p, size_t n)
{
    while (n > 0) {
        ssize_t r = read(fd, p, n);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN) {
                struct pollfd pf = {.fd = fd, .events = POLLIN};
                if (poll(&pf, 1, 30000) <= 0) {
                    errno = ETIMEDOUT;
                    return -1;
                }
                continue;
            }
            return -1;
        }
        if (r == 0) {
            errno = EPIPE;
            return -1;
        }
        p += r;
        n -= (size_t)r;
    }
    return 0;
}

int lp_recv(int fd, struct lp_frame *f)
{
    memset(f, 0, sizeof *f);
    union {
        char buf[CMSG_SPACE(sizeof(int) * LP_MAX_FDS)];
        struct cmsghdr align;
    } u;
    struct iovec iov = {.iov_base = &f->h, .iov_len = sizeof f->h};
    struct msghdr msg = {
        .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf, .msg_controllen = sizeof u.buf};
    ssize_t r;
    do {
        r = recvmsg(fd, &msg, MSG_CMSG_CLOEXEC);
    } while (r < 0 && errno == EINTR);
    if (r < 0)
        return -1;
    if (r == 0)
        return 1;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
            int n = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
            for (int i = 0; i < n && f->nfds < LP_MAX_FDS; i++)
                memcpy(&f->fds[f->nfds++], CMSG_DATA(c) + i * sizeof(int), sizeof(int));
        }
    }
    if ((size_t)r < sizeof f->h && read_full(fd, (char *)&f->h + r, sizeof f->h - (size_t)r) < 0)
        return -1;
    if (f->h.len > LP_MAX_PAYLOAD) {
        errno = EMSGSIZE;
        return -1;
    }
    if (f->h.len) {
        f->payload = malloc(f->h.len + 1);
        if (!f->payload || read_full(fd, f->payload, f->h.len) < 0)
            return -1;
        f->payload[f->h.len] = '\0';
    }
    return 0;
}

void lp_frame_free(struct lp_frame *f)
{
    free(f->payload);
    for (int i = 0; i < f->nfds; i++)
        if (f->fds[i] >= 0)
            close(f->fds[i]);
    memset(f, 0, sizeof *f);
}

int lp_reader_fill(struct lp_reader *r, int fd)
{
    for (;;) {
        if (r->len >= sizeof(struct lp_hdr) + LP_MAX_PAYLOAD)
            return 0; /* a whole frame's worth is buffered: let the caller take it first */
        if (r->cap - r->len < 65536) {
            size_t cap = r->cap ? r->cap * 2 : 131072;
            char *nb = realloc(r->buf, cap);
            if (!nb)
                return -1;
            r->buf = nb;
            r->cap = cap;
        }
        union {
            char buf[CMSG_SPACE(sizeof(int) * LP_MAX_FDS)];
            struct cmsghdr align;
        } u;
        struct iovec iov = {.iov_base = r->buf + r->len, .iov_len = r->cap - r->len};
        struct msghdr msg = {
            .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf, .msg_controllen = sizeof u.buf};
        ssize_t n = recvmsg(fd, &msg, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return (errno == EAGAIN) ? 0 : -1;
        }
        for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
            if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
                continue;
            int k = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
            for (int i = 0; i < k; i++) {
                int v;
                memcpy(&v, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
                if (r->nfds < 16)
                    r->fds[r->nfds++] = v;
                else
                    close(v);
            }
        }
        if (n == 0)
            return 1;
        r->len += (size_t)n;
        if ((size_t)n < iov.iov_len)
            return 0;
    }
}

int lp_reader_next(struct lp_reader *r, struct lp_frame *f)
{
    memset(f, 0, sizeof *f);
    if (r->len < sizeof(struct lp_hdr))
        return 0;
    struct lp_hdr h;
    memcpy(&h, r->buf, sizeof h);
    if (h.len > LP_MAX_PAYLOAD)
        return -1;
    if (r->len < sizeof h + h.len)
        return 0;
    f->h = h;
    if (h.len) {
        f->payload = malloc(h.len + 1);
        if (!f->payload)
            return -1;
        memcpy(f->payload, r->buf + sizeof h, h.len);
        f->payload[h.len] = '\0';
    }
    memmove(r->buf, r->buf + sizeof h + h.len, r->len - sizeof h - h.len);
    r->len -= sizeof h + h.len;
    /* Descriptors travel with the header of the frame that carries them. */
    int want = (h.type == LP_EXEC) ? 3 : 0;
    for (int i = 0; i < want && r->nfds > 0; i++) {
        f->fds[f->nfds++] = r->fds[0];
        memmove(r->fds, r->fds + 1, sizeof(int) * (size_t)(r->nfds - 1));
        r->nfds--;
    }
    return 1;
}

void lp_reader_free(struct lp_reader *r)
{
    free(r->buf);
    for (int i = 0; i < r->nfds; i++)
        close(r->fds[i]);
    memset(r, 0, sizeof *r);
}

char *lp_pack(const char *const *strs, size_t n, size_t *len)
{
    size_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += strlen(strs[i] ? strs[i] : "") + 1;
    char *buf = malloc(total ? total : 1), *p = buf;
    if (!buf)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        size_t l = strlen(strs[i] ? strs[i] : "");
        memcpy(p, strs[i] ? strs[i] : "", l + 1);
        p += l + 1;
    }
    *len = total;
    return buf;
}

size_t lp_unpack(const char *payload, size_t len, const char **out, size_t max)
{
    size_t n = 0, i = 0;
    while (i < len && n < max) {
        out[n++] = payload + i;
        i += strnlen(payload + i, len - i) + 1;
    }
    return n;
}
