/* The control socket's gate. The supervisor, which lives on the host side of every namespace,
 * owns <sandbox dir>/ctl.sock: it accepts each connection, lets in only a peer that runs in the
 * supervisor's own PID namespace (the host side, where sandman runs), and hands the connection
 * to the sandbox's init over a private socket pair. A process inside any sandbox (this one or
 * another: both live in PID namespaces below ours) is refused with one error frame, whatever it
 * can see of the state directory. The init itself never listens. libc only. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include "providers/local/proto.h"
#include "providers/local/supervisor/sup.h"

#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD 77
#endif

static char own_pidns[64];

int gate_open(int *listen_fd, int pair[2], char *msg, size_t len)
{
    ssize_t n = readlink("/proc/self/ns/pid", own_pidns, sizeof own_pidns - 1);
    if (n <= 0) {
        sup_fmt(msg, len, "reading our own PID namespace: %s", strerror(errno));
        return -1;
    }
    own_pidns[n] = '\0';
    int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    snprintf(sa.sun_path, sizeof sa.sun_path, "ctl.sock"); /* relative: cwd is the sandbox dir */
    unlink("ctl.sock");
    mode_t old = umask(0177); /* never a moment with a wider mode */
    int rc = s < 0 ? -1 : bind(s, (struct sockaddr *)&sa, sizeof sa);
    umask(old);
    if (rc < 0 || listen(s, 128) < 0 ||
        socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) < 0) {
        sup_fmt(msg, len, "opening the control socket ctl.sock: %s", strerror(errno));
        if (s >= 0)
            close(s);
        return -1;
    }
    *listen_fd = s;
    return 0;
}

/* The peer must be a live process of our own PID namespace. The pidfd (when the kernel gives
 * one) pins the process, so a pid reused after the peer died cannot pass for it. */
static int peer_allowed(int fd)
{
    struct ucred uc;
    socklen_t l = sizeof uc;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &uc, &l) < 0 || uc.pid <= 0)
        return 0;
    int pidfd = -1;
    l = sizeof pidfd;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERPIDFD, &pidfd, &l) < 0)
        pidfd = -1;
    char path[64], ns[64];
    snprintf(path, sizeof path, "/proc/%d/ns/pid", (int)uc.pid);
    ssize_t n = readlink(path, ns, sizeof ns - 1);
    int ok = n > 0 && (ns[n] = '\0', strcmp(ns, own_pidns) == 0);
    if (pidfd >= 0) {
        ok = ok && syscall(SYS_pidfd_send_signal, pidfd, 0, NULL, 0) == 0;
        close(pidfd);
    }
    return ok;
}

/* One frame in one non-blocking send: a refused peer or a stalled init never holds up the
 * supervisor, which also keeps the TTL. */
static int send_now(int fd, int type, int64_t a, const char *text, const int *pass)
{
    char buf[sizeof(struct lp_hdr) + 256];
    size_t n = text ? strlen(text) : 0;
    if (n > 256)
        n = 256;
    struct lp_hdr h = {.len = (uint32_t)n, .type = (uint16_t)type, .a = a};
    memcpy(buf, &h, sizeof h);
    if (n)
        memcpy(buf + sizeof h, text, n);
    struct iovec iov = {.iov_base = buf, .iov_len = sizeof h + n};
    union {
        char b[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } u;
    struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1};
    if (pass) {
        memset(&u, 0, sizeof u);
        m.msg_control = u.b;
        m.msg_controllen = sizeof u.b;
        struct cmsghdr *c = CMSG_FIRSTHDR(&m);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(c), pass, sizeof(int));
    }
    ssize_t w;
    do {
        w = sendmsg(fd, &m, MSG_DONTWAIT | MSG_NOSIGNAL);
    } while (w < 0 && errno == EINTR);
    return w == (ssize_t)(sizeof h + n) ? 0 : -1;
}

void gate_accept(int listen_fd, int handoff)
{
    int fd;
    while ((fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC)) >= 0) {
        if (!peer_allowed(fd)) {
            send_now(fd, LP_ERROR, EPERM,
                     "refused: this control socket serves sandman on the host, not processes "
                     "inside a sandbox",
                     NULL);
            /* What the peer already sent is dropped unread, so closing does not reset the
             * connection before it reads why (a bounded drain: it never waits). */
            shutdown(fd, SHUT_WR);
            char sink[4096];
            for (int i = 0; i < 16 && recv(fd, sink, sizeof sink, MSG_DONTWAIT) > 0; i++) {
            }
        } else
            send_now(handoff, LP_PING, 0, NULL, &fd); /* on failure the client sees EOF */
        close(fd);
    }
}

int gate_receive(int handoff)
{
    struct lp_frame f;
    int r = lp_recv(handoff, &f);
    if (r != 0)
        return r > 0 ? -2 : -1;
    int fd = f.nfds == 1 ? f.fds[0] : -1;
    if (fd >= 0)
        f.fds[0] = -1;
    lp_frame_free(&f);
    return fd;
}
