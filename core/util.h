/* Small shared helpers: abort-on-failure allocation, time, ids, files and the state directory.
 * Nothing here touches providers or terminals. */
#ifndef SM_UTIL_H
#define SM_UTIL_H

#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define SM_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* Allocation wrappers: abort with a message on failure, so callers never check NULL. */
void *xmalloc(size_t n);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* Returns a malloc'd formatted string; caller frees. */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *xvasprintf(const char *fmt, va_list ap);

/* Time: monotonic seconds for durations, wall-clock seconds (UTC epoch) for records. */
double sm_now_mono(void);
double sm_now_wall(void);
/* Parses a duration such as 90, 1.5s, 250ms, 10m, 2h30m, 3d or 1w into seconds (>= 0);
 * -1 when it is not one. */
int sm_parse_duration(const char *s, double *out);
/* The first of the paths rel (relative to the directory of this program's binary) that is an
 * executable file, resolved (realpath); NULL when none is. */
char *sm_find_beside_self(const char *const *rel, size_t n);
/* A process's start time in clock ticks since boot (field 22 of /proc/PID/stat), 0 when it is
 * gone; its state letter (R, S, Z...) into *state when state is not NULL. */
unsigned long long sm_proc_start(pid_t pid, char *state);
/* Sleeps s seconds, resuming after signals, until done or (stop not NULL) *stop is set. */
void sm_sleep_s(double s, volatile sig_atomic_t *stop);
/* Formats an epoch time as RFC 3339 UTC with milliseconds into buf (>= 32 bytes). */
void sm_format_time(double epoch, char *buf, size_t len);
/* Parses RFC 3339 (as written by sm_format_time); returns -1 on error. */
double sm_parse_time(const char *s);
/* Human durations: "850ms", "42s", "3m12s", "2h05m", "3d04h". */
void sm_format_duration(double seconds, char *buf, size_t len);
/* Human sizes in binary units: "512B", "1.5KiB", "64MiB". */
void sm_format_bytes(double bytes, char *buf, size_t len);

/* Fills buf with n random lowercase hex characters plus NUL (buf must hold n + 1). */
void sm_random_hex(char *buf, size_t n);

/* Files. Each returns 0 on success, -1 with errno set. */
int sm_read_file(const char *path, char **out, size_t *len); /* *out malloc'd, NUL-terminated */
/* Writes all of data to fd (retrying short writes and EINTR). 0 or -1 (errno). */
int sm_write_all(int fd, const char *data, size_t len);
int sm_write_file_atomic(const char *path, const char *data, size_t len, mode_t mode);
int sm_mkdir_p(const char *path, mode_t mode);
int sm_rm_rf(const char *path);
/* sm_rm_rf that, when something cannot be removed, writes its path and why into left. */
int sm_rm_rf_report(const char *path, char *left, size_t len);
/* Reads a small file into buf (NUL-terminated, trailing newline stripped); -1 on error. */
int sm_read_small(const char *path, char *buf, size_t len);
int sm_read_small_at(int dirfd, const char *name, char *buf, size_t len);
/* Writes a string to an existing file (cgroup/proc knobs); -1 on error. */
int sm_write_str(const char *path, const char *s);

/* The state directory: $SANDMAN_STATE_DIR, else $XDG_STATE_HOME/sandman, else
 * ~/.local/state/sandman. Created on first use. Returned string is static. */
const char *sm_state_dir(void);
/* Forgets the cached state directory (tests change $SANDMAN_STATE_DIR). */
void sm_state_dir_reset(void);

/* Parses a strictly numeric string. Return 0 on success, -1 otherwise. */
int sm_parse_long(const char *s, long *out);
int sm_parse_double(const char *s, double *out);

bool sm_str_has_prefix(const char *s, const char *prefix);
/* A copy of len bytes as valid UTF-8 for JSON: invalid sequences and NUL bytes become U+FFFD.
 * Caller frees. */
char *sm_utf8_clean(const char *s, size_t len);
/* Quotes s for a POSIX shell (single quotes); caller frees. */
char *sm_shell_quote(const char *s);
/* Joins argv with spaces, as ssh does with the words of a remote command; caller frees. */
char *sm_join_words(int argc, char *const argv[]);

#endif
