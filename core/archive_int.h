/* Shared between core/archive*.c (and core/transfer.c) only: libarchive stream glue and
 * the entry check every reader of an untrusted stream runs. */
#ifndef SM_ARCHIVE_INT_H
#define SM_ARCHIVE_INT_H

#include <archive.h>
#include <archive_entry.h>

#include "core/archive.h"

#define SM_AR_BUF (256 * 1024)

typedef struct sm_ar_src {
    sm_read_fn fn;
    void *ud;
    char *buf;
    int err; /* errno of a failed read */
} sm_ar_src;

typedef struct sm_ar_sink {
    sm_write_fn fn;
    void *ud;
    int err;
    bool dead; /* a failed stream: nothing more (no end-of-archive blocks) goes out */
} sm_ar_sink;

/* A reader of a tar stream (ustar, pax, GNU) pulling from src; NULL on failure. */
struct archive *sm_ar_reader(sm_ar_src *src);
/* A pax writer pushing to sink; NULL on failure. */
struct archive *sm_ar_writer(sm_ar_sink *sink);

/* The result of checking one entry of an untrusted stream. */
typedef enum { SM_AR_OK, SM_AR_SKIP, SM_AR_BAD } sm_ar_verdict;

/* Checks e: its normalized name goes to path ("a/b", no "./", no trailing slash; "" for the
 * top "."), its type to *type ('f', 'd', 'l', 'h'); hard links must name an earlier file of m.
 * SKIP (FIFOs, sockets: a note in why) or BAD (why names the entry and the rule). */
sm_ar_verdict sm_ar_check(struct archive_entry *e, const sm_manifest *m, char *path, size_t plen,
                          char *type, char *why, size_t wlen);

/* Normalizes name into out; -1 when it is absolute or climbs with ".." (*rule says which). */
int sm_ar_normalize(const char *name, char *out, size_t len, const char **rule);

/* Appends a record to m; returns it. */
sm_manifest_entry *sm_ar_manifest_add(sm_manifest *m, const char *path, char type,
                                      unsigned long long size, const char *link);

/* The error of a libarchive call, with the stream's own errno when a callback failed. */
int sm_ar_fail(sm_error *err, struct archive *a, int cb_errno, const char *what);

bool sm_ar_cancelled(const sm_archive_opts *o);

#endif
