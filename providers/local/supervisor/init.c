/* The sandbox init's setup (runs as PID 1 of the new PID namespace, in new mount, UTS, IPC,
 * cgroup and usually network and user namespaces): builds the root filesystem, mounts /proc,
 * /dev and /sys with the host-global parts masked (mask.c), brings up loopback, sets the
 * hostname, drops capabilities,
 * then serves the clients the supervisor's gate hands over. The root is either
 * the host root bound read-only (homes, credentials and state directories hidden) with a
 * private writable /tmp and workdir ("host"), or a rootfs directory under a copy-on-write
 * overlay ("dir"), so the image is never modified. Every writable mount is nosuid,nodev; with
 * a disk limit the writable areas live on one tmpfs of that size. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <net/if.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include "providers/local/supervisor/mask.h"
#include "providers/local/supervisor/seccomp.h"
#include "providers/local/supervisor/sup.h"

#ifndef AT_RECURSIVE
#define AT_RECURSIVE 0x8000
#endif

static int fail(char *msg, size_t len, const char *what, const char *path)
{
    sup_fmt(msg, len, "%s %s: %s", what, path ? path : "", strerror(errno));
    return -1;
}

/* attrs (MOUNT_ATTR_*) are added to what the source mount has, recursively: in a user
 * namespace the source's own flags are locked, and adding never clears them. */
static int bind_mount(const char *src, const char *dst, unsigned long long attrs, char *msg,
                      size_t len)
{
    if (mount(src, dst, NULL, MS_BIND | MS_REC, NULL) < 0)
        return fail(msg, len, "bind mount of", src);
    struct mount_attr attr = {.attr_set = attrs};
    if (attrs && mount_setattr(AT_FDCWD, dst, AT_RECURSIVE, &attr, sizeof attr) < 0)
        return fail(msg, len, "setting the mount flags of", dst);
    return 0;
}

#define WRITABLE (MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV)

/* A workdir is an absolute path of plain names; "." and ".." could lead out of the root
 * while it is built (spec validation refuses them first; this is the last line). */
static int clean_path(const char *p)
{
    if (p[0] != '/')
        return 0;
    for (const char *c = p; *c; c++)
        if (c[0] == '/' && c[1] == '.' &&
            (c[2] == '/' || !c[2] || (c[2] == '.' && (c[3] == '/' || !c[3]))))
            return 0;
    return 1;
}

/* With a disk limit, one tmpfs of that size (in this mount namespace only, at <dir>/disk)
 * holds every writable area; returns the directory the areas live in: <dir>/disk or <dir>. */
static int writable_base(const struct launch *l, char *out, size_t outlen, char *msg, size_t len)
{
    const char *dir = launch_get(l, "dir", "");
    long long bytes = launch_get_ll(l, "disk_bytes", 0);
    if (bytes <= 0) {
        snprintf(out, outlen, "%s", dir);
        return 0;
    }
    char opts[64];
    snprintf(out, outlen, "%s/disk", dir);
    snprintf(opts, sizeof opts, "size=%lld,mode=755", bytes);
    if ((mkdir(out, 0700) < 0 && errno != EEXIST) ||
        mount("sandman-disk", out, "tmpfs", MS_NOSUID | MS_NODEV, opts) < 0)
        return fail(msg, len, "mounting the disk-limited tmpfs on", out);
    return 0;
}

static int mkdir_p(const char *path, mode_t mode)
{
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(buf, mode) < 0 && errno != EEXIST)
            return -1;
        *p = '/';
    }
    return (mkdir(buf, mode) < 0 && errno != EEXIST) ? -1 : 0;
}

static int touch(const char *path)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
        return -1;
    close(fd);
    return 0;
}

static int is_under(const char *path, const char *dir)
{
    size_t n = strlen(dir);
    return !strncmp(path, dir, n) && (path[n] == '/' || path[n] == '\0');
}

/* Host root: a tmpfs skeleton whose top-level entries are read-only binds of the host's. */
static int build_host_root(const struct launch *l, const char *root, char *msg, size_t len)
{
    if (mount("sandman-root", root, "tmpfs", MS_NOSUID | MS_NODEV, "mode=755,size=4m") < 0)
        return fail(msg, len, "mounting the root tmpfs on", root);
    DIR *d = opendir("/");
    if (!d)
        return fail(msg, len, "reading", "/");
    static const char *skip[] = {"proc", "sys", "dev", "tmp", "run", NULL};
    struct dirent *de;
    char src[4096], dst[4096], target[4096];
    while ((de = readdir(d)) != NULL) {
        const char *n = de->d_name;
        int skipped = n[0] == '.' && (!n[1] || (n[1] == '.' && !n[2]));
        for (int i = 0; skip[i] && !skipped; i++)
            skipped = !strcmp(n, skip[i]);
        if (skipped)
            continue;
        snprintf(src, sizeof src, "/%s", n);
        snprintf(dst, sizeof dst, "%s/%s", root, n);
        struct stat st;
        if (lstat(src, &st) < 0)
            continue;
        if (S_ISLNK(st.st_mode)) {
            ssize_t r = readlink(src, target, sizeof target - 1);
            if (r > 0) {
                target[r] = '\0';
                if (symlink(target, dst) < 0)
                    return fail(msg, len, "creating symlink", dst);
            }
        } else if (S_ISDIR(st.st_mode)) {
            if (mkdir(dst, 0755) < 0 || bind_mount(src, dst, 0, msg, len) < 0)
                return msg[0] ? -1 : fail(msg, len, "creating", dst);
        }
    }
    closedir(d);
    static const char *points[] = {"proc", "sys", "dev", "tmp", "run", NULL};
    for (int i = 0; points[i]; i++) {
        snprintf(dst, sizeof dst, "%s/%s", root, points[i]);
        if (mkdir(dst, 0755) < 0 && errno != EEXIST)
            return fail(msg, len, "creating", dst);
    }

    const char *wd = launch_get(l, "workdir", "");
    if (*wd && !clean_path(wd)) {
        sup_fmt(msg, len, "workdir %s must be an absolute path without . or .. components", wd);
        return -1;
    }
    int wd_bind = *wd && !is_under(wd, "/tmp") && strcmp(wd, "/");
    if (wd_bind) {
        snprintf(dst, sizeof dst, "%s%s", root, wd);
        struct stat st;
        if (stat(dst, &st) < 0) {
            /* A new top-level directory can be made in the skeleton; a path inside a host
             * directory cannot, because that directory is the host's, read-only. */
            char top[4096];
            snprintf(top, sizeof top, "%s", wd);
            char *slash = strchr(top + 1, '/');
            if (slash)
                *slash = '\0';
            snprintf(src, sizeof src, "%s%s", root, top);
            if (lstat(src, &st) == 0) {
                sup_fmt(msg, len,
                        "workdir %s does not exist on the host and cannot be created under "
                        "the read-only host root; use a path under /tmp, a new top-level "
                        "directory such as /workspace, or image dir:<rootfs>",
                        wd);
                return -1;
            }
            if (mkdir_p(dst, 0755) < 0)
                return fail(msg, len, "creating workdir", dst);
        }
    }
    if (mask_host_paths(l, root, msg, len) < 0)
        return -1;
    /* nosuid: a setuid binary of the host gives no one more than they have */
    struct mount_attr attr = {.attr_set = MOUNT_ATTR_RDONLY | WRITABLE};
    if (mount_setattr(AT_FDCWD, root, AT_RECURSIVE, &attr, sizeof attr) < 0)
        return fail(msg, len, "making the root read-only:", root);

    char base[4096];
    if (writable_base(l, base, sizeof base, msg, len) < 0)
        return -1;
    snprintf(src, sizeof src, "%s/tmp", base);
    if (mkdir(src, 01777) == 0)
        chmod(src, 01777);
    snprintf(dst, sizeof dst, "%s/tmp", root);
    if (bind_mount(src, dst, WRITABLE, msg, len) < 0)
        return -1;
    if (wd_bind) {
        snprintf(src, sizeof src, "%s/work", base);
        mkdir(src, 0755);
        snprintf(dst, sizeof dst, "%s%s", root, wd);
        if (bind_mount(src, dst, WRITABLE, msg, len) < 0)
            return -1;
    } else if (*wd && is_under(wd, "/tmp")) {
        snprintf(dst, sizeof dst, "%s%s", root, wd);
        if (mkdir_p(dst, 0755) < 0)
            return fail(msg, len, "creating workdir", dst);
    }
    snprintf(dst, sizeof dst, "%s/run", root);
    if (mount("tmpfs", dst, "tmpfs", MS_NOSUID | MS_NODEV, "mode=755,size=16m") < 0)
        return fail(msg, len, "mounting", dst);
    return 0;
}

/* Rootfs directory under a copy-on-write overlay: the directory itself is never written. */
static int build_dir_root(const struct launch *l, const char *root, char *msg, size_t len)
{
    const char *rootfs = launch_get(l, "rootfs", "");
    char opts[8192], path[4096], base[4096];
    if (writable_base(l, base, sizeof base, msg, len) < 0)
        return -1;
    snprintf(path, sizeof path, "%s/upper", base);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/ovl", base);
    mkdir(path, 0755);
    snprintf(opts, sizeof opts, "lowerdir=%s,upperdir=%s/upper,workdir=%s/ovl", rootfs, base, base);
    if (mount("overlay", root, "overlay", MS_NOSUID | MS_NODEV, opts) < 0) {
        size_t n = strlen(opts);
        snprintf(opts + n, sizeof opts - n, ",userxattr");
        if (mount("overlay", root, "overlay", MS_NOSUID | MS_NODEV, opts) < 0)
            return fail(msg, len, "mounting the overlay of", rootfs);
    }
    static const char *points[] = {"proc", "sys", "dev", "tmp", "run", NULL};
    for (int i = 0; points[i]; i++) {
        snprintf(path, sizeof path, "%s/%s", root, points[i]);
        if (mkdir(path, 0755) < 0 && errno != EEXIST)
            return fail(msg, len, "creating", path);
    }
    snprintf(path, sizeof path, "%s/tmp", root);
    chmod(path, 01777);
    const char *wd = launch_get(l, "workdir", "");
    if (*wd && !clean_path(wd)) {
        sup_fmt(msg, len, "workdir %s must be an absolute path without . or .. components", wd);
        return -1;
    }
    if (*wd) {
        snprintf(path, sizeof path, "%s%s", root, wd);
        if (mkdir_p(path, 0755) < 0)
            return fail(msg, len, "creating workdir", path);
    }
    return 0;
}

static int build_dev(const char *root, char *msg, size_t len)
{
    char dev[4096], path[4096];
    snprintf(dev, sizeof dev, "%s/dev", root);
    /* nodev: the nodes below are read-only binds of the host's, each its own mount; a node
     * made here (if anything could) would not open */
    if (mount("tmpfs", dev, "tmpfs", MS_NOSUID | MS_NOEXEC | MS_NODEV, "mode=755,size=64k") < 0)
        return fail(msg, len, "mounting", dev);
    static const char *nodes[] = {"null", "zero", "full", "random", "urandom", "tty", NULL};
    for (int i = 0; nodes[i]; i++) {
        char src[64];
        snprintf(src, sizeof src, "/dev/%s", nodes[i]);
        snprintf(path, sizeof path, "%s/%s", dev, nodes[i]);
        /* read-only: chmod or chown through the bind would change the host's inode */
        struct mount_attr ro = {.attr_set = MOUNT_ATTR_RDONLY};
        if (touch(path) < 0 || mount(src, path, NULL, MS_BIND, NULL) < 0 ||
            mount_setattr(AT_FDCWD, path, 0, &ro, sizeof ro) < 0)
            return fail(msg, len, "binding", src);
    }
    snprintf(path, sizeof path, "%s/pts", dev);
    mkdir(path, 0755);
    if (mount("devpts", path, "devpts", MS_NOSUID | MS_NOEXEC,
              "newinstance,ptmxmode=0666,mode=620") < 0)
        return fail(msg, len, "mounting devpts on", path);
    snprintf(path, sizeof path, "%s/shm", dev);
    mkdir(path, 01777);
    if (mount("shm", path, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=1777,size=64m") < 0)
        return fail(msg, len, "mounting", path);
    static const char *links[][2] = {{"pts/ptmx", "ptmx"},
                                     {"/proc/self/fd", "fd"},
                                     {"/proc/self/fd/0", "stdin"},
                                     {"/proc/self/fd/1", "stdout"},
                                     {"/proc/self/fd/2", "stderr"}};
    for (size_t i = 0; i < sizeof links / sizeof links[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dev, links[i][1]);
        symlink(links[i][0], path);
    }
    return 0;
}

static void loopback_up(void)
{
    int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (s < 0)
        return;
    struct ifreq ifr;
    memset(&ifr, 0, sizeof ifr);
    snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "lo");
    if (ioctl(s, SIOCGIFFLAGS, &ifr) == 0) {
        ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
        ioctl(s, SIOCSIFFLAGS, &ifr);
    }
    close(s);
}

/* Docker's default capability set without CAP_MKNOD; everything else leaves the bounding
 * set, so even root in the sandbox cannot remount the read-only root, load modules, make
 * device nodes or reach raw devices. The init's own sets shrink to the same (it keeps what it
 * needs to start commands as other users), so nothing it starts can inherit more; only its
 * permitted set keeps CAP_WAKE_ALARM, never raised, which no command can have: so root inside
 * cannot ptrace the init (its control socket, its pipe to the supervisor). */
static int drop_capabilities(char *msg, size_t len)
{
    static const int keep[] = {
        CAP_CHOWN,      CAP_DAC_OVERRIDE, CAP_FOWNER,  CAP_FSETID,           CAP_KILL,
        CAP_SETGID,     CAP_SETUID,       CAP_SETPCAP, CAP_NET_BIND_SERVICE, CAP_NET_RAW,
        CAP_SYS_CHROOT, CAP_AUDIT_WRITE,  CAP_SETFCAP};
    unsigned long long mask = 0;
    for (size_t i = 0; i < sizeof keep / sizeof keep[0]; i++)
        mask |= 1ULL << keep[i];
    for (int cap = 0; cap <= 63; cap++) {
        if (!(mask & (1ULL << cap)) && prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0 && errno == EINVAL)
            break;
    }
    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
    struct __user_cap_header_struct hdr = {.version = _LINUX_CAPABILITY_VERSION_3};
    struct __user_cap_data_struct data[2];
    if (syscall(SYS_capget, &hdr, data) < 0)
        return fail(msg, len, "reading capabilities", "");
    for (int i = 0; i < 2; i++) {
        unsigned int m = (unsigned int)(mask >> (32 * i));
        unsigned int p = (unsigned int)((mask | 1ULL << CAP_WAKE_ALARM) >> (32 * i));
        data[i].permitted &= p;
        data[i].effective &= m;
        data[i].inheritable = 0;
    }
    if (syscall(SYS_capset, &hdr, data) < 0)
        return fail(msg, len, "dropping capabilities", "");
    return 0;
}

/* Joins the sandbox's cgroup v1 hierarchies from inside, while the init is still one thread:
 * writing 0 (this thread) into a hierarchy's tasks file moves it without the kernel's
 * process-wide lock, whose taking waits for an RCU grace period (3-15 ms here, most of a
 * create). The supervisor moves it into the v2 ones (cgroup.procs only). Before anything of
 * the sandbox's own runs, so every limit holds from its first instruction. */
static int join_own_cgroups(const struct launch *l, char *msg, size_t len)
{
    const char *cgs[64];
    size_t n = sup_cgroups_to_join(l, cgs, 64);
    char path[4096];
    for (size_t i = 0; i < n; i++) {
        snprintf(path, sizeof path, "%s/tasks", cgs[i]);
        int fd = open(path, O_WRONLY | O_CLOEXEC);
        if (fd < 0 && errno == ENOENT)
            continue; /* a v2 cgroup */
        if (fd < 0 || write(fd, "0", 1) != 1) {
            sup_fmt(msg, len, "joining cgroup %s: %s", cgs[i], strerror(errno));
            if (fd >= 0)
                close(fd);
            return -1;
        }
        close(fd);
    }
    return 0;
}

/* Waits for the supervisor's word on go_fd: 0 when it is "go". */
static int await_go(int go_fd)
{
    char go[8] = "";
    ssize_t r;
    do {
        r = read(go_fd, go, 3);
    } while (r < 0 && errno == EINTR);
    return r == 3 && !strncmp(go, "go\n", 3) ? 0 : -1;
}

int setup_sandbox(const struct launch *l, int go_fd, char *msg, size_t len)
{
    char root[4096], path[4096];
    const char *dir = launch_get(l, "dir", "");
    snprintf(root, sizeof root, "%s/root", dir);
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
        return fail(msg, len, "making mounts private", "/");
    int rc = strcmp(launch_get(l, "root", "host"), "dir") == 0 ? build_dir_root(l, root, msg, len)
                                                               : build_host_root(l, root, msg, len);
    if (rc < 0)
        return -1;
    snprintf(path, sizeof path, "%s/proc", root);
    if (mount("proc", path, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
        return fail(msg, len, "mounting /proc on", path);
    snprintf(path, sizeof path, "%s/sys", root);
    if (mount("sysfs", path, "sysfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0 &&
        bind_mount("/sys", path, MOUNT_ATTR_RDONLY | WRITABLE | MOUNT_ATTR_NOEXEC, msg, len) < 0)
        return -1;
    if (mask_proc_sys(root, msg, len) < 0)
        return -1;
    if (build_dev(root, msg, len) < 0)
        return -1;
    if (chdir(root) < 0 || syscall(SYS_pivot_root, ".", ".") < 0)
        return fail(msg, len, "pivot_root into", root);
    if (umount2(".", MNT_DETACH) < 0 || chdir("/") < 0)
        return fail(msg, len, "detaching the old root", "/");

    const char *host = launch_get(l, "hostname", "sandbox");
    sethostname(host, strlen(host));
    if (strcmp(launch_get(l, "network", "none"), "host") != 0)
        loopback_up();
    /* The mounts above were built while the supervisor placed us in the sandbox's cgroups
     * (the first move into a cgroup waits for an RCU grace period, longer than all of them);
     * nothing of the agent's runs before it says that is done. */
    if (await_go(go_fd) < 0) {
        sup_fmt(msg, len, "the supervisor could not place the sandbox in its cgroups");
        return -1;
    }
    close(go_fd);
    unshare(CLONE_NEWCGROUP); /* the sandbox sees its own cgroup as "/" */
    /* The filter after the setup above (it needs mount & co.), before the capabilities go
     * (without no_new_privs, installing a filter takes CAP_SYS_ADMIN). */
    if (sup_seccomp_harden(l, msg, len) < 0)
        return -1;
    return drop_capabilities(msg, len);
}

/* Everything but stdio (the supervisor's /dev/null) and the descriptors in keep (ascending)
 * goes: a descriptor the supervisor inherited by mistake must not cross into the sandbox. */
static void close_all_but(const int *keep, int n)
{
    unsigned int from = 3;
    for (int i = 0; i < n; i++) {
        if (keep[i] < 3 || (unsigned int)keep[i] < from)
            continue;
        if ((unsigned int)keep[i] > from)
            syscall(SYS_close_range, from, (unsigned int)keep[i] - 1, 0);
        from = (unsigned int)keep[i] + 1;
    }
    syscall(SYS_close_range, from, ~0U, 0);
}

int init_main(void *arg)
{
    struct init_args *ia = arg;
    char msg[512] = "";
    for (int i = 0; i < ia->nclose; i++)
        close(ia->close_fds[i]);
    int keep[3] = {ia->go_fd, ia->status_fd, ia->handoff_fd};
    for (int i = 0; i < 3; i++) /* ascending, as close_all_but wants */
        for (int j = i + 1; j < 3; j++)
            if (keep[j] < keep[i]) {
                int t = keep[i];
                keep[i] = keep[j];
                keep[j] = t;
            }
    close_all_but(keep, 3);
    if (await_go(ia->go_fd) < 0) /* the first "go": id maps written */
        _exit(1);
    if (join_own_cgroups(ia->l, msg, sizeof msg) < 0) {
        dprintf(ia->status_fd, "err %s\n", msg);
        _exit(255);
    }
    prctl(PR_SET_NAME, "sandman-init", 0, 0, 0);
    /* /proc/1/cmdline inside would show the supervisor's path and the state directory */
    size_t room = 0;
    for (char **a = ia->argv; *a; a++)
        room += strlen(*a) + 1;
    if (room > 0) {
        memset(ia->argv[0], 0, room);
        snprintf(ia->argv[0], room, "sandman-init");
    }
    if (setup_sandbox(ia->l, ia->go_fd, msg, sizeof msg) < 0) {
        dprintf(ia->status_fd, "err %s\n", msg);
        _exit(255);
    }
    dprintf(ia->status_fd, "ok\n");
    server_run(ia->handoff_fd, ia->l, ia->status_fd); /* the pipe stays open for the entry's end */
    _exit(255);
}
