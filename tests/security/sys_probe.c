/* Attack probe for tests/security/sys_*.sh: each subcommand tries one system call an agent
 * could use to leave or weaken its sandbox, through the 64-bit entry and, where it matters,
 * the 32-bit one (int $0x80), and prints "ok" when the kernel did it or the errno name when
 * it refused. Built by the test with the host's compiler and copied into the sandbox. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static int report(long r)
{
    if (r < 0) {
        printf("%s\n", strerrorname_np(errno));
        return 1;
    }
    printf("ok\n");
    return 0;
}

#ifdef __x86_64__
/* A 32-bit system call from this 64-bit process: seccomp sees it as AUDIT_ARCH_I386. */
static long sys32(long nr, long a, long b, long c)
{
    long r;
    __asm__ volatile("int $0x80" : "=a"(r) : "a"(nr), "b"(a), "c"(b), "d"(c) : "memory");
    if (r < 0 && r > -4096) {
        errno = (int)-r;
        return -1;
    }
    return r;
}
#endif

/* TIOCSTI on a terminal this process controls (the case the kernel allows without CAP_SYS_ADMIN):
 * a new session whose controlling terminal is a fresh pty. cmd_hi sets bits the kernel ignores. */
static int tiocsti(unsigned long cmd_hi)
{
    pid_t pid = fork();
    if (pid == 0) {
        setsid();
        int m = posix_openpt(O_RDWR | O_NOCTTY);
        if (m < 0 || grantpt(m) < 0 || unlockpt(m) < 0)
            _exit(3);
        int s = open(ptsname(m), O_RDWR); /* becomes the controlling terminal */
        if (s < 0)
            _exit(3);
        char c = 'x';
        long r = syscall(SYS_ioctl, s, (unsigned long)TIOCSTI | cmd_hi, &c);
        _exit(report(r));
    }
    int st;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 2;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    const char *what = argc > 1 ? argv[1] : "";
    long key = argc > 2 ? strtol(argv[2], NULL, 0) : -3; /* KEY_SPEC_SESSION_KEYRING */
    if (!strcmp(what, "unshare-user"))
        return report(unshare(CLONE_NEWUSER));
    if (!strcmp(what, "unshare-user-hi")) /* namespace flag with high bits set as well */
        return report(syscall(SYS_unshare, (unsigned long)CLONE_NEWUSER | (1UL << 40)));
    if (!strcmp(what, "unshare-mnt"))
        return report(unshare(CLONE_NEWNS));
    if (!strcmp(what, "clone-user") || !strcmp(what, "clone3-user")) {
        long pid;
        if (!strcmp(what, "clone-user")) {
            pid = syscall(SYS_clone, (unsigned long)(CLONE_NEWUSER | SIGCHLD), NULL, NULL, NULL,
                          NULL);
        } else {
            struct clone_args ca = {.flags = CLONE_NEWUSER, .exit_signal = SIGCHLD};
            pid = syscall(SYS_clone3, &ca, sizeof ca);
        }
        if (pid == 0)
            _exit(0);
        if (pid > 0)
            waitpid((pid_t)pid, NULL, 0);
        return report(pid);
    }
    if (!strcmp(what, "keyctl-read")) /* KEYCTL_DESCRIBE of a key id or special keyring */
    {
        char buf[256] = "";
        long r = syscall(SYS_keyctl, 6, key, buf, sizeof buf);
        if (r >= 0)
            printf("described: %s\n", buf);
        return report(r);
    }
    if (!strcmp(what, "keyctl-add")) /* add_key into the session (or given) keyring */
        return report(syscall(SYS_add_key, "user", "sandman-probe", "x", 1, key));
    if (!strcmp(what, "keyctl-join")) /* KEYCTL_JOIN_SESSION_KEYRING by name */
        return report(syscall(SYS_keyctl, 1, "sandman-probe"));
    if (!strcmp(what, "request-key"))
        return report(syscall(SYS_request_key, "user", "sandman-probe", NULL, key));
    if (!strcmp(what, "tiocsti"))
        return tiocsti(0);
    if (!strcmp(what, "tiocsti-hi"))
        return tiocsti(1UL << 32);
    if (!strcmp(what, "tioclinux")) {
        char sub = 2; /* TIOCL_SETSEL; a pty answers ENOTTY, a console obeys */
        return report(ioctl(1, TIOCLINUX, &sub));
    }
    if (!strcmp(what, "personality")) /* ADDR_NO_RANDOMIZE | READ_IMPLIES_EXEC */
        return report(syscall(SYS_personality, 0x0040000UL | 0x0400000UL));
    if (!strcmp(what, "personality-query"))
        return report(syscall(SYS_personality, 0xffffffffUL));
    if (!strcmp(what, "io_uring")) {
        char params[120] = {0};
        long fd = syscall(SYS_io_uring_setup, 4, params);
        return report(fd);
    }
    if (!strcmp(what, "userfaultfd"))
        return report(syscall(SYS_userfaultfd, O_CLOEXEC | 1 /* UFFD_USER_MODE_ONLY */));
    /* Socket families that reach past the network namespace (vsock: the VM's host) or into
     * rarely audited kernel code (the crypto API). */
    if (!strcmp(what, "socket-vsock"))
        return report(socket(AF_VSOCK, SOCK_STREAM, 0));
    if (!strcmp(what, "socket-alg"))
        return report(socket(AF_ALG, SOCK_SEQPACKET, 0));
    if (!strcmp(what, "socket-unix"))
        return report(socket(AF_UNIX, SOCK_STREAM, 0));
    if (!strcmp(what, "mount"))
        return report(syscall(SYS_mount, "none", "/tmp", "tmpfs", 0, NULL));
    if (!strcmp(what, "setns"))
        return report(syscall(SYS_setns, open("/proc/self/ns/user", O_RDONLY), 0));
#ifdef __x86_64__
    if (!strcmp(what, "unshare-user32"))
        return report(sys32(310, CLONE_NEWUSER, 0, 0));
    if (!strcmp(what, "keyctl-read32"))
        return report(sys32(288, 0 /* KEYCTL_GET_KEYRING_ID */, key, 0));
    if (!strcmp(what, "getpid32"))
        return report(sys32(20, 0, 0, 0));
    if (!strcmp(what, "socket-vsock32")) /* the 32-bit socket call (359) */
        return report(sys32(359, AF_VSOCK, SOCK_STREAM, 0));
    if (!strcmp(what, "socketcall-vsock32")) {
        /* socketcall(SYS_SOCKET, args): the family sits in memory (below 4 GiB for the 32-bit
         * entry), out of a seccomp filter's reach */
        uint32_t *args = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
                              MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
        if (args == MAP_FAILED)
            return report(-1);
        args[0] = AF_VSOCK;
        args[1] = SOCK_STREAM;
        args[2] = 0;
        return report(sys32(102, 1, (long)(uintptr_t)args, 0));
    }
    if (!strcmp(what, "x32-getpid"))
        return report(syscall(0x40000000L | SYS_getpid));
#endif
    fprintf(stderr, "sys_probe: unknown probe '%s'\n", what);
    return 2;
}
