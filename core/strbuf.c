/* A growable byte buffer. */
#include "core/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

static void reserve(sm_strbuf *b, size_t extra)
{
    if (b->len + extra + 1 <= b->cap)
        return;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + extra + 1)
        cap *= 2;
    b->data = xrealloc(b->data, cap);
    b->cap = cap;
}

void sm_strbuf_append(sm_strbuf *b, const void *data, size_t len)
{
    reserve(b, len);
    if (len)
        memcpy(b->data + b->len, data, len);
    b->len += len;
    b->data[b->len] = '\0';
}

void sm_strbuf_puts(sm_strbuf *b, const char *s)
{
    sm_strbuf_append(b, s, strlen(s));
}

void sm_strbuf_printf(sm_strbuf *b, const char *fmt, ...)
{
    va_list ap, ap2;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n > 0) {
        reserve(b, (size_t)n);
        vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap2);
        b->len += (size_t)n;
    }
    va_end(ap2);
}

void sm_strbuf_reset(sm_strbuf *b)
{
    b->len = 0;
    if (b->data)
        b->data[0] = '\0';
}

char *sm_strbuf_take(sm_strbuf *b)
{
    char *out = b->data ? b->data : xstrdup("");
    b->data = NULL;
    b->len = b->cap = 0;
    return out;
}

void sm_strbuf_free(sm_strbuf *b)
{
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}
