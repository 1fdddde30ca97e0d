/* The sandbox's system-call defences (see seccomp.h): builds the seccomp program from the
 * architecture tables, and applies it with no_new_privs and a fresh session keyring in the
 * init, whose children all inherit the three. The program checks the architecture first, so
 * each entry (x86_64, its 32-bit one, x32) is judged by its own numbers or refused. */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/keyctl.h>
#include <linux/sched.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "providers/local/supervisor/seccomp.h"
#include "providers/local/supervisor/sup.h"

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the seccomp program reads the low 32 bits of arguments at little-endian offsets"
#endif

#if defined(__x86_64__) || defined(__aarch64__)
static const int native_deny[] = {SUP_DENY_COMMON, __NR_kexec_file_load,
#ifdef __x86_64__
                                  __NR_iopl, __NR_ioperm,
#endif
#ifdef __NR_uselib
                                  __NR_uselib
#endif
};
static const int native_nsbuild[] = {SUP_NSBUILD_COMMON};
const struct sup_sysnums sup_sysnums_native = {
#ifdef __x86_64__
    .arch = AUDIT_ARCH_X86_64,
#else
    .arch = AUDIT_ARCH_AARCH64,
#endif
    .deny = native_deny,
    .ndeny = sizeof native_deny / sizeof native_deny[0],
    .nsbuild = native_nsbuild,
    .nnsbuild = sizeof native_nsbuild / sizeof native_nsbuild[0],
    .clone = __NR_clone,
    .clone3 = __NR_clone3,
    .unshare = __NR_unshare,
    .ioctl = __NR_ioctl,
    .personality = __NR_personality,
    .socket = __NR_socket,
    .socketcall = -1,
};
#else
const struct sup_sysnums sup_sysnums_native = {.arch = 0}; /* no table: only "unconfined" */
#endif

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif
#define X32_SYSCALL_BIT 0x40000000u
/* Every namespace flag; for clone() 0x80 is part of the exit signal, not CLONE_NEWTIME. */
#define NS_CLONE_FLAGS                                                                             \
    (CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID |  \
     CLONE_NEWNET)
#define NS_UNSHARE_FLAGS (NS_CLONE_FLAGS | CLONE_NEWTIME)

#define RET_ALLOW    SECCOMP_RET_ALLOW
#define RET_ERRNO(e) (SECCOMP_RET_ERRNO | ((e)&SECCOMP_RET_DATA))
#define OFF_NR       offsetof(struct seccomp_data, nr)
#define OFF_ARCH     offsetof(struct seccomp_data, arch)
/* The low half of an argument: the kernel reads ioctl's request, personality's value and the
 * namespace bits of clone/unshare flags from there, whatever the high half holds. */
#define OFF_ARG_LO(i) (offsetof(struct seccomp_data, args) + 8 * (i))

enum { PROG_MAX = 512 };

struct prog {
    struct sock_filter ins[PROG_MAX];
    unsigned n;
    int overflow;
};

static void emit(struct prog *p, unsigned short code, unsigned char jt, unsigned char jf,
                 unsigned k)
{
    if (p->n >= PROG_MAX) {
        p->overflow = 1;
        return;
    }
    p->ins[p->n++] = (struct sock_filter)BPF_JUMP(code, k, jt, jf);
}

static void ret(struct prog *p, unsigned action)
{
    emit(p, BPF_RET | BPF_K, 0, 0, action);
}

/* if (nr == k) return action; (the accumulator holds nr) */
static void nr_returns(struct prog *p, int nr, unsigned action)
{
    emit(p, BPF_JMP | BPF_JEQ | BPF_K, 0, 1, (unsigned)nr);
    ret(p, action);
}

/* if (nr == k) return (arg_lo(arg) & mask) ? EPERM : ALLOW; */
static void nr_flags_denied(struct prog *p, int nr, int arg, unsigned mask)
{
    emit(p, BPF_JMP | BPF_JEQ | BPF_K, 0, 4, (unsigned)nr);
    emit(p, BPF_LD | BPF_W | BPF_ABS, 0, 0, OFF_ARG_LO(arg));
    emit(p, BPF_JMP | BPF_JSET | BPF_K, 0, 1, mask);
    ret(p, RET_ERRNO(EPERM));
    ret(p, RET_ALLOW);
}

/* ioctl: TIOCSTI and TIOCLINUX write into a terminal's input or drive a console (terminal
 * injection); every other request is allowed. */
static void ioctl_rule(struct prog *p, int nr)
{
    emit(p, BPF_JMP | BPF_JEQ | BPF_K, 0, 5, (unsigned)nr);
    emit(p, BPF_LD | BPF_W | BPF_ABS, 0, 0, OFF_ARG_LO(1));
    emit(p, BPF_JMP | BPF_JEQ | BPF_K, 2, 0, TIOCSTI);
    emit(p, BPF_JMP | BPF_JEQ | BPF_K, 1, 0, TIOCLINUX);
    ret(p, RET_ALLOW);
    ret(p, RET_ERRNO(EPERM));
}

/* personality: the values Docker allows (Linux, 32-bit Linux, 2.6 uname, and the query);
 * anything else (turning off ASLR, READ_IMPLIES_EXEC, ...) is refused. */
static void personality_rule(struct prog *p, int nr)
{
    static const unsigned ok[] = {0x0, 0x8, 0x20000, 0x20008, 0xffffffff};
    const unsigned n = sizeof ok / sizeof ok[0];
    emit(p, BPF_JMP | BPF_JEQ | BPF_K, 0, (unsigned char)(n + 3), (unsigned)nr);
    emit(p, BPF_LD | BPF_W | BPF_ABS, 0, 0, OFF_ARG_LO(0));
    for (unsigned i = 0; i < n; i++)
        emit(p, BPF_JMP | BPF_JEQ | BPF_K, (unsigned char)(n - i), 0, ok[i]);
    ret(p, RET_ERRNO(EPERM));
    ret(p, RET_ALLOW);
}

/* socket: AF_VSOCK is not confined by a network namespace (it reaches the VM's host and its
 * services even with network: none), and AF_ALG exposes the kernel's crypto code; Docker's
 * default refuses both. socketcall hides the family in memory, so it is refused whole (ENOSYS,
 * as on kernels without it; 32-bit programs built for Linux >= 4.3 use the direct calls). */
static void socket_rule(struct prog *p, const struct sup_sysnums *t)
{
    emit(p, BPF_JMP | BPF_JEQ | BPF_K, 0, 5, (unsigned)t->socket);
    emit(p, BPF_LD | BPF_W | BPF_ABS, 0, 0, OFF_ARG_LO(0));
    emit(p, BPF_JMP | BPF_JEQ | BPF_K, 2, 0, AF_VSOCK);
    emit(p, BPF_JMP | BPF_JEQ | BPF_K, 1, 0, AF_ALG);
    ret(p, RET_ALLOW);
    ret(p, RET_ERRNO(EAFNOSUPPORT));
    if (t->socketcall >= 0)
        nr_returns(p, t->socketcall, RET_ERRNO(ENOSYS));
}

/* One architecture's rules; entered with the accumulator free, ends with ALLOW. */
static void arch_rules(struct prog *p, const struct sup_sysnums *t, int nested_userns)
{
    emit(p, BPF_LD | BPF_W | BPF_ABS, 0, 0, OFF_NR);
    /* -1: a tracer cancelled the call; the kernel skips it, and an errno would overwrite the
     * return value the tracer chose. */
    nr_returns(p, -1, RET_ALLOW);
    if (t->arch == AUDIT_ARCH_X86_64) {
        /* x32 calls share x86_64's arch value with a number bit set; none are supported. */
        emit(p, BPF_JMP | BPF_JGE | BPF_K, 0, 1, X32_SYSCALL_BIT);
        ret(p, RET_ERRNO(ENOSYS));
    }
    for (size_t i = 0; i < t->ndeny; i++)
        nr_returns(p, t->deny[i], RET_ERRNO(EPERM));
    if (!nested_userns) {
        for (size_t i = 0; i < t->nnsbuild; i++)
            nr_returns(p, t->nsbuild[i], RET_ERRNO(EPERM));
        /* clone3's flags sit in memory, out of the filter's reach: ENOSYS makes libc fall
         * back to clone, whose flags are checked. */
        nr_returns(p, t->clone3, RET_ERRNO(ENOSYS));
        nr_flags_denied(p, t->clone, 0, NS_CLONE_FLAGS);
        nr_flags_denied(p, t->unshare, 0, NS_UNSHARE_FLAGS);
    }
    ioctl_rule(p, t->ioctl);
    socket_rule(p, t);
    personality_rule(p, t->personality);
    ret(p, RET_ALLOW);
}

/* The whole program: dispatch on the architecture, one block per table, refuse the rest. */
static void build(struct prog *p, int nested_userns)
{
    const struct sup_sysnums *tables[] = {
        &sup_sysnums_native,
#ifdef __x86_64__
        &sup_sysnums_i386,
#endif
    };
    const size_t nt = sizeof tables / sizeof tables[0];
    unsigned jump_at[4];
    emit(p, BPF_LD | BPF_W | BPF_ABS, 0, 0, OFF_ARCH);
    /* if (arch == t) goto block(t): a far jump (BPF_JA), as blocks exceed 255 instructions. */
    for (size_t i = 0; i < nt; i++) {
        emit(p, BPF_JMP | BPF_JEQ | BPF_K, 0, 1, tables[i]->arch);
        jump_at[i] = p->n;
        emit(p, BPF_JMP | BPF_JA, 0, 0, 0);
    }
    ret(p, RET_ERRNO(ENOSYS));
    for (size_t i = 0; i < nt; i++) {
        if (jump_at[i] < PROG_MAX)
            p->ins[jump_at[i]].k = p->n - jump_at[i] - 1;
        arch_rules(p, tables[i], nested_userns);
    }
}

static int install_filter(int nested_userns, char *msg, size_t len)
{
    if (!sup_sysnums_native.arch) {
        sup_fmt(msg, len,
                "no seccomp filter is built for this architecture; set seccomp: unconfined in "
                "the local provider's config");
        return -1;
    }
    static struct prog p; /* static: 4 KiB off the init's small clone stack */
    memset(&p, 0, sizeof p);
    build(&p, nested_userns);
    if (p.overflow) {
        sup_fmt(msg, len, "the seccomp program is longer than %d instructions", PROG_MAX);
        return -1;
    }
    struct sock_fprog fp = {.len = (unsigned short)p.n, .filter = p.ins};
    if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fp) < 0) {
        sup_fmt(msg, len, "installing the seccomp filter: %s", strerror(errno));
        return -1;
    }
    return 0;
}

int sup_seccomp_harden(const struct launch *l, char *msg, size_t len)
{
    const char *policy = launch_get(l, "seccomp", "default");
    int confined = !strcmp(policy, "default");
    if (!confined && strcmp(policy, "unconfined")) {
        sup_fmt(msg, len, "seccomp must be default or unconfined, not '%s'", policy);
        return -1;
    }
    /* A session keyring of the sandbox's own, so the one sandman was started from (a login's
     * keys) is not inherited. With the filter on, keyctl is refused anyway, so a full key
     * quota (an unprivileged user with many sandboxes) is not worth failing for. */
    if (syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, NULL) < 0 && errno != ENOSYS &&
        !confined) {
        sup_fmt(msg, len, "joining a session keyring of the sandbox's own: %s", strerror(errno));
        return -1;
    }
    if (launch_get_ll(l, "no_new_privs", 1) && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
        sup_fmt(msg, len, "setting no_new_privs: %s", strerror(errno));
        return -1;
    }
    return confined ? install_filter((int)launch_get_ll(l, "nested_userns", 0), msg, len) : 0;
}
