/* Tar streams for directory transfer (libarchive): writing a tree that is never followed out
 * of where it is, checking and extracting an untrusted stream beneath a directory (absolute
 * names, `..`, device nodes and links that point outside are refused, naming the entry, and
 * nothing reaches its final name before the whole stream was read and checked), and per-file
 * checksums (CRC-32 of the logical content, holes included) that both sides of a transfer
 * compare. No provider names here: providers and core/transfer.c call these. */
#ifndef SM_ARCHIVE_H
#define SM_ARCHIVE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/error.h"

/* A pull source: bytes into buf, 0 at the end, -1 on error (errno set). */
typedef ssize_t (*sm_read_fn)(void *ud, void *buf, size_t len);
/* A push sink: 0 when all len bytes were taken, -1 on error (errno set). */
typedef int (*sm_write_fn)(void *ud, const void *buf, size_t len);

typedef enum { SM_KIND_ABSENT = 0, SM_KIND_FILE, SM_KIND_DIR, SM_KIND_OTHER } sm_remote_kind;
const char *sm_remote_kind_name(sm_remote_kind k); /* "absent", "file", "dir", "other" */

/* What a tree held: one record per entry (path as in the archive), for comparing both sides. */
typedef struct sm_manifest_entry {
    char *path;
    char type; /* 'f' file, 'd' dir, 'l' symlink, 'h' hard link */
    unsigned long long size;
    uint32_t crc;
    char *link; /* symlink or hard link target */
} sm_manifest_entry;

typedef struct sm_manifest {
    sm_manifest_entry *v;
    size_t n, cap;
    unsigned long long bytes; /* file content bytes */
    size_t files, skipped;
} sm_manifest;

void sm_manifest_free(sm_manifest *m);
/* Whether got holds every file and link of want with the same content. strip: compare paths
 * without their first component (the top entry may be named differently on each side).
 * Returns 0, or -1 with a line naming the first difference in why. */
int sm_manifest_compare(const sm_manifest *want, const sm_manifest *got, bool strip, char *why,
                        size_t len);

typedef struct sm_archive_opts {
    void (*note)(void *ud, const char *line);             /* an entry skipped, and why */
    void (*progress)(void *ud, unsigned long long bytes); /* content bytes moved so far */
    void *ud;
    const volatile int *cancel; /* set non-zero to stop (the call fails with "cancelled") */
} sm_archive_opts;

/* Appends n zero bytes to a running CRC-32 without touching n bytes (a hole). */
uint32_t sm_crc32_zeros(uint32_t crc, unsigned long long n);

/* The kernel filesystem fd is on ("/proc", "sysfs", ...), or NULL for stored data. */
const char *sm_fs_kernel_name(int fd);

/* Writes a pax tar of the entry `name` in dirfd (a file, a symlink kept as a link, or a whole
 * directory) to out, its top entry named as_name (NULL: name's last component). Never follows
 * a link; FIFOs, devices and sockets are skipped with a note (never opened); kernel
 * filesystems are refused; sparse files stay sparse. Fills m when given. */
int sm_archive_write_tree(int dirfd, const char *name, const char *as_name, sm_write_fn out,
                          void *ud, const sm_archive_opts *o, sm_manifest *m, sm_error *err);

/* Extracts the tar read from in beneath dirfd. Everything goes into a new directory of random
 * name in dirfd first, each entry checked before it is written and each file read back and
 * compared with the stream's checksum; only a complete, checked stream is moved into place
 * (existing directories are merged, files replaced). as_name: the stream has a single top
 * entry that is given this name. mode_mask limits permission bits (07777 or 0777|01000).
 * Fills m (the stream's manifest) when given. */
int sm_archive_extract(int dirfd, const char *as_name, mode_t mode_mask, sm_read_fn in, void *ud,
                       const sm_archive_opts *o, sm_manifest *m, sm_error *err);

/* Reads a whole tar stream, checking every entry as extraction does; fills m. */
int sm_archive_scan(sm_read_fn in, void *ud, sm_manifest *m, sm_error *err);

/* Copies a tar stream from in to out entry by entry, checking each as extraction does and
 * naming the single top entry as_name (NULL: unchanged). Fills m. */
int sm_archive_recode(sm_read_fn in, void *rud, const char *as_name, sm_write_fn out, void *wud,
                      const sm_archive_opts *o, sm_manifest *m, sm_error *err);

/* A shell command that unpacks a tar on stdin into dir with GNU or BusyBox tar (for providers
 * whose only way in is a shell). Caller frees. */
char *sm_archive_extract_command(const char *dir);

#endif
