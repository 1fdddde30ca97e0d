/* Relays a local sandbox entrypoint's stdout and stderr into entry.log: line-buffered, secrets
 * redacted, rotated past the cap; keeps the last meaningful stderr line. libc only. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "providers/local/supervisor/capture.h"

static int key_is_secret(const char *key, size_t n)
{
    static const char *words[] = {"key",  "token",  "secret", "password",   "passwd",
                                  "auth", "bearer", "cookie", "credential", "_pat"};
    char low[128];
    if (n >= sizeof low)
        n = sizeof low - 1;
    for (size_t i = 0; i < n; i++)
        low[i] = (char)((key[i] >= 'A' && key[i] <= 'Z') ? key[i] + 32 : key[i]);
    low[n] = '\0';
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (strstr(low, words[i]))
            return 1;
    return 0;
}

static long long output_cap(void)
{
    const char *v = getenv("SANDMAN_OUTPUT_CAP");
    char *end = NULL;
    long long n = v ? strtoll(v, &end, 10) : 0;
    if (end && (*end == 'k' || *end == 'K'))
        n *= 1024;
    else if (end && (*end == 'm' || *end == 'M'))
        n *= 1024 * 1024;
    return n >= 1024 && n <= (1LL << 30) ? n : 64 * 1024;
}

static void capture_open_file(struct capture *c)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/entry.log", c->dir);
    c->out = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    struct stat st;
    c->size = c->out >= 0 && fstat(c->out, &st) == 0 ? st.st_size : 0;
}

/* Removes the log and its directory of a sandbox that never started. */
void capture_abort(struct capture *c)
{
    char path[4200];
    if (c->out >= 0)
        close(c->out);
    c->out = -1;
    snprintf(path, sizeof path, "%s/entry.log", c->dir);
    unlink(path);
    rmdir(c->dir);
}

/* Pipes for the init's stdout and stderr (the entrypoint inherits them); 0 or -1. */
int capture_start(struct capture *c, const struct launch *l, int pipes[2][2])
{
    memset(c, 0, sizeof *c);
    c->fd[0] = c->fd[1] = c->out = -1;
    if (!launch_get(l, "entry", NULL))
        return -1;
    c->cap = output_cap();
    const char *envs[256];
    size_t ne = launch_get_all(l, "env", envs, 255);
    for (size_t i = 0; i < ne && c->nsecrets < 64; i++) {
        const char *eq = strchr(envs[i], '=');
        if (eq && strlen(eq + 1) >= 4 && key_is_secret(envs[i], (size_t)(eq - envs[i])))
            c->secrets[c->nsecrets++] = eq + 1;
    }
    snprintf(c->dir, sizeof c->dir, "%s/output", launch_get(l, "state_dir", "."));
    mkdir(c->dir, 0700);
    size_t n = strlen(c->dir);
    snprintf(c->dir + n, sizeof c->dir - n, "/local");
    mkdir(c->dir, 0700);
    n = strlen(c->dir);
    snprintf(c->dir + n, sizeof c->dir - n, "/%s", launch_get(l, "id", "unknown"));
    mkdir(c->dir, 0700);
    capture_open_file(c);
    if (c->out < 0 || pipe2(pipes[0], O_CLOEXEC) < 0)
        return -1;
    if (pipe2(pipes[1], O_CLOEXEC) < 0) {
        close(pipes[0][0]);
        close(pipes[0][1]);
        return -1;
    }
    c->fd[0] = pipes[0][0];
    c->fd[1] = pipes[1][0];
    return 0;
}

/* Writes text, every secret replaced by ***. */
static void capture_write(struct capture *c, const char *text, size_t n)
{
    if (c->out < 0)
        return;
    if (c->size + (long long)n > c->cap && c->size > 0) {
        char a[4200], b[4210];
        snprintf(a, sizeof a, "%s/entry.log", c->dir);
        snprintf(b, sizeof b, "%s.1", a);
        close(c->out);
        rename(a, b);
        capture_open_file(c);
        if (c->out < 0)
            return;
    }
    size_t at = 0;
    while (at < n) {
        size_t next = n, slen = 0;
        for (size_t k = 0; k < c->nsecrets; k++) {
            const char *hit = memmem(text + at, n - at, c->secrets[k], strlen(c->secrets[k]));
            if (hit && (size_t)(hit - text) < next) {
                next = (size_t)(hit - text);
                slen = strlen(c->secrets[k]);
            }
        }
        if (write(c->out, text + at, next - at) > 0)
            c->size += (long long)(next - at);
        if (next == n)
            break;
        if (write(c->out, "***", 3) == 3)
            c->size += 3;
        at = next + slen;
    }
}

/* Copies text into buf with the secrets replaced, as capture_write writes them. */
void capture_write_redacted(const struct capture *c, const char *text, char *buf, size_t len)
{
    size_t o = 0;
    for (const char *p = text; *p && o + 4 < len;) {
        size_t slen = 0;
        for (size_t k = 0; k < c->nsecrets && !slen; k++)
            if (!strncmp(p, c->secrets[k], strlen(c->secrets[k])))
                slen = strlen(c->secrets[k]);
        if (slen) {
            memcpy(buf + o, "***", 3);
            o += 3;
            p += slen;
        } else {
            buf[o++] = *p++;
        }
    }
    buf[o] = '\0';
}

static void note_err_line(struct capture *c, const char *line, size_t n)
{
    while (n > 0 && (line[n - 1] == '\r' || line[n - 1] == ' ' || line[n - 1] == '\t'))
        n--;
    size_t i = 0;
    while (i < n && (line[i] == ' ' || line[i] == '\t'))
        i++;
    int letters = 0;
    for (size_t k = i; k < n; k++)
        if ((line[k] >= 'A' && line[k] <= 'Z') || (line[k] >= 'a' && line[k] <= 'z') ||
            (line[k] >= '0' && line[k] <= '9'))
            letters = 1;
    if (!letters)
        return;
    size_t len = n - i < sizeof c->last_err - 1 ? n - i : sizeof c->last_err - 1;
    memcpy(c->last_err, line + i, len);
    c->last_err[len] = '\0';
}

/* Whole lines of stream s go out; a line longer than the buffer goes out in parts. */
static void capture_flush(struct capture *c, int s, int all)
{
    char *p = c->pend[s];
    size_t start = 0;
    for (size_t i = 0; i < c->plen[s]; i++) {
        if (p[i] != '\n')
            continue;
        capture_write(c, p + start, i + 1 - start);
        if (s == 1)
            note_err_line(c, p + start, i - start);
        start = i + 1;
    }
    if (all || (start == 0 && c->plen[s] == sizeof c->pend[s])) {
        capture_write(c, p + start, c->plen[s] - start);
        if (s == 1 && c->plen[s] > start)
            note_err_line(c, p + start, c->plen[s] - start);
        start = c->plen[s];
    }
    memmove(p, p + start, c->plen[s] - start);
    c->plen[s] -= start;
}

void capture_read(struct capture *c, int s)
{
    if (c->fd[s] < 0)
        return;
    ssize_t n = read(c->fd[s], c->pend[s] + c->plen[s], sizeof c->pend[s] - c->plen[s]);
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return;
    if (n <= 0) {
        capture_flush(c, s, 1);
        close(c->fd[s]);
        c->fd[s] = -1;
        return;
    }
    c->plen[s] += (size_t)n;
    capture_flush(c, s, 0);
}

/* After the init ended: what is left in the pipes, then the file is closed. */
void capture_finish(struct capture *c)
{
    for (int s = 0; s < 2; s++) {
        if (c->fd[s] >= 0)
            fcntl(c->fd[s], F_SETFL, O_NONBLOCK);
        for (int guard = 0; c->fd[s] >= 0 && guard < 4096; guard++) {
            int before = c->fd[s];
            size_t had = c->plen[s];
            capture_read(c, s);
            if (c->fd[s] == before && c->plen[s] == had) { /* EAGAIN: a holder outlives init */
                capture_flush(c, s, 1);
                close(c->fd[s]);
                c->fd[s] = -1;
            }
        }
    }
    if (c->out >= 0)
        close(c->out);
    c->out = -1;
}
