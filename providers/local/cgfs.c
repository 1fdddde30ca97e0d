/* Cgroup filesystem helpers shared by client and supervisor (libc only). */
#include "providers/local/cgfs.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int read_at(const char *dir, const char *file, char *buf, size_t len)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, buf, len - 1);
    close(fd);
    if (n < 0)
        return -1;
    buf[n] = '\0';
    return (int)n;
}

long long cgfs_key_in(const char *text, const char *key)
{
    size_t kl = strlen(key);
    for (const char *line = text; line && *line;) {
        if (!strncmp(line, key, kl) && line[kl] == ' ')
            return strtoll(line + kl + 1, NULL, 10);
        line = strchr(line, '\n');
        if (line)
            line++;
    }
    return -1;
}

long long cgfs_read_key(const char *dir, const char *file, const char *key)
{
    char buf[8192];
    if (!dir || read_at(dir, file, buf, sizeof buf) < 0)
        return -1;
    return cgfs_key_in(buf, key);
}

long long cgfs_read_num(const char *dir, const char *file)
{
    char buf[64];
    if (!dir || read_at(dir, file, buf, sizeof buf) < 0)
        return -1;
    if (!strncmp(buf, "max", 3))
        return -2;
    char *end;
    long long v = strtoll(buf, &end, 10);
    return (end == buf) ? -1 : v;
}

void cgfs_kill_all(const char *dir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/cgroup.kill", dir);
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd >= 0) {
        ssize_t w = write(fd, "1", 1);
        close(fd);
        if (w == 1)
            return;
    }
    char buf[65536];
    if (read_at(dir, "cgroup.procs", buf, sizeof buf) <= 0)
        return;
    for (char *p = buf; *p;) {
        long pid = strtol(p, &p, 10);
        if (pid > 1)
            kill((pid_t)pid, SIGKILL);
        while (*p == '\n')
            p++;
        if (pid == 0 && *p && (*p < '0' || *p > '9'))
            break;
    }
}

int cgfs_remove(const char *dir)
{
    if (!dir || !*dir)
        return 0;
    for (int i = 0; i < 200; i++) {
        if (rmdir(dir) == 0 || errno == ENOENT)
            return 0;
        if (errno != EBUSY && errno != ENOTEMPTY)
            return -1;
        cgfs_kill_all(dir);
        struct timespec ts = {0, 5 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    return -1;
}
