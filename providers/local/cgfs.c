/* Cgroup filesystem helpers shared by client and supervisor (libc only). */
#include "providers/local/cgfs.h"

#include <dirent.h>
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

/* SIGKILLs every process of the cgroup open at dfd. */
static void kill_all_at(int dfd)
{
    int fd = openat(dfd, "cgroup.kill", O_WRONLY | O_CLOEXEC);
    if (fd >= 0) {
        ssize_t w = write(fd, "1", 1);
        close(fd);
        if (w == 1)
            return;
    }
    char buf[65536];
    fd = openat(dfd, "cgroup.procs", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return;
    buf[n] = '\0';
    for (char *p = buf; *p;) {
        char *end;
        long pid = strtol(p, &end, 10);
        if (end == p)
            break;
        if (pid > 1)
            kill((pid_t)pid, SIGKILL);
        p = end;
        while (*p == '\n')
            p++;
    }
}

void cgfs_kill_all(const char *dir)
{
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0)
        return;
    kill_all_at(dfd);
    close(dfd);
}

/* Deep enough for any tree sandman makes and for what an agent may add below its leaf, while
 * the descriptors held (one per level) stay well under the usual limit of 1024. */
#define MAX_DEPTH 200

/* Removes cgroup `name` under dfd with every cgroup below it, killing what runs in each. */
static int remove_at(int dfd, const char *name, int depth)
{
    int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT ? 0 : -1;
    int rc = 0;
    int lfd = depth < MAX_DEPTH ? dup(fd) : -1;
    DIR *d = lfd >= 0 ? fdopendir(lfd) : NULL;
    if (!d && lfd >= 0)
        close(lfd);
    for (struct dirent *de; d && (de = readdir(d)) != NULL;)
        if (de->d_type == DT_DIR && strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
            rc |= remove_at(fd, de->d_name, depth + 1);
    if (d)
        closedir(d);
    for (int i = 0; i < 200; i++) {
        if (unlinkat(dfd, name, AT_REMOVEDIR) == 0 || errno == ENOENT) {
            close(fd);
            return rc;
        }
        if (errno != EBUSY && errno != ENOTEMPTY)
            break;
        kill_all_at(fd);
        struct timespec ts = {0, 5 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    close(fd);
    return -1;
}

int cgfs_remove(const char *dir)
{
    if (!dir || !*dir)
        return 0;
    char parent[4096];
    snprintf(parent, sizeof parent, "%s", dir);
    char *slash = strrchr(parent, '/');
    if (!slash || !slash[1])
        return -1;
    *slash = '\0';
    int dfd = open(*parent ? parent : "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0)
        return errno == ENOENT ? 0 : -1;
    int rc = remove_at(dfd, slash + 1, 0);
    close(dfd);
    return rc;
}
