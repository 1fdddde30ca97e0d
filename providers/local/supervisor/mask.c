/* What a sandbox must not see or change, applied by the init while it builds the root: the
 * host-global parts of /proc and /sys made read-only or masked (as container runtimes do),
 * and, for host images, home directories, credential files, configured paths and every
 * sandman state directory on the host hidden under empty read-only mounts. Also the host-wide
 * registry of state directories that makes the last possible: every supervisor adds its real
 * state directory, every init hides them all, and a host image's supervisor follows the
 * registry (inotify) to hide directories added while its sandbox runs. A mask is locked to the
 * sandbox: it has no CAP_SYS_ADMIN to unmount it, and a nested namespace inherits it locked. libc
 * only. */
#include <dirent.h>
#include <sched.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
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

/* A detached empty tmpfs (nothing on any path yet), or -1. */
static int empty_tmpfs(void)
{
    int fs = fsopen("tmpfs", FSOPEN_CLOEXEC);
    if (fs < 0)
        return -1;
    int mnt = -1;
    if (fsconfig(fs, FSCONFIG_SET_STRING, "source", "sandman-masked", 0) == 0 &&
        fsconfig(fs, FSCONFIG_SET_STRING, "size", "16k", 0) == 0 &&
        fsconfig(fs, FSCONFIG_SET_STRING, "nr_inodes", "64", 0) == 0 &&
        fsconfig(fs, FSCONFIG_SET_STRING, "mode", "755", 0) == 0 &&
        fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) == 0)
        mnt =
            fsmount(fs, FSMOUNT_CLOEXEC, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC);
    close(fs);
    return mnt;
}

/* The root of one attached empty mask: later directory masks are clones of it (one tmpfs for
 * them all, fewer system calls). Reset when a batch of masks is done. */
static int first_mask = -1;

static void masks_done(void)
{
    if (first_mask >= 0)
        close(first_mask);
    first_mask = -1;
}

/* Covers path (as seen inside root) with an empty read-only tmpfs (a directory) or /dev/null
 * (a file); keep, when given, is a path under the directory to recreate inside the mask (a
 * workdir). Missing paths are fine. The mount is built detached and moved onto the path by
 * descriptor, so it works from inside another mount namespace too (no /proc/self there). */
static int hide_in(int rootfd, const char *path, const char *workdir, char *msg, size_t len)
{
    int fd = open_in_root(rootfd, path, 0);
    if (fd < 0)
        return 0;
    struct stat st;
    int mnt = -1, dir = 0;
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/')
        n--;
    int keep = workdir && !strncmp(workdir, path, n) && workdir[n] == '/';
    if (fstat(fd, &st) == 0 && (dir = S_ISDIR(st.st_mode)) && !keep && first_mask >= 0)
        mnt = (int)open_tree(first_mask, "", AT_EMPTY_PATH | OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
    if (mnt < 0 && dir)
        mnt = empty_tmpfs();
    else if (mnt < 0)
        mnt = (int)open_tree(AT_FDCWD, "/dev/null", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
    if (mnt >= 0 && dir && keep) {
        char sub[4096];
        snprintf(sub, sizeof sub, "%s", workdir + n + 1);
        for (char *p = sub; *p; p++) {
            if (*p != '/')
                continue;
            *p = '\0';
            mkdirat(mnt, sub, 0755);
            *p = '/';
        }
        mkdirat(mnt, sub, 0755);
    }
    struct mount_attr attr = {.attr_set = MOUNT_ATTR_RDONLY};
    int rc = mnt < 0 ? -1 : mount_setattr(mnt, "", AT_EMPTY_PATH, &attr, sizeof attr);
    if (rc == 0)
        rc = move_mount(mnt, "", fd, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH);
    if (rc < 0)
        sup_fmt(msg, len, "hiding %s: %s", path, strerror(errno));
    if (mnt >= 0)
        close(mnt);
    close(fd);
    if (rc == 0 && dir && !keep && first_mask < 0)
        first_mask = open_in_root(rootfd, path, 0); /* now the mask's own root */
    return rc;
}

int mask_proc_sys(const char *root, char *msg, size_t len)
{
    static const char *const ro[] = {
        "/proc/sys", "/proc/sysrq-trigger", "/proc/irq", "/proc/bus", "/proc/fs", NULL};
    /* /sys/fs/cgroup is empty in a sysfs of our own, but in the host's, bound when ours cannot
     * be mounted (an unprivileged sandbox on the host's network), it holds every host cgroup. */
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
                                         "/sys/fs/cgroup",
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
    masks_done();
    close(rootfd);
    return rc;
}

/* Calls fn for each absolute path listed in the file (one a line). A user's file names only
 * that user's own directories: another path (a local user listing /usr, say, to break every
 * sandbox) is ignored. Root's file may name any. */
static void each_line(int fd, uid_t owner, void (*fn)(const char *, void *), void *ud)
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
        struct stat st;
        if (line[0] == '/' &&
            (owner == 0 || (stat(line, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == owner)))
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
        struct stat ds;
        if (lstat(dirs[d], &ds) < 0 || !S_ISDIR(ds.st_mode))
            continue; /* not a symlink to somewhere else */
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
                each_line(fd, st.st_uid, fn, ud);
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

/* Host keys and secrets of the usual services: a sandbox has no business reading them. Also
 * the container daemons that keep their root-giving socket outside /run (connect() works on a
 * read-only mount): LXD and Incus. */
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
                                          "/var/lib/lxd",
                                          "/var/lib/incus",
                                          "/var/snap/lxd",
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
    masks_done();
    close(c.rootfd);
    return c.rc;
}

/* The registry without the directories that are gone, plus ours: the new text (malloc'd), or
 * NULL when nothing changes. */
static char *registry_text(int fd, const char *mine)
{
    struct stat st;
    if (fstat(fd, &st) < 0 || st.st_size > REG_MAX)
        return NULL;
    char *buf = malloc((size_t)st.st_size + 1), *out = malloc((size_t)st.st_size + 4097);
    ssize_t got = buf ? pread(fd, buf, (size_t)st.st_size, 0) : -1;
    if (!buf || !out || got < 0) {
        free(buf);
        free(out);
        return NULL;
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
    free(buf);
    if (have && o == (size_t)got) {
        free(out);
        return NULL; /* nothing changed: no write on the fast path */
    }
    return out;
}

/* Replaces <dir>/<uid> with text whole (a reader never sees half a rewrite). */
static void registry_put(const char *dir, uid_t uid, const char *text)
{
    char tmp[256], path[256];
    snprintf(tmp, sizeof tmp, "%s/%u.new", dir, (unsigned)uid);
    snprintf(path, sizeof path, "%s/%u", dir, (unsigned)uid);
    unlink(tmp);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0)
        return;
    size_t n = strlen(text);
    int ok = write(fd, text, n) == (ssize_t)n && fchmod(fd, 0644) == 0;
    if (close(fd) < 0)
        ok = 0;
    if (!ok || rename(tmp, path) < 0)
        unlink(tmp);
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
    }
    /* root makes the users' directory too when it is missing: then no user owns it */
    if (mkdir(REG_USERS, 01777) == 0)
        chmod(REG_USERS, 01777); /* the umask took the bits off */
    struct stat ds;
    if (lstat(dir, &ds) < 0 || !S_ISDIR(ds.st_mode) || (uid != 0 && !(ds.st_mode & S_ISVTX)))
        return; /* a symlink or a directory anyone may empty: not ours to trust */
    char path[256];
    snprintf(path, sizeof path, "%s/%u.lock", dir, (unsigned)uid);
    int lock = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
    struct stat st;
    if (lock < 0)
        return;
    if (fstat(lock, &st) == 0 && st.st_uid == uid && S_ISREG(st.st_mode) &&
        flock(lock, LOCK_EX) == 0) {
        snprintf(path, sizeof path, "%s/%u", dir, (unsigned)uid);
        int fd = open(path, O_RDONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
        char *text = NULL;
        if (fd >= 0 && fstat(fd, &st) == 0 && st.st_uid == uid && S_ISREG(st.st_mode))
            text = registry_text(fd, real);
        if (fd >= 0)
            close(fd);
        if (text)
            registry_put(dir, uid, text);
        free(text);
    }
    close(lock);
}

/* Paths no sandbox sees from the host: every one has its own /tmp, /run, /dev, /proc, /sys. */
static int invisible(const char *path)
{
    static const char *const own[] = {"/tmp", "/run", "/dev", "/proc", "/sys", NULL};
    for (int i = 0; own[i]; i++) {
        size_t n = strlen(own[i]);
        if (!strncmp(path, own[i], n) && (path[n] == '/' || !path[n]))
            return 1;
    }
    return 0;
}

/* The registered directories this supervisor's sandbox already hides (its init hid what was
 * listed when it started; later ones are added by registry_follow). */
static struct {
    char **paths;
    size_t n;
} seen;

static int was_seen(const char *path)
{
    for (size_t i = 0; i < seen.n; i++)
        if (!strcmp(seen.paths[i], path))
            return 1;
    return 0;
}

static void mark_seen(const char *path, void *ud)
{
    (void)ud;
    if (was_seen(path))
        return;
    char **grown = realloc(seen.paths, (seen.n + 1) * sizeof *grown);
    char *copy = strdup(path);
    if (!grown || !copy) {
        free(copy);
        if (grown)
            seen.paths = grown;
        return;
    }
    seen.paths = grown;
    seen.paths[seen.n++] = copy;
}

void registry_snapshot(void)
{
    each_registered(mark_seen, NULL);
}

int registry_watch(void)
{
    int fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (fd < 0)
        return -1;
    int n = 0;
    n += inotify_add_watch(fd, REG_ROOT, IN_CLOSE_WRITE | IN_MOVED_TO | IN_ONLYDIR) >= 0;
    n += inotify_add_watch(fd, REG_USERS, IN_CLOSE_WRITE | IN_MOVED_TO | IN_ONLYDIR) >= 0;
    if (!n) {
        close(fd);
        return -1;
    }
    return fd;
}

/* Hides path inside the running sandbox whose init is pid (our own child): a child process
 * enters its mount namespace (through its user namespace when we are not root) and lays the
 * mask there. */
static void hide_in_sandbox(pid_t pid, const char *path)
{
    pid_t c = fork();
    if (c == 0) {
        char p[64];
        snprintf(p, sizeof p, "/proc/%d/ns/user", (int)pid);
        int u = open(p, O_RDONLY | O_CLOEXEC);
        snprintf(p, sizeof p, "/proc/%d/ns/mnt", (int)pid);
        int m = open(p, O_RDONLY | O_CLOEXEC);
        if (m < 0 || (geteuid() != 0 && (u < 0 || setns(u, CLONE_NEWUSER) < 0)) ||
            setns(m, CLONE_NEWNS) < 0)
            _exit(1);
        int root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
        char msg[256];
        _exit(root < 0 || hide_in(root, path, NULL, msg, sizeof msg) < 0);
    }
    if (c > 0)
        while (waitpid(c, NULL, 0) < 0 && errno == EINTR)
            ;
}

static void follow_one(const char *path, void *ud)
{
    if (was_seen(path))
        return;
    mark_seen(path, NULL);
    if (!invisible(path))
        hide_in_sandbox(*(pid_t *)ud, path);
}

void registry_follow(int fd, pid_t init)
{
    char buf[4096];
    int any = 0;
    while (read(fd, buf, sizeof buf) > 0)
        any = 1;
    if (any)
        each_registered(follow_one, &init);
}
