/* Small cgroup filesystem helpers shared by the client and the static supervisor (libc only):
 * read a "key value" counter, kill every process of a cgroup, remove a cgroup tree. */
#ifndef SM_LOCAL_CGFS_H
#define SM_LOCAL_CGFS_H

/* Finds `key N` in the text of a flat-keyed file; -1 when the key is missing. */
long long cgfs_key_in(const char *text, const char *key);
/* Reads `key N` from a flat-keyed file (memory.events, memory.oom_control, pids.events,
 * cpu.stat, memory.stat). Returns N, or -1 when the file or key is missing. */
long long cgfs_read_key(const char *dir, const char *file, const char *key);
/* Reads a single-number file (memory.usage_in_bytes, pids.current); "max" -> -2; -1 on error. */
long long cgfs_read_num(const char *dir, const char *file);
/* SIGKILLs every process in the cgroup (cgroup.kill when present, else cgroup.procs). */
void cgfs_kill_all(const char *dir);
/* Removes the cgroup with every cgroup below it (a sandbox's leaf, and whatever an agent made
 * under it), killing what is left in each and retrying briefly while they drain. 0 (also when
 * it does not exist) or -1 when something is left. */
int cgfs_remove(const char *dir);

#endif
