/* The seccomp filter's table for the 32-bit x86 entry (int $0x80 from any process, or a 32-bit
 * program): its own numbers, so a 32-bit call cannot slip past rules written for 64-bit ones.
 * Alone in this file because the i386 and x86_64 headers define the same __NR_ names. */
#ifdef __x86_64__
#include <asm/unistd_32.h>
#include <linux/audit.h>

#include "providers/local/supervisor/seccomp.h"

static const int deny[] = {SUP_DENY_COMMON, __NR_iopl,    __NR_ioperm, __NR_uselib,
                           __NR_vm86,       __NR_vm86old, __NR_stime};
static const int nsbuild[] = {SUP_NSBUILD_COMMON, __NR_umount};

const struct sup_sysnums sup_sysnums_i386 = {
    .arch = AUDIT_ARCH_I386,
    .deny = deny,
    .ndeny = sizeof deny / sizeof deny[0],
    .nsbuild = nsbuild,
    .nnsbuild = sizeof nsbuild / sizeof nsbuild[0],
    .clone = __NR_clone,
    .clone3 = __NR_clone3,
    .unshare = __NR_unshare,
    .ioctl = __NR_ioctl,
    .personality = __NR_personality,
    .socket = __NR_socket,
    .socketcall = __NR_socketcall,
};
#else
typedef int sup_seccomp_i386_unused; /* not an empty file on other architectures */
#endif
