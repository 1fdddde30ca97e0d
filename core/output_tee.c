/* The tee of a streamed exec: what the provider relays to the caller's descriptors passes
 * through pipes read by one thread, which writes it on unchanged and keeps its tail for the
 * sandbox's kept output. Provider-neutral: it sits where the facade hands descriptors over. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/output.h"
#include "core/util.h"

struct sm_output_tee {
    int rd[2], wr[2], to[2]; /* per stream: pipe ends and the original descriptor; -1 unused */
    int stop[2];             /* a pipe: finish says the provider is done */
    sm_output_tail tail[2];
    pthread_t thread;
};

/* Reads what is there on stream s; false at its end. */
static bool pump(sm_output_tee *t, int s)
{
    char buf[16384];
    ssize_t r = read(t->rd[s], buf, sizeof buf);
    if (r < 0 && (errno == EINTR || errno == EAGAIN))
        return true;
    if (r <= 0)
        return false;
    sm_write_all(t->to[s], buf, (size_t)r); /* a reader that went away: keep the tail */
    sm_output_tail_feed(&t->tail[s], buf, (size_t)r);
    return true;
}

static void *relay(void *arg)
{
    sm_output_tee *t = arg;
    bool stopping = false;
    for (;;) {
        struct pollfd p[3] = {{.fd = t->rd[0], .events = POLLIN},
                              {.fd = t->rd[1], .events = POLLIN},
                              {.fd = stopping ? -1 : t->stop[0], .events = POLLIN}};
        if (t->rd[0] < 0 && t->rd[1] < 0)
            break;
        /* once the provider is done, what it wrote is in the pipes: take it, never wait for
         * a process that kept a copy of the write end */
        int r = poll(p, 3, stopping ? 0 : -1);
        if (r < 0 && errno == EINTR)
            continue;
        if (r == 0 && stopping)
            break;
        if (p[2].revents)
            stopping = true;
        for (int s = 0; s < 2; s++)
            if (t->rd[s] >= 0 && p[s].revents && !pump(t, s)) {
                close(t->rd[s]);
                t->rd[s] = -1;
            }
    }
    return NULL;
}

sm_output_tee *sm_output_tee_start(int *stdout_fd, int *stderr_fd, size_t cap)
{
    int *fds[2] = {stdout_fd, stderr_fd};
    if (*stdout_fd < 0 && *stderr_fd < 0)
        return NULL;
    sm_output_tee *t = xcalloc(1, sizeof *t);
    t->rd[0] = t->rd[1] = t->wr[0] = t->wr[1] = t->stop[0] = t->stop[1] = -1;
    bool ok = pipe2(t->stop, O_CLOEXEC) == 0;
    for (int s = 0; s < 2; s++) {
        sm_output_tail_init(&t->tail[s], cap);
        t->to[s] = *fds[s];
        int p[2];
        if (ok && *fds[s] >= 0 && pipe2(p, O_CLOEXEC) == 0) {
            t->rd[s] = p[0];
            t->wr[s] = p[1];
        } else if (*fds[s] >= 0) {
            ok = false;
        }
    }
    if (ok && pthread_create(&t->thread, NULL, relay, t) != 0)
        ok = false;
    if (!ok) {
        for (int s = 0; s < 2; s++) {
            if (t->rd[s] >= 0)
                close(t->rd[s]);
            if (t->wr[s] >= 0)
                close(t->wr[s]);
            sm_output_tail_free(&t->tail[s]);
        }
        if (t->stop[0] >= 0) {
            close(t->stop[0]);
            close(t->stop[1]);
        }
        free(t);
        return NULL;
    }
    for (int s = 0; s < 2; s++)
        if (t->wr[s] >= 0)
            *fds[s] = t->wr[s];
    return t;
}

void sm_output_tee_finish(sm_output_tee *t, sm_output_tail *out, sm_output_tail *err)
{
    for (int s = 0; s < 2; s++)
        if (t->wr[s] >= 0)
            close(t->wr[s]);
    if (write(t->stop[1], "x", 1) < 0) {
    }
    pthread_join(t->thread, NULL);
    for (int s = 0; s < 2; s++)
        if (t->rd[s] >= 0)
            close(t->rd[s]);
    close(t->stop[0]);
    close(t->stop[1]);
    *out = t->tail[0];
    *err = t->tail[1];
    free(t);
}
