/* asciicast v2 recordings of terminal sessions (`asciinema play` compatible): a JSON header
 * line, then one [time, "o", data] line per output chunk and [time, "r", "COLSxROWS"] per
 * resize. Output bytes are written as valid UTF-8 (a sequence split across chunks is held
 * back until it is complete; invalid bytes become U+FFFD). Also reads a recording back. */
#ifndef SM_CAST_H
#define SM_CAST_H

#include <stddef.h>
#include <stdio.h>

#include "core/error.h"

typedef struct sm_cast {
    FILE *f;
    double start;    /* monotonic seconds */
    char pending[8]; /* an incomplete UTF-8 sequence from the last chunk */
    size_t npending;
} sm_cast;

/* Creates path (truncating) and writes the header. title and term may be NULL. */
int sm_cast_open(sm_cast *c, const char *path, int cols, int rows, const char *title,
                 const char *term, sm_error *err);
void sm_cast_output(sm_cast *c, const char *data, size_t len);
void sm_cast_resize(sm_cast *c, int cols, int rows);
void sm_cast_close(sm_cast *c);
int sm_cast_is_open(const sm_cast *c);

#endif
