/* Terminal queries taken out of a byte stream (vtquery.h). */
#include "core/vtquery.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

enum { Q_GROUND, Q_ESC, Q_CSI, Q_STR, Q_STR_ESC };

#define ESC 0x1b

void sm_vtq_init(sm_vtq *q)
{
    memset(q, 0, sizeof *q);
}

static bool csi_is_query(const char *s, size_t n)
{
    char final = s[n - 1];
    const char *b = s + 2, *end = s + n - 1;
    char prefix = (b < end && strchr("<=>?", *b)) ? *b++ : 0;
    long first = strtol(b, NULL, 10); /* stops at the first non-digit; 0 when none */
    char inter = 0;
    for (const char *c = b; c < end; c++)
        if (*c >= 0x20 && *c <= 0x2f)
            inter = *c;
    switch (final) {
    case 'c': return !inter && prefix != '?';                  /* device attributes */
    case 'n': return !inter && (prefix == 0 || prefix == '?'); /* status reports */
    case 'p': return inter == '$';                             /* DECRQM */
    case 'q': return prefix == '>';                            /* XTVERSION */
    case 'u': return prefix == '?';                            /* keyboard flags */
    case 'm': return prefix == '?';                            /* XTQMODKEYS */
    case 'S': return prefix == '?';                            /* XTSMGRAPHICS */
    case 'x': return !inter && prefix == 0;                    /* DECREQTPARM */
    case 't':                                                  /* window reports */
        return !inter && prefix == 0 &&
               ((first >= 13 && first <= 21 && first != 17) || first == 11);
    default: return false;
    }
}

/* A complete sequence held in q->seq: is it a query? */
static bool is_query(const sm_vtq *q)
{
    const char *s = q->seq;
    size_t n = q->n;
    if (n == 2 && s[1] == 'Z') /* DECID */
        return true;
    if (s[1] == '[')
        return n >= 3 && csi_is_query(s, n);
    if (s[1] == ']') { /* OSC N;...;? asks for a colour or the clipboard */
        size_t end = s[n - 1] == 0x07 ? n - 1 : n - 2;
        return end >= 4 && s[end - 1] == '?' && s[end - 2] == ';';
    }
    if (s[1] == 'P') /* DECRQSS, XTGETTCAP */
        return n >= 4 && (s[3] == 'q') && (s[2] == '$' || s[2] == '+');
    return false;
}

static size_t emit_held(sm_vtq *q, char *out)
{
    size_t n = q->pass ? 0 : q->n;
    memcpy(out, q->seq, n);
    q->n = 0;
    q->pass = 0;
    q->state = Q_GROUND;
    return n;
}

/* The sequence is complete: it goes out unless it is a query. */
static size_t complete(sm_vtq *q, char *out)
{
    if (!q->pass && is_query(q)) {
        q->n = 0;
        q->state = Q_GROUND;
        return 0;
    }
    return emit_held(q, out);
}

/* Holds c as part of the sequence; once it outgrows the buffer the sequence is passed on. */
static size_t hold(sm_vtq *q, char c, char *out)
{
    if (q->pass) {
        out[0] = c;
        return 1;
    }
    if (q->n < sizeof q->seq) {
        q->seq[q->n++] = c;
        return 0;
    }
    size_t w = q->n;
    memcpy(out, q->seq, w);
    out[w++] = c;
    q->n = 0;
    q->pass = 1;
    return w;
}

static size_t step(sm_vtq *q, char c, char *out)
{
    unsigned char u = (unsigned char)c;
    if (q->state != Q_GROUND && q->state != Q_STR && q->state != Q_STR_ESC &&
        (u == 0x18 || u == 0x1a)) { /* CAN, SUB: the sequence is abandoned */
        size_t w = emit_held(q, out);
        out[w++] = c;
        return w;
    }
    switch (q->state) {
    case Q_GROUND:
        if (u == ESC) {
            q->state = Q_ESC;
            return hold(q, c, out);
        }
        out[0] = c;
        return 1;
    case Q_ESC: {
        if (u == ESC) { /* a new sequence: the old one goes out */
            size_t w = emit_held(q, out);
            q->state = Q_ESC;
            return w + hold(q, c, out + w);
        }
        size_t w = hold(q, c, out);
        if (c == '[')
            q->state = Q_CSI;
        else if (strchr("]P^_X", c))
            q->state = Q_STR;
        else if (u < 0x20 || u > 0x2f) /* a final byte (intermediates keep it open) */
            w += complete(q, out + w);
        return w;
    }
    case Q_CSI: {
        if (u == ESC) {
            size_t w = emit_held(q, out);
            q->state = Q_ESC;
            return w + hold(q, c, out + w);
        }
        size_t w = hold(q, c, out);
        if (u >= 0x40 && u <= 0x7e)
            w += complete(q, out + w);
        return w;
    }
    case Q_STR: {
        size_t w = hold(q, c, out);
        if (u == ESC)
            q->state = Q_STR_ESC;
        else if (u == 0x07)
            w += complete(q, out + w);
        return w;
    }
    default: { /* Q_STR_ESC */
        if (c == '\\') {
            size_t w = hold(q, c, out);
            return w + complete(q, out + w);
        }
        /* ESC without '\\': the string ended there (passed on) and a new sequence begins */
        if (q->pass) { /* that ESC already went out: the new sequence passes on too */
            q->state = Q_ESC;
            return step(q, c, out);
        }
        q->n--; /* the ESC starts the next sequence */
        size_t w = emit_held(q, out);
        q->state = Q_ESC;
        q->seq[q->n++] = ESC;
        return w + step(q, c, out + w);
    }
    }
}

size_t sm_vtq_filter(sm_vtq *q, const char *in, size_t len, char *out)
{
    size_t w = 0;
    for (size_t i = 0; i < len; i++)
        w += step(q, in[i], out + w);
    return w;
}

size_t sm_vtq_flush(sm_vtq *q, char *out)
{
    return emit_held(q, out);
}
