/* Removes terminal queries (device attributes, cursor position and status reports, mode, colour,
 * clipboard and setting requests) from a byte stream. Replayed output of a re-attached session
 * goes through it: a query answered again would be typed into the shell by the terminal that
 * shows the replay. Everything else passes unchanged; a sequence split across chunks is held
 * back (at most SM_VTQ_HELD bytes) until it is complete. */
#ifndef SANDMAN_VTQUERY_H
#define SANDMAN_VTQUERY_H

#include <stddef.h>

#define SM_VTQ_HELD 64

typedef struct sm_vtq {
    int state;
    char seq[SM_VTQ_HELD]; /* the escape sequence read so far */
    size_t n;
    int pass; /* the sequence outgrew seq: it is no query, passed on as it comes */
} sm_vtq;

void sm_vtq_init(sm_vtq *q);

/* Filters len bytes of in into out (room for len + SM_VTQ_HELD bytes); returns the bytes
 * written. in and out may not overlap. */
size_t sm_vtq_filter(sm_vtq *q, const char *in, size_t len, char *out);

/* Ends the filtered part of the stream: writes what is held back (at most SM_VTQ_HELD bytes)
 * to out and returns its length. */
size_t sm_vtq_flush(sm_vtq *q, char *out);

#endif
