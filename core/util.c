/* Small shared helpers: allocation, time, ids, files, the state directory. */
#include "core/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void oom_abort(size_t n)
{
    fprintf(stderr, "sandman: out of memory allocating %zu bytes\n", n);
    abort();
}

void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        oom_abort(n);
    return p;
}

void *xcalloc(size_t nmemb, size_t size)
{
    void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);
    if (!p)
        oom_abort(nmemb * size);
    return p;
}

void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        oom_abort(n);
    return q;
}

char *xstrdup(const char *s)
{
    char *p = strdup(s ? s : "");
    if (!p)
        oom_abort(strlen(s));
    return p;
}

char *xstrndup(const char *s, size_t n)
{
    char *p = strndup(s, n);
    if (!p)
        oom_abort(n);
    return p;
}

char *xvasprintf(const char *fmt, va_list ap)
{
    char *out;
    if (vasprintf(&out, fmt, ap) < 0)
        oom_abort(0);
    return out;
}

char *xasprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = xvasprintf(fmt, ap);
    va_end(ap);
    return s;
}

double sm_now_mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int sm_parse_duration(const char *s, double *out)
{
    double total = 0;
    const char *p = s;
    if (!p || !*p)
        return -1;
    while (*p) {
        char *end;
        double v = strtod(p, &end);
        if (end == p || !(v >= 0) || *p == '+' || *p == '-')
            return -1;
        double unit = 1;
        if (*end == 's')
            end++;
        else if (*end == 'm' && end[1] == 's')
            unit = 0.001, end += 2;
        else if (*end == 'm')
            unit = 60, end++;
        else if (*end == 'h')
            unit = 3600, end++;
        else if (*end == 'd')
            unit = 86400, end++;
        else if (*end == 'w')
            unit = 7 * 86400, end++;
        else if (*end)
            return -1;
        total += v * unit;
        p = end;
    }
    *out = total;
    return 0;
}

char *sm_find_beside_self(const char *const *rel, size_t n)
{
    char exe[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len <= 0)
        return NULL;
    exe[len] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash)
        *slash = '\0';
    for (size_t i = 0; i < n; i++) {
        char *p = xasprintf("%s/%s", exe, rel[i]), *real = realpath(p, NULL);
        free(p);
        if (real && access(real, X_OK) == 0)
            return real;
        free(real);
    }
    return NULL;
}

unsigned long long sm_proc_start(pid_t pid, char *state)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    if (sm_read_small(path, buf, sizeof buf) < 0)
        return 0;
    char *p = strrchr(buf, ')'); /* the command may hold spaces and parentheses */
    if (p && p[1] == ' ' && state)
        *state = p[2];
    for (int i = 0; i < 20 && p; i++)
        p = strchr(p + 1, ' ');
    return p ? strtoull(p + 1, NULL, 10) : 0;
}

void sm_sleep_s(double s, volatile sig_atomic_t *stop)
{
    if (s <= 0)
        return;
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR && !(stop && *stop)) {
    }
}

double sm_now_wall(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void sm_format_time(double epoch, char *buf, size_t len)
{
    time_t secs = (time_t)epoch;
    int ms = (int)((epoch - (double)secs) * 1000.0);
    if (ms < 0)
        ms = 0;
    if (ms > 999)
        ms = 999;
    struct tm tm;
    gmtime_r(&secs, &tm);
    snprintf(buf, len, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1,
             tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ms);
}

double sm_parse_time(const char *s)
{
    struct tm tm = {0};
    int ms = 0;
    if (!s)
        return -1;
    int n = sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d.%3dZ", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
                   &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &ms);
    if (n < 6)
        return -1;
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    return (double)timegm(&tm) + ms / 1000.0;
}

void sm_format_duration(double s, char *buf, size_t len)
{
    if (s < 0 || isnan(s))
        s = 0;
    if (s < 1.0) {
        snprintf(buf, len, "%dms", (int)(s * 1000.0 + 0.5));
    } else if (s < 60) {
        snprintf(buf, len, "%ds", (int)s);
    } else if (s < 3600) {
        snprintf(buf, len, "%dm%02ds", (int)s / 60, (int)s % 60);
    } else if (s < 86400) {
        snprintf(buf, len, "%dh%02dm", (int)s / 3600, ((int)s % 3600) / 60);
    } else {
        snprintf(buf, len, "%dd%02dh", (int)(s / 86400), (int)(fmod(s, 86400) / 3600));
    }
}

void sm_format_bytes(double b, char *buf, size_t len)
{
    static const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    if (b < 0)
        b = 0;
    while (b >= 1024.0 && u < 4) {
        b /= 1024.0;
        u++;
    }
    if (u == 0 || b >= 100 || b == floor(b))
        snprintf(buf, len, "%.0f%s", b, units[u]);
    else
        snprintf(buf, len, "%.1f%s", b, units[u]);
}

void sm_random_hex(char *buf, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    unsigned char raw[64];
    size_t need = (n + 1) / 2;
    if (need > sizeof raw)
        need = sizeof raw;
    if (getrandom(raw, need, 0) != (ssize_t)need) {
        /* getrandom cannot fail for small sizes once the pool is ready; fall back anyway. */
        unsigned seed = (unsigned)(sm_now_mono() * 1e9) ^ (unsigned)getpid();
        for (size_t i = 0; i < need; i++)
            raw[i] = (unsigned char)rand_r(&seed);
    }
    for (size_t i = 0; i < n && i / 2 < need; i++)
        buf[i] = hex[(i % 2) ? (raw[i / 2] & 0xf) : (raw[i / 2] >> 4)];
    buf[n] = '\0';
}

int sm_read_file(const char *path, char **out, size_t *len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t cap = 4096, n = 0;
    char *buf = xmalloc(cap);
    for (;;) {
        if (n + 1 >= cap) {
            cap *= 2;
            buf = xrealloc(buf, cap);
        }
        ssize_t r = read(fd, buf + n, cap - n - 1);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            int e = errno;
            free(buf);
            close(fd);
            errno = e;
            return -1;
        }
        if (r == 0)
            break;
        n += (size_t)r;
    }
    close(fd);
    buf[n] = '\0';
    *out = buf;
    if (len)
        *len = n;
    return 0;
}

int sm_write_all(int fd, const char *data, size_t len)
{
    while (len > 0) {
        ssize_t w = write(fd, data, len);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        data += w;
        len -= (size_t)w;
    }
    return 0;
}

int sm_write_file_atomic(const char *path, const char *data, size_t len, mode_t mode)
{
    char *tmp = xasprintf("%s.tmp.%d", path, (int)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
    if (fd < 0) {
        free(tmp);
        return -1;
    }
    if (sm_write_all(fd, data, len) < 0 || close(fd) < 0 || rename(tmp, path) < 0) {
        int e = errno;
        unlink(tmp);
        free(tmp);
        errno = e;
        return -1;
    }
    free(tmp);
    return 0;
}

int sm_mkdir_p(const char *path, mode_t mode)
{
    char buf[PATH_MAX];
    if (strlen(path) >= sizeof buf) {
        errno = ENAMETOOLONG;
        return -1;
    }
    strcpy(buf, path);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(buf, mode) < 0 && errno != EEXIST)
            return -1;
        *p = '/';
    }
    if (mkdir(buf, mode) < 0 && errno != EEXIST)
        return -1;
    return 0;
}

/* One directory being emptied by sm_rm_rf: its identity (to check that ".." leads back to
 * it), its name in its parent, and its subdirectories still to empty. */
typedef struct rm_frame {
    dev_t dev;
    ino_t ino;
    char *name;
    char **subdirs;
    size_t n, next;
} rm_frame;

typedef struct rm_walk {
    const char *path;
    rm_frame *stack;
    size_t depth, cap;
    char *left;
    size_t len;
    int rc;
} rm_walk;

/* Records the first thing that could not be removed: its path and why. */
static void rm_note(rm_walk *w, const char *name, int err)
{
    w->rc = -1;
    if (!w->left || w->left[0])
        return;
    size_t need = strlen(w->path) + (name ? strlen(name) + 1 : 0) + 1;
    for (size_t i = 1; i < w->depth; i++)
        need += strlen(w->stack[i].name) + 1;
    char *full = xmalloc(need), *o = full;
    o += sprintf(o, "%s", w->path);
    for (size_t i = 1; i < w->depth; i++)
        o += sprintf(o, "/%s", w->stack[i].name);
    if (name)
        sprintf(o, "/%s", name);
    const char *why = strerror(err);
    size_t room = w->len > strlen(why) + 8 ? w->len - strlen(why) - 8 : 0;
    if (strlen(full) <= room)
        snprintf(w->left, w->len, "%s (%s)", full, why);
    else /* the end of a deep path says where it is */
        snprintf(w->left, w->len, "...%s (%s)", full + strlen(full) - (room > 3 ? room - 3 : 0),
                 why);
    free(full);
}

/* Opens a directory to empty it; one its owner made unreadable (chmod 000) is given back to
 * its owner first, since we are that owner (or root). */
static int rm_open_dir(int parent, const char *name)
{
    int flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
    int fd = openat(parent, name, flags);
    if (fd < 0 && errno == EACCES && fchmodat(parent, name, 0700, AT_SYMLINK_NOFOLLOW) == 0)
        fd = openat(parent, name, flags);
    return fd;
}

/* unlinkat, retried once with write permission on a directory that denies it. */
static int rm_unlink(int dir, const char *name, int flags)
{
    if (unlinkat(dir, name, flags) == 0 || errno == ENOENT)
        return 0;
    if (errno != EACCES || fchmod(dir, 0700) < 0)
        return -1;
    return unlinkat(dir, name, flags) == 0 || errno == ENOENT ? 0 : -1;
}

static bool rm_is_dir(int dir, const struct dirent *de)
{
    struct stat st;
    if (de->d_type != DT_UNKNOWN)
        return de->d_type == DT_DIR;
    return fstatat(dir, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
}

/* Removes everything in the directory on top of the stack except its non-empty
 * subdirectories, which it lists in the frame for the walk to enter. */
static void rm_scan(rm_walk *w, int fd)
{
    rm_frame *f = &w->stack[w->depth - 1];
    int dup_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    DIR *d = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
    if (!d) {
        if (dup_fd >= 0)
            close(dup_fd);
        rm_note(w, NULL, errno);
        return;
    }
    size_t cap = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
            continue;
        bool dir = rm_is_dir(fd, de);
        if (rm_unlink(fd, de->d_name, dir ? AT_REMOVEDIR : 0) == 0)
            continue;
        if (!dir || (errno != ENOTEMPTY && errno != EEXIST)) {
            rm_note(w, de->d_name, errno);
            continue;
        }
        if (f->n == cap) {
            cap = cap ? cap * 2 : 8;
            f->subdirs = xrealloc(f->subdirs, cap * sizeof *f->subdirs);
        }
        f->subdirs[f->n++] = xstrdup(de->d_name);
    }
    closedir(d);
}

static void rm_push(rm_walk *w, int fd, const char *name)
{
    struct stat st;
    if (fstat(fd, &st) < 0)
        memset(&st, 0, sizeof st);
    if (w->depth == w->cap) {
        w->cap = w->cap ? w->cap * 2 : 64;
        w->stack = xrealloc(w->stack, w->cap * sizeof *w->stack);
    }
    w->stack[w->depth++] =
        (rm_frame){st.st_dev, st.st_ino, name ? xstrdup(name) : NULL, NULL, 0, 0};
    rm_scan(w, fd);
}

static void rm_pop(rm_walk *w)
{
    rm_frame *f = &w->stack[--w->depth];
    for (size_t i = 0; i < f->n; i++)
        free(f->subdirs[i]);
    free(f->subdirs);
    free(f->name);
}

/* Depth-first without recursion and with one descriptor open at a time, so no depth of tree
 * (an agent's 5000 nested directories) runs out of stack or descriptors. The walk climbs back
 * through ".." and checks it is the directory it came from, so a directory moved meanwhile
 * cannot lead it out of the tree. */
int sm_rm_rf_report(const char *path, char *left, size_t len)
{
    rm_walk w = {.path = path, .left = left, .len = len};
    if (left && len)
        left[0] = '\0';
    else
        w.left = NULL;
    struct stat st;
    if (lstat(path, &st) < 0)
        return errno == ENOENT ? 0 : (rm_note(&w, NULL, errno), -1);
    if (!S_ISDIR(st.st_mode)) {
        if (unlink(path) == 0 || errno == ENOENT)
            return 0;
        rm_note(&w, NULL, errno);
        return -1;
    }
    int fd = rm_open_dir(AT_FDCWD, path);
    if (fd < 0) {
        rm_note(&w, NULL, errno);
        return -1;
    }
    rm_push(&w, fd, NULL);
    while (w.depth > 0) {
        rm_frame *f = &w.stack[w.depth - 1];
        if (f->next < f->n) {
            const char *name = f->subdirs[f->next++];
            int child = rm_open_dir(fd, name);
            if (child < 0) {
                rm_note(&w, name, errno);
                continue;
            }
            close(fd);
            fd = child;
            rm_push(&w, fd, name);
            continue;
        }
        if (w.depth == 1) {
            close(fd);
            fd = -1;
            rm_pop(&w);
            break;
        }
        int up = openat(fd, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        rm_frame *parent = &w.stack[w.depth - 2];
        if (up < 0 || fstat(up, &st) < 0 || st.st_dev != parent->dev || st.st_ino != parent->ino) {
            rm_note(&w, NULL, up < 0 ? errno : ESTALE);
            if (up >= 0)
                close(up);
            close(fd);
            fd = -1;
            while (w.depth > 0)
                rm_pop(&w);
            break;
        }
        close(fd);
        fd = up;
        char *name = xstrdup(f->name);
        rm_pop(&w);
        if (rm_unlink(fd, name, AT_REMOVEDIR) < 0)
            rm_note(&w, name, errno);
        free(name);
    }
    if (fd >= 0)
        close(fd);
    free(w.stack);
    if (rmdir(path) < 0 && errno != ENOENT)
        rm_note(&w, NULL, errno);
    return w.rc;
}

int sm_rm_rf(const char *path)
{
    return sm_rm_rf_report(path, NULL, 0);
}

int sm_read_small_at(int dirfd, const char *name, char *buf, size_t len)
{
    int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = pread(fd, buf, len - 1, 0);
    int e = errno;
    close(fd);
    if (n < 0) {
        errno = e;
        return -1;
    }
    buf[n] = '\0';
    while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
        buf[--n] = '\0';
    return 0;
}

int sm_read_small(const char *path, char *buf, size_t len)
{
    return sm_read_small_at(AT_FDCWD, path, buf, len);
}

int sm_write_str(const char *path, const char *s)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int rc = sm_write_all(fd, s, strlen(s));
    int e = errno;
    close(fd);
    errno = e;
    return rc;
}

static char *g_state_dir;
static pthread_mutex_t g_state_lock = PTHREAD_MUTEX_INITIALIZER;

static const char *state_dir_locked(void);

const char *sm_state_dir(void)
{
    pthread_mutex_lock(&g_state_lock);
    const char *d = state_dir_locked();
    pthread_mutex_unlock(&g_state_lock);
    return d;
}

static const char *state_dir_locked(void)
{
    if (g_state_dir)
        return g_state_dir;
    const char *env = getenv("SANDMAN_STATE_DIR");
    if (env && *env) {
        g_state_dir = xstrdup(env);
    } else if ((env = getenv("XDG_STATE_HOME")) && *env) {
        g_state_dir = xasprintf("%s/sandman", env);
    } else {
        const char *home = getenv("HOME");
        if (!home || !*home) {
            struct passwd *pw = getpwuid(getuid());
            home = pw ? pw->pw_dir : "/tmp";
        }
        g_state_dir = xasprintf("%s/.local/state/sandman", home);
    }
    sm_mkdir_p(g_state_dir, 0700);
    return g_state_dir;
}

void sm_state_dir_reset(void)
{
    pthread_mutex_lock(&g_state_lock);
    free(g_state_dir);
    g_state_dir = NULL;
    pthread_mutex_unlock(&g_state_lock);
}

int sm_parse_long(const char *s, long *out)
{
    if (!s || !*s)
        return -1;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end)
        return -1;
    *out = v;
    return 0;
}

int sm_parse_double(const char *s, double *out)
{
    if (!s || !*s)
        return -1;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || *end || isnan(v) || isinf(v))
        return -1;
    *out = v;
    return 0;
}

bool sm_str_has_prefix(const char *s, const char *prefix)
{
    return s && prefix && strncmp(s, prefix, strlen(prefix)) == 0;
}

char *sm_utf8_clean(const char *s, size_t len)
{
    const unsigned char *u = (const unsigned char *)s;
    char *out = xmalloc(len * 3 + 1), *o = out;
    size_t i = 0;
    while (i < len) {
        unsigned char c = u[i];
        size_t n = c < 0x80             ? 1
                   : (c & 0xE0) == 0xC0 ? 2
                   : (c & 0xF0) == 0xE0 ? 3
                   : (c & 0xF8) == 0xF0 ? 4
                                        : 0;
        bool ok = n > 0 && i + n <= len && c != 0 && !(n == 2 && c < 0xC2);
        for (size_t k = 1; ok && k < n; k++)
            ok = (u[i + k] & 0xC0) == 0x80;
        if (ok && n == 3) { /* no overlong forms, no surrogates */
            unsigned cp =
                (unsigned)(c & 0x0F) << 12 | (unsigned)(u[i + 1] & 0x3F) << 6 | (u[i + 2] & 0x3F);
            ok = cp >= 0x800 && (cp < 0xD800 || cp > 0xDFFF);
        } else if (ok && n == 4) {
            unsigned cp = (unsigned)(c & 0x07) << 18 | (unsigned)(u[i + 1] & 0x3F) << 12 |
                          (unsigned)(u[i + 2] & 0x3F) << 6 | (u[i + 3] & 0x3F);
            ok = cp >= 0x10000 && cp <= 0x10FFFF;
        }
        if (ok) {
            memcpy(o, u + i, n);
            o += n;
            i += n;
        } else {
            memcpy(o, "\xEF\xBF\xBD", 3);
            o += 3;
            i++;
        }
    }
    *o = '\0';
    return out;
}

char *sm_shell_quote(const char *s)
{
    size_t n = 2;
    for (const char *p = s; *p; p++)
        n += (*p == '\'') ? 4 : 1;
    char *out = xmalloc(n + 1), *o = out;
    *o++ = '\'';
    for (const char *p = s; *p; p++) {
        if (*p == '\'') {
            memcpy(o, "'\\''", 4);
            o += 4;
        } else {
            *o++ = *p;
        }
    }
    *o++ = '\'';
    *o = '\0';
    return out;
}

char *sm_join_words(int argc, char *const argv[])
{
    size_t n = 1;
    for (int i = 0; i < argc; i++)
        n += strlen(argv[i]) + 1;
    char *out = xmalloc(n), *o = out;
    for (int i = 0; i < argc; i++) {
        size_t l = strlen(argv[i]);
        if (i)
            *o++ = ' ';
        memcpy(o, argv[i], l);
        o += l;
    }
    *o = '\0';
    return out;
}
