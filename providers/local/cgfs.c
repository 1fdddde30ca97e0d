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

/* The first child cgroup of dir (a subdirectory), malloc'd, or NULL. */
static char *first_child(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return NULL;
    char *child = NULL;
    struct dirent *de;
    while (!child && (de = readdir(d)) != NULL)
        if (de->d_type == DT_DIR && strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
            size_t n = strlen(dir) + strlen(de->d_name) + 2;
            child = malloc(n);
            if (child)
                snprintf(child, n, "%s/%s", dir, de->d_name);
        }
    closedir(d);
    return child;
}

static int remove_one(const char *dir)
{
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

/* A cgroup with child cgroups (which whoever reached its cgroup may have made) cannot be
 * removed before them: remove the deepest first, one at a time, without recursion or a
 * descriptor held per level. */
int cgfs_remove(const char *dir)
{
    if (!dir || !*dir)
        return 0;
    for (;;) {
        char *leaf = NULL, *child;
        while ((child = first_child(leaf ? leaf : dir)) != NULL) {
            free(leaf);
            leaf = child;
        }
        if (!leaf)
            return remove_one(dir);
        int rc = remove_one(leaf);
        free(leaf);
        if (rc < 0)
            return -1;
    }
}
