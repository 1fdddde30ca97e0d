/* The launch file (<sandbox dir>/launch.conf): everything the supervisor needs to start one
 * sandbox, written by the client and read by the static supervisor. Plain "key=value" lines;
 * values escape backslash and newline ("\\", "\n"). Keys may repeat (cg=, env=, entry=).
 * libc only. */
#ifndef SM_LOCAL_LAUNCH_H
#define SM_LOCAL_LAUNCH_H

#include <stddef.h>
#include <stdio.h>

struct launch_kv {
    char *key;
    char *value;
};

struct launch {
    struct launch_kv *kv;
    size_t n;
};

int launch_read(const char *path, struct launch *l); /* 0 or -1 (errno) */
void launch_free(struct launch *l);
/* First value of key, or dflt. */
const char *launch_get(const struct launch *l, const char *key, const char *dflt);
long long launch_get_ll(const struct launch *l, const char *key, long long dflt);
/* All values of key (pointers into l); returns the count, at most max. */
size_t launch_get_all(const struct launch *l, const char *key, const char **out, size_t max);
/* Writes one escaped line to f. */
void launch_put(FILE *f, const char *key, const char *value);

#endif
