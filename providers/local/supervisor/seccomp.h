/* The sandbox's system-call defences, applied by the init once its own setup is done, so that
 * every process of the sandbox (entrypoint, exec, PTY sessions) inherits them: a session
 * keyring of its own, PR_SET_NO_NEW_PRIVS, and a seccomp filter modelled on Docker's default
 * profile. The filter is a hand-written classic BPF program (libc only, like the rest of the
 * static supervisor) that answers EPERM and never kills, so a program gets a clear error.
 * Launch keys: seccomp=default|unconfined, nested_userns=0|1, no_new_privs=1|0. */
#ifndef SM_SUP_SECCOMP_H
#define SM_SUP_SECCOMP_H

#include <stddef.h>
#include <stdint.h>

#include "providers/local/launch.h"

/* One system-call table (an architecture's numbers) the filter is built from. */
struct sup_sysnums {
    uint32_t arch; /* AUDIT_ARCH_* as seccomp reports it */
    const int *deny;
    size_t ndeny; /* always EPERM */
    const int *nsbuild;
    size_t nnsbuild; /* mounts and namespace joins: EPERM unless nested user namespaces */
    int clone, clone3, unshare, ioctl, personality;
    int socket;     /* its family is checked (AF_VSOCK and AF_ALG are refused) */
    int socketcall; /* the 32-bit multiplexer, whose arguments a filter cannot see; or -1 */
};

/* The build's own architecture; on x86_64 also the 32-bit (int $0x80) entry. */
extern const struct sup_sysnums sup_sysnums_native;
#ifdef __x86_64__
extern const struct sup_sysnums sup_sysnums_i386;
#endif

/* Names refused on every architecture, expanded in each table's own file against its
 * architecture's __NR_ numbers. Mostly calls that need a capability the sandbox has dropped
 * anyway (denied twice, as Docker does), plus the ones that need none: keyrings (the host's
 * session and user keyrings), io_uring, userfaultfd, perf and bpf. */
#define SUP_DENY_COMMON                                                                            \
    __NR_keyctl, __NR_add_key, __NR_request_key, __NR_kexec_load, __NR_init_module,                \
        __NR_finit_module, __NR_delete_module, __NR_bpf, __NR_perf_event_open, __NR_userfaultfd,   \
        __NR_reboot, __NR_swapon, __NR_swapoff, __NR_acct, __NR_quotactl, __NR_quotactl_fd,        \
        __NR_open_by_handle_at, __NR_name_to_handle_at, __NR_io_uring_setup, __NR_io_uring_enter,  \
        __NR_io_uring_register, __NR_syslog, __NR_settimeofday, __NR_clock_settime, __NR_vhangup

/* What building nested containers needs: allowed only with nested_userns. */
#define SUP_NSBUILD_COMMON                                                                         \
    __NR_mount, __NR_umount2, __NR_pivot_root, __NR_setns, __NR_fsopen, __NR_fsconfig,             \
        __NR_fsmount, __NR_fspick, __NR_move_mount, __NR_open_tree, __NR_mount_setattr,            \
        SUP_NR_open_tree_attr

/* Newer than some kernel headers; numbers from 424 on are the same on every architecture. */
#ifdef __NR_open_tree_attr
#define SUP_NR_open_tree_attr __NR_open_tree_attr
#else
#define SUP_NR_open_tree_attr 467
#endif

/* NNP, the session keyring and the filter, as the launch asks. On error fills msg, returns -1. */
int sup_seccomp_harden(const struct launch *l, char *msg, size_t len);

#endif
