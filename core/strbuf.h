/* A growable byte buffer (always NUL-terminated) for output capture and message building. */
#ifndef SM_STRBUF_H
#define SM_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

typedef struct sm_strbuf {
    char *data; /* NUL-terminated; NULL until first append */
    size_t len;
    size_t cap;
} sm_strbuf;

void sm_strbuf_append(sm_strbuf *b, const void *data, size_t len);
void sm_strbuf_puts(sm_strbuf *b, const char *s);
void sm_strbuf_printf(sm_strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sm_strbuf_reset(sm_strbuf *b);
/* Hands the buffer to the caller (never NULL; "" when empty) and resets b. */
char *sm_strbuf_take(sm_strbuf *b);
void sm_strbuf_free(sm_strbuf *b);

#endif
