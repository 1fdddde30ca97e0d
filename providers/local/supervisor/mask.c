/* What a sandbox must not see or change, applied by the init while it builds the root: the
 * host-global parts of /proc and /sys made read-only or masked (as container runtimes do),
 * and, for host images, home directories, credential files, configured paths and every
 * sandman state directory on the host hidden under empty read-only mounts. Also the host-wide
 * registry of state directories that makes the last possible: every supervisor adds its real
 * state directory, every init reads them all. A mask is locked to the sandbox: it has no
 * CAP_SYS_ADMIN to unmount it, and a nested namespace inherits it locked. libc only. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "providers/local/supervisor/sup.h"

#define REG_ROOT  "/run/sandman/state-dirs"  /* root's: only root can write there */
#define REG_USERS "/tmp/.sandman-state-dirs" /* everyone else's, one file per uid */
#define REG_MAX   (256 * 1024)               /* a registry is a few lines; cap reading */

/* Opens path as the sandbox will see it under root, symlinks resolved inside root. */
static int open_in_root(int rootfd, const char *path, int flags)
{
    struct open_how how = {.flags = (unsigned long long)(flags | O_PATH | O_CLOEXEC),
                           .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS};
    long fd;
    do {
        fd = syscall(SYS_openat2, rootfd, path, &how, sizeof how);
    } while (fd < 0 && errno == EAGAIN);
    return (int)fd;
}

static int set_attr(const char *path, unsigned int flags, unsigned long long set)
{
    struct mount_attr attr = {.attr_set = set};
    return mount_setattr(AT_FDCWD, path, flags, &attr, sizeof attr);
}

/* Covers path (as seen inside root) with an empty read-only tmpfs (a directory) or /dev/null
 * (a file); keep, when given, is a path under the directory to recreate inside the mask (a
 * workdir). Missing paths are fine. */
static int hide_in(int rootfd, const char *path, const char *workdir, char *msg, size_t len)
{
    int fd = open_in_root(rootfd, path, 0);
    if (fd < 0)
        return 0;
    struct stat st;
    char at[64];
    snprintf(at, sizeof at, "/proc/self/fd/%d", fd);
    int rc = fstat(fd, &st);
    if (rc == 0 && S_ISDIR(st.st_mode))
        rc = mount("sandman-masked", at, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
                   "size=16k,nr_inodes=64,mode=755");
    else if (rc == 0)
        rc = mount("/dev/null", at, NULL, MS_BIND, NULL);
    close(fd);
    if (rc < 0) {
        sup_fmt(msg, len, "hiding %s: %s", path, strerror(errno));
        return -1;
    }
    /* the same path again: now it leads to the root of the new mount */
    fd = open_in_root(rootfd, path, 0);
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/')
        n--;
    if (fd >= 0 && S_ISDIR(st.st_mode) && workdir && !strncmp(workdir, path, n) &&
        workdir[n] == '/') {
        char sub[4096];
        snprintf(sub, sizeof sub, "%s", workdir + n + 1);
        for (char *p = sub; *p; p++) {
            if (*p != '/')
                continue;
            *p = '\0';
            mkdirat(fd, sub, 0755);
            *p = '/';
        }
        mkdirat(fd, sub, 0755);
    }
    struct mount_attr attr = {.attr_set = MOUNT_ATTR_RDONLY};
    rc = fd < 0 ? -1 : mount_setattr(fd, "", AT_EMPTY_PATH, &attr, sizeof attr);
    if (rc < 0)
        sup_fmt(msg, len, "making the mask of %s read-only: %s", path, strerror(errno));
    if (fd >= 0)
        close(fd);
    return rc;
}

int mask_proc_sys(const char *root, char *msg, size_t len)
{
    static const char *const ro[] = {
        "/proc/sys", "/proc/sysrq-trigger", "/proc/irq", "/proc/bus", "/proc/fs", NULL};
    static const char *const masked[] = {"/proc/kcore",
                                         "/proc/keys",
                                         "/proc/key-users",
                                         "/proc/timer_list",
                                         "/proc/timer_stats",
                                         "/proc/sched_debug",
                                         "/proc/latency_stats",
                                         "/proc/kallsyms",
                                         "/proc/kmsg",
                                         "/proc/kpagecount",
                                         "/proc/kpageflags",
                                         "/proc/kpagecgroup",
                                         "/proc/config.gz",
                                         "/proc/acpi",
                                         "/proc/asound",
                                         "/proc/scsi",
                                         "/proc/driver",
                                         "/sys/firmware",
                                         "/sys/devices/virtual/powercap",
                                         "/sys/kernel/debug",
                                         "/sys/kernel/tracing",
                                         "/sys/kernel/security",
                                         NULL};
    char path[4096];
    int rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (rootfd < 0) {
        sup_fmt(msg, len, "opening %s: %s", root, strerror(errno));
        return -1;
    }
    int rc = 0;
    for (int i = 0; ro[i] && rc == 0; i++) {
        snprintf(path, sizeof path, "%s%s", root, ro[i]);
        if (access(path, F_OK) < 0)
            continue;
        if (mount(path, path, NULL, MS_BIND | MS_REC, NULL) < 0 ||
            set_attr(path, AT_RECURSIVE, MOUNT_ATTR_RDONLY) < 0) {
            sup_fmt(msg, len, "making %s read-only: %s", ro[i], strerror(errno));
            rc = -1;
        }
    }
    for (int i = 0; masked[i] && rc == 0; i++)
        rc = hide_in(rootfd, masked[i], NULL, msg, len);
    close(rootfd);
    return rc;
}

/* Calls fn for each absolute path listed in the file (one a line). */
static void each_line(int fd, void (*fn)(const char *, void *), void *ud)
{
    char *buf = malloc(REG_MAX + 1);
    size_t got = 0;
    ssize_t r;
    while (buf && got < REG_MAX && (r = read(fd, buf + got, REG_MAX - got)) > 0)
        got += (size_t)r;
    if (!buf)
        return;
    buf[got] = '\0';
    for (char *line = buf, *nl; *line; line = nl + 1) {
        nl = strchr(line, '\n');
        if (!nl)
            break; /* a line still being written */
        *nl = '\0';
        if (line[0] == '/')
            fn(line, ud);
    }
    free(buf);
}

/* Every registry file: root's, then one per uid, each trusted only when its owner is that uid
 * (or root): anyone can add to the directory, nobody can speak for someone else. */
static void each_registered(void (*fn)(const char *, void *), void *ud)
{
    static const char *const dirs[] = {REG_ROOT, REG_USERS};
    for (int d = 0; d < 2; d++) {
        DIR *dir = opendir(dirs[d]);
        struct dirent *de;
        while (dir && (de = readdir(dir)) != NULL) {
            char *end;
            unsigned long uid = strtoul(de->d_name, &end, 10);
            if (!de->d_name[0] || *end)
                continue;
            int fd = openat(dirfd(dir), de->d_name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
            struct stat st;
            if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
                (st.st_uid == uid || st.st_uid == 0))
                each_line(fd, fn, ud);
            if (fd >= 0)
                close(fd);
        }
        if (dir)
            closedir(dir);
    }
}

struct hide_ctx {
    int rootfd;
    const char *workdir;
    char *msg;
    size_t len;
    int rc;
};

static void hide_one(const char *path, void *ud)
{
    struct hide_ctx *c = ud;
    if (c->rc == 0)
        c->rc = hide_in(c->rootfd, path, c->workdir, c->msg, c->len);
}

/* Host keys and secrets of the usual services: a sandbox has no business reading them. */
static const char *const credentials[] = {"/etc/shadow",
                                          "/etc/shadow-",
                                          "/etc/gshadow",
                                          "/etc/gshadow-",
                                          "/etc/sudoers",
                                          "/etc/sudoers.d",
                                          "/etc/ssl/private",
                                          "/etc/security/opasswd",
                                          "/etc/krb5.keytab",
                                          "/etc/wireguard",
                                          "/etc/NetworkManager/system-connections",
                                          "/etc/docker",
                                          "/etc/containers/auth.json",
                                          "/var/lib/sudo",
                                          "/var/lib/docker",
                                          "/var/lib/containers",
                                          "/var/lib/sss",
                                          "/var/lib/kubelet",
                                          "/var/spool/cron",
                                          "/var/lib/private",
                                          "/var/lib/systemd/credential.secret",
                                          NULL};

static void hide_ssh_keys(struct hide_ctx *c)
{
    DIR *d = opendir("/etc/ssh");
    struct dirent *de;
    char path[512];
    while (d && c->rc == 0 && (de = readdir(d)) != NULL) {
        size_t n = strlen(de->d_name);
        if (n > 4 && !strcmp(de->d_name + n - 4, "_key")) {
            snprintf(path, sizeof path, "/etc/ssh/%s", de->d_name);
            hide_one(path, c);
        }
    }
    if (d)
        closedir(d);
}

int mask_host_paths(const struct launch *l, const char *root, char *msg, size_t len)
{
    struct hide_ctx c = {.workdir = launch_get(l, "workdir", ""), .msg = msg, .len = len};
    c.rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (c.rootfd < 0) {
        sup_fmt(msg, len, "opening %s: %s", root, strerror(errno));
        return -1;
    }
    if (!*c.workdir)
        c.workdir = NULL;
    if (launch_get_ll(l, "expose_home", 0) == 0) {
        hide_one("/root", &c);
        hide_one("/home", &c);
    }
    for (int i = 0; credentials[i]; i++)
        hide_one(credentials[i], &c);
    hide_ssh_keys(&c);
    const char *extra[256];
    size_t n = launch_get_all(l, "hide", extra, 256);
    for (size_t i = 0; i < n; i++)
        hide_one(extra[i], &c);
    hide_one(launch_get(l, "state_dir", "/nonexistent"), &c);
    each_registered(hide_one, &c);
    close(c.rootfd);
    return c.rc;
}

/* Rewrites the registry without the directories that are gone, plus ours. */
static void registry_update(int fd, const char *mine)
{
    struct stat st;
    if (fstat(fd, &st) < 0 || st.st_size > REG_MAX)
        return;
    char *buf = malloc((size_t)st.st_size + 1), *out = malloc((size_t)st.st_size + 4097);
    ssize_t got = buf ? pread(fd, buf, (size_t)st.st_size, 0) : -1;
    if (!buf || !out || got < 0) {
        free(buf);
        free(out);
        return;
    }
    buf[got] = '\0';
    size_t o = 0;
    int have = 0;
    for (char *line = buf, *nl; *line && (nl = strchr(line, '\n')); line = nl + 1) {
        *nl = '\0';
        struct stat ds;
        if (line[0] != '/' || stat(line, &ds) < 0 || !S_ISDIR(ds.st_mode))
            continue;
        have |= !strcmp(line, mine);
        o += (size_t)sprintf(out + o, "%s\n", line);
    }
    if (!have)
        o += (size_t)snprintf(out + o, 4097, "%s\n", mine);
    if (have && o == (size_t)got) {
        free(buf);
        free(out);
        return; /* nothing changed: no write on the fast path */
    }
    if (pwrite(fd, out, o, 0) == (ssize_t)o)
        ftruncate(fd, (off_t)o);
    free(buf);
    free(out);
}

void registry_add(const char *state_dir)
{
    char real[4096];
    if (!state_dir || !*state_dir || !realpath(state_dir, real))
        return;
    uid_t uid = geteuid();
    const char *dir = uid == 0 ? REG_ROOT : REG_USERS;
    if (uid == 0) {
        mkdir("/run/sandman", 0755);
        mkdir(REG_ROOT, 0755);
    } else if (mkdir(REG_USERS, 01777) == 0) {
        chmod(REG_USERS, 01777); /* the umask took the bits off */
    }
    char path[256];
    snprintf(path, sizeof path, "%s/%u", dir, (unsigned)uid);
    int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
    struct stat st;
    if (fd < 0)
        return;
    if (fstat(fd, &st) == 0 && st.st_uid == uid && S_ISREG(st.st_mode) && flock(fd, LOCK_EX) == 0) {
        fchmod(fd, 0644);
        registry_update(fd, real);
    }
    close(fd);
}
