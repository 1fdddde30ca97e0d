/* libarchive, loaded on first use, as libcurl is (curl_lazy.c): libarchive brings libxml2, ICU
 * and the C++ runtime with it, and loading them would triple a headless verb's start-up time
 * though only transfers of directories and tar streams need it. These definitions of the
 * libarchive calls core/archive*.c make load the library with dlopen on the first call and
 * forward to it; the prototypes are libarchive's own header's. archive_set_error (variadic) is
 * forwarded as its formatted text. */
#include "core/archive_lazy.h"

#include <archive.h>
#include <archive_entry.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>

#define ARCHIVE_SONAME "libarchive.so.13" /* the ABI these headers describe */

static char why[256];
static bool loaded;
static void *lib;

static void (*fn_archive_entry_copy_stat)(struct archive_entry *e, const struct stat *st);
static __LA_MODE_T (*fn_archive_entry_filetype)(struct archive_entry *e);
static void (*fn_archive_entry_free)(struct archive_entry *e);
static const char *(*fn_archive_entry_hardlink)(struct archive_entry *e);
static time_t (*fn_archive_entry_mtime)(struct archive_entry *e);
static long (*fn_archive_entry_mtime_nsec)(struct archive_entry *e);
static struct archive_entry *(*fn_archive_entry_new)(void);
static const char *(*fn_archive_entry_pathname)(struct archive_entry *e);
static __LA_MODE_T (*fn_archive_entry_perm)(struct archive_entry *e);
static void (*fn_archive_entry_set_gid)(struct archive_entry *e, la_int64_t v);
static void (*fn_archive_entry_set_hardlink)(struct archive_entry *e, const char *v);
static void (*fn_archive_entry_set_nlink)(struct archive_entry *e, unsigned int v);
static void (*fn_archive_entry_set_pathname)(struct archive_entry *e, const char *v);
static void (*fn_archive_entry_set_size)(struct archive_entry *e, la_int64_t v);
static void (*fn_archive_entry_set_symlink)(struct archive_entry *e, const char *v);
static void (*fn_archive_entry_set_uid)(struct archive_entry *e, la_int64_t v);
static la_int64_t (*fn_archive_entry_size)(struct archive_entry *e);
static void (*fn_archive_entry_sparse_add_entry)(struct archive_entry *e, la_int64_t off,
                                                 la_int64_t len);
static const char *(*fn_archive_entry_symlink)(struct archive_entry *e);
static const char *(*fn_archive_error_string)(struct archive *a);
static int (*fn_archive_read_data_block)(struct archive *a, const void **buf, size_t *size,
                                         la_int64_t *off);
static int (*fn_archive_read_free)(struct archive *a);
static struct archive *(*fn_archive_read_new)(void);
static int (*fn_archive_read_next_header)(struct archive *a, struct archive_entry **e);
static int (*fn_archive_read_open)(struct archive *a, void *ud, archive_open_callback *o,
                                   archive_read_callback *r, archive_close_callback *c);
static int (*fn_archive_read_support_filter_gzip)(struct archive *a);
static int (*fn_archive_read_support_filter_none)(struct archive *a);
static int (*fn_archive_read_support_format_empty)(struct archive *a);
static int (*fn_archive_read_support_format_tar)(struct archive *a);
static int (*fn_archive_write_close)(struct archive *a);
static la_ssize_t (*fn_archive_write_data)(struct archive *a, const void *buf, size_t n);
static int (*fn_archive_write_free)(struct archive *a);
static int (*fn_archive_write_header)(struct archive *a, struct archive_entry *e);
static struct archive *(*fn_archive_write_new)(void);
static int (*fn_archive_write_open)(struct archive *a, void *ud, archive_open_callback *o,
                                    archive_write_callback *w, archive_close_callback *c);
static int (*fn_archive_write_set_bytes_in_last_block)(struct archive *a, int n);
static int (*fn_archive_write_set_bytes_per_block)(struct archive *a, int n);
static int (*fn_archive_write_set_format_pax_restricted)(struct archive *a);
static int (*fn_archive_write_set_options)(struct archive *a, const char *opts);
static void (*fn_archive_set_error)(struct archive *, int, const char *, ...);

static void *sym(const char *name)
{
    void *f = dlsym(lib, name);
    if (!f && loaded) {
        loaded = false;
        snprintf(why, sizeof why, "%s has no %s", ARCHIVE_SONAME, name);
    }
    return f;
}

static void load(void)
{
    lib = dlopen(ARCHIVE_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(why, sizeof why, "cannot load %s (tar transfers need libarchive): %s",
                 ARCHIVE_SONAME, dlerror());
        return;
    }
    loaded = true;
    *(void **)&fn_archive_entry_copy_stat = sym("archive_entry_copy_stat");
    *(void **)&fn_archive_entry_filetype = sym("archive_entry_filetype");
    *(void **)&fn_archive_entry_free = sym("archive_entry_free");
    *(void **)&fn_archive_entry_hardlink = sym("archive_entry_hardlink");
    *(void **)&fn_archive_entry_mtime = sym("archive_entry_mtime");
    *(void **)&fn_archive_entry_mtime_nsec = sym("archive_entry_mtime_nsec");
    *(void **)&fn_archive_entry_new = sym("archive_entry_new");
    *(void **)&fn_archive_entry_pathname = sym("archive_entry_pathname");
    *(void **)&fn_archive_entry_perm = sym("archive_entry_perm");
    *(void **)&fn_archive_entry_set_gid = sym("archive_entry_set_gid");
    *(void **)&fn_archive_entry_set_hardlink = sym("archive_entry_set_hardlink");
    *(void **)&fn_archive_entry_set_nlink = sym("archive_entry_set_nlink");
    *(void **)&fn_archive_entry_set_pathname = sym("archive_entry_set_pathname");
    *(void **)&fn_archive_entry_set_size = sym("archive_entry_set_size");
    *(void **)&fn_archive_entry_set_symlink = sym("archive_entry_set_symlink");
    *(void **)&fn_archive_entry_set_uid = sym("archive_entry_set_uid");
    *(void **)&fn_archive_entry_size = sym("archive_entry_size");
    *(void **)&fn_archive_entry_sparse_add_entry = sym("archive_entry_sparse_add_entry");
    *(void **)&fn_archive_entry_symlink = sym("archive_entry_symlink");
    *(void **)&fn_archive_error_string = sym("archive_error_string");
    *(void **)&fn_archive_read_data_block = sym("archive_read_data_block");
    *(void **)&fn_archive_read_free = sym("archive_read_free");
    *(void **)&fn_archive_read_new = sym("archive_read_new");
    *(void **)&fn_archive_read_next_header = sym("archive_read_next_header");
    *(void **)&fn_archive_read_open = sym("archive_read_open");
    *(void **)&fn_archive_read_support_filter_gzip = sym("archive_read_support_filter_gzip");
    *(void **)&fn_archive_read_support_filter_none = sym("archive_read_support_filter_none");
    *(void **)&fn_archive_read_support_format_empty = sym("archive_read_support_format_empty");
    *(void **)&fn_archive_read_support_format_tar = sym("archive_read_support_format_tar");
    *(void **)&fn_archive_write_close = sym("archive_write_close");
    *(void **)&fn_archive_write_data = sym("archive_write_data");
    *(void **)&fn_archive_write_free = sym("archive_write_free");
    *(void **)&fn_archive_write_header = sym("archive_write_header");
    *(void **)&fn_archive_write_new = sym("archive_write_new");
    *(void **)&fn_archive_write_open = sym("archive_write_open");
    *(void **)&fn_archive_write_set_bytes_in_last_block =
        sym("archive_write_set_bytes_in_last_block");
    *(void **)&fn_archive_write_set_bytes_per_block = sym("archive_write_set_bytes_per_block");
    *(void **)&fn_archive_write_set_format_pax_restricted =
        sym("archive_write_set_format_pax_restricted");
    *(void **)&fn_archive_write_set_options = sym("archive_write_set_options");
    *(void **)&fn_archive_set_error = sym("archive_set_error");
}

bool sm_archive_load(const char **err)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, load);
    if (!loaded && err)
        *err = why;
    return loaded;
}

/* Callers reach these only after sm_archive_load said yes (the transfer entry points ask);
 * the checks keep a mistaken caller from jumping through a null pointer. */

void archive_entry_copy_stat(struct archive_entry *e, const struct stat *st)
{
    if (sm_archive_load(NULL))
        fn_archive_entry_copy_stat(e, st);
}

__LA_MODE_T archive_entry_filetype(struct archive_entry *e)
{
    return sm_archive_load(NULL) ? fn_archive_entry_filetype(e) : 0;
}

void archive_entry_free(struct archive_entry *e)
{
    if (sm_archive_load(NULL))
        fn_archive_entry_free(e);
}

const char *archive_entry_hardlink(struct archive_entry *e)
{
    return sm_archive_load(NULL) ? fn_archive_entry_hardlink(e) : NULL;
}

time_t archive_entry_mtime(struct archive_entry *e)
{
    return sm_archive_load(NULL) ? fn_archive_entry_mtime(e) : 0;
}

long archive_entry_mtime_nsec(struct archive_entry *e)
{
    return sm_archive_load(NULL) ? fn_archive_entry_mtime_nsec(e) : 0;
}

struct archive_entry *archive_entry_new(void)
{
    return sm_archive_load(NULL) ? fn_archive_entry_new() : NULL;
}

const char *archive_entry_pathname(struct archive_entry *e)
{
    return sm_archive_load(NULL) ? fn_archive_entry_pathname(e) : NULL;
}

__LA_MODE_T archive_entry_perm(struct archive_entry *e)
{
    return sm_archive_load(NULL) ? fn_archive_entry_perm(e) : 0;
}

void archive_entry_set_gid(struct archive_entry *e, la_int64_t v)
{
    if (sm_archive_load(NULL))
        fn_archive_entry_set_gid(e, v);
}

void archive_entry_set_hardlink(struct archive_entry *e, const char *v)
{
    if (sm_archive_load(NULL))
        fn_archive_entry_set_hardlink(e, v);
}

void archive_entry_set_nlink(struct archive_entry *e, unsigned int v)
{
    if (sm_archive_load(NULL))
        fn_archive_entry_set_nlink(e, v);
}

void archive_entry_set_pathname(struct archive_entry *e, const char *v)
{
    if (sm_archive_load(NULL))
        fn_archive_entry_set_pathname(e, v);
}

void archive_entry_set_size(struct archive_entry *e, la_int64_t v)
{
    if (sm_archive_load(NULL))
        fn_archive_entry_set_size(e, v);
}

void archive_entry_set_symlink(struct archive_entry *e, const char *v)
{
    if (sm_archive_load(NULL))
        fn_archive_entry_set_symlink(e, v);
}

void archive_entry_set_uid(struct archive_entry *e, la_int64_t v)
{
    if (sm_archive_load(NULL))
        fn_archive_entry_set_uid(e, v);
}

la_int64_t archive_entry_size(struct archive_entry *e)
{
    return sm_archive_load(NULL) ? fn_archive_entry_size(e) : 0;
}

void archive_entry_sparse_add_entry(struct archive_entry *e, la_int64_t off, la_int64_t len)
{
    if (sm_archive_load(NULL))
        fn_archive_entry_sparse_add_entry(e, off, len);
}

const char *archive_entry_symlink(struct archive_entry *e)
{
    return sm_archive_load(NULL) ? fn_archive_entry_symlink(e) : NULL;
}

const char *archive_error_string(struct archive *a)
{
    return sm_archive_load(NULL) ? fn_archive_error_string(a) : why;
}

int archive_read_data_block(struct archive *a, const void **buf, size_t *size, la_int64_t *off)
{
    return sm_archive_load(NULL) ? fn_archive_read_data_block(a, buf, size, off) : ARCHIVE_FATAL;
}

int archive_read_free(struct archive *a)
{
    return sm_archive_load(NULL) ? fn_archive_read_free(a) : ARCHIVE_FATAL;
}

struct archive *archive_read_new(void)
{
    return sm_archive_load(NULL) ? fn_archive_read_new() : NULL;
}

int archive_read_next_header(struct archive *a, struct archive_entry **e)
{
    return sm_archive_load(NULL) ? fn_archive_read_next_header(a, e) : ARCHIVE_FATAL;
}

int archive_read_open(struct archive *a, void *ud, archive_open_callback *o,
                      archive_read_callback *r, archive_close_callback *c)
{
    return sm_archive_load(NULL) ? fn_archive_read_open(a, ud, o, r, c) : ARCHIVE_FATAL;
}

int archive_read_support_filter_gzip(struct archive *a)
{
    return sm_archive_load(NULL) ? fn_archive_read_support_filter_gzip(a) : ARCHIVE_FATAL;
}

int archive_read_support_filter_none(struct archive *a)
{
    return sm_archive_load(NULL) ? fn_archive_read_support_filter_none(a) : ARCHIVE_FATAL;
}

int archive_read_support_format_empty(struct archive *a)
{
    return sm_archive_load(NULL) ? fn_archive_read_support_format_empty(a) : ARCHIVE_FATAL;
}

int archive_read_support_format_tar(struct archive *a)
{
    return sm_archive_load(NULL) ? fn_archive_read_support_format_tar(a) : ARCHIVE_FATAL;
}

int archive_write_close(struct archive *a)
{
    return sm_archive_load(NULL) ? fn_archive_write_close(a) : ARCHIVE_FATAL;
}

la_ssize_t archive_write_data(struct archive *a, const void *buf, size_t n)
{
    return sm_archive_load(NULL) ? fn_archive_write_data(a, buf, n) : -1;
}

int archive_write_free(struct archive *a)
{
    return sm_archive_load(NULL) ? fn_archive_write_free(a) : ARCHIVE_FATAL;
}

int archive_write_header(struct archive *a, struct archive_entry *e)
{
    return sm_archive_load(NULL) ? fn_archive_write_header(a, e) : ARCHIVE_FATAL;
}

struct archive *archive_write_new(void)
{
    return sm_archive_load(NULL) ? fn_archive_write_new() : NULL;
}

int archive_write_open(struct archive *a, void *ud, archive_open_callback *o,
                       archive_write_callback *w, archive_close_callback *c)
{
    return sm_archive_load(NULL) ? fn_archive_write_open(a, ud, o, w, c) : ARCHIVE_FATAL;
}

int archive_write_set_bytes_in_last_block(struct archive *a, int n)
{
    return sm_archive_load(NULL) ? fn_archive_write_set_bytes_in_last_block(a, n) : ARCHIVE_FATAL;
}

int archive_write_set_bytes_per_block(struct archive *a, int n)
{
    return sm_archive_load(NULL) ? fn_archive_write_set_bytes_per_block(a, n) : ARCHIVE_FATAL;
}

int archive_write_set_format_pax_restricted(struct archive *a)
{
    return sm_archive_load(NULL) ? fn_archive_write_set_format_pax_restricted(a) : ARCHIVE_FATAL;
}

int archive_write_set_options(struct archive *a, const char *opts)
{
    return sm_archive_load(NULL) ? fn_archive_write_set_options(a, opts) : ARCHIVE_FATAL;
}

void archive_set_error(struct archive *a, int err, const char *fmt, ...)
{
    if (!sm_archive_load(NULL))
        return;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fn_archive_set_error(a, err, "%s", msg);
}
