/* Masks the init lays over a sandbox's root (mask.c): /proc and /sys read-only or hidden,
 * host homes, credentials and sandman state directories hidden; and the host-wide registry
 * of state directories that supervisors add to. libc only. */
#ifndef SM_SUP_MASK_H
#define SM_SUP_MASK_H

#include <stddef.h>

#include "providers/local/launch.h"

/* After /proc and /sys are mounted under root: read-only /proc/sys, sysrq-trigger, irq, bus,
 * fs; /proc/kcore, keys, timer_list, ... and /sys/firmware, ... masked. -1 with msg. */
int mask_proc_sys(const char *root, char *msg, size_t len);

/* For a host image, before /tmp and the workdir are bound: hides home directories (unless
 * the launch says expose_home=1), credential paths, the launch's hide= paths, the sandbox's
 * own state directory and every registered one. A workdir under a hidden directory is
 * recreated, empty, inside the mask. -1 with msg. */
int mask_host_paths(const struct launch *l, const char *root, char *msg, size_t len);

/* Adds the real path of state_dir to this uid's registry (pruning directories that are
 * gone), replacing the file whole. Best effort: a registry that cannot be written only loses
 * the hiding from other sandboxes of this one directory. */
void registry_add(const char *state_dir);

/* For a host image's supervisor, so that a state directory first used while its sandbox runs
 * is hidden there too: registry_snapshot (before the init starts) remembers what the init
 * will hide; registry_watch gives an inotify descriptor (or -1) that becomes readable when a
 * registry changes; registry_follow then hides each new entry inside the sandbox of init. */
void registry_snapshot(void);
int registry_watch(void);
void registry_follow(int fd, pid_t init);

#endif
