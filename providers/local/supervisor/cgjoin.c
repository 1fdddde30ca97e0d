/* Placing a sandbox's init in its cgroups without the kernel's slow path. Moving a process
 * between cgroups (cgroup.procs) takes a process-wide lock whose every taking after a quiet
 * spell waits for an RCU grace period: 3-15 ms here, most of a create. Two ways around it:
 * on cgroup v2, clone3 with CLONE_INTO_CGROUP starts the init in its cgroup (no move); on v1,
 * the init, still one thread, moves itself through each hierarchy's tasks file, which skips
 * that lock (init.c). cgroup.procs is written only for a v2 cgroup the clone could not use. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "providers/local/supervisor/sup.h"

#define MAX_CG 64
#ifndef CLONE_INTO_CGROUP
#define CLONE_INTO_CGROUP 0x200000000ULL
#endif

/* The kernel's struct clone_args (linux/sched.h, version 2 with the cgroup field). */
struct clone3_args {
    uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls, set_tid,
        set_tid_size, cgroup;
};

size_t sup_cgroups_to_join(const struct launch *l, const char **out, size_t max)
{
    const char *cgs[MAX_CG];
    size_t n = launch_get_all(l, "cg", cgs, MAX_CG), k = 0;
    for (size_t i = 0; i < n && k < max; i++) {
        /* a sandbox cgroup whose leaf is listed too is joined through the leaf alone */
        size_t len_i = strlen(cgs[i]);
        int has_leaf = 0;
        for (size_t j = 0; j < n && !has_leaf; j++)
            has_leaf =
                j != i && !strncmp(cgs[j], cgs[i], len_i) && !strcmp(cgs[j] + len_i, "/sandbox");
        if (!has_leaf)
            out[k++] = cgs[i];
    }
    return k;
}

static int is_v1(const char *cg)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/tasks", cg);
    return access(path, F_OK) == 0;
}

pid_t sup_spawn_init(int flags, struct init_args *ia, const struct launch *l, const char **into)
{
    *into = NULL;
    const char *cgs[MAX_CG];
    size_t n = sup_cgroups_to_join(l, cgs, MAX_CG);
    for (size_t i = 0; i < n && !*into; i++) {
        if (is_v1(cgs[i]))
            continue;
        int fd = open(cgs[i], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
            break;
        struct clone3_args ca = {.flags = (uint64_t)flags | CLONE_INTO_CGROUP,
                                 .exit_signal = SIGCHLD,
                                 .cgroup = (uint64_t)fd};
        long pid = syscall(SYS_clone3, &ca, sizeof ca);
        if (pid == 0) {
            close(fd);
            _exit(init_main(ia));
        }
        close(fd);
        if (pid > 0) {
            *into = cgs[i];
            return (pid_t)pid;
        }
        /* an older kernel (ENOSYS, E2BIG) or a cgroup it refuses: the ordinary way below */
    }
    size_t stack_size = 256 * 1024;
    char *stack = mmap(NULL, stack_size, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    if (stack == MAP_FAILED)
        return -1;
    return clone(init_main, stack + stack_size, flags | SIGCHLD, ia);
}

int sup_join_v2_cgroups(pid_t init, const struct launch *l, const char *into, char *msg, size_t len)
{
    const char *cgs[MAX_CG];
    size_t n = sup_cgroups_to_join(l, cgs, MAX_CG);
    char path[4096], num[32];
    snprintf(num, sizeof num, "%d", (int)init);
    for (size_t i = 0; i < n; i++) {
        if (cgs[i] == into || is_v1(cgs[i]))
            continue;
        snprintf(path, sizeof path, "%s/cgroup.procs", cgs[i]);
        int fd = open(path, O_WRONLY | O_CLOEXEC);
        ssize_t w = fd < 0 ? -1 : write(fd, num, strlen(num));
        int e = errno;
        if (fd >= 0)
            close(fd);
        if (w != (ssize_t)strlen(num)) {
            sup_fmt(msg, len, "joining cgroup %s: %s", cgs[i], strerror(e));
            return -1;
        }
    }
    return 0;
}
