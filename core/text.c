/* Control-character escaping for text shown on a terminal (see text.h). */
#include "core/text.h"

#include <locale.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "core/strbuf.h"

bool sm_text_is_control(uint32_t cp)
{
    return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || cp == 0x061c || cp == 0x200e ||
           cp == 0x200f || (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

/* Decodes one strict UTF-8 sequence at s (no overlongs, surrogates or values past U+10FFFF).
 * Returns its length, or 0 if the byte at s does not start one. */
static size_t utf8_decode(const unsigned char *s, uint32_t *cp)
{
    unsigned char c = s[0];
    size_t n;
    uint32_t v, min;
    if (c < 0x80) {
        *cp = c;
        return 1;
    } else if (c >= 0xc2 && c <= 0xdf) {
        n = 2, v = c & 0x1f, min = 0x80;
    } else if (c >= 0xe0 && c <= 0xef) {
        n = 3, v = c & 0x0f, min = 0x800;
    } else if (c >= 0xf0 && c <= 0xf4) {
        n = 4, v = c & 0x07, min = 0x10000;
    } else {
        return 0;
    }
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        v = (v << 6) | (s[i] & 0x3f);
    }
    if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
        return 0;
    *cp = v;
    return n;
}

/* The escape for the character at p (of length *adv), or NULL when it is shown as it is. */
static const char *escape_one(const unsigned char *p, size_t *adv, unsigned flags, char esc[8])
{
    uint32_t cp;
    size_t n = utf8_decode(p, &cp);
    if (n == 0) {
        *adv = 1;
        snprintf(esc, 8, "\\x%02x", p[0]);
        return esc;
    }
    *adv = n;
    if (!sm_text_is_control(cp))
        return NULL;
    if ((flags & SM_TEXT_KEEP_NEWLINES) && (cp == '\n' || cp == '\t'))
        return NULL;
    if (cp == '\n')
        return "\\n";
    if (cp == '\t')
        return "\\t";
    if (cp == '\r')
        return "\\r";
    if (cp < 0x80)
        snprintf(esc, 8, "\\x%02x", (unsigned)cp);
    else
        snprintf(esc, 8, "\\u%04x", (unsigned)cp);
    return esc;
}

size_t sm_text_escape_into(const char *s, char *dst, size_t len, unsigned flags)
{
    if (!len)
        return 0;
    size_t o = 0;
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    while (*p) {
        char esc[8];
        size_t adv;
        const char *e = escape_one(p, &adv, flags, esc);
        const char *piece = e ? e : (const char *)p;
        size_t plen = e ? strlen(e) : adv;
        if (o + plen >= len)
            break;
        memcpy(dst + o, piece, plen);
        o += plen;
        p += adv;
    }
    dst[o] = '\0';
    return o;
}

char *sm_text_escape(const char *s, unsigned flags)
{
    sm_strbuf b = {0};
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    while (*p) {
        const unsigned char *run = p;
        char esc[8];
        size_t adv = 0;
        const char *e = NULL;
        /* plain runs are copied in one append: this runs on every line the CLI prints */
        while (*p && !(e = escape_one(p, &adv, flags, esc)))
            p += adv;
        if (p > run)
            sm_strbuf_append(&b, run, (size_t)(p - run));
        if (e) {
            sm_strbuf_puts(&b, e);
            p += adv;
        }
    }
    return sm_strbuf_take(&b);
}

char *sm_text_json_safe(const char *json)
{
    sm_strbuf b = {0};
    const unsigned char *p = (const unsigned char *)(json ? json : "");
    while (*p) {
        uint32_t cp = 0;
        size_t n = *p >= 0x7f ? utf8_decode(p, &cp) : 1;
        if (*p >= 0x7f && n && sm_text_is_control(cp)) {
            sm_strbuf_printf(&b, "\\u%04x", (unsigned)cp);
        } else {
            if (!n)
                n = 1; /* not UTF-8: JSON cannot say it exactly, leave it to the reader */
            sm_strbuf_append(&b, p, n);
        }
        p += n;
    }
    return sm_strbuf_take(&b);
}

/* wcwidth answers for the thread's locale; the CLI runs in whatever locale it was given (often
 * C), so widths are asked in C.UTF-8 whatever the process's locale is. */
static locale_t utf8;
static void utf8_open(void)
{
    utf8 = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
}

static int cp_width(uint32_t cp)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, utf8_open);
    if (!utf8)
        return 1;
    locale_t old = uselocale(utf8);
    int w = wcwidth((wchar_t)cp);
    uselocale(old);
    return w < 0 ? 1 : w;
}

size_t sm_text_cols(const char *s, size_t max_cols, size_t *bytes)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t cols = 0;
    while (*p) {
        uint32_t cp;
        size_t n = utf8_decode(p, &cp);
        int w = n ? (cp < 0x7f ? (cp >= 0x20) : cp_width(cp)) : 1;
        if (cols + (size_t)w > max_cols)
            break;
        cols += (size_t)w;
        p += n ? n : 1;
    }
    if (bytes)
        *bytes = (size_t)(p - (const unsigned char *)s);
    return cols;
}
